//! Statistics: HDR latency histograms, counters and the result of a run, and sampled time series.

mod breakdown;
mod latency;
mod result;
mod series;

pub use breakdown::ReadBreakdown;
pub use latency::{Distribution, Distributions, LatencyRecorder, LatencyReport, LatencySummary};
pub use result::{EraseStats, RequestCounts, SimResult};
pub use series::{SampleCursor, TimeSeries};
