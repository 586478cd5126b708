//! How a workload's requests are submitted: at their own times (open loop) or as a fixed number
//! of outstanding requests allows (closed loop). The host interface (`host`) keeps the clock.

use serde::{Deserialize, Serialize};

/// How request arrival times are decided.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Replay {
    /// Requests arrive at their trace timestamps (rebased to the first), multiplied by
    /// `time_scale` (0.5 replays twice as fast).
    OpenLoop {
        #[serde(default = "one")]
        time_scale: f64,
    },
    /// `queue_depth` requests are outstanding at all times; each completion admits the next.
    ClosedLoop { queue_depth: u32 },
}

fn one() -> f64 {
    1.0
}
