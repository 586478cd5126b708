//! `[fdp]`: NVMe Flexible Data Placement (TP4146, in the NVMe 2.0 base specification's
//! "Flexible Data Placement" section). The host tags each write with a placement identifier;
//! the device writes it into the reclaim unit (RU) its reclaim unit handle (RUH) points at, so
//! that data the host keeps apart stays apart on flash. Off by default (`handles = 0`: a
//! conventional device, which ignores placement identifiers as a controller with FDP disabled
//! does).
//!
//! How the specification's parts map onto ssdlab's device (docs/decisions/placement.md):
//! - a **reclaim group** is a contiguous range of the device's planes (its dies), and a
//!   write's pages are striped over its group's planes only;
//! - a **reclaim unit handle** is a write frontier of its own on every plane of its group, so
//!   an **RU** is the handle's open erase block on each of those planes (RU size = planes of
//!   the group × block size); GC reclaims erase blocks, the unit flash erases;
//! - a **placement identifier** is `group × handles + handle` (the directive's reclaim group
//!   and placement handle as one number, handles counted per group).

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

/// What GC may mix (`fdp.handle_type`): the specification's two reclaim unit handle types.
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
pub enum HandleType {
    /// Initially isolated: host writes through different handles go to different RUs, but GC
    /// may move valid data of any handle of the group into one RU (one GC frontier per plane).
    /// The default: the type the specification lists first and what shipping FDP drives offer.
    #[default]
    InitiallyIsolated,
    /// Persistently isolated: data written through a handle stays apart from every other
    /// handle's, GC's copies included (a GC frontier per handle and plane).
    PersistentlyIsolated,
}

crate::config::impl_registry!(HandleType, "fdp handle type", "fdp.handle_type", default);

crate::config::impl_try_from_name!(HandleType);

/// The most handles a group may have. Each costs an open block on every plane of its group
/// (two when persistently isolated); the specification allows more, but a simulated plane of
/// a few hundred blocks could not keep them open.
pub const MAX_HANDLES: u32 = 64;

/// The `[fdp]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FdpConfig {
    /// Reclaim unit handles per reclaim group (0: FDP off). Placement identifiers run from 0
    /// to `handles × reclaim_groups − 1`; a write without one uses handle 0 of group 0.
    #[serde(default)]
    pub handles: u32,
    #[serde(default)]
    pub handle_type: HandleType,
    /// Reclaim groups: the device's planes split into this many contiguous ranges (a divisor
    /// of the planes). 1, the default, is what shipping FDP drives report.
    #[serde(default = "one")]
    pub reclaim_groups: u32,
}

fn one() -> u32 {
    1
}

impl Default for FdpConfig {
    fn default() -> Self {
        FdpConfig {
            handles: 0,
            handle_type: HandleType::default(),
            reclaim_groups: one(),
        }
    }
}

impl FdpConfig {
    pub fn is_default(&self) -> bool {
        *self == FdpConfig::default()
    }

    /// Whether the device honours placement identifiers.
    #[inline]
    pub fn on(&self) -> bool {
        self.handles > 0
    }

    /// How many placement identifiers the device takes (0 with FDP off).
    pub fn placement_ids(&self) -> u32 {
        self.handles * self.reclaim_groups
    }

    /// Data frontiers per plane with FDP on: the handles', then GC's (one shared, or one per
    /// handle when persistently isolated).
    pub fn streams(&self) -> usize {
        let h = self.handles as usize;
        match self.handle_type {
            HandleType::InitiallyIsolated => h + 1,
            HandleType::PersistentlyIsolated => 2 * h,
        }
    }

    /// `planes`: the device's.
    pub(crate) fn check(&self, planes: u32) -> std::result::Result<(), (String, String)> {
        if self.handles > MAX_HANDLES {
            return Err((
                "fdp.handles".into(),
                format!(
                    "expected 0 (FDP off) to {MAX_HANDLES} handles, got {}",
                    self.handles
                ),
            ));
        }
        if self.reclaim_groups == 0 || planes % self.reclaim_groups != 0 {
            return Err((
                "fdp.reclaim_groups".into(),
                format!(
                    "expected a divisor of the device's {planes} planes (each group a range of \
                     them), got {}",
                    self.reclaim_groups
                ),
            ));
        }
        if !self.on() && !self.is_default() {
            return Err((
                "fdp.handles".into(),
                "expected at least 1 handle: FDP is off with 0, and the other [fdp] fields \
                 apply only when it is on"
                    .into(),
            ));
        }
        Ok(())
    }
}
