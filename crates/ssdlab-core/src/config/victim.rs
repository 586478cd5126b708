//! The victim-policy registry: one table maps names (`greedy`, `cost-benefit`, `fifo`, `random`,
//! `d-choices:d=N`) to policies. Unknown names are errors listing the valid ones, never a silent
//! fallback.

use std::fmt;

/// A victim selection policy, parsed from its registry name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VictimPolicy {
    /// Fewest valid pages first (the classic greedy cleaner; Kawaguchi et al., USENIX 1995;
    /// analysed by Bux & Iliadis 2010). O(1) amortised through per-plane buckets by valid count.
    Greedy,
    /// Maximise age·(1−u)/(2u): benefit (free space × age of the data) over cost (read + write
    /// of the valid fraction u). Rosenblum & Ousterhout, "The design and implementation of a
    /// log-structured file system" (SOSP 1991) §3.5; the flash form with cost 2u is Kawaguchi,
    /// Nishioka, Motoda, "A flash-memory based file system" (USENIX 1995). Age = pages written
    /// on the device since the block was filled.
    CostBenefit,
    /// First filled, first cleaned: least-recently-written (LRW), modelled by Desnoyers,
    /// "Analytic models of SSD write performance" (ACM TOS 2014) §4.
    Fifo,
    /// A uniformly random full block (Desnoyers 2014; Van Houdt, SIGMETRICS 2013).
    Random,
    /// Sample d full blocks uniformly (with replacement), take the one with fewest valid pages:
    /// Van Houdt, "A mean field model for a class of garbage collection algorithms in flash-based
    /// solid state drives" (SIGMETRICS 2013) §3.
    DChoices { d: u32 },
}

/// (name, description) of every registered policy; `ssdlab policies` prints this table.
pub const VICTIM_POLICIES: &[(&str, &str)] = &[
    ("greedy", "fewest valid pages (O(1) amortised buckets)"),
    (
        "cost-benefit",
        "max age*(1-u)/(2u) (Rosenblum & Ousterhout 1991; Kawaguchi 1995)",
    ),
    (
        "fifo",
        "least recently written block first (Desnoyers 2014 LRW)",
    ),
    ("random", "uniformly random full block"),
    (
        "d-choices:d=N",
        "best of N random full blocks (Van Houdt 2013)",
    ),
];

impl VictimPolicy {
    /// Parse a registry name such as `greedy` or `d-choices:d=8`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (name, params) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let no_params = |p: VictimPolicy| match params {
            None => Ok(p),
            Some(_) => Err(format!("policy '{name}' takes no parameters, got '{s}'")),
        };
        match name {
            "greedy" => no_params(VictimPolicy::Greedy),
            "cost-benefit" => no_params(VictimPolicy::CostBenefit),
            "fifo" | "lrw" => no_params(VictimPolicy::Fifo),
            "random" => no_params(VictimPolicy::Random),
            "d-choices" => {
                let p = params.ok_or_else(|| {
                    "d-choices needs its parameter, e.g. d-choices:d=4".to_string()
                })?;
                let d = p
                    .strip_prefix("d=")
                    .and_then(|v| v.parse::<u32>().ok())
                    .filter(|d| *d >= 1)
                    .ok_or_else(|| format!("d-choices: expected d=N with N ≥ 1, got '{p}'"))?;
                Ok(VictimPolicy::DChoices { d })
            }
            _ => Err(format!(
                "unknown victim policy '{s}'; expected one of: {}",
                VICTIM_POLICIES
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

impl fmt::Display for VictimPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VictimPolicy::Greedy => write!(f, "greedy"),
            VictimPolicy::CostBenefit => write!(f, "cost-benefit"),
            VictimPolicy::Fifo => write!(f, "fifo"),
            VictimPolicy::Random => write!(f, "random"),
            VictimPolicy::DChoices { d } => write!(f, "d-choices:d={d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in ["greedy", "cost-benefit", "fifo", "random", "d-choices:d=4"] {
            assert_eq!(VictimPolicy::parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let e = VictimPolicy::parse("greedyy").unwrap_err();
        assert!(e.contains("greedy") && e.contains("d-choices"), "{e}");
        assert!(VictimPolicy::parse("d-choices").is_err());
        assert!(VictimPolicy::parse("d-choices:d=0").is_err());
        assert!(VictimPolicy::parse("greedy:x=1").is_err());
    }
}
