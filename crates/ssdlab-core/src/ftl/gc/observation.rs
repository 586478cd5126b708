//! What an outside agent sees at a GC decision point of the `external` scheduler (Kang, Shin,
//! Yoo, TECS 2017 §5.2; the protocol is in `external`), apart from the scheduler so that the
//! scheduler interface can hand it over.

use serde::Serialize;

/// What the agent sees at a decision point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Observation {
    /// Interval before the previous request and before this one (µs).
    pub prev_interval_us: f64,
    pub interval_us: f64,
    /// Copies asked for at the previous decision.
    pub prev_action: u32,
    /// Fewest free blocks over the planes.
    pub free_blocks: u32,
    /// This request's response time (µs) and the paper's reward for it.
    pub response_us: f64,
    pub reward: f64,
    /// The paper's state index (Table 3 binning of `gc.rl`).
    pub state: u32,
    pub is_write: bool,
    /// Some plane's victim has no valid page left (the next non-zero action erases it).
    pub victim_ready: bool,
    /// Completion time of this request (µs of simulated time).
    pub time_us: f64,
    pub decisions: u64,
}
