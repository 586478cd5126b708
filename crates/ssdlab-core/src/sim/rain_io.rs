//! Page I/O when the Tiny-Tail Flash mechanisms are on (`[rain]`): stripe-aligned host writes
//! with parity, GC-tolerant reads (XOR rebuild), the GC-tolerant flush buffer, and RAIN-aware
//! preconditioning. The plain device never comes here (its path in `replay` is unchanged).

use rand::Rng;

use super::gc_driver::GcContext;
use super::precondition::first_writable;
use super::{Precondition, Simulation};
use crate::error::{Result, SsdError};
use crate::nand::OpDone;
use crate::rng;

impl Simulation {
    /// True when writes or reads must go through the RAIN/GTF path.
    pub(crate) fn rain_path(&self) -> bool {
        self.rain.is_some() || self.wbuf.is_some()
    }

    /// Make `plane` writable (forced GC), or fall back to any writable plane.
    fn make_writable(&mut self, plane: u32, ready: u64, timed: bool) -> Result<u32> {
        if self.ftl.host_can_write(plane) {
            return Ok(plane);
        }
        let res = if timed { Some(&mut self.res) } else { None };
        let mut ctx = GcContext { ftl: &mut self.ftl, res, rng: &mut self.gc_rng };
        ctx.collect_for_host(plane, ready)?;
        if self.ftl.host_can_write(plane) {
            return Ok(plane);
        }
        first_writable(&self.ftl).ok_or_else(|| SsdError::DeviceFull(format!("no plane can take a page after GC on plane {plane}")))
    }

    fn after_write(&mut self, plane: u32, ready: u64, timed: bool) -> Result<()> {
        if !timed && !self.ftl.needs_gc(plane) {
            return Ok(());
        }
        let res = if timed { Some(&mut self.res) } else { None };
        let mut ctx = GcContext { ftl: &mut self.ftl, res, rng: &mut self.gc_rng };
        self.scheduler.after_page_write(plane, ready, &mut ctx)
    }

    /// Program one host page (and, when it completes a stripe, the stripe's parity) at `ready`.
    pub(crate) fn program_page(&mut self, lpn: u32, ready: u64, timed: bool) -> Result<OpDone> {
        let want = match &mut self.rain {
            Some(r) => r.next_data_plane(&mut self.ftl),
            None => self.ftl.next_host_plane(lpn),
        };
        let plane = self.make_writable(want, ready, timed)?;
        if let Some(r) = &mut self.rain {
            r.unlink(&mut self.ftl, lpn);
        }
        let ppn = self.ftl.write_host(lpn, plane)?;
        let mut d = if timed { self.res.write(plane, ready) } else { OpDone { done: ready, blocked_by_gc: false } };
        let parity = match &mut self.rain {
            Some(r) => r.on_data_written(&mut self.ftl, lpn, ppn),
            None => None,
        };
        self.after_write(plane, ready, timed)?;
        if let Some(want) = parity {
            let pp = self.make_writable(want, ready, timed)?;
            let written = match &mut self.rain {
                Some(r) => r.write_parity(&mut self.ftl, pp)?,
                None => None,
            };
            if written.is_some() {
                if timed {
                    let p = self.res.write(pp, ready);
                    d.done = d.done.max(p.done);
                    d.blocked_by_gc |= p.blocked_by_gc;
                }
                self.after_write(pp, ready, timed)?;
            }
        }
        self.rewrite_stale_parity(ready, timed)?;
        Ok(d)
    }

    /// Rewrite the parity of every stripe that lost a dead member to an erase: read the old
    /// parity, program the new one on the same plane (the dead page is read by the GC that
    /// erases it, on its own busy plane). Background work: no host request waits for it.
    fn rewrite_stale_parity(&mut self, ready: u64, timed: bool) -> Result<()> {
        loop {
            let next = match &mut self.rain {
                Some(r) => {
                    r.drain_erased(&mut self.ftl);
                    r.next_reparity()
                }
                None => None,
            };
            let Some((s, want)) = next else { return Ok(()) };
            let pp = self.make_writable(want, ready, timed)?;
            let written = match &mut self.rain {
                Some(r) => r.rewrite_parity(&mut self.ftl, s, pp)?,
                None => None,
            };
            if written.is_some() {
                if timed {
                    self.res.read(pp, ready);
                    self.res.write(pp, ready);
                }
                self.after_write(pp, ready, timed)?;
            }
        }
    }

    /// A host write of one page through the GTF buffer (when on) or straight to flash.
    pub(crate) fn write_page_rain(&mut self, lpn: u32, ready: u64) -> Result<OpDone> {
        let Some(buf) = &mut self.wbuf else { return self.program_page(lpn, ready, true) };
        let (t, blocked) = buf.admit(lpn, ready);
        let mut unit = std::mem::take(&mut self.unit_scratch);
        while self.wbuf.as_mut().is_some_and(|b| b.take_unit(&mut unit)) {
            for &l in &unit {
                let d = self.program_page(l, t, true)?;
                if let Some(b) = &mut self.wbuf {
                    b.flushed(l, d.done, d.blocked_by_gc);
                }
            }
        }
        self.unit_scratch = unit;
        Ok(OpDone { done: t, blocked_by_gc: blocked })
    }

    /// A host read of one mapped page at `ppn`: from the buffer, rebuilt from its stripe (GTR)
    /// when its plane is busy with GC and that is sooner, or from its plane.
    pub(crate) fn read_page_rain(&mut self, lpn: u32, ppn: u32, ready: u64) -> Result<OpDone> {
        if let Some(b) = &mut self.wbuf {
            if b.holds(lpn) {
                b.read_hits += 1;
                return Ok(OpDone { done: ready, blocked_by_gc: false });
            }
        }
        let plane = self.ftl.plane_of_ppn(ppn);
        if self.cfg.rain.gtr && self.res.gc_busy_at(plane, ready) {
            if let Some(r) = &mut self.rain {
                r.drain_erased(&mut self.ftl);
                let mut set = std::mem::take(&mut self.rebuild_scratch);
                let normal = self.res.peek_read(plane, ready);
                if r.rebuild_set(&self.ftl, lpn, ppn, &mut set) {
                    let t = set.iter().map(|&m| self.res.peek_read(self.ftl.plane_of_ppn(m), ready).done).max().unwrap_or(ready);
                    if t < normal.done {
                        let mut d = OpDone { done: ready, blocked_by_gc: false };
                        for &m in &set {
                            let o = self.res.read(self.ftl.plane_of_ppn(m), ready);
                            d.done = d.done.max(o.done);
                            d.blocked_by_gc |= o.blocked_by_gc;
                        }
                        r.stats.rebuilt_reads += 1;
                        // Two planes of the group executing GC at once (RGC forbids it). A
                        // plane merely waiting for its group turn (GC reserved later) is not
                        // collecting.
                        let collecting = self.res.gc_collecting_at(plane, ready);
                        if collecting && self.res.group_of(plane).any(|q| q != plane && self.res.gc_collecting_at(q, ready)) {
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

    /// Trim through RAIN (the trimmed copy is dead for its stripe).
    pub(crate) fn trim_page_rain(&mut self, lpn: u32) {
        if let Some(r) = &mut self.rain {
            r.unlink(&mut self.ftl, lpn);
        }
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
        self.rewrite_stale_parity(0, false)?;
        if let Some(r) = &mut self.rain {
            r.stats = Default::default();
        }
        Ok(written + random)
    }
}
