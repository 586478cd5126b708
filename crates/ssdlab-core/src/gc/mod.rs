//! Garbage collection: victim policies (which block) and schedulers (when the unit steps run).
//! The mechanics of a step (copy one page, erase one block) live in `ftl::gc_ops`.

mod policy;
mod scheduler;
pub mod victim_index;

pub use policy::{VictimPolicy, VICTIM_POLICIES};
pub use scheduler::{SchedulerKind, SCHEDULERS};
pub use victim_index::VictimIndex;
