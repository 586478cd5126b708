//! The zoned device (`ftl.kind = "zoned"`, `[zns]`): an NVMe Zoned Namespace SSD. Its zones
//! ([`zones`]: states, write pointers, open and active limits) lie on erase blocks as the
//! layout says ([`layout`]); a write programs pages at a zone's write pointer, a reset erases
//! the blocks the zone had written, and nothing else touches flash: the device does no GC.
//!
//! Two FTL layers drive it, as `zns.host` says:
//! - [`cleaner::ZoneCleaner`]: the host's log-structured translation layer with zone cleaning
//!   (dm-zoned's reclaim, ZenFS's zone GC), so that block traces run; its copies are host
//!   reads and appends, reported as host WAF apart from the device's;
//! - [`direct::DirectZones`]: no host layer; the trace's addresses are zone addresses.
//!
//! The host layer sits above the device in the stack but lives here, beside the device it
//! drives, because the engine knows only `FtlLayer`: it is built as the FTL layer of a "zoned
//! device with a host cleaner" (docs/decisions/placement.md).

pub mod cleaner;
pub mod direct;
pub mod layout;
pub mod zones;

use crate::config::{DeviceConfig, ZoneShape};
use crate::flash::{OpDone, Resources};
use crate::ftl::map::memory::{ftl_estimate, MemoryEstimate};
use crate::ftl::map::Ftl;
use crate::stats::ZnsReport;
use layout::ZoneMap;
use zones::{ZoneError, Zones};

/// What the device's flash did since the last reset of the counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MediaCounters {
    pub pages_programmed: u64,
    pub pages_read: u64,
    pub block_erases: u64,
}

/// A zoned namespace on the flash time lines.
pub struct ZonedDevice {
    pub zones: Zones,
    map: ZoneMap,
    shape: ZoneShape,
    res: Resources,
    /// Pages programmed into each zone since its reset (finish moves the write pointer
    /// without programming, and a reset erases only blocks that hold pages).
    programmed: Vec<u32>,
    erase_count: Vec<u32>,
    pub media: MediaCounters,
}

impl ZonedDevice {
    pub fn new(cfg: &DeviceConfig) -> crate::Result<Self> {
        let shape = cfg.zone_shape().ok_or_else(|| {
            crate::SsdError::Invalid("a zoned device needs ftl.kind = \"zoned\"".into())
        })?;
        let z = &cfg.zns;
        Ok(ZonedDevice {
            zones: Zones::new(shape.zones, shape.capacity_pages, z.max_open, z.max_active),
            map: ZoneMap::new(cfg, &shape),
            shape,
            res: Resources::new(cfg),
            programmed: vec![0; shape.zones as usize],
            erase_count: vec![0; cfg.geometry.total_blocks() as usize],
            media: MediaCounters::default(),
        })
    }

    pub fn shape(&self) -> &ZoneShape {
        &self.shape
    }

    /// Write `n` pages to zone `z` at its page `at`, or appended (`at = None`; the device picks
    /// the write pointer and reports it), from `ready` on the time lines if `timed` (the
    /// caller's: a timed run's preconditioning is not): the first page's place in the zone and
    /// when the last program completes. A command against the rules fails and is counted.
    #[inline]
    pub fn write(
        &mut self,
        z: u32,
        at: Option<u32>,
        n: u32,
        ready: u64,
        timed: bool,
    ) -> Result<(u32, OpDone), ZoneError> {
        let start = self.zones.write(z, at, n)?;
        let mut out = OpDone::at(ready);
        if timed {
            for o in start..start + n {
                let (plane, _) = self.map.locate(z, o);
                out.join(self.res.write(plane, ready));
            }
        }
        self.programmed[z as usize] += n;
        self.media.pages_programmed += u64::from(n);
        Ok((start, out))
    }

    /// Read page `o` of zone `z` from `ready` (a page at or past the write pointer holds
    /// nothing and costs nothing).
    #[inline]
    pub fn read(&mut self, z: u32, o: u32, ready: u64, timed: bool) -> OpDone {
        if o >= self.programmed[z as usize] {
            return OpDone::at(ready);
        }
        self.media.pages_read += 1;
        if !timed {
            return OpDone::at(ready);
        }
        let (plane, _) = self.map.locate(z, o);
        self.res.read(plane, ready)
    }

    /// Reset zone `z` from `ready`: each block that holds a page of it erased (in parallel on
    /// their planes), done when the last erase is.
    pub fn reset(&mut self, z: u32, ready: u64, timed: bool) -> OpDone {
        self.zones.reset(z);
        let held = std::mem::take(&mut self.programmed[z as usize]);
        let mut out = OpDone::at(ready);
        for &b in self.map.written_blocks(z, held) {
            self.erase_count[b as usize] += 1;
            self.media.block_erases += 1;
            if timed {
                out.join(self.res.erase(self.map.plane_of_block(b), ready));
            }
        }
        out
    }

    /// `n` pages read by a host that times them itself (`Resources::read_runs`).
    pub fn count_reads(&mut self, n: u32) {
        self.media.pages_read += u64::from(n);
    }

    /// The plane of zone `z`'s page `o`.
    #[inline]
    pub fn plane_of(&self, z: u32, o: u32) -> u32 {
        self.map.locate(z, o).0
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }

    pub fn flash(&self) -> &Resources {
        &self.res
    }
    pub fn flash_mut(&mut self) -> &mut Resources {
        &mut self.res
    }

    /// Counters back to zero after preconditioning (the zones' states and the erase counts
    /// stay: they are the device's state, not the run's figures).
    pub fn reset_counters(&mut self) {
        self.media = MediaCounters::default();
        self.zones.violations = Default::default();
        self.zones.commands = Default::default();
    }

    /// Erase blocks of the empty zones (what the host could still be given).
    pub fn free_blocks(&self) -> u64 {
        let empty = (0..self.zones.len())
            .filter(|&z| self.zones.state(z) == zones::ZoneState::Empty)
            .count() as u64;
        empty * u64::from(self.shape.blocks)
    }

    /// The host layer's map `ftl` (a zone for a block) and the zones in step: each within the
    /// rules, and its write pointer where the host's next page in it is (no page written off
    /// the pointer).
    pub fn check_against(&self, ftl: &Ftl) -> std::result::Result<(), String> {
        ftl.check_invariants()?;
        self.zones.check()?;
        for z in 0..self.zones.len() {
            let (mine, wp) = (ftl.written_pages(z), self.zones.write_pointer(z));
            if mine != wp {
                return Err(format!(
                    "zone {z}: the host has written {mine} pages, the write pointer is at {wp}"
                ));
            }
        }
        Ok(())
    }

    /// The device's section of the result. `sent`: the pages the host layer counts as sent in
    /// write and append commands (its own count, so that the device WAF checks the device);
    /// `cleaner`: the cleaner's host pages and copies, if it runs one.
    pub fn report(&self, host: &'static str, sent: u64, cleaner: Option<(u64, u64)>) -> ZnsReport {
        let m = self.media;
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        ZnsReport {
            host,
            zones: self.shape.zones,
            blocks_per_zone: self.shape.blocks,
            zone_size_pages: self.shape.size_pages,
            zone_capacity_pages: self.shape.capacity_pages,
            device_pages_written: m.pages_programmed,
            device_pages_read: m.pages_read,
            block_erases: m.block_erases,
            device_waf: ratio(m.pages_programmed, sent),
            host_pages_written: cleaner.map(|h| h.0),
            cleaner_pages_copied: cleaner.map(|h| h.1),
            host_waf: cleaner.map(|(w, c)| ratio(w + c, w)),
            commands: self.zones.commands,
            violations: self.zones.violations,
            open_zones: self.zones.open(),
            active_zones: self.zones.active(),
        }
    }
}

/// The heap a zoned device of `cfg` needs: its host layer's map (the cleaner's translation, or
/// the identity map), and per zone and erase block the device's own tables.
pub fn memory_estimate(cfg: &DeviceConfig, check: bool) -> MemoryEstimate {
    let view = match cfg.zns.host {
        crate::config::ZoneHost::Cleaner => cfg.zone_translation(),
        crate::config::ZoneHost::None => direct::identity_view(cfg),
    };
    let mut e = view.map_or_else(MemoryEstimate::default, |v| ftl_estimate(&v, check));
    let (zones, zone_blocks) = cfg.zone_shape().map_or((0, 0), |s| {
        (u64::from(s.zones), u64::from(s.zones) * u64::from(s.blocks))
    });
    // Per zone: its state, write pointer and programmed count; per block of a zone, its entry
    // in the layout; per erase block, its erase count and plane.
    e.other_bytes += zones * 12 + zone_blocks * 4 + cfg.geometry.total_blocks() * 8;
    e
}

/// A zone command that failed inside a host layer that never sends one: a bug, reported.
pub(crate) fn host_bug(e: ZoneError, z: u32) -> crate::SsdError {
    crate::SsdError::Invalid(format!(
        "zone cleaner bug: zone {z} refused the cleaner's command: {}",
        e.describe()
    ))
}
