//! Garbage collection: victim policies (which block) and schedulers (when the unit steps run).
//! The mechanics of a step (copy one page, erase one block) live in `ftl::gc_ops`.

pub mod idle_predict;
pub mod lazyrtgc;
pub mod partial;
mod policy;
pub mod rl_state;
pub mod rlgc;
mod scheduler;
pub mod victim_index;

pub use idle_predict::IdlePredict;
pub use lazyrtgc::LazyRtgc;
pub use partial::lazyrtgc_quantum;
pub use policy::{VictimPolicy, VICTIM_POLICIES};
pub use rl_state::RlFeatures;
pub use rlgc::RlGc;
pub use scheduler::{SchedulerKind, SCHEDULERS};
pub use victim_index::VictimIndex;
