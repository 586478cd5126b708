//! The GC-scheduler family (`gc.scheduler`). A scheduler decides *when* GC unit steps (one page
//! copy, one erase) run; the device model executes them. `blocking` collects whole victims on
//! demand; the others run partial GC (`ftl::gc::partial`) after requests. Implementations: `ftl/gc/`,
//! built by `ftl::gc::build_scheduler`.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

/// A GC scheduler, written as its name.
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
pub enum SchedulerKind {
    /// Collect whole victims on demand, blocking the plane: when a plane's free blocks fall below
    /// the threshold, copy every valid page and erase until it is restored (the "page-level"
    /// baseline of Kang, Shin, Yoo, TECS 2017 §2).
    #[default]
    Blocking,
    /// LazyRTGC (Zhang et al., TODAES 2015): alpha-copy partial tasks after each write request.
    #[strum(serialize = "lazyrtgc")]
    LazyRtgc,
    /// RL-assisted partial GC, baseline (Kang, Shin, Yoo, TECS 2017 §5.2, Algorithm 1).
    Rlgc,
    /// RL-assisted GC with max-limited early triggering and read-initiated GC (Kang 2017 §5.3).
    RlgcAggressive,
    /// Partial GC sized to the idle time predicted by a moving average (Kang 2017 §6.2).
    IdleMa,
    /// Partial GC sized to the idle time predicted by exponential smoothing (Kang 2017 §6.2).
    IdleEs,
    /// Partial GC decided outside (the Gymnasium environment): advance_to_decision and
    /// apply_decision at the decision points of Algorithm 1.
    External,
}

crate::config::impl_registry!(SchedulerKind, "GC scheduler", "gc.scheduler", default);

crate::config::impl_try_from_name!(SchedulerKind);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Registry;

    use strum::IntoEnumIterator;

    #[test]
    fn names_round_trip() {
        for k in SchedulerKind::iter() {
            assert_eq!(SchedulerKind::parse_name(k.name()).unwrap(), k);
        }
        assert_eq!(SchedulerKind::LazyRtgc.name(), "lazyrtgc");
        let e = SchedulerKind::parse_name("rl").unwrap_err();
        assert!(
            e.contains("rlgc-aggressive") && e.contains("GC scheduler"),
            "{e}"
        );
    }
}
