//! The cache's page service: host reads, writes, trims and flush commands, and its background
//! work, each over the FTL layer below it.

use std::ops::Range;

use super::{CacheMode, State, WriteCache};
use crate::error::Result;
use crate::flash::OpDone;
use crate::ftl::FtlLayer;

impl WriteCache {
    /// Host read of `pages` from `ready`: cached pages from DRAM, the rest from the FTL (and,
    /// with `read_allocate`, cached clean once read).
    #[inline(never)] // the device's cache-off path stays a branch and a call to the FTL
    pub fn read(
        &mut self,
        ftl: &mut dyn FtlLayer,
        pages: Range<u32>,
        ready: u64,
    ) -> Result<OpDone> {
        self.retire(ready);
        let n = u64::from(pages.end - pages.start);
        self.report.host_pages_read += n;
        let mut out = OpDone::at(ready);
        let mut hits = 0u64;
        let mut run = pages.start;
        for lpn in pages.clone() {
            let Some(i) = self.table.find(lpn) else {
                continue;
            };
            hits += 1;
            if self.eviction.reorders_on_access() {
                self.table.touch(i);
            }
            if run < lpn {
                out.join(self.read_misses(ftl, run..lpn, ready)?);
            }
            run = lpn + 1;
        }
        if run < pages.end {
            out.join(self.read_misses(ftl, run..pages.end, ready)?);
        }
        if hits > 0 {
            self.report.read_hits += hits;
            let d = self.dram.access(ready, hits * self.unit_bytes, self.timed);
            out.join(OpDone::at(d));
        }
        Ok(out)
    }

    /// Pages no slot holds, from the FTL; with `read_allocate` the mapped ones then take a
    /// clean slot each (once their data is in, which the read does not wait for).
    fn read_misses(
        &mut self,
        ftl: &mut dyn FtlLayer,
        run: Range<u32>,
        ready: u64,
    ) -> Result<OpDone> {
        let d = ftl.read(run.clone(), ready)?;
        if self.read_allocate {
            for lpn in run {
                if ftl.map().l2p_of(lpn).is_none() || self.table.find(lpn).is_some() {
                    continue;
                }
                if self.make_room(ftl, d.done, d.done)?.is_some() {
                    self.table.insert(lpn, State::Clean);
                }
            }
        }
        Ok(d)
    }

    /// Host write of the runs `runs` (one request) from `ready`; `fua`: force unit access.
    #[inline(never)] // the device's cache-off path stays a branch and a call to the FTL
    pub fn write(
        &mut self,
        ftl: &mut dyn FtlLayer,
        runs: &[Range<u32>],
        ready: u64,
        fua: bool,
    ) -> Result<OpDone> {
        self.retire(ready);
        let n: u64 = runs.iter().map(|r| u64::from(r.end - r.start)).sum();
        let req_pages = n.min(u64::from(u32::MAX)) as u32;
        self.report.host_pages_written += n;
        let through = self.mode == CacheMode::WriteThrough;
        let mut room = ready;
        let mut slots = std::mem::take(&mut self.scratch.slots);
        slots.clear();
        // Pages no slot can take (a request larger than the cache) go straight to flash.
        let mut bypass = OpDone::at(ready);
        let mut left = n;
        for lpn in runs.iter().flat_map(Clone::clone) {
            left -= 1;
            let i = match self.table.find(lpn) {
                Some(i) => {
                    self.report.write_hits += 1;
                    if self.eviction.reorders_on_access() {
                        self.table.touch(i);
                    }
                    match self.table.slot(i).state {
                        State::Flushing => self.table.slot_mut(i).redirty = !through,
                        State::Clean if !through => self.table.set_state(i, State::Dirty),
                        _ => {}
                    }
                    i
                }
                None => match self.make_room(ftl, ready, room)? {
                    Some(t) => {
                        room = room.max(t);
                        let state = if through {
                            State::Flushing
                        } else {
                            State::Dirty
                        };
                        self.table.insert(lpn, state)
                    }
                    None => {
                        bypass.join(ftl.write(lpn..lpn + 1, room)?);
                        continue;
                    }
                },
            };
            let s = self.table.slot_mut(i);
            s.req_pages = req_pages;
            s.pinned = true;
            slots.push(i);
            if !through && (left > 0 || fua) {
                // The flush runs beside the admission (Tiny-Tail's buffer flushes after each
                // page it takes in): a multi-page write that crosses the watermark starts the
                // flush before its last page is in. After the last page the flush below, at
                // the same time, does it (before a FUA write's own flush, this one).
                self.last_admit = self.last_admit.max(room);
                self.flush_until(ftl, if self.timed { ready } else { 0 })?;
            }
        }
        let acked = self
            .dram
            .access(room, slots.len() as u64 * self.unit_bytes, self.timed);
        self.last_admit = self.last_admit.max(room);
        let mut out = OpDone::at(acked);
        out.join(bypass);
        if through {
            for &i in &slots {
                self.table.slot_mut(i).pinned = false;
            }
            // On flash before the write completes: never at risk.
            let mut d = OpDone::at(room);
            for r in runs {
                d.join(ftl.write(r.clone(), room)?);
            }
            for &i in &slots {
                self.note_flight(i);
                self.table.set_state(i, State::Flushing);
                self.flight_known(i, d.done);
            }
            out.join(d);
            self.note_acks(&slots, out.done);
        } else {
            // Acknowledged now: at risk from `acked` until on flash (a flush issued while the
            // request was being taken in covers it from then on).
            self.note_acks(&slots, acked);
            for &i in &slots {
                self.acknowledge(i, acked);
            }
            if fua && self.volatile {
                self.report.fua_writes += 1;
                let mut fua_slots = std::mem::take(&mut self.scratch.lpns);
                fua_slots.clear();
                fua_slots.extend(
                    slots
                        .iter()
                        .copied()
                        .filter(|&i| self.table.slot(i).state != State::Free),
                );
                out.join(self.flush_now(ftl, &fua_slots, room)?);
                self.scratch.lpns = fua_slots;
            }
        }
        self.scratch.slots = slots;
        self.flush_until(ftl, if self.timed { ready } else { 0 })?;
        self.report.max_dirty_pages = self.report.max_dirty_pages.max(self.dirty_pages());
        Ok(out)
    }

    /// Trim `pages` at `at`: cached copies are dropped (a dirty one is never written), then the
    /// FTL unmaps them.
    #[inline(never)] // the device's cache-off path stays a branch and a call to the FTL
    pub fn trim(&mut self, ftl: &mut dyn FtlLayer, pages: Range<u32>, at: u64) -> Result<()> {
        for lpn in pages.clone() {
            if let Some(i) = self.table.find(lpn) {
                if self.table.slot(i).state == State::Flushing {
                    self.table.slot_mut(i).dropped = true;
                    self.table.unindex(i);
                } else {
                    self.table.evict(i);
                }
            }
            if at <= self.cut_at {
                self.at_risk.remove(&lpn);
            }
            self.note_trim(lpn, at);
        }
        ftl.trim(pages)
    }

    /// A flush command at `ready`: every dirty page to flash; done when all are (at once for a
    /// capacitor-backed or write-through cache: nothing in it is at risk).
    #[inline(never)] // the device's cache-off path stays a branch and a call to the FTL
    pub fn flush_command(&mut self, ftl: &mut dyn FtlLayer, ready: u64) -> Result<OpDone> {
        self.retire(ready);
        if !self.volatile || self.mode != CacheMode::WriteBack {
            return Ok(OpDone::at(ready));
        }
        self.report.flush_commands += 1;
        let mut slots = std::mem::take(&mut self.scratch.slots);
        slots.clear();
        slots.extend(self.table.flush_order());
        // Pages overwritten while their flush is in flight go again.
        slots.extend(
            self.table
                .occupied()
                .filter(|(_, s)| s.state == State::Flushing && s.redirty)
                .map(|(i, _)| i),
        );
        let out = self.flush_now(ftl, &slots, ready);
        self.scratch.slots = slots;
        let mut out = out?;
        self.place_held(ftl, ready, true);
        for (_, s) in self.table.occupied() {
            if s.state == State::Flushing {
                out.join(OpDone::at(s.flight_done));
            }
        }
        Ok(out)
    }

    /// Background work up to `now` (the previous request arrived at `prev_arrival`): the idle
    /// flush once the host has been idle for `idle_flush_us`, the programs the FTL held that
    /// can be placed, the watermark flush.
    #[inline(never)] // the device's cache-off path stays a branch and a call to the FTL
    pub fn background(
        &mut self,
        ftl: &mut dyn FtlLayer,
        prev_arrival: u64,
        now: u64,
    ) -> Result<()> {
        self.dram.prune(now);
        if let Some(idle) = self.idle_flush_ns {
            let from = prev_arrival.saturating_add(idle);
            if from < now && self.table.dirty() > 0 {
                self.flush_idle(ftl, from, now)?;
            }
        }
        self.flush_until(ftl, now)
    }
}
