//! The FTL layer: the flash translation layer between the write cache above (or the host
//! interface, with the cache off) and the flash below. An implementation ([`FtlLayer`]) serves
//! page reads, writes and trims and does the background work of its own (GC, migration) up to
//! a time; which one runs is `ftl.kind` (`config::FtlKind`), built by `device::build`.
//!
//! Folders, by concept:
//! - [`map`]: the page-mapping state every implementation shares (L2P/P2L, blocks, frontiers,
//!   placement, the victim index, GC unit steps);
//! - [`gc`]: the GC schedulers (when unit steps run) and their execution context;
//! - implementations: [`plain`] (the page-mapped FTL with a GC scheduler), [`hybrid`] (SLC/QLC
//!   block modes with an SLC cache; Yoo & Shin, HotStorage 2020) and [`rain`] (RAIN parity,
//!   GC-tolerant reads and rotating GC; Yan et al., FAST 2017), both built on a `PlainFtl`,
//!   and [`zoned`] (an NVMe Zoned Namespace device, written by the host's zone cleaner or by
//!   the workload itself).
//!
//! Each implementation owns its mapping state and its flash time lines (`crate::flash`), and
//! reuses the shared parts instead of copying them. A new implementation (a DFTL mapping cache,
//! ZNS zones) is a folder implementing this trait plus one variant of `config::FtlKind` and its
//! arm in `device::build` (docs/development.md, "A new layer implementation").

pub mod gc;
pub mod hybrid;
pub mod map;
pub mod plain;
pub mod rain;
pub mod zoned;

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};
use crate::flash::{OpDone, Resources};
use crate::ftl::gc::{GcContext, GcScheduler, RequestInfo};
use crate::ftl::map::Ftl;
use crate::rl::QTable;
use crate::stats::{DecisionPoint, LayerReports, SlcObservation};

/// Fill the device before measuring: every logical page of the first `fill_fraction` of the
/// logical space written once in order, then `random_passes × those pages` uniformly random
/// page writes among them, timing off. Statistics cover only what follows. `fill_fraction`
/// below 1 sets the space utilisation a run starts from (the SLC-cache experiment's axis).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precondition {
    #[serde(default = "yes")]
    pub sequential: bool,
    #[serde(default = "two")]
    pub random_passes: f64,
    #[serde(default = "one")]
    pub fill_fraction: f64,
}

fn one() -> f64 {
    1.0
}

impl Precondition {
    /// The logical pages the fill covers (at least one).
    pub fn pages(&self, logical_pages: u32) -> u32 {
        ((f64::from(logical_pages) * self.fill_fraction).round() as u32).clamp(1, logical_pages)
    }
}

fn yes() -> bool {
    true
}
fn two() -> f64 {
    2.0
}

impl Default for Precondition {
    fn default() -> Self {
        Precondition {
            sequential: true,
            random_passes: 2.0,
            fill_fraction: 1.0,
        }
    }
}

/// How the cache above flushes ([`FtlLayer::flush`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushHow {
    /// The GC-aware flush (`write_cache.flush = "gc-aware"`): programs for collecting planes
    /// may wait in DRAM.
    pub gc_aware: bool,
    /// The cache is below its high-water mark (RAIN's rotating flush rotates only then).
    pub below_high_water: bool,
}

/// Runs a GC scheduler's decision with the model's own execution context.
pub type SchedulerCall<'f> = &'f mut dyn FnMut(&mut dyn GcScheduler, &mut GcContext) -> Result<()>;

/// One FTL layer implementation: page service and background work. Times are simulated ns. In
/// a timing-free run (`timed = false` at construction) the layer touches no time line and every
/// `ready` is 0.
///
/// Beyond page service, a layer reports upward only through typed values: its section of the
/// result ([`FtlLayer::report`]) and the capabilities below, whose defaults say "not this
/// layer" — never by being asked which type it is.
pub trait FtlLayer: Send {
    /// Fill the device (timing off) and reset its counters; returns the host pages written.
    fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64>;

    /// Background work that can run by `now`, before serving the request arriving at `now`
    /// (`prev_arrival`: the previous request's arrival; the device may have been idle between).
    /// Ends by letting the time lines forget what finished before `now`. Timed runs only.
    fn background(&mut self, prev_arrival: u64, now: u64) -> Result<()>;

    /// Read logical pages `pages` from `ready`: when the last completes, and whether any waited
    /// for GC. Unmapped pages cost nothing.
    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone>;

    /// Write logical pages `pages` from `ready` (GC runs as the layer's policies say).
    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone>;

    /// Write one host request whose pages are several runs (an LBA map split it: see
    /// [`crate::trace::Request::fragment_follows`]), all from `ready`: done when the last page
    /// is. A layer whose policies look at the request (its size, say) sees it whole; the default
    /// writes the runs in turn, as `write` would the pages of one run.
    fn write_runs(&mut self, runs: &[Range<u32>], ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for r in runs {
            out.join(self.write(r.clone(), ready)?);
        }
        Ok(out)
    }

    /// Trim logical pages `pages`.
    fn trim(&mut self, pages: Range<u32>) -> Result<()>;

    /// Trim `pages` from `ready`, when it completes: at once, unless the layer does flash work
    /// for it (a zoned device without a host layer resets whole zones, erasing their blocks).
    fn trim_at(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        self.trim(pages).map(|()| OpDone::at(ready))
    }

    /// FDP (`[fdp]`): the next writes of `pages` come through placement identifier `pid`,
    /// one the device has (the engine checked). Only a layer that honours FDP overrides it
    /// (the configuration refuses FDP on the others).
    fn set_placement(&mut self, _pages: Range<u32>, _pid: u16) {}

    /// A whole request has been served (timed runs): the GC scheduler's decision point.
    fn after_request(&mut self, _info: &RequestInfo) -> Result<()> {
        Ok(())
    }

    /// The mapping state (counters, maps, erase counts, invariants).
    fn map(&self) -> &Ftl;

    /// The flash time lines, to read and, for the engine's host view and read breakdown, to
    /// switch their records on.
    fn flash(&self) -> &Resources;
    fn flash_mut(&mut self) -> &mut Resources;

    /// The layer's invariants (the mapping state's, and the layer's own block accounting).
    fn check_invariants(&self) -> std::result::Result<(), String> {
        self.map().check_invariants()
    }

    /// Free blocks of the device (what the host could still be given, GC reserves included).
    fn free_blocks(&self) -> u64 {
        self.map().total_free_blocks()
    }

    /// Erases of each erase block of the device so far, and their sum since the counters were
    /// last reset (a zoned device's blocks are not its mapping state's "blocks", its zones).
    fn erase_counts(&self) -> &[u32] {
        self.map().erase_counts()
    }
    fn erases(&self) -> u64 {
        self.map().counters.erases
    }

    /// Busy time of the flash time lines spent on GC so far (ns).
    fn gc_busy_ns(&self) -> u64 {
        self.flash().gc_busy_ns
    }

    /// This layer's section of the result (none by default).
    fn report(&self, _out: &mut LayerReports) {}

    /// The GC scheduler, if the layer runs one.
    fn scheduler(&self) -> Option<&dyn GcScheduler> {
        None
    }

    /// Replace the GC scheduler (schedulers built outside the registry, e.g. with a Q-table).
    fn set_scheduler(&mut self, _s: Box<dyn GcScheduler>) -> Result<()> {
        Err(no_scheduler())
    }

    /// Call `f` with the scheduler and the layer's GC execution context (decision stepping).
    fn with_scheduler(&mut self, _f: SchedulerCall) -> Result<()> {
        Err(no_scheduler())
    }

    /// The learned Q-table of the run, if it has one: the GC scheduler's (`rlgc`,
    /// `rlgc-aggressive`) or the SLC-cache policy's (`cache.slc = "rl"`).
    fn q_table(&self) -> Option<&QTable> {
        self.scheduler()?.q_table()
    }

    /// Start the `rl` SLC-cache policy from `table` (pre-training; after preconditioning).
    fn set_slc_q_table(&mut self, _table: QTable) -> Result<()> {
        Err(SsdError::Invalid(
            "a Q-table for the SLC cache needs a hybrid device (cache.slc = \"rl\")".into(),
        ))
    }

    /// The SLC-cache policy's decisions in the measured run (empty without one).
    fn slc_decisions(&self) -> &[DecisionPoint] {
        &[]
    }

    /// The decision the `external` SLC-cache policy owes an outside agent, if one is due;
    /// an error on a layer without that policy.
    fn slc_pending(&mut self) -> Result<Option<SlcObservation>> {
        Err(no_external_slc())
    }

    /// Apply the agent's action (0–8) to the pending SLC decision.
    fn slc_act(&mut self, _action: usize) -> Result<()> {
        Err(no_external_slc())
    }

    // For a write cache above (`cache`): how the layer takes the cache's flushes. The defaults
    // program a flushed page as any host write; RAIN's GC-tolerant flush overrides them.

    /// Pages the cache flushes together, given the pages it would flush next (`pending`, in its
    /// order): by default one per channel (the allocator spreads consecutive writes over them).
    fn flush_unit(&self, _pending: &mut dyn Iterator<Item = u32>) -> usize {
        self.flash().channels() as usize
    }

    /// When the planes of the flush unit that starts with page `next` are free at `now` (a
    /// GC-aware flush starts no earlier): by default the plane the next host write goes to.
    /// `None`: the layer must collect first (the flush then starts at `now`).
    fn flush_free_at(&mut self, _next: u32, _now: u64) -> Option<u64> {
        let plane = self.map().peek_host_plane(_next);
        Some(self.flash().plane_free_at(plane))
    }

    /// Program the flush unit `pages` from `t` for the cache (`sizes`: each page's host request
    /// size, in pages): when its last program (a stripe's parity included) completes. With
    /// `how.gc_aware`, the layer may hold a program for a plane that is collecting in DRAM
    /// instead: its page is pushed on `held` and its completion reported by
    /// [`FtlLayer::place_held`].
    fn flush(
        &mut self,
        pages: &[u32],
        _sizes: &[u32],
        t: u64,
        _how: FlushHow,
        _held: &mut Vec<u32>,
    ) -> Result<OpDone> {
        let mut out = OpDone::at(t);
        for &lpn in pages {
            out.join(self.write(lpn..lpn + 1, t)?);
        }
        Ok(out)
    }

    /// Program the held pages whose plane's GC has ended by `now` (all of them if `force`: the
    /// cache is full and has nothing else in flight), each page's completion pushed on `done`.
    fn place_held(
        &mut self,
        _now: u64,
        _how: FlushHow,
        _force: bool,
        _done: &mut Vec<(u32, OpDone)>,
    ) {
    }

    /// Programs held now (they keep their pages' cache slots).
    fn held_programs(&self) -> usize {
        0
    }

    /// Does the flush rotate now (RAIN's rotating flush), and has the layer then staged all it
    /// can ahead?
    fn flush_rotates(&self, _how: FlushHow) -> bool {
        false
    }
    fn flush_stage_full(&self) -> bool {
        false
    }

    /// Test mode: rebuild every protected live page from its parity and verify it; (pages
    /// verified, live pages not yet protected). `(0, 0)` on a layer without parity.
    fn audit_parity(&mut self) -> Result<(u64, u64)> {
        Ok((0, 0))
    }
}

fn no_scheduler() -> SsdError {
    SsdError::Invalid("this FTL (ftl.kind) runs no GC scheduler".into())
}

fn no_external_slc() -> SsdError {
    SsdError::Invalid(
        "SLC decision stepping needs a hybrid device with cache.slc = \"external\"".into(),
    )
}
