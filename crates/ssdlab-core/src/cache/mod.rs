//! The write-cache layer: a DRAM buffer of `write_cache.size_mib` between the host interface
//! and the FTL (`[write_cache]`). MQSim's data cache manager, SimpleSSD's internal cache layer,
//! FEMU's write buffer and SSDsim's buffer are the peers' versions; Tiny-Tail Flash's
//! GC-tolerant flush (Yan et al., FAST 2017, §4) is this cache with the `gc-aware` flush.
//!
//! - **Writes.** Write-back: a write completes once its pages are in DRAM (the DRAM's latency
//!   and transfer, `dram`); write-through: once they are on flash, their pages kept clean for
//!   reads. An overwrite of a cached page is a write hit and coalesces: flash sees only the
//!   last version. A page needing a slot when none is free takes the eviction policy's victim
//!   ([`eviction`]): a clean one gives it up at once, a dirty one is flushed first and one in
//!   flight is waited for — the host waits (a *full wait*).
//! - **Reads** of cached pages (dirty, in flight or clean) are served from DRAM; the rest go to
//!   the FTL. Read misses are cached (clean) only with `read_allocate` (MQSim's
//!   `WRITE_READ_CACHE`; off: its `WRITE_CACHE`).
//! - **Flushes** (`flush`): in the background from `flush_high` of the cache dirty down to
//!   `flush_low`, in the FTL's flush units (a page per channel; a RAIN stripe), least recent
//!   dirty page first; every dirty page once the host has been idle for `idle_flush_us`; a
//!   flushed page becomes clean when its program completes (a unit's pages when the last
//!   program of the unit, parity included, does).
//! - **Power loss.** A volatile cache honours flush commands (every dirty page flushed; the
//!   command completes when they are on flash) and FUA writes (flushed at once); a power cut
//!   (`SimOptions::power_cut_us`) loses exactly the pages whose last acknowledged write no
//!   completed flush covered. A capacitor-backed cache (`volatile = false`) loses none: flush
//!   and FUA cost nothing.
//!
//! Timing-free runs keep the cache's logic (coalescing, evictions, flushes at the watermarks,
//! all at time 0): flash writes per host write then measure what the cache saves.

mod check;
mod dram;
pub mod eviction;
mod flush;
mod service;
mod table;

pub use check::CacheEvent;
pub use table::State;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashSet;

use crate::config::{CacheMode, FlushPolicy, WriteCacheConfig};
use crate::error::Result;
use crate::flash::OpDone;
use crate::ftl::{FlushHow, FtlLayer};
use crate::stats::{PowerCut, WriteCacheReport};
use dram::Dram;
use eviction::Eviction;
use table::{Table, NONE};

/// The write cache.
pub struct WriteCache {
    mode: CacheMode,
    policy: FlushPolicy,
    volatile: bool,
    timed: bool,
    unit_bytes: u64,
    table: Table,
    eviction: Box<dyn Eviction>,
    /// (completion, slot) of the flushes in flight whose completion is known.
    flights: BinaryHeap<Reverse<(u64, u32)>>,
    /// Unflushed pages at which the background flush starts, and below which it stops.
    high: usize,
    low: usize,
    flushing: bool,
    idle_flush_ns: Option<u64>,
    dram: Dram,
    /// Start of the latest flush unit (the GC-aware flush issues units in order), the
    /// completion of the latest (the watermark flush has one unit in flight at a time), and
    /// when the latest page entered the cache (no flush decision is taken before it).
    flush_clock: u64,
    unit_done: u64,
    last_admit: u64,
    /// Pages whose program the FTL holds for a collecting plane: (page, slot).
    held: Vec<(u32, u32)>,
    scratch: Scratch,
    report: WriteCacheReport,
    check: Option<Box<check::Check>>,
    /// Cache read misses too (`read_allocate`); keep flushed pages (`keep_clean`).
    read_allocate: bool,
    keep_clean: bool,
    /// The power cut's time (`SimOptions::power_cut_us`; `u64::MAX`: none), and the pages a
    /// flush whose risk window spans it covers (acknowledged by then, on flash only after).
    cut_at: u64,
    at_risk: FxHashSet<u32>,
}

/// Buffers reused from call to call.
#[derive(Debug, Default)]
struct Scratch {
    slots: Vec<u32>,
    lpns: Vec<u32>,
    sizes: Vec<u32>,
    held: Vec<u32>,
    placed: Vec<(u32, OpDone)>,
}

impl WriteCache {
    /// A cache of `cfg` over mapping units of `unit_bytes` (`check`: test mode's records;
    /// `cut_at`: when the power will be cut, ns, if it will).
    pub fn new(
        cfg: &WriteCacheConfig,
        unit_bytes: u32,
        timed: bool,
        check: bool,
        cut_at: Option<u64>,
    ) -> Self {
        let slots = cfg.slots(unit_bytes).min(u64::from(NONE - 1)) as u32;
        let cap = slots as usize;
        let high = ((cap as f64 * cfg.flush_high).ceil() as usize).clamp(1, cap);
        let low = ((cap as f64 * cfg.flush_low).ceil() as usize).clamp(1, high);
        WriteCache {
            mode: cfg.mode,
            policy: cfg.flush,
            volatile: cfg.volatile,
            timed,
            unit_bytes: u64::from(unit_bytes),
            table: Table::new(slots),
            eviction: eviction::build(cfg, slots),
            flights: BinaryHeap::new(),
            high,
            low,
            flushing: false,
            idle_flush_ns: cfg.idle_flush_us.map(|us| (us * 1e3).round() as u64),
            dram: Dram::new(cfg.dram_latency_ns, cfg.dram_mb_s),
            flush_clock: 0,
            unit_done: 0,
            last_admit: 0,
            held: Vec::new(),
            scratch: Scratch::default(),
            report: WriteCacheReport {
                capacity_pages: u64::from(slots),
                ..WriteCacheReport::default()
            },
            check: check.then(Box::default),
            read_allocate: cfg.read_allocate,
            keep_clean: cfg.keep_clean,
            cut_at: cut_at.unwrap_or(u64::MAX),
            at_risk: FxHashSet::default(),
        }
    }

    /// Heap a cache of `cfg` over `unit_bytes` units needs: per slot its record, two orders'
    /// links, its index entry (a hash map's ~2× slack) and its place on the free list.
    pub fn memory_bytes(cfg: &WriteCacheConfig, unit_bytes: u32) -> u64 {
        cfg.slots(unit_bytes) * (std::mem::size_of::<table::Slot>() as u64 + 16 + 16 + 4)
    }

    /// Pages flash does not have yet (dirty or in flight).
    pub fn dirty_pages(&self) -> u64 {
        self.table.unflushed() as u64
    }

    /// Forget the counters (the measured phase starts; the cache is empty then).
    pub fn reset_counters(&mut self) {
        self.report = WriteCacheReport {
            capacity_pages: self.report.capacity_pages,
            ..WriteCacheReport::default()
        };
    }

    /// What the cache did; `flash_writes`: the FTL's host page writes and GC copies.
    pub fn report(&self, flash_writes: u64) -> WriteCacheReport {
        let mut r = self.report;
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        r.read_hit_ratio = ratio(r.read_hits, r.host_pages_read);
        r.write_hit_ratio = ratio(r.write_hits, r.host_pages_written);
        r.flash_writes_per_host_write = ratio(flash_writes, r.host_pages_written);
        r.dirty_pages = self.dirty_pages();
        r
    }

    #[inline]
    fn how(&self, below_high_water: bool) -> FlushHow {
        FlushHow {
            gc_aware: self.policy == FlushPolicy::GcAware,
            below_high_water,
        }
    }

    /// Flushes whose programs completed by `now`: their pages become clean (or dirty again,
    /// if overwritten meanwhile; freed, if trimmed).
    fn retire(&mut self, now: u64) {
        while let Some(&Reverse((done, i))) = self.flights.peek() {
            if done > now {
                break;
            }
            self.flights.pop();
            let s = *self.table.slot(i);
            if s.state != State::Flushing || s.flight_done != done {
                continue;
            }
            self.complete(i);
        }
    }

    /// Slot `i`'s flush is done.
    fn complete(&mut self, i: u32) {
        let s = self.table.slot_mut(i);
        s.flight_since = u64::MAX;
        let (dropped, redirty) = (s.dropped, s.redirty);
        s.redirty = false;
        if dropped {
            self.table.evict(i);
        } else if redirty {
            self.table.set_state(i, State::Dirty);
        } else {
            self.table.set_state(i, State::Clean);
            // A pure write buffer frees the slot (a pinned one when its request is in).
            if !self.keep_clean && !self.table.slot(i).pinned {
                self.table.evict(i);
            }
        }
    }

    /// Slot `i`, written by the request just taken in, is acknowledged at `acked`: unpinned,
    /// and at risk from then until a flush covers it — one issued while the request was taken
    /// in already does (its window starts at `acked`); a buffer frees one already flushed.
    fn acknowledge(&mut self, i: u32, acked: u64) {
        let s = self.table.slot_mut(i);
        s.pinned = false;
        match s.state {
            State::Dirty => s.unflushed_since = s.unflushed_since.min(acked),
            State::Flushing if s.redirty => s.unflushed_since = s.unflushed_since.min(acked),
            State::Flushing => {
                s.flight_since = s.flight_since.min(acked);
                let (since, done, lpn) = (s.flight_since, s.flight_done, s.lpn);
                if done != u64::MAX && since <= self.cut_at && done > self.cut_at {
                    self.at_risk.insert(lpn);
                }
            }
            State::Clean if !self.keep_clean => self.table.evict(i),
            State::Clean | State::Free => {}
        }
    }

    /// Slot `i`'s flush completes at `done` (known now). A flush whose page was acknowledged
    /// by the power cut and is on flash only after it leaves that page at risk.
    fn flight_known(&mut self, i: u32, done: u64) {
        let s = self.table.slot_mut(i);
        s.flight_done = done;
        let (lpn, since) = (s.lpn, s.flight_since);
        if since <= self.cut_at && done > self.cut_at && !s.dropped {
            self.at_risk.insert(lpn);
        }
        self.flights.push(Reverse((done, i)));
        self.note_flushed(i, done);
    }

    /// The held programs the FTL placed: their completions are known now.
    fn take_placed(&mut self) {
        let placed = std::mem::take(&mut self.scratch.placed);
        for &(lpn, d) in &placed {
            if let Some(k) = self.held.iter().position(|h| h.0 == lpn) {
                let (_, i) = self.held.remove(k);
                self.flight_known(i, d.done);
            }
        }
        self.scratch.placed = placed;
        self.scratch.placed.clear();
    }

    /// Ask the FTL to place what it holds (all of it if `force`).
    fn place_held(&mut self, ftl: &mut dyn FtlLayer, now: u64, force: bool) {
        if ftl.held_programs() == 0 {
            return;
        }
        let how = self.how(self.below_high_water_with(ftl));
        ftl.place_held(now, how, force, &mut self.scratch.placed);
        self.take_placed();
    }

    /// A slot for a new page of a request ready at `ready`, no earlier than `t`: the time one
    /// is free (later than `t` when the host must wait for a flush); `None` when every slot is
    /// pinned (a request larger than the cache). A flush it must issue is issued at `ready`,
    /// when the request found the cache full (Tiny-Tail's buffer does so), not at `t`: that
    /// would move the flush's clock past the waits of the request's earlier pages.
    ///
    /// The eviction policy's victim gives up its slot if it is clean. Otherwise the write
    /// waits for the first flush in flight to complete and takes that page's slot, clean then
    /// — a full cache adds no program while one is in flight (as Tiny-Tail's buffer waits for
    /// its earliest program); only with none in flight is the victim flushed at once (with the
    /// rest of its flush unit when it is the next to flush), and waited for.
    fn make_room(&mut self, ftl: &mut dyn FtlLayer, ready: u64, mut t: u64) -> Result<Option<u64>> {
        let mut waited = false;
        loop {
            if self.table.has_free() {
                if waited {
                    self.report.full_waits += 1;
                }
                return Ok(Some(t));
            }
            let Some(v) = self.eviction.victim(&self.table) else {
                return Ok(None);
            };
            if self.table.slot(v).state == State::Clean {
                self.table.evict(v);
                self.report.evictions += 1;
                continue;
            }
            if let Some((done, i)) = self.earliest_flight() {
                // That flush alone is taken as done: the others complete in their own time
                // (retired when the clock reaches them), not at this wait's end.
                waited = true;
                t = t.max(done);
                self.flights.pop();
                self.complete(i);
                let s = self.table.slot(i);
                if s.state == State::Clean && !s.pinned {
                    self.table.evict(i);
                    self.report.evictions += 1;
                }
                continue;
            }
            if ftl.held_programs() > 0 && !self.held.is_empty() {
                self.place_held(ftl, t, true);
                continue;
            }
            match self.table.slot(v).state {
                State::Dirty => {
                    self.report.forced_flushes += 1;
                    if self.table.flush_order().next() == Some(v) {
                        let len = self.unit_len(ftl);
                        self.flush_unit(ftl, ready, len, self.how(false))?;
                    } else {
                        self.flush_slots(ftl, &[v], ready, self.how(false))?;
                    }
                    // What it held for collecting planes goes now: the host is waiting.
                    self.place_held(ftl, ready, true);
                }
                // In flight with nothing known: its completion is the FTL's to report.
                _ => {
                    waited = true;
                    t = t.max(self.settle(ftl, v, t));
                }
            }
        }
    }

    /// The flush in flight that completes first, if any (stale entries dropped).
    fn earliest_flight(&mut self) -> Option<(u64, u32)> {
        while let Some(&Reverse((done, i))) = self.flights.peek() {
            let s = self.table.slot(i);
            if s.state == State::Flushing && s.flight_done == done {
                return Some((done, i));
            }
            self.flights.pop();
        }
        None
    }

    /// The run is over at `end` (the last completion): flushes done by then are.
    pub fn finish(&mut self, end: u64) {
        self.retire(end);
    }

    /// The power cut (at the time given at construction; the background work up to it done):
    /// the pages it loses (volatile) or the capacitor writes (capacitor-backed) — those whose
    /// write acknowledged by then is not on flash by then: dirty and acknowledged by the cut,
    /// held in flight over it, or flushed by a flush that spans it.
    pub fn power_cut(&mut self) -> PowerCut {
        let at = self.cut_at;
        let mut pages: FxHashSet<u32> = self.at_risk.clone();
        for (_, s) in self.table.occupied() {
            if s.dropped {
                continue;
            }
            let unplaced = s.state == State::Flushing && s.flight_done == u64::MAX;
            if s.unflushed_since <= at || (unplaced && s.flight_since <= at) {
                pages.insert(s.lpn);
            }
        }
        let n = pages.len() as u64;
        let cut = PowerCut {
            at_s: at as f64 / 1e9,
            lost_pages: if self.volatile { n } else { 0 },
            rescued_pages: if self.volatile { 0 } else { n },
        };
        self.report.power_cut = Some(cut);
        cut
    }
}
