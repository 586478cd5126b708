//! GC-tolerant flush (GTF; Yan et al., FAST 2017, the seed's slides: "store write blocked by GC in
//! RAM"): host writes complete in the RAM buffer and are flushed in the background, a stripe unit
//! at a time, when the unit's planes are idle. Under RAIN a page (or a stripe's parity) whose
//! plane is busy with GC is **held** in RAM — it keeps its slot, and its program is placed only
//! once that plane's GC has ended, behind the reads that waited for the GC rather than in front
//! of them (issue 16: queued behind the GC, the flush's programs made GC-blocked reads wait
//! longer than without GTF). Its stripe's other pages are programmed meanwhile; a rebuild that
//! needs the held page reads it from RAM. Without RAIN pages are not held (the plain device
//! places a page as it allocates it).

use super::buffer::Held;
use super::device::RainFtl;
use crate::error::Result;
use crate::flash::OpDone;

impl RainFtl {
    /// A host write of one page through the GTF buffer (when on) or straight to flash. With the
    /// buffer the write completes when its page is in RAM; it waits only when the buffer is full
    /// (then for the earliest program in flight, flushing a unit now if none is).
    pub(super) fn write_page_rain(&mut self, lpn: u32, ready: u64) -> Result<OpDone> {
        let Some(buf) = &mut self.wbuf else {
            return self.program_page(lpn, ready, true);
        };
        buf.retire(ready);
        let mut at = OpDone::at(ready);
        if buf.is_full() {
            if !buf.has_inflight() {
                self.place_held(ready, true);
            }
            if !self.wbuf.as_ref().is_some_and(|b| b.has_inflight()) {
                self.flush_unit(ready)?;
                self.place_held(ready, true);
            }
            let (t, blocked) = self
                .wbuf
                .as_mut()
                .and_then(|b| b.wait_for_room(ready))
                .expect("a program is in flight");
            at = OpDone {
                done: t,
                blocked_by_gc: blocked,
            };
        }
        if let Some(b) = &mut self.wbuf {
            b.admit(lpn, at.done);
        }
        self.flush_until(ready)?;
        Ok(at)
    }
    /// Pages of the next flush unit: the rest of the open host stripe under RAIN (super-blocks).
    /// With logical stripes: the oldest pending page and the pending pages of its stripe right
    /// behind it (one parity update), so that the flush is paced on the planes of one stripe.
    pub(super) fn flush_unit_len(&self) -> usize {
        match (&self.rain, &self.lrain, &self.wbuf) {
            (Some(r), _, _) => r.host_stripe_left() as usize,
            (None, Some(l), Some(b)) => {
                let mut p = b.pending().map(|lpn| l.stripe(lpn));
                let first = p.next();
                1 + p.take_while(|&s| Some(s) == first).count()
            }
            (None, None, Some(b)) => b.unit(),
            _ => 0,
        }
    }
    /// When the next flush unit's planes are idle: under RAIN every plane of the group it goes to
    /// except those busy with GC at `now` (a page for a collecting plane waits behind GC in
    /// RAM, the point of GTF); without RAIN, the next page's plane. `None` when the group needs
    /// forced GC first.
    pub(super) fn flush_planes_free_at(&mut self, now: u64) -> Option<u64> {
        let Some(b) = &self.wbuf else { return None };
        let lpn = b.next_pending()?;
        match &mut self.rain {
            Some(r) => {
                let first = r.next_data_plane(&mut self.base.ftl).ok()?;
                Some(self.base.res.group_free_at(first, now))
            }
            // Logical stripes: as with super-blocks, the group the unit's stripe is in — so that
            // a flush does not stand in front of the members a rebuild there would read.
            None => Some(match &self.lrain {
                Some(l) => self.base.res.group_free_at(l.parity(l.stripe(lpn)).1, now),
                None => self
                    .base
                    .res
                    .plane_free_at(self.base.ftl.peek_host_plane(lpn)),
            }),
        }
    }
    /// Background flush (GTF) up to `now`: while the buffer is past its threshold, the next
    /// stripe unit is flushed when its planes are idle (and not before the latest admission or
    /// the previous unit), so that the flush never queues programs in front of later reads.
    /// With the rotating flush a unit is only staged (mapped, its programs held) and its
    /// programs are placed one per group at a time ([`RainFtl::place_rotating`]); at most
    /// one stripe per group is staged ahead.
    pub(super) fn flush_until(&mut self, now: u64) -> Result<()> {
        if !self.held.is_empty() {
            self.place_held(now, false);
        }
        let stage_limit = self.channels as usize * self.group_prog_until.len();
        loop {
            let len = self.flush_unit_len();
            let rotating = self.rotating_now();
            let Some(b) = &mut self.wbuf else {
                return Ok(());
            };
            b.retire(now);
            if !b.wants_flush(len) || (rotating && self.held.len() >= stage_limit) {
                return Ok(());
            }
            let floor = self.flush_clock.max(b.last_admit());
            let t = if rotating {
                floor
            } else {
                floor.max(self.flush_planes_free_at(now).unwrap_or(now))
            };
            if t > now {
                return Ok(());
            }
            self.rotate_now = rotating;
            let flushed = self.flush_unit(t);
            self.rotate_now = false;
            flushed?;
            if rotating {
                self.place_rotating(now, true);
            }
        }
    }

    /// Does the flush rotate now: `rain.rotating_flush` under RAIN, and the buffer below its
    /// high-water mark (above it the flush programs whole units in parallel, as without
    /// rotation: one program per group at a time is 1/N of the flush bandwidth, and a write
    /// that finds the buffer full waits).
    pub(super) fn rotating_now(&self) -> bool {
        self.rcfg.rotating_flush
            && self.rain.is_some()
            && !self
                .wbuf
                .as_ref()
                .is_some_and(|b| b.high_water(self.held.len()))
    }

    /// Flush the next unit at `t` (whatever the state of its planes): its pages keep their
    /// buffer slots until the last program of the unit (parity included) completes; a page held
    /// for a collecting plane keeps its slot until its own program completes.
    pub(super) fn flush_unit(&mut self, t: u64) -> Result<()> {
        let len = self.flush_unit_len();
        let mut unit = std::mem::take(&mut self.unit_scratch);
        if let Some(b) = &mut self.wbuf {
            b.take(len, &mut unit);
        }
        let t = t.max(self.flush_clock);
        self.flush_clock = t;
        let mut done = OpDone::at(t);
        let held_before = self.held.len();
        self.holding = self.rain.is_some() || self.lrain.is_some();
        let programmed = if self.lrain.is_some() {
            // Logical stripes: a unit is pages of one stripe (`flush_unit_len`), one parity
            // update.
            self.program_logical(&unit, t, true).map(|d| done.join(d))
        } else {
            unit.iter()
                .try_for_each(|&lpn| self.program_page(lpn, t, true).map(|d| done.join(d)))
        };
        self.holding = false;
        programmed?;
        let held = &self.held[held_before..];
        if let Some(b) = &mut self.wbuf {
            for &lpn in &unit {
                if !held.iter().any(|h| h.lpn == Some(lpn)) {
                    b.flushed(lpn, done.done, done.blocked_by_gc);
                }
            }
        }
        self.unit_scratch = unit;
        Ok(())
    }

    /// A flushed page's (or parity's) program on `plane` from `ready`: held in RAM while the
    /// flush runs and the plane is busy with GC (always, with the rotating flush), programmed
    /// otherwise.
    pub(super) fn program_or_hold(&mut self, plane: u32, lpn: Option<u32>, ready: u64) -> OpDone {
        if self.holding && (self.rotate_now || self.base.res.gc_busy_at(plane, ready)) {
            self.held.push(Held {
                plane,
                lpn,
                since: ready,
                reads: 0,
            });
            return OpDone::at(ready);
        }
        self.program_now(plane, ready, false)
    }

    /// A host program (page or parity) on `plane` from `ready`, remembered for the rotating
    /// flush's reads ([`RainFtl::program_busy_at`]) and, if `chained`, as the end of its
    /// group's chain (which rotating GC waits for; parallel programs above the high-water mark
    /// do not hold GC back).
    fn program_now(&mut self, plane: u32, ready: u64, chained: bool) -> OpDone {
        let d = self.base.res.write(plane, ready);
        if !self.rcfg.rotating_flush {
            return d;
        }
        let p = plane as usize;
        self.prog_until[p] = self.prog_until[p].max(d.done);
        if chained {
            let g = p % self.group_prog_until.len();
            self.group_prog_until[g] = self.group_prog_until[g].max(d.done);
        }
        d
    }

    /// Is `plane` executing a host program at `t`?
    #[inline]
    pub(super) fn program_busy_at(&self, plane: u32, t: u64) -> bool {
        t < self.prog_until[plane as usize]
    }

    /// Program the held pages whose plane's GC has ended by `now` (all of them if `force`: a
    /// full buffer with nothing in flight), each from the end of that GC — after the reads that
    /// queued behind it. With the rotating flush (not forced): [`RainFtl::place_rotating`].
    pub(super) fn place_held(&mut self, now: u64, force: bool) {
        if !force && self.rcfg.rotating_flush && self.rain.is_some() {
            let chained = self.rotating_now();
            self.place_rotating(now, chained);
            return;
        }
        let mut i = 0;
        while i < self.held.len() {
            let h = self.held[i];
            let res = &self.base.res;
            let groups = self.group_prog_until.len() as u32;
            // The planes of the channels in `reads` (its group's), lowest first.
            let read_planes = std::iter::successors((h.reads != 0).then_some(h.reads), |m| {
                Some(m & (m - 1)).filter(|&m| m != 0)
            })
            .map(move |m| m.trailing_zeros() * groups + h.plane % groups);
            if !force
                && (res.gc_busy_at(h.plane, now)
                    || read_planes.clone().any(|q| res.gc_busy_at(q, now)))
            {
                i += 1;
                continue;
            }
            self.held.swap_remove(i);
            let mut from = h.since.max(self.base.res.gc_until(h.plane));
            for q in read_planes {
                let at = h.since.max(self.base.res.gc_until(q));
                from = from.max(self.base.res.read(q, at).done);
            }
            let d = self.program_now(h.plane, from, false);
            if let (Some(lpn), Some(b)) = (h.lpn, &mut self.wbuf) {
                b.flushed(lpn, d.done, true);
            }
        }
    }

    /// The rotating flush's placement up to `now`: a group's held programs run one at a time
    /// (`chained`; above the high-water mark, one per plane at a time), in the order they were
    /// staged, each from the end of the group's previous one (and once its plane is free, GC
    /// included), when that start has been reached by `now` — never reserved ahead of the
    /// clock, where it would block reads arriving before it, nor queued behind another program
    /// of its plane. A start before `now` is taken as it is, so the chain keeps its own clock
    /// between calls. A page of the same plane staged later cannot start earlier, so each block
    /// is programmed in page order.
    pub(super) fn place_rotating(&mut self, now: u64, chained: bool) {
        let groups = self.group_prog_until.len();
        let mut held = std::mem::take(&mut self.held);
        let mut kept = 0;
        for i in 0..held.len() {
            let h = held[i];
            let g = h.plane as usize % groups;
            // The group's chain first (cheap, and what holds most pages back). GC has the chain
            // first: while the group collects, its pages wait (from the high-water mark on they
            // are flushed in parallel, as without rotation), so the flush never slows GC down.
            let (chain, gc_clock) = if chained {
                let r = self.rain.as_ref();
                (
                    self.group_prog_until[g],
                    r.map_or(0, |r| r.gc_clock(g as u32)),
                )
            } else {
                (0, 0)
            };
            if chain > now || (chained && self.rain.as_ref().is_some_and(|r| r.gc_active(g as u32)))
            {
                held[kept] = h;
                kept += 1;
                continue;
            }
            let res = &self.base.res;
            let start = h
                .since
                .max(chain)
                .max(gc_clock)
                .max(res.plane_free_at(h.plane))
                .max(res.gc_until(h.plane));
            if start > now {
                held[kept] = h;
                kept += 1;
                continue;
            }
            let d = self.program_now(h.plane, start, chained);
            if let (Some(lpn), Some(b)) = (h.lpn, &mut self.wbuf) {
                b.flushed(lpn, d.done, d.blocked_by_gc);
            }
        }
        held.truncate(kept);
        self.held = held;
    }
}
