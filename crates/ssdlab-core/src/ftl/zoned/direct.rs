//! A zoned device with no host layer (`zns.host = "none"`): the workload's addresses are zone
//! addresses. Logical page `p` is page `p mod capacity` of zone `p / capacity`; a write must
//! land at its zone's write pointer; a trim covering whole zones stands for their reset (block
//! trace formats have no zone-management operation: blktrace's zone resets, say, reach a CSV
//! as discards). A command against the rules fails and is counted, or with `zns.strict` stops
//! the run with an error naming the request.
//!
//! Its mapping state is an identity map kept by the page-mapped FTL's machinery, allocation
//! handed over (zone `z` is "block" `z`, written only at its next page), so that the engine's
//! counters, reads of unwritten pages and test mode's checks work as on any device.

use std::ops::Range;

use super::zones::ZoneError;
use super::ZonedDevice;
use crate::config::{DeviceConfig, Placement};
use crate::error::{Result, SsdError};
use crate::flash::{OpDone, Resources};
use crate::ftl::map::{Ftl, UnitLayout};
use crate::ftl::{FtlLayer, Precondition};
use crate::stats::LayerReports;

/// The runs of `pages` that lie in one zone of `cap` pages each: (zone, first page in it,
/// pages). (Free of the layer, so that a request's runs are served as they come.)
fn by_zone(cap: u32, pages: Range<u32>) -> impl Iterator<Item = (u32, u32, u32)> {
    let mut lpn = pages.start;
    std::iter::from_fn(move || {
        if lpn >= pages.end {
            return None;
        }
        let (z, o) = (lpn / cap, lpn % cap);
        let n = (pages.end - lpn).min(cap - o);
        lpn += n;
        Some((z, o, n))
    })
}

/// The configuration of the identity map's FTL: the zones as blocks, twice as many at half
/// spare, so that exactly every zone's capacity is logical and the second half (never
/// written) satisfies the FTL's own checks.
pub(super) fn identity_view(cfg: &DeviceConfig) -> Option<DeviceConfig> {
    let zones = cfg.zone_shape()?.zones;
    let mut view = cfg.zone_translation()?;
    view.geometry.blocks_per_plane = 2 * zones;
    view.geometry.spare_factor = 0.5;
    view.gc.threshold_blocks = 1;
    view.ftl.placement = Placement::Single;
    Some(view)
}

/// A zoned device written by the workload itself.
pub struct DirectZones {
    ftl: Ftl,
    dev: ZonedDevice,
    cap: u32,
    strict: bool,
    timed: bool,
}

impl DirectZones {
    pub fn new(cfg: &DeviceConfig, timed: bool, check: bool) -> Result<Self> {
        let dev = ZonedDevice::new(cfg)?;
        let s = *dev.shape();
        let view = identity_view(cfg)
            .ok_or_else(|| SsdError::Invalid("a zoned device needs ftl.kind = \"zoned\"".into()))?;
        let mut ftl = Ftl::new(&view)?;
        if check {
            ftl.enable_program_checks();
        }
        ftl.hand_over_allocation(UnitLayout {
            groups: 1,
            units_per_group: 2 * s.zones,
            unit_of_block: (0..2 * s.zones).collect(),
        });
        Ok(DirectZones {
            ftl,
            cap: s.capacity_pages,
            dev,
            strict: cfg.zns.strict,
            timed,
        })
    }

    /// A command the zones refused: counted (by the zones) or, strict, the run's error.
    fn refused(&self, e: ZoneError, what: &str, z: u32, o: u32) -> Result<()> {
        if self.strict {
            return Err(SsdError::Refused(format!(
                "zns.strict: {what} refused: {} (zone {z}, page {o})",
                e.describe()
            )));
        }
        Ok(())
    }

    fn write_zone(&mut self, z: u32, o: u32, n: u32, ready: u64, timed: bool) -> Result<OpDone> {
        match self.dev.write(z, Some(o), n, ready, timed) {
            Ok((_, d)) => {
                let mut ext = self.ftl.external();
                for lpn in z * self.cap + o..z * self.cap + o + n {
                    ext.write_host(lpn, z)?;
                }
                Ok(d)
            }
            Err(e) => self.refused(e, "write", z, o).map(|()| OpDone::at(ready)),
        }
    }
    /// Reset the zones `pages` cover whole (a trim standing for their reset), erases timed
    /// from `ready` if `timed`; a trim of part of a zone is refused.
    fn reset_zones(&mut self, pages: Range<u32>, ready: u64, timed: bool) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for (z, o, n) in by_zone(self.cap, pages) {
            if o != 0 || n != self.cap {
                let e = self.dev.zones.refuse(ZoneError::InvalidTransition);
                let what = "a trim of part of a zone (a reset takes whole zones)";
                self.refused(e, what, z, o)?;
                continue;
            }
            for lpn in z * self.cap..(z + 1) * self.cap {
                self.ftl.trim(lpn);
            }
            self.ftl.external().erase(z);
            out.join(self.dev.reset(z, ready, timed));
        }
        Ok(out)
    }
}

impl FtlLayer for DirectZones {
    /// The zones written in order up to the fill fraction; random passes do not apply (a zone
    /// takes writes at its pointer only).
    fn precondition(&mut self, p: &Precondition, _seed: u64) -> Result<u64> {
        let n = if p.sequential {
            p.pages(self.ftl.logical_pages())
        } else {
            0
        };
        for (z, o, k) in by_zone(self.cap, 0..n) {
            self.write_zone(z, o, k, 0, false)?;
        }
        self.ftl.reset_counters();
        self.dev.reset_counters();
        Ok(u64::from(n))
    }

    fn background(&mut self, _prev_arrival: u64, now: u64) -> Result<()> {
        self.dev.flash_mut().advance(now);
        Ok(())
    }

    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for lpn in pages {
            if self.ftl.read(lpn).is_some() {
                out.join(
                    self.dev
                        .read(lpn / self.cap, lpn % self.cap, ready, self.timed),
                );
            }
        }
        Ok(out)
    }

    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for (z, o, n) in by_zone(self.cap, pages) {
            out.join(self.write_zone(z, o, n, ready, self.timed)?);
        }
        Ok(out)
    }

    /// Whole zones reset (their erases timed from `ready`); part of a zone refused.
    fn trim_at(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        self.reset_zones(pages, ready, self.timed)
    }

    /// The same, untimed (the trait's trim has no time).
    fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        self.reset_zones(pages, 0, false).map(|_| ())
    }

    fn map(&self) -> &Ftl {
        &self.ftl
    }
    fn flash(&self) -> &Resources {
        self.dev.flash()
    }
    fn flash_mut(&mut self) -> &mut Resources {
        self.dev.flash_mut()
    }

    fn check_invariants(&self) -> std::result::Result<(), String> {
        self.dev.check_against(&self.ftl)
    }

    fn free_blocks(&self) -> u64 {
        self.dev.free_blocks()
    }

    fn erase_counts(&self) -> &[u32] {
        self.dev.erase_counts()
    }
    fn erases(&self) -> u64 {
        self.dev.media.block_erases
    }

    fn report(&self, out: &mut LayerReports) {
        let sent = self.ftl.counters.host_pages_written;
        out.zns = Some(self.dev.report("none", sent, None));
    }
}
