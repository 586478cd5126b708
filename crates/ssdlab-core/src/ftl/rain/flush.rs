//! The RAIN FTL's side of a GC-aware write cache's flush (Tiny-Tail Flash's GC-tolerant
//! flush, GTF; Yan et al., FAST 2017, the paper's slides: "store write blocked by GC in RAM";
//! the cache's side is `cache::flush`). A flush unit is the rest of the open host stripe
//! (super-blocks) or a run of pending pages of one logical stripe, issued when the planes of
//! its group are idle, collecting planes aside. While the flush runs, a page (or a stripe's
//! parity) whose plane is busy with GC is **held** in RAM — it keeps its cache slot, and its
//! program is placed only once that plane's GC has ended, behind the reads that waited for
//! the GC rather than in front of them (issue 16: queued behind the GC, the flush's programs
//! made GC-blocked reads wait longer than without GTF). Its stripe's other pages are
//! programmed meanwhile. With the rotating flush (`rain.rotating_flush`) a group's programs run
//! one at a time on the rotating GC's chain.

use super::device::RainFtl;
use super::held::Held;
use crate::error::Result;
use crate::flash::OpDone;
use crate::ftl::FlushHow;

impl RainFtl {
    /// Pages of the next flush unit (`pending`: the cache's next pages, in flush order): the
    /// rest of the open host stripe (super-blocks); with logical stripes the first pending page
    /// and the pending pages of its stripe right behind it (one parity update), so that the
    /// flush is paced on the planes of one stripe.
    pub(super) fn flush_unit_len(&self, pending: &mut dyn Iterator<Item = u32>) -> usize {
        match (&self.rain, &self.lrain) {
            (Some(r), _) => r.host_stripe_left() as usize,
            (None, Some(l)) => {
                let mut p = pending.map(|lpn| l.stripe(lpn));
                let first = p.next();
                1 + p.take_while(|&s| Some(s) == first).count()
            }
            (None, None) => self.channels as usize,
        }
    }

    /// When the planes of the flush unit starting with `next` are idle: every plane of the
    /// group it goes to except those busy with GC at `now` (a page for a collecting plane
    /// waits behind GC in RAM, the point of GTF). `None` when the group needs forced GC first.
    pub(super) fn flush_planes_free_at(&mut self, next: u32, now: u64) -> Option<u64> {
        match &mut self.rain {
            Some(r) => {
                let first = r.next_data_plane(&mut self.base.ftl).ok()?;
                Some(self.base.res.group_free_at(first, now))
            }
            // Logical stripes: as with super-blocks, the group the unit's stripe is in — so that
            // a flush does not stand in front of the members a rebuild there would read.
            None => Some(match &self.lrain {
                Some(l) => self.base.res.group_free_at(l.parity(l.stripe(next)).1, now),
                None => self
                    .base
                    .res
                    .plane_free_at(self.base.ftl.peek_host_plane(next)),
            }),
        }
    }

    /// Does the flush rotate now: `rain.rotating_flush` under super-block RAIN, a GC-aware
    /// flush, and the cache below its high-water mark (above it the flush programs whole units
    /// in parallel, as without rotation: one program per group at a time is 1/N of the flush
    /// bandwidth, and a write that finds the cache full waits).
    pub(super) fn rotates(&self, how: FlushHow) -> bool {
        how.gc_aware && self.rcfg.rotating_flush && self.rain.is_some() && how.below_high_water
    }

    /// Program the flush unit `unit` at `t` (whatever the state of its planes): when its
    /// programs complete, parity included; with a GC-aware flush, the pages held for a
    /// collecting plane (or staged, rotating) are pushed on `held_out`.
    pub(super) fn flush_unit(
        &mut self,
        unit: &[u32],
        t: u64,
        how: FlushHow,
        held_out: &mut Vec<u32>,
    ) -> Result<OpDone> {
        let mut done = OpDone::at(t);
        let held_before = self.held.len();
        let timed = self.base.timed;
        self.holding = how.gc_aware && (self.rain.is_some() || self.lrain.is_some());
        self.rotate_now = self.rotates(how);
        let programmed = if self.lrain.is_some() {
            // Logical stripes: a unit is pages of one stripe (`flush_unit_len`), one parity
            // update.
            self.program_logical(unit, t, timed).map(|d| done.join(d))
        } else {
            unit.iter()
                .try_for_each(|&lpn| self.program_page(lpn, t, timed).map(|d| done.join(d)))
        };
        self.holding = false;
        self.rotate_now = false;
        programmed?;
        held_out.extend(self.held[held_before..].iter().filter_map(|h| h.lpn));
        Ok(done)
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
    /// full cache with nothing else in flight), each from the end of that GC — after the reads
    /// that queued behind it; each page's completion pushed on `out`. With the rotating flush
    /// (not forced): [`RainFtl::place_rotating`], chained below the high-water mark.
    pub(super) fn place_held(
        &mut self,
        now: u64,
        how: FlushHow,
        force: bool,
        out: &mut Vec<(u32, OpDone)>,
    ) {
        if !force && self.rcfg.rotating_flush && self.rain.is_some() {
            let chained = how.below_high_water;
            self.place_rotating(now, chained, out);
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
            if let Some(lpn) = h.lpn {
                out.push((
                    lpn,
                    OpDone {
                        done: d.done,
                        blocked_by_gc: true,
                    },
                ));
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
    pub(super) fn place_rotating(&mut self, now: u64, chained: bool, out: &mut Vec<(u32, OpDone)>) {
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
            if let Some(lpn) = h.lpn {
                out.push((lpn, d));
            }
        }
        held.truncate(kept);
        self.held = held;
    }
}
