//! `[cache]`: the hybrid SLC/QLC device (Yoo & Shin, "Reinforcement Learning-Based SLC Cache
//! Technique for Enhancing SSD Write Performance", HotStorage 2020). Any block can be used in
//! SLC mode (1 bit per cell: `pages_per_block / 4` pages, SLC timings) or in the device's native
//! QLC mode; a block changes mode only when erased. Setting `cache.slc` selects the hybrid
//! device model (`cache/`); without it the device is the plain model.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

use super::registry::Registry;

/// An SLC-cache policy: how big the SLC region is and which writes go to it, written as its
/// name (`--slc NAME`, `cache.slc`).
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
pub enum SlcPolicyKind {
    /// No SLC cache: every block in QLC mode (the seed's baseline, HotStorage 2020 slide 13).
    None,
    /// A fixed SLC region (`cache.slc_blocks`) and a fixed hot/cold threshold (`cache.theta_kib`)
    /// (the seed's "static scheme", slide 6).
    #[default]
    Static,
    /// Micron's dynamic write acceleration (2014): every write to SLC, the region a static part
    /// plus the free space, shrinking as the drive fills; a full region writes straight to QLC.
    Dwa,
}

crate::config::impl_registry!(SlcPolicyKind, "SLC-cache policy", "cache.slc", default);

impl TryFrom<String> for SlcPolicyKind {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Self::parse_name(&s)
    }
}

/// The `[cache]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// The SLC-cache policy; absent: not a hybrid device.
    #[serde(default)]
    pub slc: Option<SlcPolicyKind>,
    /// Size of the SLC region in blocks (whole device), for the policies that take a size. The
    /// seed's slide 7 gives its table of sizes only as a figure (lost); the presets say why they
    /// pick theirs.
    #[serde(default = "default_slc_blocks")]
    pub slc_blocks: u32,
    /// Hot/cold threshold θ: a write request of at most θ KiB goes to SLC, a larger one to QLC
    /// (the seed after LAST, Lee et al. 2008: small writes tend to be hot). Slide 7 compares 64
    /// and 16 KiB; 64 KiB is the default.
    #[serde(default = "default_theta_kib")]
    pub theta_kib: u32,
    /// Migration (SLC) and GC (QLC) start when a region's free blocks fall to this many (the
    /// seed's trigger, slide 12: "# of free blocks of each region ≤ 5"), per plane.
    #[serde(default = "default_free_trigger")]
    pub free_trigger: u32,
    /// Migrate SLC data to QLC while the device is idle, as drives do; the seed's simulator
    /// migrates only on its trigger.
    #[serde(default)]
    pub idle_migration: bool,
    /// `dwa`: the fill level (mapped / logical pages) from which the SLC region is off. The
    /// white paper's value is not available to us; 0.9 is an assumption (see `cache/slc/dwa.rs`).
    #[serde(default = "default_dwa_off_fill")]
    pub dwa_off_fill: f64,
    /// `dwa`: the most blocks its dynamic part may have (0: all the free space). Its static
    /// part is `slc_blocks`.
    #[serde(default)]
    pub dwa_max_dynamic_blocks: u32,
}

fn default_dwa_off_fill() -> f64 {
    0.9
}

fn default_slc_blocks() -> u32 {
    0
}
fn default_theta_kib() -> u32 {
    64
}
fn default_free_trigger() -> u32 {
    5
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            slc: None,
            slc_blocks: default_slc_blocks(),
            theta_kib: default_theta_kib(),
            free_trigger: default_free_trigger(),
            idle_migration: false,
            dwa_off_fill: default_dwa_off_fill(),
            dwa_max_dynamic_blocks: 0,
        }
    }
}

impl CacheConfig {
    pub fn is_default(&self) -> bool {
        *self == CacheConfig::default()
    }
}
