//! The plain page-mapped SSD: host pages are placed by the FTL's allocation and placement
//! policies, GC runs per plane as the configured scheduler decides (forced GC when a plane is out
//! of space, whatever the scheduler), and every operation is timed on the NAND time lines.
//!
//! Mapping units below the page size (`ftl.mapping_unit_bytes`): host units fill a frontier's
//! flash page in the controller's write buffer and the page is programmed (transfer + program)
//! with its last unit. Ours, where the issue and MQSim leave it open: a unit that does not fill
//! its page is acknowledged as soon as the FTL has placed it — the buffer is taken as power-loss
//! protected, as in drives that map sub-page units — and the write that fills the page waits
//! for the program, behind whatever (GC included) holds the plane. A read of a unit still in the buffer costs
//! no flash time; units of one request in one flash page share one page read.

mod cached;
mod errors;
mod oracle;

pub use oracle::OracleHints;

use std::ops::Range;

use rand::Rng;

use super::{FtlLayer, Precondition, SchedulerCall};
use crate::config::DeviceConfig;
use crate::error::Result;
use crate::flash::{OpDone, Resources};
use crate::ftl::gc::{build_scheduler, GcContext, GcScheduler, RequestInfo};
use crate::ftl::map::{Ftl, NEVER};
use crate::rng::{self, SimRng};
use crate::stats::LayerReports;

/// The plain device model (and the base the RAIN model builds on).
pub struct PlainFtl {
    pub(crate) ftl: Ftl,
    pub(crate) res: Resources,
    pub(crate) timed: bool,
    scheduler: Box<dyn GcScheduler>,
    /// The scheduler's [`GcScheduler::on_demand_only`]: it is then asked only on a plane that
    /// needs GC, and not at a request's end.
    on_demand: bool,
    gc_rng: SimRng,
    oracle: Option<OracleHints>,
    /// The CMT's replacement policy's name (a cached map's report).
    cmt_policy: &'static str,
    /// Bytes of a mapping unit and of an erase block (FDP's byte counts).
    unit_bytes: u64,
    block_bytes: u64,
    /// Retention refresh's patrol (`reliability.refresh_days`), if on.
    patrol: Option<errors::Patrol>,
}

impl PlainFtl {
    /// `check`: verify that no page is programmed twice between erases (tests); `oracle`: the
    /// next-write times of the `oracle` placement.
    pub fn new(
        cfg: &DeviceConfig,
        seed: u64,
        timed: bool,
        check: bool,
        oracle: Option<OracleHints>,
    ) -> Result<Self> {
        let mut ftl = Ftl::new(cfg)?;
        if check {
            ftl.enable_program_checks();
        }
        ftl.enable_endurance(cfg, seed)?;
        let mut res = Resources::new(cfg);
        res.enable_errors(cfg, seed);
        if res.errors_on() {
            ftl.log_opens();
        }
        let r = &cfg.reliability;
        if r.reclaim_reads > 0 || r.reclaim_retries > 0 || r.refresh_days > 0.0 {
            ftl.enable_reclaim(true);
        }
        let scheduler = build_scheduler(cfg.gc.scheduler, cfg, seed)?;
        Ok(PlainFtl {
            ftl,
            res,
            timed,
            on_demand: scheduler.on_demand_only(),
            scheduler,
            gc_rng: rng::stream(seed, "gc"),
            oracle,
            cmt_policy: cfg.ftl.cmt_policy.unwrap_or_default().into(),
            unit_bytes: u64::from(cfg.unit_bytes()),
            block_bytes: u64::from(cfg.geometry.page_size)
                * u64::from(cfg.geometry.pages_per_block),
            patrol: errors::Patrol::new(r),
        })
    }

    /// The scheduler and the context it executes GC steps in (on the time lines if `timed`).
    #[inline(always)]
    fn parts(&mut self, timed: bool) -> (&mut dyn GcScheduler, GcContext<'_>) {
        let Self {
            ftl,
            res,
            scheduler,
            gc_rng,
            ..
        } = self;
        let ctx = GcContext {
            ftl,
            res: if timed { Some(res) } else { None },
            rng: gc_rng,
        };
        (scheduler.as_mut(), ctx)
    }

    /// The GC context for models built on this one that place pages themselves (RAIN's logical
    /// stripes): forced GC, unit steps.
    pub(crate) fn gc_context(&mut self, timed: bool) -> GcContext<'_> {
        self.parts(timed).1
    }

    /// The scheduler's per-page decision point for a page programmed on `plane` (by
    /// [`Self::program_page`], or by a model built on this one that places pages itself).
    /// Timing-free, or with a scheduler that acts only on demand, it is asked only when the
    /// plane needs GC.
    #[inline]
    pub(crate) fn after_page_write(&mut self, plane: u32, ready: u64, timed: bool) -> Result<()> {
        if (!timed || self.on_demand) && !self.ftl.needs_gc(plane) {
            return Ok(());
        }
        let (scheduler, mut ctx) = self.parts(timed);
        scheduler.after_page_write(plane, ready, &mut ctx)
    }

    /// Program host page `lpn` at `ready` with the oracle's next-write time `hint` (`NEVER`
    /// without one): the allocator's plane (forced GC there if it is out of space), the page
    /// program, then the scheduler's per-page decision point. `timed = false` in a timed run
    /// serves preconditioning writes of models built on this one.
    #[inline(always)]
    pub(crate) fn program_page(
        &mut self,
        lpn: u32,
        ready: u64,
        hint: u64,
        timed: bool,
    ) -> Result<OpDone> {
        let plane = self.parts(timed).1.host_plane(lpn, ready)?;
        let ppn = self.ftl.write_host_hinted(lpn, plane, hint)?;
        let d = if timed && self.ftl.completes_page(ppn) {
            self.res.write_page(plane, ppn, ready)
        } else {
            OpDone::at(ready)
        };
        self.after_page_write(plane, ready, timed)?;
        Ok(d)
    }

    /// The oracle's next-write time for the next host page write (`NEVER` without oracle).
    #[inline]
    fn next_write_hint(&mut self) -> u64 {
        match &mut self.oracle {
            Some(o) => o.next_hint(),
            None => NEVER,
        }
    }
}

impl FtlLayer for PlainFtl {
    fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let written = precondition(&mut self.ftl, p, seed)?;
        self.ftl.reset_counters();
        self.stamp_opened(0);
        if let Some(o) = &mut self.oracle {
            o.set_offset(self.ftl.host_clock());
        }
        Ok(written)
    }

    fn background(&mut self, _prev_arrival: u64, now: u64) -> Result<()> {
        // No GC runs here: the partial-GC schedulers (`rlgc`, `idle-*`, `lazyrtgc`) decide at each
        // request's completion (`GcScheduler::after_request`) what to run in the gap they expect.
        // Retention refresh's patrol runs on its own clock (out of line, the advance with it).
        if self.patrol.is_some() {
            return self.patrol_until(now);
        }
        self.res.advance(now);
        Ok(())
    }

    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        if self.ftl.cached_mapping() {
            return self.read_cached(pages, ready);
        }
        if self.res.errors_on() {
            return self.read_decoded(pages, ready);
        }
        let mut out = OpDone::at(ready);
        let mut last_page = u32::MAX;
        for lpn in pages {
            if let Some(ppn) = self.ftl.read(lpn) {
                if self.timed {
                    if !self.ftl.read_needs_page(ppn, &mut last_page) {
                        continue;
                    }
                    out.join(self.res.read_page(self.ftl.plane_of_ppn(ppn), ppn, ready));
                }
            }
        }
        Ok(out)
    }

    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        if self.ftl.cached_mapping() {
            return self.write_cached(pages, ready);
        }
        let mut out = OpDone::at(ready);
        for lpn in pages {
            let hint = self.next_write_hint();
            out.join(self.program_page(lpn, ready, hint, self.timed)?);
        }
        if self.res.errors_on() {
            self.stamp_opened(ready);
        }
        // A block closed by these writes whose program failed: its data moves now.
        if self.ftl.reclaim_pending() {
            self.run_reclaim(out.done)?;
        }
        Ok(out)
    }

    fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        if self.ftl.cached_mapping() {
            return self.trim_cached(pages);
        }
        for lpn in pages {
            self.ftl.trim(lpn);
        }
        Ok(())
    }

    fn set_placement(&mut self, pages: Range<u32>, pid: u16) {
        self.ftl.set_placement(pages, pid);
    }

    fn after_request(&mut self, info: &RequestInfo) -> Result<()> {
        if self.on_demand {
            return Ok(());
        }
        let (scheduler, mut ctx) = self.parts(true);
        scheduler.after_request(info, &mut ctx)
    }

    fn map(&self) -> &Ftl {
        &self.ftl
    }

    fn flash(&self) -> &Resources {
        &self.res
    }

    fn flash_mut(&mut self) -> &mut Resources {
        &mut self.res
    }

    fn scheduler(&self) -> Option<&dyn GcScheduler> {
        Some(self.scheduler.as_ref())
    }

    fn report(&self, out: &mut LayerReports) {
        out.mapping = self.mapping_report();
        out.fdp = self.ftl.fdp_report(self.unit_bytes, self.block_bytes);
        out.wear_leveling = self.ftl.wear_leveling_report();
        out.endurance = self.ftl.endurance_report(self.unit_bytes);
        out.read_reclaim = self.ftl.reclaim_report();
    }

    fn set_scheduler(&mut self, s: Box<dyn GcScheduler>) -> Result<()> {
        self.on_demand = s.on_demand_only();
        self.scheduler = s;
        Ok(())
    }

    fn with_scheduler(&mut self, f: SchedulerCall) -> Result<()> {
        let (scheduler, mut ctx) = self.parts(self.timed);
        f(scheduler, &mut ctx)
    }
}

/// Preconditioning of the plain FTL: blocking GC, timing off, its own random streams.
fn precondition(ftl: &mut Ftl, p: &Precondition, seed: u64) -> Result<u64> {
    if ftl.cached_mapping() {
        return cached::precondition(ftl, p, seed);
    }
    let mut rng = rng::stream(seed, "precondition");
    let mut gc_rng = rng::stream(seed, "precondition-gc");
    let n = p.pages(ftl.logical_pages());
    // Bad blocks on: preconditioning stops at the drive's end of life, like the run.
    let watch = ftl.endurance_on();
    let mut written = 0u64;
    if p.sequential {
        for lpn in 0..n {
            write_one(ftl, lpn, &mut gc_rng)?;
            if watch && ftl.end_of_life() {
                return Ok(u64::from(lpn) + 1);
            }
        }
        written += u64::from(n);
    }
    let random = (p.random_passes * f64::from(n)).round() as u64;
    for i in 0..random {
        let lpn = rng.gen_range(0..n);
        write_one(ftl, lpn, &mut gc_rng)?;
        if watch && ftl.end_of_life() {
            return Ok(written + i + 1);
        }
    }
    Ok(written + random)
}

/// One host page write with blocking GC, timing off: the timing-free fast path. Forced in line
/// into preconditioning's two loops, as the PGO build has it: 7 % fewer instructions there
/// (docs/speed.md, "The PGO build's inlining decisions on the page path, by hand").
#[inline(always)]
fn write_one(ftl: &mut Ftl, lpn: u32, gc_rng: &mut SimRng) -> Result<()> {
    let plane = GcContext {
        ftl: &mut *ftl,
        res: None,
        rng: &mut *gc_rng,
    }
    .host_plane(lpn, 0)?;
    ftl.write_host(lpn, plane)?;
    if ftl.needs_gc(plane) {
        ftl.gc_until_threshold(plane, gc_rng, |_| {})?;
    }
    Ok(())
}
