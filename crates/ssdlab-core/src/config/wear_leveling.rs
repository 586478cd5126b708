//! `[wear_leveling]`: how the FTL spreads erases over its blocks (issue 63; the FTL's part,
//! `ftl::map::wear_level`). Off by default: free blocks are opened in the order they were
//! erased, and cold data stays where it was written.
//!
//! - **Dynamic**: a frontier opens the least-worn free block of its plane (the usual first
//!   measure of controllers and of FTL textbooks; free blocks only, so cold data still pins
//!   the blocks it sits on).
//! - **Static**: the SW Leveler of Chang, Hsieh and Kuo ("Endurance enhancement of
//!   flash-memory storage systems: an efficient static wear leveling design", DAC 2007, §3).
//!   A block erasing table (BET) has one flag per set of `static_set_blocks` blocks (2^k in the
//!   paper), set when a block of the set is erased. `ecnt` counts erases and `fcnt` set flags
//!   since the table was last reset; when `ecnt / fcnt ≥ static_threshold` (T) the leveler
//!   picks the next set whose flag is clear and has its blocks collected, so their (cold) data
//!   moves and the young blocks return to the free pool. When every flag is set the table is
//!   reset. The paper leaves T and k to the designer; T = 100 and k = 0 (one block a flag) are
//!   the defaults here, our reading of its evaluation's middle setting.

use serde::{Deserialize, Serialize};

/// The `[wear_leveling]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WearLevelingConfig {
    /// Open the least-worn free block of the plane (else the longest free).
    #[serde(default)]
    pub dynamic: bool,
    /// Static wear levelling on.
    #[serde(default, rename = "static")]
    pub static_on: bool,
    /// T: erases per set flag (`ecnt / fcnt`) at which the leveler moves a set's data.
    #[serde(default = "default_threshold")]
    pub static_threshold: f64,
    /// Blocks a BET flag stands for (2^k): a power of two.
    #[serde(default = "default_set_blocks")]
    pub static_set_blocks: u32,
}

fn default_threshold() -> f64 {
    100.0
}
fn default_set_blocks() -> u32 {
    1
}

impl Default for WearLevelingConfig {
    fn default() -> Self {
        WearLevelingConfig {
            dynamic: false,
            static_on: false,
            static_threshold: default_threshold(),
            static_set_blocks: default_set_blocks(),
        }
    }
}

impl WearLevelingConfig {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Either kind on.
    pub fn on(&self) -> bool {
        self.dynamic || self.static_on
    }

    /// Field checks.
    pub(super) fn check(&self) -> Result<(), (String, String)> {
        if !(self.static_threshold.is_finite() && (1.0..=1e9).contains(&self.static_threshold)) {
            return Err((
                "wear_leveling.static_threshold".into(),
                format!(
                    "expected erases per set flag from 1 to 1e9 (Chang et al.'s T), got {}",
                    self.static_threshold
                ),
            ));
        }
        let k = self.static_set_blocks;
        if !(k.is_power_of_two() && k <= 1 << 16) {
            return Err((
                "wear_leveling.static_set_blocks".into(),
                format!("expected a power of two from 1 to 65536 (2^k blocks a flag), got {k}"),
            ));
        }
        Ok(())
    }
}

impl super::DeviceConfig {
    /// The field checks, and wear levelling's FTL ([`Self::plain_full_map_only`]).
    pub(crate) fn check_wear_leveling(&self) -> Result<(), (String, String)> {
        let w = &self.wear_leveling;
        w.check()?;
        if !w.on() {
            return Ok(());
        }
        let field = if w.dynamic {
            "wear_leveling.dynamic"
        } else {
            "wear_leveling.static"
        };
        self.plain_full_map_only(
            field,
            "wear levelling",
            "its translation blocks are not moved",
        )
    }
}
