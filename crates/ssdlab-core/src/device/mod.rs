//! The SSD as a stack of layers, built from its configuration: the host interface (`host`,
//! owned by the engine) submits requests to the device, whose page service goes down through
//! the FTL layer (`ftl::FtlLayer`: `plain`, `hybrid` or `rain`) to the flash layer (`flash`,
//! the time lines each FTL implementation owns). Data flows down; each layer reports upward
//! through typed values ([`Device::report`]: one section of the result per layer).
//!
//! This module is the registry of layer implementations: the one place that knows which types
//! a configuration's choices name ([`Device::new`]) and what each costs in memory
//! ([`memory_estimate`]). The engine above knows only [`Device`].

use std::ops::Range;

use crate::config::{DeviceConfig, DeviceModelKind};
use crate::error::Result;
use crate::flash::{OpDone, Resources};
use crate::ftl::gc::RequestInfo;
use crate::ftl::hybrid::HybridFtl;
use crate::ftl::map::memory::{ftl_estimate, MemoryEstimate};
use crate::ftl::map::Ftl;
use crate::ftl::plain::{OracleHints, PlainFtl};
use crate::ftl::rain::RainFtl;
use crate::ftl::{FtlLayer, Precondition};
use crate::stats::LayerReports;

/// How a device is built for a run: the simulation seed (every random stream of its layers
/// derives from it), whether time is modelled, and test mode (`check`: the layers keep what
/// their invariant checks need).
#[derive(Debug, Clone, Copy)]
pub struct Build {
    pub seed: u64,
    pub timed: bool,
    pub check: bool,
}

/// One simulated SSD: its layers below the host interface.
pub struct Device {
    ftl: Box<dyn FtlLayer>,
}

impl Device {
    /// The layers `cfg` names (`oracle`: the `oracle` placement's next-write times). Callers
    /// check first that it fits in memory (`sim::check_memory`).
    pub fn new(cfg: &DeviceConfig, b: Build, oracle: Option<OracleHints>) -> Result<Self> {
        let (seed, timed, check) = (b.seed, b.timed, b.check);
        let ftl: Box<dyn FtlLayer> = match cfg.model_kind() {
            DeviceModelKind::Plain => Box::new(PlainFtl::new(cfg, seed, timed, check, oracle)?),
            DeviceModelKind::TinyTail => Box::new(RainFtl::new(cfg, seed, timed, check)?),
            DeviceModelKind::Hybrid => Box::new(HybridFtl::new(cfg, seed, timed, check)?),
        };
        Ok(Device { ftl })
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
    pub fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        self.ftl.precondition(p, seed)
    }

    /// Background work that can run by `now` (see [`FtlLayer::background`]).
    #[inline]
    pub fn background(&mut self, prev_arrival: u64, now: u64) -> Result<()> {
        self.ftl.background(prev_arrival, now)
    }

    #[inline]
    pub fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        self.ftl.read(pages, ready)
    }

    #[inline]
    pub fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        self.ftl.write(pages, ready)
    }

    /// One host write of several page runs (see [`FtlLayer::write_runs`]).
    pub fn write_runs(&mut self, runs: &[Range<u32>], ready: u64) -> Result<OpDone> {
        self.ftl.write_runs(runs, ready)
    }

    #[inline]
    pub fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        self.ftl.trim(pages)
    }

    /// A whole request has been served (timed runs).
    #[inline]
    pub fn after_request(&mut self, info: &RequestInfo) -> Result<()> {
        self.ftl.after_request(info)
    }

    /// Every layer's invariants.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        self.ftl.check_invariants()
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
        out
    }
}

/// The heap a device of `cfg` needs, from each of its layers' own estimates: the mapping
/// state's (on the flash a RAIN device with parity on top runs on) and the FTL
/// implementation's own tables; `check`: test mode's records too.
pub fn memory_estimate(cfg: &DeviceConfig, check: bool) -> MemoryEstimate {
    let mut e = ftl_estimate(&cfg.rain_physical(), check);
    match cfg.model_kind() {
        DeviceModelKind::Plain => {}
        DeviceModelKind::TinyTail => e.add(RainFtl::memory_estimate(cfg, check)),
        DeviceModelKind::Hybrid => e.add(HybridFtl::memory_estimate(cfg)),
    }
    e
}
