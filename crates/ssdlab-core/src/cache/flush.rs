//! When the cache's dirty pages go to flash. Every flush is a *unit* of pages the FTL programs
//! together (`FtlLayer::flush_unit`: a page per channel; the rest of a RAIN stripe), least
//! recent dirty page first; a unit's pages are in flight until its last program completes.
//!
//! - **Watermark flush** (`write_cache.flush = "watermark"`): from `flush_high` of the cache
//!   unflushed (dirty or in flight) until fewer than `flush_low` are, one unit in flight at a
//!   time, each issued when the one before completes — the flusher's own clock, not the rate
//!   at which requests arrive — and never before the latest page entered the cache.
//! - **GC-aware flush** (`"gc-aware"`; Tiny-Tail Flash's GTF, Yan et al. FAST 2017 §4): the
//!   same watermarks; a unit is issued once its planes are free, planes collecting aside
//!   (`FtlLayer::flush_free_at`), so that a flush never queues programs in front of reads; a
//!   program for a collecting plane is held by the FTL (in DRAM, its page keeping its slot)
//!   until that plane's GC has ended (`FtlLayer::place_held`). Units are issued in order,
//!   never before the previous one's start. Held pages do not count toward the watermark:
//!   the flush adds no unit while GC holds its earlier ones (on the `ttflash` preset at its
//!   10 % spare, counting them tripled `pb+gtr+gtf`'s mean read latency, 2026-12-01).
//! - **Idle flush** (`idle_flush_us`): once no request has arrived for that long, every dirty
//!   page, units back to back as the policy issues them, a last partial unit included.
//! - **On demand**: a full cache flushes its victim at once (the host waits); a FUA write its
//!   own pages, a flush command every dirty page (both at once, planes busy or not).

use super::{State, WriteCache};
use crate::config::FlushPolicy;
use crate::error::Result;
use crate::flash::OpDone;
use crate::ftl::{FlushHow, FtlLayer};

impl WriteCache {
    /// The background flush up to `now`: programs the FTL held that can be placed, then units
    /// while the watermarks ask for them and their start (by the policy) is reached.
    pub(super) fn flush_until(&mut self, ftl: &mut dyn FtlLayer, now: u64) -> Result<()> {
        self.place_held(ftl, now, false);
        loop {
            let len = self.unit_len(ftl);
            let how = self.how(self.below_high_water_with(ftl));
            let rotating = ftl.flush_rotates(how);
            self.retire(now);
            // The trigger counts the pages whose flush has yet to start or is programming, not
            // those the FTL holds for a collecting plane: their flush was issued, and the flush
            // adds no unit while GC holds its earlier ones (Tiny-Tail's buffer counted them so).
            let unflushed = self.table.unflushed() - self.held.len();
            if unflushed >= self.high {
                self.flushing = true;
            } else if unflushed < self.low {
                self.flushing = false;
            }
            if !self.flushing
                || self.table.dirty() < len.max(1)
                || (rotating && ftl.flush_stage_full())
            {
                return Ok(());
            }
            let t = self.next_start(ftl, self.last_admit, now, rotating);
            if t > now {
                return Ok(());
            }
            self.flush_unit(ftl, t, len, how)?;
            if rotating {
                let chained = FlushHow {
                    below_high_water: true,
                    ..how
                };
                ftl.place_held(now, chained, false, &mut self.scratch.placed);
                self.take_placed();
            }
        }
    }

    /// The idle flush: every dirty page, from `from` (the host idle since) up to `now`.
    pub(super) fn flush_idle(&mut self, ftl: &mut dyn FtlLayer, from: u64, now: u64) -> Result<()> {
        self.place_held(ftl, now, false);
        while self.table.dirty() > 0 {
            let len = self.unit_len(ftl);
            let how = self.how(self.below_high_water_with(ftl));
            let t = self.next_start(ftl, from.max(self.last_admit), now, false);
            if t > now {
                break;
            }
            self.flush_unit(ftl, t, len, how)?;
            self.retire(now);
        }
        Ok(())
    }

    /// The FTL's flush unit for the pages next in flush order.
    pub(super) fn unit_len(&self, ftl: &dyn FtlLayer) -> usize {
        let t = &self.table;
        let mut pending = t.flush_order().map(|i| t.slot(i).lpn);
        ftl.flush_unit(&mut pending)
    }

    /// When the next unit may start, no earlier than `floor`: the GC-aware flush once its
    /// planes are free (unless rotating: the FTL chains its programs itself), the watermark
    /// flush once the previous unit completes.
    fn next_start(&mut self, ftl: &mut dyn FtlLayer, floor: u64, now: u64, rotating: bool) -> u64 {
        match self.policy {
            FlushPolicy::GcAware => {
                let floor = self.flush_clock.max(floor);
                if rotating {
                    return floor;
                }
                let next = self
                    .table
                    .flush_order()
                    .next()
                    .map(|i| self.table.slot(i).lpn);
                let free = next.and_then(|lpn| ftl.flush_free_at(lpn, now));
                floor.max(free.unwrap_or(now))
            }
            FlushPolicy::Watermark => floor.max(self.unit_done),
        }
    }

    /// Is the cache below its high-water mark, halfway from `flush_high` to full (RAIN's
    /// rotating flush rotates only below it: `rain.rotating_flush`)? The programs the FTL holds
    /// that are not pages' (a RAIN stripe's parity: it takes DRAM too) count.
    pub(super) fn below_high_water_with(&self, ftl: &dyn FtlLayer) -> bool {
        let extra = ftl.held_programs().saturating_sub(self.held.len());
        2 * (self.table.unflushed() + extra) < self.high + self.table.capacity()
    }

    /// Flush the next `len` dirty pages in flush order as one unit at `t` (no earlier than the
    /// previous unit's start).
    pub(super) fn flush_unit(
        &mut self,
        ftl: &mut dyn FtlLayer,
        t: u64,
        len: usize,
        how: FlushHow,
    ) -> Result<()> {
        let t = t.max(self.flush_clock);
        self.flush_clock = t;
        let mut slots = std::mem::take(&mut self.scratch.slots);
        slots.clear();
        slots.extend(self.table.flush_order().take(len.max(1)));
        let d = self.flush_slots(ftl, &slots, t, how);
        self.scratch.slots = slots;
        self.unit_done = self.unit_done.max(d?.done);
        Ok(())
    }

    /// Issue the flush of dirty `slots` as one unit at `t`; returns when its programs complete
    /// (the held ones aside: their completions come when the FTL places them).
    pub(super) fn flush_slots(
        &mut self,
        ftl: &mut dyn FtlLayer,
        slots: &[u32],
        t: u64,
        how: FlushHow,
    ) -> Result<OpDone> {
        let (mut lpns, mut sizes) = (
            std::mem::take(&mut self.scratch.lpns),
            std::mem::take(&mut self.scratch.sizes),
        );
        lpns.clear();
        sizes.clear();
        for &i in slots {
            self.note_flight(i);
            self.table.set_state(i, State::Flushing);
            let s = self.table.slot_mut(i);
            s.flight_since = s.unflushed_since;
            s.unflushed_since = u64::MAX;
            s.redirty = false;
            s.flight_done = u64::MAX;
            lpns.push(s.lpn);
            sizes.push(s.req_pages);
        }
        let mut held = std::mem::take(&mut self.scratch.held);
        held.clear();
        let d = ftl.flush(&lpns, &sizes, t, how, &mut held);
        for (&i, &lpn) in slots.iter().zip(&lpns) {
            match (&d, held.iter().position(|&h| h == lpn)) {
                (Ok(_), Some(k)) => {
                    held.swap_remove(k);
                    self.held.push((lpn, i));
                }
                (Ok(d), None) => self.flight_known(i, d.done),
                // The FTL failed (the device is full): the error ends the run.
                (Err(_), _) => self.flight_known(i, t),
            }
        }
        self.scratch.held = held;
        self.report.flushed_pages += lpns.len() as u64;
        self.report.flushes += 1;
        self.scratch.lpns = lpns;
        self.scratch.sizes = sizes;
        d
    }

    /// Flush `slots` now (a FUA write's pages, a flush command's): the dirty ones in units from
    /// `t`, those overwritten while in flight once that flight completes; done when all are
    /// on flash.
    pub(super) fn flush_now(
        &mut self,
        ftl: &mut dyn FtlLayer,
        slots: &[u32],
        t: u64,
    ) -> Result<OpDone> {
        let how = FlushHow::default();
        let mut out = OpDone::at(t);
        let dirty: Vec<u32> = slots
            .iter()
            .copied()
            .filter(|&i| self.table.slot(i).state == State::Dirty)
            .collect();
        let unit = self.unit_len(ftl).max(1);
        for chunk in dirty.chunks(unit) {
            out.join(self.flush_slots(ftl, chunk, t, how)?);
        }
        let again: Vec<u32> = slots
            .iter()
            .copied()
            .filter(|&i| {
                let s = self.table.slot(i);
                s.state == State::Flushing && s.redirty
            })
            .collect();
        for i in again {
            let done = self.settle(ftl, i, t);
            out.join(self.flush_slots(ftl, &[i], t.max(done), how)?);
        }
        Ok(out)
    }

    /// Wait for slot `i`'s flight (placing what the FTL holds if its completion is unknown)
    /// and complete it: when it completed.
    pub(super) fn settle(&mut self, ftl: &mut dyn FtlLayer, i: u32, now: u64) -> u64 {
        if self.table.slot(i).flight_done == u64::MAX {
            self.place_held(ftl, now, true);
        }
        let done = self.table.slot(i).flight_done;
        if self.table.slot(i).state == State::Flushing {
            self.complete(i);
        }
        done.min(u64::MAX - 1)
    }
}
