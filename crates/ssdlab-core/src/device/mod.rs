//! The SSD as a stack of layers, built from its configuration: the host interface (`host`,
//! owned by the engine) submits requests to the device, whose page service goes down through
//! the write cache (`cache`, when `write_cache.mode` is not `off`) and the FTL layer
//! (`ftl::FtlLayer`: `plain`, `hybrid` or `rain`) to the flash layer (`flash`, the time lines
//! each FTL implementation owns). Data flows down; each layer reports upward through typed
//! values ([`Device::report`]: one section of the result per layer).
//!
//! This module is the registry of layer implementations: the one place that knows which types
//! a configuration's choices name ([`Device::new`]) and what each costs in memory
//! ([`memory_estimate`]). The engine above knows only [`Device`].

use std::ops::Range;

use crate::cache::{CacheEvent, WriteCache};
use crate::config::{DeviceConfig, FtlKind, ZoneHost};
use crate::error::Result;
use crate::flash::{OpDone, Resources};
use crate::ftl::gc::RequestInfo;
use crate::ftl::hybrid::HybridFtl;
use crate::ftl::map::memory::{ftl_estimate, MemoryEstimate};
use crate::ftl::map::Ftl;
use crate::ftl::plain::{OracleHints, PlainFtl};
use crate::ftl::rain::RainFtl;
use crate::ftl::zoned::cleaner::ZoneCleaner;
use crate::ftl::zoned::direct::DirectZones;
use crate::ftl::{FtlLayer, Precondition};
use crate::stats::FlashReport;
use crate::stats::{LayerReports, PowerCut};

/// How a device is built for a run: the simulation seed (every random stream of its layers
/// derives from it), whether time is modelled, and test mode (`check`: the layers keep what
/// their invariant checks need).
#[derive(Debug, Clone, Copy)]
pub struct Build {
    pub seed: u64,
    pub timed: bool,
    pub check: bool,
    /// When the power is cut, ns (`SimOptions::power_cut_us`), if it is.
    pub power_cut: Option<u64>,
}

/// One simulated SSD: its layers below the host interface.
pub struct Device {
    /// The write cache, if on (`None`: requests go straight to the FTL, one branch a request).
    cache: Option<Box<WriteCache>>,
    ftl: Box<dyn FtlLayer>,
    /// FDP (`[fdp]`) on: writes carry their placement identifier down to the FTL.
    fdp: bool,
}

impl Device {
    /// The layers `cfg` names (`oracle`: the `oracle` placement's next-write times). Callers
    /// check first that it fits in memory (`sim::check_memory`).
    pub fn new(cfg: &DeviceConfig, b: Build, oracle: Option<OracleHints>) -> Result<Self> {
        let (seed, timed, check) = (b.seed, b.timed, b.check);
        let ftl: Box<dyn FtlLayer> = match cfg.ftl.kind {
            FtlKind::Plain => Box::new(PlainFtl::new(cfg, seed, timed, check, oracle)?),
            FtlKind::Rain => Box::new(RainFtl::new(cfg, seed, timed, check)?),
            FtlKind::Hybrid => Box::new(HybridFtl::new(cfg, seed, timed, check)?),
            FtlKind::Zoned => match cfg.zns.host {
                ZoneHost::Cleaner => Box::new(ZoneCleaner::new(cfg, seed, timed, check)?),
                ZoneHost::None => Box::new(DirectZones::new(cfg, timed, check)?),
            },
        };
        let cache = cfg.write_cache.on().then(|| {
            let u = cfg.unit_bytes();
            Box::new(WriteCache::new(
                &cfg.write_cache,
                u,
                timed,
                check,
                b.power_cut,
            ))
        });
        Ok(Device {
            cache,
            ftl,
            fdp: cfg.fdp.on(),
        })
    }

    /// The FTL layer, for what is particular to it (its scheduler, Q-tables, decision points).
    pub fn ftl(&self) -> &dyn FtlLayer {
        self.ftl.as_ref()
    }

    pub fn ftl_mut(&mut self) -> &mut dyn FtlLayer {
        self.ftl.as_mut()
    }

    /// The mapping state (counters, maps, erase counts).
    #[inline]
    pub fn map(&self) -> &Ftl {
        self.ftl.map()
    }

    /// The flash time lines.
    #[inline]
    pub fn flash_mut(&mut self) -> &mut Resources {
        self.ftl.flash_mut()
    }

    /// Fill the device (timing off) and reset its counters; returns the host pages written.
    /// (Straight to the FTL: the cache starts empty and its counters at zero.)
    pub fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let n = self.ftl.precondition(p, seed)?;
        if let Some(c) = &mut self.cache {
            c.reset_counters();
        }
        Ok(n)
    }

    /// Background work that can run by `now` (see [`FtlLayer::background`]).
    #[inline]
    pub fn background(&mut self, prev_arrival: u64, now: u64) -> Result<()> {
        if let Some(c) = &mut self.cache {
            c.background(self.ftl.as_mut(), prev_arrival, now)?;
        }
        self.ftl.background(prev_arrival, now)
    }

    #[inline]
    pub fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        match &mut self.cache {
            None => self.ftl.read(pages, ready),
            Some(c) => c.read(self.ftl.as_mut(), pages, ready),
        }
    }

    /// Write `pages` from `ready` through placement identifier `placement` (honoured by an
    /// FDP device only; the caller checked it is one of the device's).
    #[inline]
    pub fn write(&mut self, pages: Range<u32>, ready: u64, placement: u16) -> Result<OpDone> {
        if self.fdp {
            self.ftl.set_placement(pages.clone(), placement);
        }
        match &mut self.cache {
            None => self.ftl.write(pages, ready),
            Some(c) => c.write(self.ftl.as_mut(), &[pages], ready, false),
        }
    }

    /// One host write of several page runs (see [`FtlLayer::write_runs`]); `fua`: force unit
    /// access (a volatile write cache writes it through).
    pub fn write_runs(
        &mut self,
        runs: &[Range<u32>],
        ready: u64,
        fua: bool,
        placement: u16,
    ) -> Result<OpDone> {
        if self.fdp {
            for r in runs {
                self.ftl.set_placement(r.clone(), placement);
            }
        }
        match &mut self.cache {
            None => self.ftl.write_runs(runs, ready),
            Some(c) => c.write(self.ftl.as_mut(), runs, ready, fua),
        }
    }

    /// Trim `pages` at `at`: done when the layers' work for it is (at once but on a zoned
    /// device whose trims reset zones).
    #[inline]
    pub fn trim(&mut self, pages: Range<u32>, at: u64) -> Result<OpDone> {
        match &mut self.cache {
            None => self.ftl.trim_at(pages, at),
            Some(c) => c
                .trim(self.ftl.as_mut(), pages, at)
                .map(|()| OpDone::at(at)),
        }
    }

    /// Erases of each erase block so far, and their sum since preconditioning.
    pub fn erase_counts(&self) -> &[u32] {
        self.ftl.erase_counts()
    }
    pub fn erases(&self) -> u64 {
        self.ftl.erases()
    }

    /// A flush command at `ready` (a volatile write-back cache writes its dirty pages; done
    /// when they are on flash).
    pub fn flush(&mut self, ready: u64) -> Result<OpDone> {
        match &mut self.cache {
            None => Ok(OpDone::at(ready)),
            Some(c) => c.flush_command(self.ftl.as_mut(), ready),
        }
    }

    /// The power cut (at `Build::power_cut`; the engine has run the background work up to
    /// it): what the write cache loses or its capacitor saves (`None` without a cache).
    pub fn power_cut(&mut self) -> Option<PowerCut> {
        self.cache.as_mut().map(|c| c.power_cut())
    }

    /// The run is over at `end` (its last completion).
    pub fn finish(&mut self, end: u64) {
        if let Some(c) = &mut self.cache {
            c.finish(end);
        }
    }

    /// Pages the write cache holds that flash does not (`None` without a cache).
    pub fn dirty_pages(&self) -> Option<u64> {
        self.cache.as_ref().map(|c| c.dirty_pages())
    }

    /// Test mode's record of the write cache's acknowledgements and flushes.
    pub fn cache_events(&self) -> &[CacheEvent] {
        self.cache.as_ref().map_or(&[], |c| c.events())
    }

    /// A whole request has been served (timed runs).
    #[inline]
    pub fn after_request(&mut self, info: &RequestInfo) -> Result<()> {
        self.ftl.after_request(info)
    }

    /// Every layer's invariants.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        self.ftl.check_invariants()?;
        match &self.cache {
            Some(c) => {
                let map = self.ftl.map();
                c.check_invariants(&|lpn| map.l2p_of(lpn).is_some())
            }
            None => self.ftl.map().check_fdp_isolation(),
        }
    }

    /// Free blocks of the device.
    #[inline]
    pub fn free_blocks(&self) -> u64 {
        self.ftl.free_blocks()
    }

    /// Busy time of the flash spent on GC so far (ns).
    pub fn gc_busy_ns(&self) -> u64 {
        self.ftl.gc_busy_ns()
    }

    /// Each layer's section of the result.
    pub fn report(&self) -> LayerReports {
        let mut out = LayerReports::default();
        self.ftl.report(&mut out);
        let flash = self.ftl.flash();
        out.flash = FlashReport::of(
            flash.suspend_report(),
            flash.scheduling_report(),
            flash.error_report(),
        );
        if let Some(c) = &self.cache {
            let k = self.ftl.map().counters;
            out.write_cache = Some(c.report(k.flash_writes()));
        }
        out
    }
}

/// The heap a device of `cfg` needs, from each of its layers' own estimates: the mapping
/// state's (on the flash a RAIN device with parity on top runs on) and the FTL
/// implementation's own tables; `check`: test mode's records too.
pub fn memory_estimate(cfg: &DeviceConfig, check: bool) -> MemoryEstimate {
    let mut e = ftl_estimate(&cfg.rain_physical(), check);
    match cfg.ftl.kind {
        FtlKind::Plain => {}
        FtlKind::Rain => e.add(RainFtl::memory_estimate(cfg, check)),
        FtlKind::Hybrid => e.add(HybridFtl::memory_estimate(cfg)),
        FtlKind::Zoned => return crate::ftl::zoned::memory_estimate(cfg, check),
    }
    if cfg.write_cache.on() {
        e.other_bytes += WriteCache::memory_bytes(&cfg.write_cache, cfg.unit_bytes());
    }
    if cfg.reliability.errors {
        e.other_bytes += crate::flash::Errors::memory_bytes(cfg);
    }
    e
}
