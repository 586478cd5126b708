//! The hybrid SLC/QLC FTL's section of the result (`ftl::hybrid`; Yoo & Shin, HotStorage
//! 2020) and what it shows an outside agent at a decision point: data only, so that the
//! result (`SimResult::hybrid`) and the engine's decision stepping are typed without knowing
//! the layer.

use serde::Serialize;

/// What the hybrid device did during the measured run: where host pages went and where write
/// time went (the paper's Figure 16 breakdown), in total nanoseconds over host page writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HybridReport {
    pub slc_host_pages: u64,
    pub qlc_host_pages: u64,
    pub migrated_pages: u64,
    pub qlc_gc_pages: u64,
    pub slc_erases: u64,
    pub qlc_erases: u64,
    /// Host page writes' latency (ready to programmed), split into parts that add up: the
    /// plane time of the migration steps a write waited for, …
    pub migration_wait_ns: u64,
    /// … of the QLC GC steps it waited for, …
    pub gc_wait_ns: u64,
    /// … and the rest (queueing, transfer, program) of writes programmed in SLC, ns …
    pub slc_write_ns: u64,
    /// … and in QLC, ns.
    pub qlc_write_ns: u64,
    /// Plane time spent migrating (copies and SLC erases), ns.
    pub migration_busy_ns: u64,
    /// Blocks in SLC mode now, and the SLC region's size (filled in by `ftl::hybrid::HybridFtl`).
    pub slc_blocks: u32,
    pub slc_target: u32,
}

/// The SLC region's size and θ from one decision on (the paper's Figure 15 series).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DecisionPoint {
    /// Host pages written in the measured run when the decision was taken.
    pub host_pages: u64,
    /// Space utilisation then (mapped / logical pages).
    pub utilisation: f64,
    /// The region's size, blocks, and θ, KiB (`u64::MAX` pages shown as 0: every write).
    pub slc_blocks: u32,
    pub theta_kib: u64,
}

/// Bins per state feature of the `rl` SLC policy (the paper's 1,296 states: 6⁴).
pub const RL_BINS: usize = 6;

/// The four features of the `rl` SLC policy's state, binned (`ftl::hybrid::slc::rl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RlState {
    pub utilisation: usize,
    pub slc_hits: usize,
    pub size_level: usize,
    pub theta_level: usize,
}

impl RlState {
    /// The state's row in the Q-table.
    pub fn index(&self) -> usize {
        ((self.utilisation * RL_BINS + self.slc_hits) * RL_BINS + self.size_level) * RL_BINS
            + self.theta_level
    }
}

/// What an outside agent sees at an SLC decision point (`cache.slc = "external"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlcObservation {
    /// The binned state `rl` would see (utilisation, SLC hits, size level, θ level).
    pub state: RlState,
    pub utilisation: f64,
    pub slc_hit_ratio: f64,
    /// The reward of the period that just ended (`ftl::hybrid::slc::CacheState::reward`).
    pub reward: f64,
    pub slc_blocks: u32,
    pub slc_target: u32,
    pub theta_pages: u64,
    pub period_host_pages: u64,
}
