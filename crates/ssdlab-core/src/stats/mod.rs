//! Statistics: HDR latency histograms, counters and the result of a run, and sampled time series.

mod latency;
mod result;
mod series;

pub use latency::{
    coarse_bin, Distribution, Distributions, LatencyRecorder, LatencyReport, LatencySummary,
    COARSE_BINS_PER_DECADE,
};
pub use result::{EraseStats, RequestCounts, SimResult};
pub use series::{SampleCursor, TimeSeries};
