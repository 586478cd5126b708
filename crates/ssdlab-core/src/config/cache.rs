//! `[cache]`: the hybrid SLC/QLC device (Yoo & Shin, "Reinforcement Learning-Based SLC Cache
//! Technique for Enhancing SSD Write Performance", HotStorage 2020). Any block can be used in
//! SLC mode (1 bit per cell: `pages_per_block / 4` pages, SLC timings) or in the device's native
//! QLC mode; a block changes mode only when erased. Setting `cache.slc` selects the hybrid
//! device model (`ftl/hybrid/`); without it the device is the plain model.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

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
    /// No SLC cache: every block in QLC mode (the paper's baseline, HotStorage 2020 slide 13).
    None,
    /// A fixed SLC region (`cache.slc_blocks`) and a fixed hot/cold threshold (`cache.theta_kib`)
    /// (the paper's "static scheme", slide 6).
    #[default]
    Static,
    /// Micron's dynamic write acceleration (2014): every write to SLC, the region a static part
    /// plus the free space, shrinking as the drive fills; a full region writes straight to QLC.
    Dwa,
    /// Utilisation-aware self-tuning (2016): region size and θ from a table of space
    /// utilisation tuned offline (`cache.ust_table`).
    Ust,
    /// The paper's Q-learning agent (slides 8-11): changes the region's size and θ every decision
    /// period to cut the write cost (`[cache.rl]`).
    Rl,
    /// An outside agent chooses (the Gymnasium environment `ssdlab/SlcCache-v1`).
    External,
}

crate::config::impl_registry!(SlcPolicyKind, "SLC-cache policy", "cache.slc", default);

crate::config::impl_try_from_name!(SlcPolicyKind);

/// The `[cache]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// The SLC-cache policy; absent: not a hybrid device.
    #[serde(default)]
    pub slc: Option<SlcPolicyKind>,
    /// Size of the SLC region in blocks (whole device), for the policies that take a size. The
    /// paper's slide 7 gives its table of sizes only as a figure (lost); the presets say why they
    /// pick theirs.
    #[serde(default = "default_slc_blocks")]
    pub slc_blocks: u32,
    /// Hot/cold threshold θ: a write request of at most θ KiB goes to SLC, a larger one to QLC
    /// (the paper after LAST, Lee et al. 2008: small writes tend to be hot). Slide 7 compares 64
    /// and 16 KiB; 64 KiB is the default.
    #[serde(default = "default_theta_kib")]
    pub theta_kib: u32,
    /// Migration (SLC) and GC (QLC) start when a region's free blocks fall to this many (the
    /// paper's trigger, slide 12: "# of free blocks of each region ≤ 5"), per plane.
    #[serde(default = "default_free_trigger")]
    pub free_trigger: u32,
    /// Migrate SLC data to QLC while the device is idle, as drives do; the paper's simulator
    /// migrates only on its trigger.
    #[serde(default)]
    pub idle_migration: bool,
    /// `dwa`: the fill level (mapped / logical pages) from which the SLC region is off. The
    /// white paper's value is not available to us; 0.9 is an assumption (see `ftl/hybrid/slc/dwa.rs`).
    #[serde(default = "default_dwa_off_fill")]
    pub dwa_off_fill: f64,
    /// `dwa`: the most blocks its dynamic part may have (0: all the free space). Its static
    /// part is `slc_blocks`.
    #[serde(default)]
    pub dwa_max_dynamic_blocks: u32,
    /// `ust`: the region (a fraction of the space the data leaves) and θ by space utilisation,
    /// rows by increasing `up_to`; the first row whose `up_to` is at least the utilisation
    /// applies (the last one above it). Default: tuned offline (see `default_ust_table`).
    #[serde(default = "default_ust_table")]
    pub ust_table: Vec<UstRow>,
    /// The policy decides every this many SLC blocks per plane of host page writes (the paper
    /// gives no period; one SLC block per plane is the finest step at which the region's use
    /// changes).
    #[serde(default = "one_u32")]
    pub decision_period_blocks: u32,
    /// `rl`: the Q-learning agent's parameters.
    #[serde(default)]
    pub rl: SlcRlConfig,
}

/// SLC region sizes the dynamic policies choose from, as fractions of the space the data leaves
/// (`ftl::hybrid::slc::CacheState::free_for_slc`): a fraction rather than a block count so one table
/// or Q-table fits every utilisation and device. The paper gives neither its sizes nor their unit
/// (slide 7's table is a lost figure); ours are none, then 1/16 doubling to 1/2, then 3/4 (the
/// PC-like stand-in's best static setting was the largest level tried when the top was 1/2).
/// The `yoo-qlc` static preset's 48 blocks sit between levels 0 and 1 at 50 % utilisation.
pub const SIZE_LEVELS: [f64; 6] = [0.0, 1.0 / 16.0, 1.0 / 8.0, 1.0 / 4.0, 1.0 / 2.0, 3.0 / 4.0];

/// Hot/cold thresholds θ the dynamic policies choose from, KiB (`u32::MAX`: every write goes to
/// SLC). Slide 7 compares 64 and 16 KiB; below one 16 KiB page a page-mapped device cannot tell
/// sizes apart, so the levels start there and double, with "all writes" last.
pub const THETA_LEVELS_KIB: [u32; 6] = [16, 32, 64, 128, 512, u32::MAX];

/// One row of `cache.ust_table`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UstRow {
    /// The row applies up to this space utilisation (mapped / logical pages).
    pub up_to: f64,
    /// SLC region as a fraction of the blocks the mapped data leaves free.
    pub slc_fraction: f64,
    /// θ, KiB (4294967295: every write).
    pub theta_kib: u32,
}

/// The default `ust` table: per utilisation, the static setting (size level and θ among the
/// dynamic policies' levels) with the best mean write throughput over the seeded PC-like and
/// YCSB-A-like stand-ins on `yoo-qlc`, found by `ssdlab experiment slc --tune-ust` (see
/// docs/slc.md for the run and its figures).
pub fn default_ust_table() -> Vec<UstRow> {
    let row = |up_to, slc_fraction, theta_kib| UstRow {
        up_to,
        slc_fraction,
        theta_kib,
    };
    // `ssdlab experiment slc --tune-ust` (12 GB per stand-in run, utilisations 0.3/0.5/0.7/0.9,
    // seed 0), 2026-11-23, with the preset's 4 KiB mapping unit: the largest size level and θ
    // 64 KiB win at every utilisation (with whole-page mapping θ 16 KiB had won at 90 %).
    vec![
        row(0.4, 0.75, 64),
        row(0.6, 0.75, 64),
        row(0.8, 0.75, 64),
        row(1.0, 0.75, 64),
    ]
}

/// `[cache.rl]`: the `rl` policy's Q-learning (see `ftl/hybrid/slc/rl.rs` for why each default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcRlConfig {
    /// Step size α and discount γ (open in the paper; ours 0.1 and 0.9).
    #[serde(default = "rl_alpha")]
    pub alpha: f64,
    #[serde(default = "rl_gamma")]
    pub gamma: f64,
    /// ε of the ε-greedy choice (slide 8: 0.07).
    #[serde(default = "rl_epsilon")]
    pub epsilon: f64,
    /// Size and θ levels at the start (indices into the levels; 2 and 2: 1/8 of the free space
    /// and 64 KiB).
    #[serde(default = "two")]
    pub start_size_level: usize,
    #[serde(default = "two")]
    pub start_theta_level: usize,
    /// A saved Q-table (JSON, `rl::QTable`, 1,296 x 9) to start from (pre-training, slide 17).
    #[serde(default)]
    pub q_table: Option<String>,
}

fn rl_alpha() -> f64 {
    0.1
}
fn rl_gamma() -> f64 {
    0.9
}
fn rl_epsilon() -> f64 {
    0.07
}
fn two() -> usize {
    2
}

impl Default for SlcRlConfig {
    fn default() -> Self {
        SlcRlConfig {
            alpha: rl_alpha(),
            gamma: rl_gamma(),
            epsilon: rl_epsilon(),
            start_size_level: two(),
            start_theta_level: two(),
            q_table: None,
        }
    }
}

fn one_u32() -> u32 {
    1
}

fn default_dwa_off_fill() -> f64 {
    0.9
}

/// Plane `plane`'s share of an SLC region of `blocks` spread over `planes`: evenly, the remainder
/// one block each on the first planes. The hybrid device sizes each plane's region by it
/// (`ftl::hybrid::HybridFtl`), and the configuration's advisories read the same shares.
pub fn plane_share(blocks: u32, planes: u32, plane: u32) -> u32 {
    blocks / planes + u32::from(plane < blocks % planes)
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
            decision_period_blocks: 1,
            ust_table: default_ust_table(),
            rl: SlcRlConfig::default(),
        }
    }
}

impl CacheConfig {
    /// The SLC-cache policy of a hybrid FTL (`cache.slc`; the family's default when unset).
    pub fn policy(&self) -> SlcPolicyKind {
        self.slc.unwrap_or_default()
    }

    pub fn is_default(&self) -> bool {
        *self == CacheConfig::default()
    }

    /// The `ust` table and the `rl` parameters: (field, what was expected) on error.
    pub(super) fn check_policies(&self) -> std::result::Result<(), (String, String)> {
        let bad = |f: &str, m: String| Err((f.to_string(), m));
        let rows = &self.ust_table;
        if rows.is_empty() {
            return bad(
                "cache.ust_table",
                "expected at least one row {up_to, slc_fraction, theta_kib}".into(),
            );
        }
        for (i, r) in rows.iter().enumerate() {
            let f = format!("cache.ust_table[{i}]");
            if !(r.up_to > 0.0 && r.up_to <= 1.0) {
                return bad(
                    &f,
                    format!("up_to: expected a utilisation in (0, 1], got {}", r.up_to),
                );
            }
            if !(0.0..=1.0).contains(&r.slc_fraction) {
                return bad(
                    &f,
                    format!(
                        "slc_fraction: expected a fraction in [0, 1], got {}",
                        r.slc_fraction
                    ),
                );
            }
            if r.theta_kib == 0 {
                return bad(&f, "theta_kib: expected at least 1 KiB".into());
            }
            if i > 0 && r.up_to <= rows[i - 1].up_to {
                return bad(&f, "up_to: expected to increase from row to row".into());
            }
        }
        if self.decision_period_blocks == 0 {
            return bad(
                "cache.decision_period_blocks",
                "expected at least 1 SLC block per plane".into(),
            );
        }
        let rl = &self.rl;
        if !(rl.alpha > 0.0 && rl.alpha <= 1.0) {
            return bad(
                "cache.rl.alpha",
                format!("expected a step size in (0, 1], got {}", rl.alpha),
            );
        }
        if !(0.0..1.0).contains(&rl.gamma) {
            return bad(
                "cache.rl.gamma",
                format!("expected a discount in [0, 1), got {}", rl.gamma),
            );
        }
        if !(0.0..=1.0).contains(&rl.epsilon) {
            return bad(
                "cache.rl.epsilon",
                format!("expected a probability in [0, 1], got {}", rl.epsilon),
            );
        }
        for (f, v) in [
            ("cache.rl.start_size_level", rl.start_size_level),
            ("cache.rl.start_theta_level", rl.start_theta_level),
        ] {
            if v >= SIZE_LEVELS.len().min(THETA_LEVELS_KIB.len()) {
                return bad(f, format!("expected a level 0 to 5, got {v}"));
            }
        }
        Ok(())
    }
}
