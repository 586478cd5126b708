//! The GC-scheduler registry. A scheduler decides *when* GC unit steps (one page copy, one erase)
//! run; the engine executes them. `blocking` collects whole victims on demand; the others run
//! partial GC (`gc::partial`) after requests.

/// GC scheduler, parsed from its registry name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    /// On-demand blocking GC: when a plane's free blocks fall below the threshold, collect whole
    /// victims (copy every valid page, erase) until the threshold is restored, occupying the plane.
    /// The "page-level" baseline of Kang et al. (TECS 2017) §2.
    Blocking,
    /// LazyRTGC (Zhang et al., TODAES 2015): α-copy partial tasks after write requests.
    LazyRtgc,
    /// RL-assisted GC, baseline (Kang et al., TECS 2017 §5.2, Algorithm 1).
    Rlgc,
    /// RL-assisted GC with max-limited early triggering and read-initiated GC (§5.3).
    RlgcAggressive,
    /// Partial GC sized to the idle time predicted by a moving average (§6.2, Tables 11–12).
    IdleMa,
    /// Partial GC sized to the idle time predicted by exponential smoothing (§6.2).
    IdleEs,
    /// Decisions supplied from outside (`Simulation::advance_to_decision` / `apply_decision`).
    External,
}

/// (name, description) of every registered scheduler.
pub const SCHEDULERS: &[(&str, &str)] = &[
    (
        "blocking",
        "collect whole victims on demand, blocking the plane",
    ),
    (
        "lazyrtgc",
        "LazyRTGC: alpha-copy partial tasks after each write (Zhang et al. 2015)",
    ),
    (
        "rlgc",
        "RL-assisted partial GC, baseline (Kang, Shin, Yoo 2017, Alg. 1)",
    ),
    (
        "rlgc-aggressive",
        "RL-assisted GC + early max-limited and read-initiated GC (Kang 2017 §5.3)",
    ),
    (
        "idle-ma",
        "partial GC sized to the idle time predicted by a moving average",
    ),
    (
        "idle-es",
        "partial GC sized to the idle time predicted by exponential smoothing",
    ),
    (
        "external",
        "partial GC decided outside (Gymnasium environment): advance_to_decision/apply_decision",
    ),
];

const KINDS: &[SchedulerKind] = &[
    SchedulerKind::Blocking,
    SchedulerKind::LazyRtgc,
    SchedulerKind::Rlgc,
    SchedulerKind::RlgcAggressive,
    SchedulerKind::IdleMa,
    SchedulerKind::IdleEs,
    SchedulerKind::External,
];

impl SchedulerKind {
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        match SCHEDULERS.iter().position(|(n, _)| *n == s) {
            Some(i) => Ok(KINDS[i]),
            None => Err(format!(
                "unknown GC scheduler '{s}'; expected one of: {}",
                SCHEDULERS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    pub fn name(self) -> &'static str {
        let i = KINDS.iter().position(|k| *k == self).unwrap_or(0);
        SCHEDULERS[i].0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(KINDS.len(), SCHEDULERS.len());
        for (n, _) in SCHEDULERS {
            assert_eq!(SchedulerKind::parse(n).unwrap().name(), *n);
        }
        assert!(SchedulerKind::parse("rl")
            .unwrap_err()
            .contains("rlgc-aggressive"));
    }
}
