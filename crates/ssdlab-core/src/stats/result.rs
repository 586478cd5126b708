//! The result of a simulation: what `ssdlab run --json` writes and `ssdlab.simulate` returns.

use serde::Serialize;

use super::{
    FlashReport, HybridReport, LatencyReport, MappingReport, RainReport, TimeSeries,
    WriteCacheReport,
};

/// Requests by type (measured phase only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RequestCounts {
    pub read: u64,
    pub write: u64,
    pub trim: u64,
    /// Flush commands (present when the workload has them).
    #[serde(skip_serializing_if = "is_zero")]
    pub flush: u64,
    pub total: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Everything a run measured. Counters cover the measured phase only (after preconditioning).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SimResult {
    pub device: String,
    pub workload: String,
    pub seed: u64,
    pub timing: bool,
    /// (host pages written + GC pages copied + translation pages written) / host pages written
    /// (translation pages: a cached map's, `ftl.mapping = "cached"`; none with the full map).
    pub waf: f64,
    pub host_pages_written: u64,
    pub host_pages_read: u64,
    pub gc_pages_copied: u64,
    pub erases: u64,
    pub erase_per_block: super::EraseStats,
    /// Victims collected (GC invocations at block granularity).
    pub gc_invocations: u64,
    pub trimmed_pages: u64,
    pub unmapped_reads: u64,
    pub requests: RequestCounts,
    /// Requests at least one of whose page operations waited behind GC on its plane.
    pub blocked_requests: u64,
    /// Simulated time from the first arrival to the last completion, seconds.
    pub sim_time_s: f64,
    /// Simulated time from the first to the last arrival, seconds: `sim_time_s` much beyond it
    /// means the device did not keep up with the arrivals (an open-loop replay's queues grew).
    pub arrival_span_s: f64,
    /// Time planes spent on GC (copies and erases), summed over planes, seconds.
    pub gc_busy_s: f64,
    pub latency_us: LatencyReport,
    /// Host page writes done by preconditioning (not in the counters above).
    pub precondition_pages: u64,
    /// What the device's layers report, each its own section (absent for a layer that did not
    /// run): see [`LayerReports`].
    #[serde(flatten)]
    pub layers: LayerReports,
    /// The host file system's counters (`trace::FsStats`: bytes deleted, trimmed, still
    /// pending …) of a file-system workload; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_fs: Option<serde_json::Value>,
    /// Each flow's own figures, in the flows' order (runs of several flows,
    /// `WorkloadSpec::Flows`; absent otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<super::FlowReport>,
    #[serde(skip)]
    pub series: TimeSeries,
}

/// The sections the device's layers add to the result, one per layer implementation that has
/// something to say (each filled by its layer through `ftl::FtlLayer::report`; absent from the
/// JSON when `None`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LayerReports {
    /// The write cache: hit ratios, flushes, dirty pages, flash writes per host write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_cache: Option<WriteCacheReport>,
    /// The hybrid SLC/QLC FTL: host pages per mode, migration and GC, the write-time breakdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<HybridReport>,
    /// The RAIN FTL: its counters (stripes, parity, rebuilt reads …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rain: Option<RainReport>,
    /// The cached map (`ftl.mapping = "cached"`): CMT hit ratios, translation reads and
    /// writes, translation GC, WAF split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<MappingReport>,
    /// The flash layer with suspension (`flash.suspend`) or a scheduler (`flash.scheduler`)
    /// on: busy reads, suspensions, passes, the time they cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flash: Option<FlashReport>,
    /// Flexible Data Placement (`[fdp]`): the statistics log page's byte counts and each
    /// placement identifier's host pages and reclaim units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdp: Option<super::FdpReport>,
    /// A zoned device (`ftl.kind = "zoned"`): its zones, device and host WAF, zone commands
    /// and rule violations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zns: Option<super::ZnsReport>,
    /// Wear levelling (`[wear_leveling]`): its kinds and the static leveler's moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear_leveling: Option<super::WearLevelingReport>,
    /// Bad blocks and end of life (`[endurance]`): retired blocks, the spare left, and the
    /// host bytes written at the end of life.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endurance: Option<super::EnduranceReport>,
    /// Read reclaim (`reliability.reclaim_*`): the blocks it moved and their copies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_reclaim: Option<super::ReclaimReport>,
}
