//! `[ftl]` and `[gc]` sections: allocation, placement, the victim policy name and GC trigger.

use serde::{Deserialize, Serialize};

use super::partial::{PartialConfig, RlConfig};
use super::{CmtPolicy, MappingKind, SchedulerKind, VictimPolicy};

/// How host pages are spread over planes.
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Allocation {
    /// Dynamic: each new page goes to the next plane in channel-first order (channel, then chip,
    /// die, plane), so consecutive pages use different channels (MQSim's CWDP order).
    #[default]
    RoundRobin,
    /// Static: plane = lpn mod planes (pages never leave their plane).
    Static,
}

crate::config::impl_registry!(Allocation, "allocation", "ftl.allocation", default);

/// Where written pages go inside a plane (write frontiers, a.k.a. streams). Shafaei &
/// Desnoyers ("Near-Optimal Offline Cleaning for Flash-Based SSDs") conclude that placement
/// matters more than victim selection; these policies put that to the test.
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Placement {
    /// One frontier per plane shared by host writes and GC copies (the model of Desnoyers and of
    /// Shafaei & Desnoyers).
    #[default]
    Single,
    /// Host writes and GC copies go to separate frontiers (GC-copied data is colder).
    DualFrontier,
    /// `temperature_streams` host frontiers chosen by each page's own update interval (time
    /// since its previous write, in host writes), plus one GC frontier. 8 bytes per logical page.
    HotCold,
    /// Extent-based temperature identification in the spirit of ETI (Shafaei, Desnoyers,
    /// Fitzpatrick, "Write amplification reduction in flash-based SSDs through extent-based
    /// temperature identification", HotStorage 2016): fixed extents of `eti_extent_pages` pages
    /// keep an exponentially decayed write count; a page's expected update interval is derived
    /// from its extent's rate. ETI splits and merges extents adaptively; this keeps them fixed.
    Eti,
    /// The true next-write time of each page (future knowledge; workloads are materialised in
    /// memory to compute it): an upper reference for temperature-based placement.
    Oracle,
}

crate::config::impl_registry!(Placement, "placement", "ftl.placement", default);

/// The FTL layer's implementation (`ftl.kind`): one folder each in `ftl/`, built by
/// `device::Device::new`.
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum FtlKind {
    /// The page-mapped FTL with per-plane GC and a GC scheduler (`ftl::plain`).
    #[default]
    Plain,
    /// SLC/QLC block modes with an SLC cache (`ftl::hybrid`; Yoo & Shin, HotStorage 2020):
    /// its policy is `cache.slc`.
    Hybrid,
    /// RAIN parity over the channels, stripe-group GC, GC-tolerant reads, rotating GC
    /// (`ftl::rain`; Tiny-Tail Flash, Yan et al., FAST 2017): its settings are `[rain]`.
    Rain,
    /// An NVMe Zoned Namespace device: zones written at their write pointers and reset by the
    /// host, no device GC (`ftl::zoned`): its settings are `[zns]`.
    Zoned,
}

crate::config::impl_registry!(FtlKind, "FTL", "ftl.kind", default);

/// `[ftl]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Which FTL (`plain`, `hybrid`, `rain`): the layer's implementation, named.
    #[serde(default, skip_serializing_if = "is_plain")]
    pub kind: FtlKind,
    #[serde(default = "default_allocation")]
    pub allocation: Allocation,
    #[serde(default = "default_placement")]
    pub placement: Placement,
    /// Host frontiers of the temperature placements (hot-cold, eti, oracle), 1–8.
    #[serde(default = "default_temperature_streams")]
    pub temperature_streams: u32,
    /// Extent size of `eti`, in pages.
    #[serde(default = "default_extent")]
    pub eti_extent_pages: u32,
    /// The mapping unit, bytes: a power of two from 512 up to the page size (absent: the page
    /// size, one unit per page). Below the page size a flash page holds several units, as in
    /// real FTLs and MQSim's sector-level mapping (the SLC-cache seed maps 4 KiB units on
    /// 16 KiB pages): the FTL maps, invalidates and GC-copies units; a page is programmed when
    /// its last unit is written (the units before wait in the write buffer, see
    /// `ftl::plain::PlainFtl`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping_unit_bytes: Option<u32>,
    /// Where the map lives (`full`: all in DRAM; `cached`: DFTL's cached mapping table with
    /// translation pages on flash; `config::mapping`).
    #[serde(default, skip_serializing_if = "is_full")]
    pub mapping: MappingKind,
    /// The cached mapping table's capacity, in mappings (with `mapping = "cached"`; or
    /// `cmt_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmt_entries: Option<u64>,
    /// The cached mapping table's capacity, in bytes of controller memory (8 a mapping: its
    /// logical and physical page numbers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmt_bytes: Option<u64>,
    /// The cached mapping table's replacement (`lru`, DFTL's; `clock`, FEMU's); `lru` when
    /// not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmt_policy: Option<CmtPolicy>,
}

fn is_full(m: &MappingKind) -> bool {
    *m == MappingKind::Full
}

fn is_plain(k: &FtlKind) -> bool {
    *k == FtlKind::Plain
}

fn default_allocation() -> Allocation {
    Allocation::default()
}
fn default_placement() -> Placement {
    Placement::default()
}
fn default_temperature_streams() -> u32 {
    2
}
fn default_extent() -> u32 {
    256
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            kind: FtlKind::Plain,
            allocation: default_allocation(),
            placement: default_placement(),
            temperature_streams: default_temperature_streams(),
            eti_extent_pages: default_extent(),
            mapping_unit_bytes: None,
            mapping: MappingKind::Full,
            cmt_entries: None,
            cmt_bytes: None,
            cmt_policy: None,
        }
    }
}

impl FtlConfig {
    /// Write frontiers per plane.
    pub fn streams(&self) -> usize {
        match self.placement {
            Placement::Single => 1,
            Placement::DualFrontier => 2,
            _ => self.temperature_streams as usize + 1,
        }
    }

    pub fn check(&self) -> Result<(), (String, String)> {
        if !(1..=8).contains(&self.temperature_streams) {
            return Err((
                "ftl.temperature_streams".into(),
                format!("expected 1 to 8, got {}", self.temperature_streams),
            ));
        }
        if self.eti_extent_pages == 0 {
            return Err((
                "ftl.eti_extent_pages".into(),
                "expected a positive number of pages".into(),
            ));
        }
        self.check_mapping()
    }
}

/// `[gc]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcConfig {
    /// Victim selection policy (`ssdlab policies`): `greedy`, `cost-benefit`, `fifo`, `random`,
    /// `d-choices:d=N`.
    #[serde(default = "default_victim")]
    pub victim: VictimPolicy,
    /// GC scheduler (`ssdlab policies`): `blocking`, `lazyrtgc`, `rlgc`, `rlgc-aggressive`,
    /// `idle-ma`, `idle-es`, `external`.
    #[serde(default = "default_scheduler")]
    pub scheduler: SchedulerKind,
    /// GC runs on a plane while its free blocks are below this number (blocks per plane). The
    /// partial schedulers use it as the paper's T_GC (decide when free blocks ≤ T_GC, per plane).
    #[serde(default = "default_threshold")]
    pub threshold_blocks: u32,
    /// `[gc.rl]`: the RL-assisted schedulers (`rlgc`, `rlgc-aggressive`, `external`).
    #[serde(default)]
    pub rl: RlConfig,
    /// `[gc.partial]`: intensive GC, LazyRTGC and the idle-time predictors.
    #[serde(default)]
    pub partial: PartialConfig,
}

fn default_victim() -> VictimPolicy {
    VictimPolicy::default()
}
fn default_scheduler() -> SchedulerKind {
    SchedulerKind::default()
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
