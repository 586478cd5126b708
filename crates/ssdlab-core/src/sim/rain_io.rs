//! Page I/O when the Tiny-Tail Flash mechanisms are on (`[rain]`): host writes into RAIN
//! super-blocks with parity, the stripe-group GC and its scheduling (rotating or not), GC-tolerant
//! reads (XOR rebuild), the GC-tolerant flush buffer, and RAIN-aware preconditioning. The plain
//! device never comes here (its path in `replay` is unchanged).

use rand::Rng;

use super::{Precondition, Simulation};
use crate::error::{Result, SsdError};
use crate::gc::GcContext;
use crate::nand::OpDone;
use crate::rain::GcOp;
use crate::rng;

/// How far a group's GC runs now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GcRun {
    /// Rotating GC: operations run one after the other, each only if it can start by `now`.
    Until(u64),
    /// To completion, each operation as soon as its plane is free from `now` (plane-blocking GC,
    /// or timing off).
    Eager(u64),
    /// Until the group can take a host super-block again (forced), from `now`.
    Forced(u64),
}

impl Simulation {
    /// True when writes or reads must go through the RAIN/GTF path.
    pub(crate) fn rain_path(&self) -> bool {
        self.rain.is_some() || self.wbuf.is_some()
    }

    /// Run group `g`'s GC as `how` says. Under rotating GC the group's operations are chained
    /// (each starts after the previous one ends), so at most one plane of the group does GC at
    /// any instant.
    fn run_group_gc(&mut self, g: u32, how: GcRun, timed: bool) -> Result<()> {
        let rgc = self.cfg.rain.rgc;
        let parallel = matches!(how, GcRun::Forced(_)) && self.cfg.rain.parallel_forced_gc;
        let Some(r) = &mut self.rain else {
            return Ok(());
        };
        let now = match how {
            GcRun::Until(t) | GcRun::Eager(t) | GcRun::Forced(t) => t,
        };
        r.activate(g, now);
        let mut guard = 0u64;
        let mut ops = 0u64;
        // Parallel forced GC: the group's rotation resumes after the last forced operation.
        let mut forced_end = 0u64;
        let g_ = &self.cfg.geometry;
        let livelock = 4
            * u64::from(g_.blocks_per_plane)
            * u64::from(g_.pages_per_block)
            * u64::from(g_.channels);
        loop {
            if matches!(how, GcRun::Forced(_)) && r.free_superblocks(g) > r.gc_reserve() {
                break;
            }
            let plane = r.gc_plane(g);
            // Rotating GC runs in the background: its chain continues from the end of its last
            // operation (through idle time since the last call), not from `now`. Forced GC
            // starts at `now`; with `parallel_forced_gc` its operations are not chained.
            let not_before = match how {
                GcRun::Until(_) => r.gc_clock(g),
                _ if rgc => r.gc_clock(g).max(now),
                _ => now,
            };
            if timed {
                if let GcRun::Until(t) = how {
                    if not_before.max(self.res.plane_free_at(plane)) > t {
                        break;
                    }
                }
            }
            let op = r.gc_op(&mut self.ftl, g)?;
            let done = match op {
                GcOp::Done => break,
                GcOp::Copy(p) if timed => self.res.gc_copy(p, not_before),
                GcOp::Erase(p) if timed => self.res.gc_erase(p, not_before),
                GcOp::Parity(p) if timed => self.res.gc_program(p, not_before),
                _ => not_before,
            };
            if parallel {
                forced_end = forced_end.max(done);
            } else if rgc {
                r.set_gc_clock(g, done);
            }
            // Work-less turns: a round has N; stripes close within a round and victims are
            // erased within two, so more than a few rounds of them in a row is a stall.
            guard = if op == GcOp::Turn { guard + 1 } else { 0 };
            // Copying a whole group's pages several times over in one call is a livelock (GC
            // gains nothing net: too little spare for the super-block reserves).
            ops += 1;
            if ops > livelock {
                return Err(SsdError::DeviceFull(format!("RAIN group {g}: GC livelock ({ops} operations without reaching its target; too little spare?)")));
            }
            if guard > 8 * u64::from(self.cfg.geometry.channels) + 8 {
                return Err(SsdError::Invalid(format!(
                    "RAIN bug: group {g}'s GC makes no progress"
                )));
            }
        }
        if parallel {
            let resume = r.gc_clock(g).max(forced_end);
            r.set_gc_clock(g, resume);
        }
        Ok(())
    }

    /// Rotating GC: let every collecting group run the operations that can start by `now`.
    pub(crate) fn rain_advance(&mut self, now: u64) -> Result<()> {
        if !self.cfg.rain.rgc {
            return Ok(());
        }
        let groups = match &self.rain {
            Some(r) => r.groups(),
            None => return Ok(()),
        };
        for g in 0..groups {
            if self.rain.as_ref().is_some_and(|r| r.gc_active(g)) {
                self.run_group_gc(g, GcRun::Until(now), true)?;
            }
        }
        Ok(())
    }

    /// Program one host page (and, when it completes a stripe, the stripe's parity) at `ready`.
    pub(crate) fn program_page(&mut self, lpn: u32, ready: u64, timed: bool) -> Result<OpDone> {
        if self.rain.is_none() {
            let plane = GcContext {
                ftl: &mut self.ftl,
                res: if timed { Some(&mut self.res) } else { None },
                rng: &mut self.gc_rng,
            }
            .host_plane(lpn, ready)?;
            self.ftl.write_host(lpn, plane)?;
            let d = if timed {
                self.res.write(plane, ready)
            } else {
                OpDone {
                    done: ready,
                    blocked_by_gc: false,
                }
            };
            if !timed && !self.ftl.needs_gc(plane) {
                return Ok(d);
            }
            let res = if timed { Some(&mut self.res) } else { None };
            let mut ctx = GcContext {
                ftl: &mut self.ftl,
                res,
                rng: &mut self.gc_rng,
            };
            self.scheduler.after_page_write(plane, ready, &mut ctx)?;
            return Ok(d);
        }
        let mut tries = 0;
        loop {
            let next = self
                .rain
                .as_mut()
                .map(|r| r.next_data_plane(&self.ftl))
                .expect("rain");
            match next {
                Ok(_) => break,
                Err(g) => {
                    tries += 1;
                    if tries > 4 {
                        return Err(SsdError::DeviceFull(format!(
                            "RAIN: no group can take a host stripe after forced GC on group {g}"
                        )));
                    }
                    if let Some(r) = &mut self.rain {
                        r.stats.forced_gc += 1;
                    }
                    self.run_group_gc(g, GcRun::Forced(ready), timed)?;
                }
            }
        }
        let r = self.rain.as_mut().expect("rain");
        let w = r.write_host(&mut self.ftl, lpn)?;
        let g = r.group_of_plane(w.plane);
        let mut d = OpDone {
            done: ready,
            blocked_by_gc: false,
        };
        if timed {
            d = self.res.write(w.plane, ready);
            if let Some(pp) = w.parity_plane {
                let p = self.res.write(pp, ready);
                d.done = d.done.max(p.done);
                d.blocked_by_gc |= p.blocked_by_gc;
            }
        }
        let r = self.rain.as_ref().expect("rain");
        if r.gc_active(g) || r.needs_gc(g) {
            let how = if timed && self.cfg.rain.rgc {
                GcRun::Until(ready)
            } else {
                GcRun::Eager(ready)
            };
            self.run_group_gc(g, how, timed)?;
        }
        Ok(d)
    }

    /// A host write of one page through the GTF buffer (when on) or straight to flash. With the
    /// buffer the write completes when its page is in RAM; it waits only when the buffer is full
    /// (then for the earliest program in flight, flushing a unit now if none is).
    pub(crate) fn write_page_rain(&mut self, lpn: u32, ready: u64) -> Result<OpDone> {
        let Some(buf) = &mut self.wbuf else {
            return self.program_page(lpn, ready, true);
        };
        buf.retire(ready);
        let mut at = OpDone {
            done: ready,
            blocked_by_gc: false,
        };
        if buf.is_full() {
            if !buf.has_inflight() {
                self.flush_unit(ready)?;
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
    fn flush_unit_len(&self) -> usize {
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
    fn flush_planes_free_at(&mut self, now: u64) -> Option<u64> {
        let Some(b) = &self.wbuf else { return None };
        let lpn = b.next_pending()?;
        match &mut self.rain {
            Some(r) => {
                let first = r.next_data_plane(&self.ftl).ok()?;
                let res = &self.res;
                Some(
                    res.group_of(first)
                        .filter(|&p| !res.gc_busy_at(p, now))
                        .map(|p| res.plane_free_at(p))
                        .max()
                        .unwrap_or(0),
                )
            }
            None => Some(self.res.plane_free_at(self.ftl.peek_host_plane(lpn))),
        }
    }

    /// Background flush (GTF) up to `now`: while the buffer is past its threshold, the next
    /// stripe unit is flushed when its planes are idle (and not before the latest admission or
    /// the previous unit), so that the flush never queues programs in front of later reads.
    pub(crate) fn flush_until(&mut self, now: u64) -> Result<()> {
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
    /// buffer slots until the last program of the unit (parity included) completes.
    fn flush_unit(&mut self, t: u64) -> Result<()> {
        let len = self.flush_unit_len();
        let mut unit = std::mem::take(&mut self.unit_scratch);
        if let Some(b) = &mut self.wbuf {
            b.take(len, &mut unit);
        }
        let t = t.max(self.flush_clock);
        self.flush_clock = t;
        let mut done = OpDone {
            done: t,
            blocked_by_gc: false,
        };
        for &lpn in &unit {
            let d = self.program_page(lpn, t, true)?;
            done.done = done.done.max(d.done);
            done.blocked_by_gc |= d.blocked_by_gc;
        }
        if let Some(b) = &mut self.wbuf {
            for &lpn in &unit {
                b.flushed(lpn, done.done, done.blocked_by_gc);
            }
        }
        self.unit_scratch = unit;
        Ok(())
    }

    /// A host read of one mapped page at `ppn`: from the buffer, rebuilt from its stripe (GTR)
    /// when its plane is busy with GC and that is sooner, or from its plane.
    pub(crate) fn read_page_rain(&mut self, lpn: u32, ppn: u32, ready: u64) -> Result<OpDone> {
        if let Some(b) = &mut self.wbuf {
            if b.holds(lpn) {
                b.read_hits += 1;
                return Ok(OpDone {
                    done: ready,
                    blocked_by_gc: false,
                });
            }
        }
        let plane = self.ftl.plane_of_ppn(ppn);
        if self.cfg.rain.gtr && self.res.gc_busy_at(plane, ready) {
            // Planes of the read's group executing GC work now (a GC operation reserved for
            // later — a forced chain reserves the group's operations plane after plane — is
            // not executing). Rotating GC allows one; parallel forced GC more, and then the
            // read waits on its own plane (its stripe members would wait too).
            let collecting = self
                .res
                .group_of(plane)
                .filter(|&q| self.res.gc_collecting_at(q, ready))
                .count();
            if self.cfg.rain.parallel_forced_gc && collecting > 1 {
                if let Some(r) = &mut self.rain {
                    r.stats.rebuild_refused_group_collecting += 1;
                }
                return Ok(self.res.read(plane, ready));
            }
            if let Some(r) = &mut self.rain {
                let mut set = std::mem::take(&mut self.rebuild_scratch);
                let normal = self.res.peek_read(plane, ready);
                let (ok, via) = r.rebuild_set(ppn, &mut set);
                if ok {
                    let t = set
                        .iter()
                        .map(|&m| self.res.peek_read(self.ftl.plane_of_ppn(m), ready).done)
                        .max()
                        .unwrap_or(ready);
                    if t < normal.done {
                        let mut d = OpDone {
                            done: ready,
                            blocked_by_gc: false,
                        };
                        for &m in &set {
                            let o = self.res.read(self.ftl.plane_of_ppn(m), ready);
                            d.done = d.done.max(o.done);
                            d.blocked_by_gc |= o.blocked_by_gc;
                        }
                        r.stats.rebuilt_reads += 1;
                        r.stats.rebuilds_via_origin += u64::from(via);
                        // Two planes of the group collecting: rotating GC forbids it.
                        if collecting > 1 {
                            r.stats.rebuild_while_group_collecting += 1;
                        }
                        r.verify_rebuild(&self.ftl, ppn, &set)?;
                        self.rebuild_scratch = set;
                        return Ok(d);
                    }
                    r.stats.rebuild_not_sooner += 1;
                } else {
                    r.stats.rebuild_unavailable += 1;
                }
                self.rebuild_scratch = set;
            }
        }
        Ok(self.res.read(plane, ready))
    }

    /// Trim through RAIN: the page stays in its stripe until its super-block is erased.
    pub(crate) fn trim_page_rain(&mut self, lpn: u32) {
        self.ftl.trim(lpn);
    }

    /// Preconditioning with parity (timing off): as `precondition::run`, through `program_page`.
    pub(crate) fn precondition_rain(&mut self, p: &Precondition) -> Result<u64> {
        let mut prng = rng::stream(self.opts.seed, "precondition");
        let n = self.ftl.logical_pages();
        let mut written = 0u64;
        if p.sequential {
            for lpn in 0..n {
                self.program_page(lpn, 0, false)?;
            }
            written += u64::from(n);
        }
        let random = (p.random_passes * f64::from(n)).round() as u64;
        for _ in 0..random {
            let lpn = prng.gen_range(0..n);
            self.program_page(lpn, 0, false)?;
        }
        if let Some(r) = &mut self.rain {
            r.stats = Default::default();
        }
        Ok(written + random)
    }
}
