//! Time series sampled over simulated time (or over page writes when timing is off): free
//! blocks, cumulative WAF, and GC activity per interval. Columns, for numpy at the boundary.

use serde::Serialize;

/// Column-oriented samples; every column has the same length.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TimeSeries {
    /// Simulated time of the sample, seconds (0 in timing-free mode).
    pub time_s: Vec<f64>,
    /// Host page writes so far (the x axis of timing-free runs).
    pub host_pages: Vec<u64>,
    /// Free blocks on the whole device.
    pub free_blocks: Vec<u64>,
    /// Cumulative write amplification so far.
    pub waf: Vec<f64>,
    /// GC page copies during the interval ending at this sample.
    pub gc_pages: Vec<u64>,
    /// Erases during the interval.
    pub erases: Vec<u64>,
    /// Requests completed during the interval.
    pub requests: Vec<u64>,
    /// Pages the write cache holds that flash does not have (dirty or being flushed): at risk
    /// in a power cut with a volatile cache. Empty without a write cache.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dirty_pages: Vec<u64>,
}

impl TimeSeries {
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

/// Running totals at the previous sample, to difference into per-interval figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct SampleCursor {
    pub gc_pages: u64,
    pub erases: u64,
    pub requests: u64,
}
