//! `flash.scheduler` and `flash.max_passes`: the order a die serves its queued array
//! operations in. The mechanism is `flash::queue` (`flash::fair` for `fair`'s intensities).

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

/// Which queued operations a host operation may pass on its die (`flash.scheduler`).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum FlashScheduler {
    /// First come, first served: every operation waits for all reserved before it.
    #[default]
    Fcfs,
    /// Host reads pass programs (host and GC) and GC steps that have not started (MQSim's
    /// read-priority transaction scheduling, Tavakkol et al., FAST 2018).
    ReadFirst,
    /// Host reads and writes pass GC steps that have not started, page copy by page copy,
    /// except forced GC (Lee et al., IEEE TCAD 2013, "Preemptible I/O scheduling of garbage
    /// collection for solid state drives").
    PreemptibleGc,
    /// Several flows: a host operation of a flow that is low-intensity on its die passes
    /// queued host operations of high-intensity flows (the first of FLIN's three stages,
    /// fairness-aware queue insertion: Tavakkol et al., ISCA 2018; its priority arbitration
    /// and wait-balancing stages are not modelled). One flow: first come, first served.
    Fair,
}

crate::config::impl_registry!(
    FlashScheduler,
    "flash scheduler",
    "flash.scheduler",
    default
);

crate::config::impl_try_from_name!(FlashScheduler);

/// The default bound on how often one queued operation may be passed (`flash.max_passes`).
/// Lee et al. bound GC's postponement by free space (their soft and hard thresholds), which
/// reads alone never use up; a count keeps a read stream from postponing a GC step, or a host
/// program under `read-first`, for ever. Eight is our choice: at the defaults a GC copy
/// passed eight times waits some eight page reads (0.2–0.8 ms), under one erase.
pub const DEFAULT_MAX_PASSES: u32 = 8;
