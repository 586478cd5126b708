//! `[ftl]` and `[gc]` sections: allocation, placement, the victim policy name and GC trigger.

use serde::{Deserialize, Serialize};

use super::partial::{PartialConfig, RlConfig};

/// How host pages are spread over planes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Allocation {
    /// Dynamic: each new page goes to the next plane in channel-first order (channel, then chip,
    /// die, plane), so consecutive pages use different channels (MQSim's CWDP order).
    RoundRobin,
    /// Static: plane = lpn mod planes (pages never leave their plane).
    Static,
}

/// Where written pages go inside a plane (write frontiers, a.k.a. streams).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// One frontier per plane shared by host writes and GC copies (the model of Desnoyers and of
    /// Shafaei & Desnoyers).
    Single,
    /// Host writes and GC copies go to separate frontiers (GC-copied data is colder).
    DualFrontier,
}

impl Placement {
    pub fn streams(self) -> usize {
        match self {
            Placement::Single => 1,
            Placement::DualFrontier => 2,
        }
    }
}

/// `[ftl]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    #[serde(default = "default_allocation")]
    pub allocation: Allocation,
    #[serde(default = "default_placement")]
    pub placement: Placement,
}

fn default_allocation() -> Allocation {
    Allocation::RoundRobin
}
fn default_placement() -> Placement {
    Placement::Single
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig { allocation: default_allocation(), placement: default_placement() }
    }
}

/// `[gc]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcConfig {
    /// Victim selection policy, by registry name (`ssdlab policies`): `greedy`, `cost-benefit`,
    /// `fifo`, `random`, `d-choices:d=N`.
    #[serde(default = "default_victim")]
    pub victim: String,
    /// GC scheduler by registry name (`gc::SCHEDULERS`): `blocking`, `lazyrtgc`, `rlgc`,
    /// `rlgc-aggressive`, `idle-ma`, `idle-es`, `external`.
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// GC runs on a plane while its free blocks are below this number (blocks per plane). The
    /// partial schedulers use it as the seed's T_GC (decide when free blocks ≤ T_GC, per plane).
    #[serde(default = "default_threshold")]
    pub threshold_blocks: u32,
    /// `[gc.rl]`: the RL-assisted schedulers (`rlgc`, `rlgc-aggressive`, `external`).
    #[serde(default)]
    pub rl: RlConfig,
    /// `[gc.partial]`: intensive GC, LazyRTGC and the idle-time predictors.
    #[serde(default)]
    pub partial: PartialConfig,
}

fn default_victim() -> String {
    "greedy".into()
}
fn default_scheduler() -> String {
    "blocking".into()
}
fn default_threshold() -> u32 {
    2
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            victim: default_victim(),
            scheduler: default_scheduler(),
            threshold_blocks: default_threshold(),
            rl: RlConfig::default(),
            partial: PartialConfig::default(),
        }
    }
}
