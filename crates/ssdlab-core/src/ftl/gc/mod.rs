//! Garbage-collection scheduling: when GC unit steps (one page copy, one erase) run. A scheduler
//! decides; its [`GcContext`] executes the steps on the FTL (`ftl::gc_ops`) and, when timing is
//! on, on the NAND time lines. Victim policies (which block) are data in `config` and indexes in
//! `ftl`.

pub mod algorithm1;
mod blocking;
mod context;
mod external;
pub mod idle_predict;
pub mod lazyrtgc;
mod observation;
pub mod partial;
pub mod rl_state;
pub mod rlgc;

pub use blocking::BlockingGc;
pub use context::{GcContext, GcScheduler, RequestInfo};
pub use external::ExternalScheduler;
pub use idle_predict::IdlePredict;
pub use lazyrtgc::LazyRtgc;
pub use observation::Observation;
pub use partial::lazyrtgc_quantum;
pub use rl_state::RlFeatures;
pub use rlgc::RlGc;

use crate::config::{DeviceConfig, SchedulerKind};
use crate::error::Result;

/// The scheduler registry: name → implementation. `seed` is the simulation seed (the RL agent
/// draws from `rng::stream(seed, "rl")`); errors come from loading `gc.rl.q_table`.
pub fn build_scheduler(
    kind: SchedulerKind,
    cfg: &DeviceConfig,
    seed: u64,
) -> Result<Box<dyn GcScheduler>> {
    Ok(match kind {
        SchedulerKind::Blocking => Box::new(BlockingGc),
        SchedulerKind::LazyRtgc => Box::new(LazyRtgc::new(cfg)),
        SchedulerKind::Rlgc => Box::new(RlGc::new(cfg, seed, false)?),
        SchedulerKind::RlgcAggressive => Box::new(RlGc::new(cfg, seed, true)?),
        SchedulerKind::IdleMa => Box::new(IdlePredict::new(cfg, false)),
        SchedulerKind::IdleEs => Box::new(IdlePredict::new(cfg, true)),
        SchedulerKind::External => Box::new(ExternalScheduler::new(cfg)),
    })
}
