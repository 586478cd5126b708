//! Run options: replay mode, timing on/off, preconditioning, sampling, seed.

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};
use crate::ftl::Precondition;
pub use crate::host::{Replay, DEFAULT_QUEUE_DEPTH};

/// Options of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimOptions {
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Model time (plane/die/channel time lines, latencies). Off: FTL only (WAF studies).
    #[serde(default = "yes")]
    pub timing: bool,
    #[serde(default = "default_replay")]
    pub replay: Replay,
    #[serde(default)]
    pub precondition: Option<Precondition>,
    /// Sampling period of the time series in simulated µs (timed runs).
    #[serde(default = "default_sample_us")]
    pub sample_interval_us: f64,
    /// Sampling period in host page writes (timing-free runs); 0 = logical pages / 20.
    #[serde(default)]
    pub sample_every_pages: u64,
    /// Stop after this many measured requests.
    #[serde(default)]
    pub max_requests: Option<u64>,
    /// Verify the FTL invariants every this many requests (0 = never; tests).
    #[serde(default)]
    pub check_every: u64,
    /// Keep the host's `/proc/diskstats` counters and derive the `iostat -x` fields every this
    /// many simulated µs, labelled with the GC ground truth (`sim::IostatRow`; timed runs; a
    /// whole number of 10 ms). `None`: off.
    #[serde(default)]
    pub iostat_interval_us: Option<f64>,
    /// Cut the power this many simulated µs after the first request (timed runs): requests
    /// arriving later are not served, and the result's `write_cache.power_cut` says what a
    /// volatile write cache lost (`None`: no cut).
    #[serde(default)]
    pub power_cut_us: Option<f64>,
}

fn yes() -> bool {
    true
}
fn default_seed() -> u64 {
    1
}
fn default_replay() -> Replay {
    Replay::OpenLoop { time_scale: 1.0 }
}
fn default_sample_us() -> f64 {
    100_000.0
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: default_seed(),
            timing: true,
            replay: default_replay(),
            precondition: None,
            sample_interval_us: default_sample_us(),
            sample_every_pages: 0,
            max_requests: None,
            check_every: 0,
            iostat_interval_us: None,
            power_cut_us: None,
        }
    }
}

impl SimOptions {
    pub fn validate(&self) -> Result<()> {
        let bad = |f: &str, m: String| Err(SsdError::config("options", format!("{f}: {m}")));
        match self.replay {
            Replay::OpenLoop { time_scale } if !(time_scale.is_finite() && time_scale > 0.0) => {
                return bad(
                    "time_scale",
                    format!("expected a positive factor, got {time_scale}"),
                )
            }
            Replay::ClosedLoop { queue_depth: 0 } => {
                return bad("queue_depth", "expected at least 1".into())
            }
            _ => {}
        }
        if let Some(p) = self.precondition {
            if !(p.random_passes.is_finite() && p.random_passes >= 0.0) {
                return bad(
                    "precondition.random_passes",
                    format!("expected a non-negative number, got {}", p.random_passes),
                );
            }
            if !(p.fill_fraction > 0.0 && p.fill_fraction <= 1.0) {
                return bad(
                    "precondition.fill_fraction",
                    format!("expected a fraction in (0, 1], got {}", p.fill_fraction),
                );
            }
        }
        if self.iostat_interval_us.is_some() && !self.timing {
            return bad(
                "iostat_interval_us",
                "the host view needs simulated time; it cannot be kept with timing off".into(),
            );
        }
        if let Some(t) = self.power_cut_us {
            if !self.timing {
                return bad(
                    "power_cut_us",
                    "a power cut happens at a simulated time; it needs timing on".into(),
                );
            }
            if !(t.is_finite() && t >= 0.0 && t <= crate::host::MAX_ARRIVAL_NS as f64 / 1e3) {
                return bad(
                    "power_cut_us",
                    format!("expected a time in µs from 0 to 4.6e15, got {t}"),
                );
            }
        }
        if !(self.sample_interval_us.is_finite() && self.sample_interval_us > 0.0) {
            return bad(
                "sample_interval_us",
                format!(
                    "expected a positive period, got {}",
                    self.sample_interval_us
                ),
            );
        }
        Ok(())
    }
}
