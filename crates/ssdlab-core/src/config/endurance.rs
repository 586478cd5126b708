//! `[endurance]`: bad blocks and the end of a drive's life (issue 63; the FTL's part,
//! `ftl::map::endurance`). Off by default: no block is ever bad.
//!
//! - **Factory-bad blocks**: each block is bad from the start with probability
//!   `factory_bad_fraction` (drawn from the seed's `endurance` stream at build). NAND data
//!   sheets allow up to about 2 % of a die's blocks bad when shipped (the ONFI "minimum number of
//!   valid blocks" per LUN), so 0.02 is a realistic upper setting.
//! - **Grown-bad blocks**: a block is retired at the erase that brings its P/E cycles (its
//!   erases plus `reliability.initial_pe`) to `retire_pe`, and any erase fails, retiring its
//!   block, with probability `erase_fail_probability`. A page program fails with probability
//!   `program_fail_probability`: its block's data is moved and the block retires at its erase.
//!   A retired block leaves the pools for good.
//! - **End of life**: when a retirement leaves a plane fewer good blocks than its data and GC's
//!   reserve need (the plane's valid pages, plus its GC threshold, its frontiers and two blocks),
//!   the device has reached the end of its life: the run stops after the request being served,
//!   and the result says at how many host bytes written.

use serde::{Deserialize, Serialize};

/// The `[endurance]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct EnduranceConfig {
    /// The probability that a block is bad from the factory.
    #[serde(default)]
    pub factory_bad_fraction: f64,
    /// P/E cycles at which a block is retired at its erase (0: never).
    #[serde(default)]
    pub retire_pe: u32,
    /// The probability that an erase fails and retires its block.
    #[serde(default)]
    pub erase_fail_probability: f64,
    /// The probability that a page program fails. A block in which one fails is found out when
    /// it is closed (probability 1 − (1 − p)^pages a block), its valid data is moved at once,
    /// and it retires at its erase. Ours where the sources give no figure: a firmware learns it
    /// at the failing program's status; moving the data then or at the close shifts the copies
    /// by less than a block of writes.
    #[serde(default)]
    pub program_fail_probability: f64,
    /// The hybrid SLC/QLC FTL: P/E cycles a block would stand in SLC mode (0: as many as in
    /// its native mode, `retire_pe`). An erase in SLC mode wears a block by `retire_pe /
    /// slc_retire_pe` of a native cycle: pseudo-SLC programming stores one bit a cell with
    /// wide margins, and pSLC blocks of TLC/QLC parts are rated at 10–30× the native
    /// cycles (the presets' error model scales SLC mode to 30,000 cycles against QLC's 1,000).
    #[serde(default)]
    pub slc_retire_pe: u32,
}

impl EnduranceConfig {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Any bad block possible.
    pub fn on(&self) -> bool {
        !self.is_default()
    }
}

impl super::DeviceConfig {
    /// Field checks, and the FTL that honours them (the plain FTL with its whole map, in this
    /// version; elsewhere refused in one line, not ignored).
    pub(crate) fn check_endurance(&self) -> Result<(), (String, String)> {
        let e = &self.endurance;
        for (field, v) in [
            ("factory_bad_fraction", e.factory_bad_fraction),
            ("erase_fail_probability", e.erase_fail_probability),
            ("program_fail_probability", e.program_fail_probability),
        ] {
            if !(v.is_finite() && (0.0..=0.5).contains(&v)) {
                return Err((
                    format!("endurance.{field}"),
                    format!("expected a probability from 0 to 0.5, got {v}"),
                ));
            }
        }
        if !e.on() {
            return Ok(());
        }
        if e.slc_retire_pe > 0 && self.ftl.kind != super::FtlKind::Hybrid {
            return Err((
                "endurance.slc_retire_pe".into(),
                "applies to the hybrid SLC/QLC FTL only (ftl.kind = \"hybrid\")".into(),
            ));
        }
        if e.slc_retire_pe > 0 && e.retire_pe == 0 {
            return Err((
                "endurance.slc_retire_pe".into(),
                "needs endurance.retire_pe, the native mode's P/E cycles, to weigh SLC erases against".into(),
            ));
        }
        let field = if e.factory_bad_fraction > 0.0 {
            "factory_bad_fraction"
        } else if e.retire_pe > 0 {
            "retire_pe"
        } else if e.erase_fail_probability > 0.0 {
            "erase_fail_probability"
        } else {
            "program_fail_probability"
        };
        if e.program_fail_probability > 0.0 && self.ftl.kind == super::FtlKind::Hybrid {
            return Err((
                "endurance.program_fail_probability".into(),
                "program failures: on the plain FTL only for now (this device's is 'hybrid')"
                    .into(),
            ));
        }
        // The hybrid SLC/QLC FTL retires its own blocks too (its regions give bad blocks back).
        if self.ftl.kind == super::FtlKind::Hybrid && !self.ftl.cached_mapping() {
            return Ok(());
        }
        self.plain_full_map_only(
            &format!("endurance.{field}"),
            "bad blocks",
            "its translation blocks are not retired",
        )
    }
}
