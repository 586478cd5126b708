//! The victim-policy family (`gc.victim`): `greedy`, `cost-benefit`, `fifo`, `random`,
//! `d-choices:d=N`. Unknown names are errors listing the valid ones, never a silent fallback.
//! The online FTL (`ftl::victim_index`) and the offline model (`offline::policies`) implement
//! the same members.

use std::fmt;

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

use super::registry::Registry;

/// A victim selection policy, written as its name (`"d-choices:d=8"` with its parameter).
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
#[serde(try_from = "String", into = "String")]
pub enum VictimPolicy {
    /// Fewest valid pages first (the classic greedy cleaner; Kawaguchi et al., USENIX 1995;
    /// analysed by Bux & Iliadis 2010). O(1) amortised through per-plane buckets by valid count.
    #[default]
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

/// The cost-benefit score of a block (Rosenblum & Ousterhout 1991 §3.5; Kawaguchi et al. 1995):
/// age·(1−u)/(2u) with u = `valid` / `pages_per_block`; a block with no valid page is free space
/// at no cost (infinity). The one definition the online FTL and the offline model both use; the
/// age is theirs to define (pages written since the block was closed; since it was opened).
#[inline]
pub fn cost_benefit_score(valid: u32, pages_per_block: u32, age: f64) -> f64 {
    let u = f64::from(valid) / f64::from(pages_per_block);
    if u == 0.0 {
        f64::INFINITY
    } else {
        age * (1.0 - u) / (2.0 * u)
    }
}

impl Registry for VictimPolicy {
    const FAMILY: &'static str = "victim policy";
    const KEY: &'static str = "gc.victim";
    fn form(&self) -> String {
        match self {
            VictimPolicy::DChoices { .. } => "d-choices:d=N".into(),
            m => m.name().into(),
        }
    }
    fn default_member() -> Option<Self> {
        Some(VictimPolicy::default())
    }
}

impl TryFrom<String> for VictimPolicy {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        VictimPolicy::parse(&s)
    }
}

impl From<VictimPolicy> for String {
    fn from(p: VictimPolicy) -> String {
        p.to_string()
    }
}

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
                Self::names()
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
