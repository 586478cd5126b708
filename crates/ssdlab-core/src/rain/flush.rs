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
use super::device::RainDevice;
use crate::error::Result;
use crate::nand::OpDone;

impl RainDevice {
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
    /// Pages of the next flush unit: the rest of the open host stripe under RAIN.
    pub(super) fn flush_unit_len(&self) -> usize {
        match (&self.rain, &self.wbuf) {
            (Some(r), _) => r.host_stripe_left() as usize,
            (None, Some(b)) => b.unit(),
            (None, None) => 0,
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
                let res = &self.base.res;
                Some(
                    res.group_of(first)
                        .filter(|&p| !res.gc_busy_at(p, now))
                        .map(|p| res.plane_free_at(p))
                        .max()
                        .unwrap_or(0),
                )
            }
            None => Some(
                self.base
                    .res
                    .plane_free_at(self.base.ftl.peek_host_plane(lpn)),
            ),
        }
    }
    /// Background flush (GTF) up to `now`: while the buffer is past its threshold, the next
    /// stripe unit is flushed when its planes are idle (and not before the latest admission or
    /// the previous unit), so that the flush never queues programs in front of later reads.
    pub(super) fn flush_until(&mut self, now: u64) -> Result<()> {
        if !self.held.is_empty() {
            self.place_held(now, false);
        }
        loop {
            let len = self.flush_unit_len();
            let Some(b) = &mut self.wbuf else {
                return Ok(());
            };
            b.retire(now);
            if !b.wants_flush(len) {
                return Ok(());
            }
            let floor = self.flush_clock.max(b.last_admit());
            let t = floor.max(self.flush_planes_free_at(now).unwrap_or(now));
            if t > now {
                return Ok(());
            }
            self.flush_unit(t)?;
        }
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
        self.holding = self.rain.is_some();
        for &lpn in &unit {
            match self.program_page(lpn, t, true) {
                Ok(d) => done.join(d),
                Err(e) => {
                    self.holding = false;
                    return Err(e);
                }
            }
        }
        self.holding = false;
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
    /// flush runs and the plane is busy with GC, programmed otherwise.
    pub(super) fn program_or_hold(&mut self, plane: u32, lpn: Option<u32>, ready: u64) -> OpDone {
        if self.holding && self.base.res.gc_busy_at(plane, ready) {
            self.held.push(Held {
                plane,
                lpn,
                since: ready,
            });
            return OpDone::at(ready);
        }
        self.base.res.write(plane, ready)
    }

    /// Program the held pages whose plane's GC has ended by `now` (all of them if `force`: a
    /// full buffer with nothing in flight), each from the end of that GC — after the reads that
    /// queued behind it.
    pub(super) fn place_held(&mut self, now: u64, force: bool) {
        let mut i = 0;
        while i < self.held.len() {
            let h = self.held[i];
            let res = &self.base.res;
            if !force && res.gc_busy_at(h.plane, now) {
                i += 1;
                continue;
            }
            self.held.swap_remove(i);
            let from = h.since.max(self.base.res.gc_until(h.plane));
            let d = self.base.res.write(h.plane, from);
            if let (Some(lpn), Some(b)) = (h.lpn, &mut self.wbuf) {
                b.flushed(lpn, d.done, true);
            }
        }
    }
}
