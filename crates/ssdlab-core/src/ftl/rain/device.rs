//! The RAIN FTL (Tiny-Tail Flash, Yan et al., FAST 2017; `ftl.kind = "rain"`, `[rain]`): host
//! writes into RAIN super-blocks with parity (or logical stripes), the stripe-group GC and its
//! scheduling (rotating or not), GC-tolerant reads (XOR rebuild), the flush hooks of a
//! GC-aware write cache above (`flush`: Tiny-Tail's GC-tolerant flush), and RAIN-aware
//! preconditioning. Built on a [`PlainFtl`]: its mapping state and time lines.

use std::mem::size_of;
use std::ops::Range;

use rand::Rng;

use super::superblock::Stripe;
use super::{LogicalRain, Rain};
use crate::config::{DeviceConfig, OpenParity, RainConfig, RainLayout};
use crate::error::Result;
use crate::flash::OpDone;
use crate::ftl::gc::{GcScheduler, RequestInfo};
use crate::ftl::map::memory::{grown, units_estimate, MemoryEstimate};
use crate::ftl::map::Ftl;
use crate::ftl::plain::PlainFtl;
use crate::ftl::{FlushHow, FtlLayer, Precondition, SchedulerCall};
use crate::rng;
use crate::stats::{LayerReports, RainReport, RainStats};

/// The RAIN FTL: parity over the channels on a plain FTL's mapping state and time lines.
pub struct RainFtl {
    pub(super) base: PlainFtl,
    pub(super) rcfg: RainConfig,
    pub(super) channels: u32,
    /// GC operations of one group in one call beyond which GC is a livelock (it copies a whole
    /// group's pages several times over without reaching its target).
    pub(super) livelock_ops: u64,
    pub(super) rain: Option<Rain>,
    /// Logical stripes instead of super-blocks (`rain.layout = "logical"`; `rain` is then None).
    pub(super) lrain: Option<LogicalRain>,
    pub(super) unit_scratch: Vec<u32>,
    pub(super) rebuild_scratch: Vec<u32>,
    /// A GC-aware flush of the write cache above is running, so a page (or parity) for a plane
    /// busy with GC is held in RAM instead of queued behind the GC ([`super::flush`]).
    pub(super) holding: bool,
    /// Programs held in RAM until their plane's GC ends (or, with the rotating flush, until
    /// their group's previous program has ended).
    pub(super) held: Vec<super::held::Held>,
    /// End of the latest host program (flush or parity) on each plane, and of the latest
    /// rotating-flush program in each group (`rain.rotating_flush`).
    pub(super) prog_until: Vec<u64>,
    pub(super) group_prog_until: Vec<u64>,
    /// The flush running now rotates: its programs are held for the group chain.
    pub(super) rotate_now: bool,
}

impl RainFtl {
    /// `check`: test mode (no double programs; page contents tracked as checksums so that every
    /// rebuild is verified).
    pub fn new(cfg: &DeviceConfig, seed: u64, timed: bool, check: bool) -> Result<Self> {
        let user = cfg.geometry.logical_pages() as u32;
        // Parity on top of the user's spare (`rain.parity_space`): more blocks, same user pages.
        let cfg = &cfg.rain_physical();
        let logical = cfg.rain.layout == RainLayout::Logical;
        let mut base = PlainFtl::new(cfg, seed, timed, check, None)?;
        let g = &cfg.geometry;
        let per_channel = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
        let lrain = logical.then(|| LogicalRain::new(g.channels, per_channel, user, check));
        if logical && check {
            base.ftl.enable_content();
        }
        let rain = (!logical).then(|| {
            Rain::new(
                &mut base.ftl,
                g.channels,
                per_channel,
                cfg.gc.threshold_blocks,
                check,
                seed,
                cfg.rain.open_parity == OpenParity::Ram,
            )
        });
        Ok(RainFtl {
            base,
            rcfg: cfg.rain.clone(),
            channels: g.channels,
            livelock_ops: 4
                * u64::from(g.blocks_per_plane)
                * u64::from(g.pages_per_block)
                * u64::from(g.channels),
            rain,
            lrain,
            unit_scratch: Vec::new(),
            rebuild_scratch: Vec::new(),
            holding: false,
            held: Vec::new(),
            prog_until: vec![0; g.planes() as usize],
            group_prog_until: vec![0; per_channel as usize],
            rotate_now: false,
        })
    }

    /// Heap this FTL needs beyond its plain base, from `cfg` before anything is allocated: the
    /// stripe of every page (4 B) and, with `rain.open_parity = "victim"`, the page a GC copy
    /// came from (4 B more), up to one stripe per N pages (its record and members), the
    /// super-blocks and the victim index over them (none of these with logical stripes);
    /// `check` (test mode): page checksums and versions.
    pub fn memory_estimate(cfg: &DeviceConfig, check: bool) -> MemoryEstimate {
        let cfg = &cfg.rain_physical();
        let g = &cfg.geometry;
        let n = u64::from(g.channels);
        let phys = g.physical_pages();
        let logical = g.logical_pages();
        let blocks = g.total_blocks();
        let ppb = u64::from(g.pages_per_block);
        let mut e = MemoryEstimate::default();
        if cfg.rain.layout == RainLayout::Logical {
            // Logical stripes keep no tables of their own (the FTL maps the parity pages);
            // test mode: page checksums and versions of the user pages.
            if check {
                e.page_bytes += phys * 8 + logical * 4;
            }
        } else {
            let groups = u64::from(g.planes()) / n.max(1);
            let sbs = blocks / n.max(1);
            // One stripe per N pages, and GC stripes closed short (fewer than N − 1 members)
            // make more: measured ≈ 1.13 × P / N on a preconditioned device, counted as 1.125.
            let stripes = phys / n.max(1) + phys / (8 * n.max(1));
            // The page a GC copy came from only where open stripes are protected by victims.
            let per_page = if cfg.rain.open_parity == OpenParity::Ram {
                4
            } else {
                8
            };
            e.page_bytes += phys * per_page
                + grown(stripes, size_of::<Stripe>() as u64)
                + stripes * grown(n - 1, 4);
            e.block_bytes += sbs * (1 + 24 + grown(ppb, 4) + 4);
            e.add(units_estimate(
                cfg.gc.victim,
                blocks,
                groups,
                sbs,
                sbs,
                n,
                ppb,
            ));
            e.other_bytes += groups * (32 + 4 + 128);
            if check {
                e.page_bytes += phys * 8 + logical * 4;
            }
        }
        e
    }

    /// What the layer did.
    pub fn report(&self) -> RainReport {
        RainReport {
            rain: self.rain_stats(),
            parity_pages_written: self.base.ftl.counters.parity_pages_written,
            mean_gc_stripe_members: self.rain.as_ref().map_or(0.0, |r| {
                if r.stats.gc_stripes == 0 {
                    0.0
                } else {
                    r.stats.gc_stripe_members as f64 / r.stats.gc_stripes as f64
                }
            }),
            superblock_reserve_max: self.rain.as_ref().map_or(0, |r| {
                (0..r.groups())
                    .map(|g| r.gc_reserve(g) as u64)
                    .max()
                    .unwrap_or(0)
            }),
        }
    }

    /// Test mode: rebuild every protected live page from its stripe and verify its checksum.
    /// Every closed stripe's parity is also checked against its members. Returns (pages
    /// verified, live pages in the open host stripe, not yet protected).
    pub fn audit(&mut self) -> Result<(u64, u64)> {
        if let Some(l) = &mut self.lrain {
            return l.audit(&self.base.ftl);
        }
        match &mut self.rain {
            Some(r) => r.audit(&self.base.ftl),
            None => Ok((0, 0)),
        }
    }

    /// The RAIN counters, of either layout.
    pub(super) fn rain_stats(&self) -> RainStats {
        match (&self.rain, &self.lrain) {
            (Some(r), _) => r.stats,
            (None, Some(l)) => l.stats,
            (None, None) => RainStats::default(),
        }
    }

    /// The RAIN counters to update, of either layout (None without parity).
    pub(super) fn rain_stats_mut(&mut self) -> Option<&mut RainStats> {
        match (&mut self.rain, &mut self.lrain) {
            (Some(r), _) => Some(&mut r.stats),
            (None, Some(l)) => Some(&mut l.stats),
            (None, None) => None,
        }
    }
}

impl FtlLayer for RainFtl {
    fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let written = self.precondition_pages(p, seed)?;
        self.base.ftl.reset_counters();
        Ok(written)
    }

    fn background(&mut self, _prev_arrival: u64, now: u64) -> Result<()> {
        // (A write cache above flushes first: GC is the lowest priority.) Then forget channel
        // reservations that ended.
        self.rain_advance(now)?;
        self.logical_advance(now)?;
        self.base.res.advance(now);
        Ok(())
    }

    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for lpn in pages {
            if let Some(ppn) = self.base.ftl.read(lpn) {
                if self.base.timed {
                    out.join(self.read_page_rain(lpn, ppn, ready)?);
                }
            }
        }
        Ok(out)
    }

    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        if self.lrain.is_some() {
            // Logical stripes: one parity update per stripe of the request.
            let mut lpns = std::mem::take(&mut self.unit_scratch);
            lpns.clear();
            lpns.extend(pages);
            let done = self.program_logical(&lpns, ready, self.base.timed);
            self.unit_scratch = lpns;
            return done;
        }
        let mut out = OpDone::at(ready);
        let timed = self.base.timed;
        for lpn in pages {
            out.join(self.program_page(lpn, ready, timed)?);
        }
        Ok(out)
    }

    fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        if self.lrain.is_some() {
            for lpn in pages {
                self.trim_logical(lpn)?;
            }
            return Ok(());
        }
        // The page stays in its stripe until its super-block is erased.
        self.base.trim(pages)
    }

    fn after_request(&mut self, info: &RequestInfo) -> Result<()> {
        self.base.after_request(info)
    }

    fn map(&self) -> &Ftl {
        &self.base.ftl
    }

    fn flash(&self) -> &crate::flash::Resources {
        &self.base.res
    }

    fn flash_mut(&mut self) -> &mut crate::flash::Resources {
        &mut self.base.res
    }

    fn free_blocks(&self) -> u64 {
        // With parity the RAIN layer owns every free block, as free super-blocks of N members.
        match &self.rain {
            Some(r) => (0..r.groups())
                .map(|g| r.free_superblocks(g) as u64 * u64::from(self.channels))
                .sum(),
            None => self.base.free_blocks(),
        }
    }

    fn scheduler(&self) -> Option<&dyn GcScheduler> {
        self.base.scheduler()
    }

    fn set_scheduler(&mut self, s: Box<dyn GcScheduler>) -> Result<()> {
        self.base.set_scheduler(s)
    }

    fn with_scheduler(&mut self, f: SchedulerCall) -> Result<()> {
        self.base.with_scheduler(f)
    }

    fn report(&self, out: &mut LayerReports) {
        out.rain = Some(self.report());
    }

    fn flush_unit(&self, pending: &mut dyn Iterator<Item = u32>) -> usize {
        self.flush_unit_len(pending)
    }

    fn flush_free_at(&mut self, next: u32, now: u64) -> Option<u64> {
        self.flush_planes_free_at(next, now)
    }

    fn flush(
        &mut self,
        pages: &[u32],
        _sizes: &[u32],
        t: u64,
        how: FlushHow,
        held: &mut Vec<u32>,
    ) -> Result<OpDone> {
        self.flush_unit(pages, t, how, held)
    }

    fn place_held(&mut self, now: u64, how: FlushHow, force: bool, done: &mut Vec<(u32, OpDone)>) {
        RainFtl::place_held(self, now, how, force, done)
    }

    fn held_programs(&self) -> usize {
        self.held.len()
    }

    fn flush_rotates(&self, how: FlushHow) -> bool {
        self.rotates(how)
    }

    fn flush_stage_full(&self) -> bool {
        self.held.len() >= self.channels as usize * self.group_prog_until.len()
    }

    fn audit_parity(&mut self) -> Result<(u64, u64)> {
        self.audit()
    }
}

impl RainFtl {
    /// Preconditioning with parity (timing off): as `precondition::run`, through `program_page`.
    pub(super) fn precondition_pages(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let mut prng = rng::stream(seed, "precondition");
        let user = self
            .lrain
            .as_ref()
            .map_or(self.base.ftl.logical_pages(), LogicalRain::user_pages);
        let n = p.pages(user);
        let mut written = 0u64;
        if p.sequential {
            if self.lrain.is_some() {
                // Whole stripes at a time (one parity program each).
                let width = self.channels - 1;
                let mut stripe = Vec::with_capacity(width as usize);
                for first in (0..n).step_by(width as usize) {
                    stripe.clear();
                    stripe.extend(first..(first + width).min(n));
                    self.program_logical(&stripe, 0, false)?;
                }
            } else {
                for lpn in 0..n {
                    self.program_page(lpn, 0, false)?;
                }
            }
            written += u64::from(n);
        }
        let random = (p.random_passes * f64::from(n)).round() as u64;
        for _ in 0..random {
            let lpn = prng.gen_range(0..n);
            self.program_page(lpn, 0, false)?;
        }
        if let Some(st) = self.rain_stats_mut() {
            *st = Default::default();
        }
        Ok(written + random)
    }
}
