//! Each flow's figures in a run of several (`host::flows`): its latency percentiles (from
//! submission to completion, the wait in its submission queue included), the queue wait alone,
//! its counts and its throughput over its own active span.

use serde::Serialize;

use super::{
    Distributions, LatencyRecorder, LatencyReport, LatencySummary, LatencyTrack, RequestCounts,
};
use crate::trace::OpKind;

/// What one flow recorded as it ran.
#[derive(Debug, Clone, Default)]
pub struct FlowRecorder {
    latency: LatencyRecorder,
    wait: LatencyTrack,
    zero_waits: u64,
    counts: RequestCounts,
    bytes_read: u64,
    bytes_written: u64,
    first_submission: Option<u64>,
    last_completion: u64,
}

impl FlowRecorder {
    /// A command of `op` and `bytes` submitted at `submitted`, fetched at `fetched`, completed
    /// at `completion` (ns; timed runs record latencies, timing-free ones counts only).
    pub fn record(&mut self, op: OpKind, bytes: u64, times: Option<(u64, u64, u64)>) {
        let c = &mut self.counts;
        match op {
            OpKind::Read => {
                c.read += 1;
                self.bytes_read += bytes;
            }
            OpKind::Write => {
                c.write += 1;
                self.bytes_written += bytes;
            }
            OpKind::Trim => c.trim += 1,
            OpKind::Flush => c.flush += 1,
        }
        c.total += 1;
        if let Some((submitted, fetched, completion)) = times {
            self.latency.record(op, completion - submitted);
            // Without a slot limit nothing waits: counted, not recorded one by one.
            match fetched - submitted {
                0 => self.zero_waits += 1,
                w => self.wait.record(w),
            }
            self.first_submission.get_or_insert(submitted);
            self.last_completion = self.last_completion.max(completion);
        }
    }

    pub fn report(
        &self,
        name: String,
        priority: &'static str,
        first_page: u64,
        pages: u64,
    ) -> FlowReport {
        let span_ns = self
            .first_submission
            .map_or(0, |f| self.last_completion.saturating_sub(f));
        let per_s = |n: f64| {
            if span_ns == 0 {
                0.0
            } else {
                n * 1e9 / span_ns as f64
            }
        };
        FlowReport {
            name,
            priority,
            first_page,
            pages,
            requests: self.counts,
            latency_us: self.latency.report(),
            queue_wait_us: {
                let mut w = self.wait.clone();
                w.record_n(0, self.zero_waits);
                w.summary()
            },
            span_s: span_ns as f64 / 1e9,
            iops: per_s(self.counts.total as f64),
            read_mib_s: per_s(self.bytes_read as f64 / (1 << 20) as f64),
            write_mib_s: per_s(self.bytes_written as f64 / (1 << 20) as f64),
            placement: None,
        }
    }

    /// Every type's latency distribution in logarithmic bins, for CCDFs.
    pub fn coarse(&self) -> Distributions {
        self.latency.coarse()
    }
}

/// One flow's results (`result.flows[i]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowReport {
    pub name: String,
    /// Its submission queue's NVMe priority class.
    pub priority: &'static str,
    /// Its logical pages: `[first_page, first_page + pages)`.
    pub first_page: u64,
    pub pages: u64,
    pub requests: RequestCounts,
    /// From submission to completion: the wait in its submission queue included.
    pub latency_us: LatencyReport,
    /// From submission until the controller fetched the command (arbitration and command
    /// slots: 0 without a slot limit).
    pub queue_wait_us: LatencySummary,
    /// From its first submission to its last completion, seconds.
    pub span_s: f64,
    /// Over its span.
    pub iops: f64,
    pub read_mib_s: f64,
    pub write_mib_s: f64,
    /// Its writes' placement identifier (FDP), when its spec gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<u16>,
}
