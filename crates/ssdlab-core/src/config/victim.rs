//! The victim-policy family (`gc.victim`): `greedy`, `cost-benefit`, `fifo`, `random`,
//! `d-choices:d=N`. Unknown names are errors listing the valid ones, never a silent fallback.
//! What each member *is* (its rule, paper and section) is one file in `victim/`; the online FTL
//! (`ftl::victim_index`) and the offline model (`offline::policies`) both read it from there.
//! A new member is its file there plus its variant here (see the `victim` module docs).

use std::fmt;

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoEnumIterator, IntoStaticStr};

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
    /// Fewest valid pages first (Kawaguchi et al., USENIX 1995).
    #[default]
    Greedy,
    /// Maximise age·(1−u)/(2u) (Rosenblum & Ousterhout, SOSP 1991 §3.5; Kawaguchi et al. 1995).
    CostBenefit,
    /// First filled, first cleaned, alias `lrw` (Desnoyers, ACM TOS 2014 §4).
    Fifo,
    /// A uniformly random full block (Van Houdt, SIGMETRICS 2013).
    Random,
    /// Fewest valid of d sampled blocks (Van Houdt, SIGMETRICS 2013 §3).
    DChoices { d: u32 },
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
        // `lrw` is FIFO's other name in the literature (Desnoyers 2014).
        let name = if name == "lrw" { "fifo" } else { name };
        let member = Self::iter().find(|m| m.name() == name).ok_or_else(|| {
            format!(
                "unknown victim policy '{s}'; expected one of: {}",
                Self::names()
            )
        })?;
        // Members with parameters parse them here; every other member takes none.
        match member {
            VictimPolicy::DChoices { .. } => {
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
            m => no_params(m),
        }
    }
}

impl fmt::Display for VictimPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VictimPolicy::DChoices { d } => write!(f, "d-choices:d={d}"),
            m => f.write_str(m.name()),
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
        assert_eq!(VictimPolicy::parse("lrw").unwrap(), VictimPolicy::Fifo);
    }
}
