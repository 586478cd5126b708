//! Statistics: HDR latency histograms, counters and the result of a run (with the typed sections
//! the device's layers report), and sampled time series.

mod fdp;
mod flash;
mod flows;
mod hybrid;
mod latency;
mod mapping;
mod rain;
mod result;
mod series;
mod wear;
mod write_cache;
mod zns;

pub use fdp::{FdpReport, HandleReport};
pub use flash::{ErrorReport, FlashReport, SchedulingReport, SuspendReport};
pub use flows::{FlowRecorder, FlowReport};
pub use hybrid::{DecisionPoint, HybridReport, RlState, SlcObservation, RL_BINS};
pub use latency::{
    coarse_bin, Distribution, Distributions, LatencyRecorder, LatencyReport, LatencySummary,
    LatencyTrack, COARSE_BINS_PER_DECADE,
};
pub use mapping::{MappingReport, WafSplit};
pub use rain::{RainReport, RainStats, TtflashReport};
pub use result::{LayerReports, RequestCounts, SimResult};
pub use series::{SampleCursor, TimeSeries};
pub use wear::{EnduranceReport, EraseStats, ReclaimReport, WearLevelingReport};
pub use write_cache::{PowerCut, WriteCacheReport};
pub use zns::{ZnsReport, ZoneCommands, ZoneViolations};
