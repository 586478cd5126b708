//! Latency recording in HDR histograms (Gil Tene's HdrHistogram, via the `hdrhistogram` crate):
//! values in nanoseconds at three significant digits, so every reported percentile up to
//! p99.9999 is exact to three significant digits without keeping the samples.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::trace::OpKind;

/// An HDR histogram plus exact count, sum and max (the histogram's own max and mean are
/// rounded to its bucket; the exact ones make idle-device latencies compare exactly).
#[derive(Debug, Clone)]
struct Track {
    hist: Histogram<u64>,
    sum: u128,
    max: u64,
}

impl Track {
    fn new() -> Self {
        // 3 significant digits, auto-resizing range.
        let mut hist = Histogram::new(3).expect("3 significant figures is a valid HDR precision");
        hist.auto(true);
        Track {
            hist,
            sum: 0,
            max: 0,
        }
    }
    #[inline]
    fn record(&mut self, v: u64) {
        // With auto-resize, recording cannot fail for u64 values.
        let _ = self.hist.record(v);
        self.sum += u128::from(v);
        self.max = self.max.max(v);
    }
}

/// One histogram per operation type plus one over all requests.
#[derive(Debug, Clone)]
pub struct LatencyRecorder {
    read: Track,
    write: Track,
    trim: Track,
    all: Track,
}

/// The percentiles every result reports, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub p99_999: f64,
    pub p99_9999: f64,
    pub max: f64,
}

/// Summaries by type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencyReport {
    pub read: LatencySummary,
    pub write: LatencySummary,
    pub all: LatencySummary,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder {
            read: Track::new(),
            write: Track::new(),
            trim: Track::new(),
            all: Track::new(),
        }
    }
}

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, op: OpKind, latency_ns: u64) {
        let v = latency_ns.max(1);
        let h = match op {
            OpKind::Read => &mut self.read,
            OpKind::Write => &mut self.write,
            OpKind::Trim => &mut self.trim,
        };
        h.record(v);
        self.all.record(v);
    }

    pub fn report(&self) -> LatencyReport {
        LatencyReport {
            read: summarize(&self.read),
            write: summarize(&self.write),
            all: summarize(&self.all),
        }
    }

    /// Histogram buckets of one type as (value_us, count) pairs, for plots and CDFs.
    pub fn distribution(&self, op: Option<OpKind>) -> Vec<(f64, u64)> {
        let h = match op {
            Some(OpKind::Read) => &self.read,
            Some(OpKind::Write) => &self.write,
            Some(OpKind::Trim) => &self.trim,
            None => &self.all,
        };
        h.hist
            .iter_recorded()
            .map(|v| (v.value_iterated_to() as f64 / 1000.0, v.count_at_value()))
            .collect()
    }
}

/// Percentiles are the HDR histogram's (the highest value equivalent to the quantile's bucket,
/// within 0.1 %); count, mean and max are exact.
fn summarize(t: &Track) -> LatencySummary {
    let h = &t.hist;
    if h.is_empty() {
        return LatencySummary::default();
    }
    let q = |x: f64| (h.value_at_quantile(x).min(t.max)) as f64 / 1000.0;
    LatencySummary {
        count: h.len(),
        mean: (t.sum as f64 / h.len() as f64) / 1000.0,
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        p99_9: q(0.999),
        p99_99: q(0.9999),
        p99_999: q(0.99999),
        p99_9999: q(0.999999),
        max: t.max as f64 / 1000.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_three_significant_digits() {
        let mut r = LatencyRecorder::default();
        for i in 1..=100_000u64 {
            r.record(OpKind::Read, i * 1000); // 1 µs .. 100 ms
        }
        let s = r.report().read;
        assert_eq!(s.count, 100_000);
        for (got, want) in [
            (s.p50, 50_000.0),
            (s.p99, 99_000.0),
            (s.p99_9, 99_900.0),
            (s.max, 100_000.0),
        ] {
            assert!((got - want).abs() / want < 1e-3, "got {got}, want {want}");
        }
        assert_eq!(r.report().write.count, 0);
        assert_eq!(r.report().all.count, 100_000);
    }
}
