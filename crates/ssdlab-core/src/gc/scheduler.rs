//! The GC-scheduler registry. A scheduler decides *when* GC unit steps (one page copy, one erase)
//! run; the engine executes them. `blocking` collects whole victims on demand.

/// GC scheduler, parsed from its registry name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    /// On-demand blocking GC: when a plane's free blocks fall below the threshold, collect whole
    /// victims (copy every valid page, erase) until the threshold is restored, occupying the plane.
    /// The "page-level" baseline of Kang et al. (TECS 2017) §2.
    Blocking,
}

/// (name, description) of every registered scheduler.
pub const SCHEDULERS: &[(&str, &str)] = &[("blocking", "collect whole victims on demand, blocking the plane")];

impl SchedulerKind {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "blocking" => Ok(SchedulerKind::Blocking),
            other => Err(format!(
                "unknown GC scheduler '{other}'; expected one of: {}",
                SCHEDULERS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            )),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::Blocking => "blocking",
        }
    }
}
