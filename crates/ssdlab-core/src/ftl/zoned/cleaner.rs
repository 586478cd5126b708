//! The host's zone cleaner (`zns.host = "cleaner"`): a log-structured host translation layer
//! that runs block workloads on a zoned device, as dm-zoned (Le Moal, Linux 4.13,
//! Documentation/admin-guide/device-mapper/dm-zoned.rst: "reclaim") and ZenFS (Bjørling et
//! al., "ZNS: Avoiding the Block Interface Tax for Flash-based SSDs", USENIX ATC 2021,
//! section 4.2: zone garbage collection) do in the host.
//!
//! It is the page-mapped FTL's machinery (`ftl::map::Ftl`) over the zones instead of erase
//! blocks: one "plane" whose "blocks" are the zones (`DeviceConfig::zone_translation`). A block
//! write goes to the open zone of its temperature (`ftl.placement`: `single`, `hot-cold`, …,
//! each stream one open zone), appended at the zone's write pointer. While fewer than
//! `zns.clean_below_zones` zones are empty, the cleaner picks a victim zone by `gc.victim`,
//! reads its valid pages and appends them to its cleaning zone, then resets the victim — all
//! as host commands, timed on the device's time lines from the write that found the zones
//! short (dm-zoned's reclaim blocks writes when it runs out of zones; ours starts at the
//! threshold and the write waits for the planes it shares).
//!
//! What each layer reports: the cleaner's copies are host WAF ((host pages + copies) / host
//! pages); the device programs exactly what it is sent (device WAF 1). The result's `waf` is
//! the end-to-end figure, flash pages over the workload's pages.

use std::ops::Range;

use rand::Rng;

use super::{host_bug, ZonedDevice};
use crate::config::DeviceConfig;
use crate::error::Result;
use crate::flash::{OpDone, Resources};
use crate::ftl::map::{Ftl, GcStep};
use crate::ftl::{FtlLayer, Precondition};
use crate::rng::{self, SimRng};
use crate::stats::LayerReports;

/// A zoned device with the host's cleaner above it.
pub struct ZoneCleaner {
    ftl: Ftl,
    dev: ZonedDevice,
    rng: SimRng,
    /// Pages of a zone's capacity (the translation's pages per block).
    cap: u32,
    timed: bool,
    /// The current victim's copies, per plane, until they are timed.
    runs: Runs,
}

impl ZoneCleaner {
    pub fn new(cfg: &DeviceConfig, seed: u64, timed: bool, check: bool) -> Result<Self> {
        let view = cfg.zone_translation().ok_or_else(|| {
            crate::SsdError::Invalid("the zone cleaner needs ftl.kind = \"zoned\"".into())
        })?;
        let mut ftl = Ftl::new(&view)?;
        if check {
            ftl.enable_program_checks();
        }
        let dev = ZonedDevice::new(cfg)?;
        let (cap, k, planes) = (
            dev.shape().capacity_pages,
            dev.shape().blocks,
            cfg.geometry.planes(),
        );
        Ok(ZoneCleaner {
            cap,
            ftl,
            dev,
            rng: rng::stream(seed, "gc"),
            timed,
            runs: Runs::new(cap, k, planes),
        })
    }

    /// Place host page `lpn` and append it: cleaning first if no open zone of a stream could
    /// take it (the write waits), and after it while fewer than `zns.clean_below_zones` zones
    /// are empty (as the plain FTL's blocking GC runs after the write that crossed its
    /// threshold; later requests meet it on the time lines).
    #[inline]
    fn place(&mut self, lpn: u32, ready: u64, timed: bool) -> Result<OpDone> {
        if !self.ftl.host_can_write(0) {
            self.clean(ready, timed, |f| !f.host_can_write(0))?;
        }
        let ppn = self.ftl.write_host(lpn, 0)?;
        let (z, o) = (ppn / self.cap, ppn % self.cap);
        let d = match self.dev.write(z, Some(o), 1, ready, timed) {
            Ok((_, d)) => d,
            Err(e) => return Err(host_bug(e, z)),
        };
        if self.ftl.needs_gc(0) {
            self.clean(ready, timed, |f| f.needs_gc(0))?;
        }
        Ok(d)
    }

    /// Clean victim zones while `more` holds. Per victim, as dm-zoned's reclaim does: its valid
    /// pages read into host memory, then appended to the cleaning zone, then the victim reset
    /// once they are on flash. The copies are gathered per victim and sent as runs: each plane
    /// reads its share back to back, then each destination plane programs its share — the
    /// times of one command per page (`Resources::read_runs`), for a fraction of the cost.
    fn clean(&mut self, ready: u64, timed: bool, more: impl Fn(&Ftl) -> bool) -> Result<()> {
        let Self {
            ftl,
            dev,
            rng,
            runs,
            ..
        } = self;
        let mut bug = None;
        ftl.gc_while(0, rng, more, |step| match step {
            GcStep::Copy { from, to, .. } => runs.add(from, to),
            GcStep::Erase { block } => match runs.send(dev, ready, timed) {
                Ok(copied) => {
                    dev.reset(block, copied, timed);
                }
                Err(e) => {
                    bug.get_or_insert(e);
                }
            },
            GcStep::Translation { .. } | GcStep::Idle => {}
        })?;
        if let Some(e) = bug {
            return Err(e);
        }
        runs.send(dev, ready, timed).map(|_| ())
    }
}

/// A victim's copies until they are sent: its pages read, by their slot in the zone (a slot's
/// pages share a block, so a plane), and the runs of pages appended to the cleaning zone(s).
/// Gathering costs a few instructions a copy (the plain FTL's batched copies cost as few).
#[derive(Debug)]
struct Runs {
    /// Pages of a zone's capacity, and its blocks (`k`; slot of page `o`: `o mod k`).
    cap: u32,
    k: u32,
    /// `k − 1` when `k` is a power of two dividing `cap` (a page's slot is then its page number
    /// masked), else 0.
    mask: u32,
    /// The last page copied (of the victim).
    from: u32,
    reads: Vec<u32>,
    /// (first page, pages) appended, in the translation's page numbers (a run may cross into
    /// the next zone: split when sent).
    appends: Vec<(u32, u32)>,
    /// Reads and programs per plane while timing, and the (plane, pages) runs sent.
    per_plane: Vec<[u32; 2]>,
    read_runs: Vec<(u32, u32)>,
    write_runs: Vec<(u32, u32)>,
}

impl Runs {
    fn new(cap: u32, k: u32, planes: u32) -> Self {
        Runs {
            cap,
            k,
            mask: if k.is_power_of_two() && cap % k == 0 {
                k - 1
            } else {
                0
            },
            from: 0,
            reads: vec![0; k as usize],
            appends: Vec::new(),
            per_plane: vec![[0, 0]; planes as usize],
            read_runs: Vec::new(),
            write_runs: Vec::new(),
        }
    }

    /// GC moved page `from` (of the victim) to `to`.
    #[inline(always)]
    fn add(&mut self, from: u32, to: u32) {
        self.from = from;
        let slot = if self.mask > 0 || self.k == 1 {
            from & self.mask
        } else {
            from % self.cap % self.k
        };
        self.reads[slot as usize] += 1;
        match self.appends.last_mut() {
            Some((first, n)) if *first + *n == to => *n += 1,
            _ => self.appends.push((to, 1)),
        }
    }

    /// Send the gathered copies to the device from `ready` (timed if `timed`): when the last
    /// append is on flash. A refused append is a cleaner bug.
    fn send(&mut self, dev: &mut ZonedDevice, ready: u64, timed: bool) -> Result<u64> {
        let (k, cap) = (self.k, self.cap);
        let victim = self.from / cap;
        let mut read = 0u64;
        for slot in 0..k {
            let n = std::mem::take(&mut self.reads[slot as usize]);
            if n > 0 {
                dev.count_reads(n);
                self.per_plane[dev.plane_of(victim, slot) as usize][0] += n;
                read += u64::from(n);
            }
        }
        for &(mut first, mut left) in &self.appends {
            while left > 0 {
                let (z, o) = (first / cap, first % cap);
                let n = left.min(cap - o);
                dev.write(z, Some(o), n, ready, false)
                    .map_err(|e| host_bug(e, z))?;
                // Pages o, o + 1, … go to slots o mod k, (o + 1) mod k, …: slot j's share.
                for j in 0..n.min(k) {
                    let share = (n - j).div_ceil(k);
                    self.per_plane[dev.plane_of(z, o + j) as usize][1] += share;
                }
                (first, left) = (first + n, left - n);
            }
        }
        self.appends.clear();
        if !timed || read == 0 {
            self.per_plane.iter_mut().for_each(|p| *p = [0, 0]);
            return Ok(ready);
        }
        self.read_runs.clear();
        self.write_runs.clear();
        for (p, rw) in self.per_plane.iter_mut().enumerate() {
            let [r, w] = std::mem::take(rw);
            if r > 0 {
                self.read_runs.push((p as u32, r));
            }
            if w > 0 {
                self.write_runs.push((p as u32, w));
            }
        }
        let res = dev.flash_mut();
        let read_done = res.read_runs(&self.read_runs, ready);
        Ok(res.write_runs(&self.write_runs, read_done))
    }
}

impl FtlLayer for ZoneCleaner {
    /// The plain FTL's fill (sequential, then random passes), through the cleaner, untimed.
    fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let mut r = rng::stream(seed, "precondition");
        let n = p.pages(self.ftl.logical_pages());
        let mut written = 0u64;
        if p.sequential {
            for lpn in 0..n {
                self.place(lpn, 0, false)?;
            }
            written += u64::from(n);
        }
        let random = (p.random_passes * f64::from(n)).round() as u64;
        for _ in 0..random {
            self.place(r.gen_range(0..n), 0, false)?;
        }
        self.ftl.reset_counters();
        self.dev.reset_counters();
        Ok(written + random)
    }

    fn background(&mut self, _prev_arrival: u64, now: u64) -> Result<()> {
        self.dev.flash_mut().advance(now);
        Ok(())
    }

    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for lpn in pages {
            if let Some(ppn) = self.ftl.read(lpn) {
                out.join(
                    self.dev
                        .read(ppn / self.cap, ppn % self.cap, ready, self.timed),
                );
            }
        }
        Ok(out)
    }

    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for lpn in pages {
            out.join(self.place(lpn, ready, self.timed)?);
        }
        Ok(out)
    }

    /// A discard frees the pages in the cleaner's map only (dm-zoned's); zones are reset when
    /// cleaned.
    fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        for lpn in pages {
            self.ftl.trim(lpn);
        }
        Ok(())
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
        let c = self.ftl.counters;
        let (host, copies) = (c.host_pages_written, c.gc_pages_copied);
        out.zns = Some(
            self.dev
                .report("cleaner", host + copies, Some((host, copies))),
        );
    }
}
