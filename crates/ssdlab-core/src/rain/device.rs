//! The Tiny-Tail Flash device model (Yan et al., FAST 2017; `[rain]`): host writes into RAIN
//! super-blocks with parity, the stripe-group GC and its scheduling (rotating or not),
//! GC-tolerant reads (XOR rebuild), the GC-tolerant flush buffer, and RAIN-aware
//! preconditioning. Built on a [`PlainDevice`]: its FTL, time lines and (for GTF without
//! parity) its page programs and GC scheduler.

use std::any::Any;
use std::ops::Range;

use rand::Rng;

use super::{GcOp, Rain, RainStats, WriteBuffer};
use crate::config::{DeviceConfig, RainConfig};
use crate::device::{DeviceModel, PlainDevice, Precondition, SchedulerCall};
use crate::error::{Result, SsdError};
use crate::ftl::{Ftl, NEVER};
use crate::gc::{GcScheduler, RequestInfo};
use crate::nand::OpDone;
use crate::rng;

/// What the Tiny-Tail Flash layer did during the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct TtflashReport {
    pub rain: RainStats,
    pub parity_pages_written: u64,
    pub buffer_read_hits: u64,
    pub buffer_full_waits: u64,
    /// Mean data members of the GC stripes closed (N − 1 when none is short).
    pub mean_gc_stripe_members: f64,
    /// Requests that waited for GC, over all requests.
    pub blocked_fraction: f64,
}

/// The Tiny-Tail Flash device: RAIN parity (`rain.rain`) and/or the GC-tolerant flush buffer
/// (`rain.gtf`) over a plain device.
pub struct RainDevice {
    base: PlainDevice,
    rcfg: RainConfig,
    channels: u32,
    /// GC operations of one group in one call beyond which GC is a livelock (it copies a whole
    /// group's pages several times over without reaching its target).
    livelock_ops: u64,
    rain: Option<Rain>,
    wbuf: Option<WriteBuffer>,
    /// Time of the latest unit the GTF buffer flushed (flushes are issued in order).
    flush_clock: u64,
    unit_scratch: Vec<u32>,
    rebuild_scratch: Vec<u32>,
}

impl RainDevice {
    /// `check`: test mode (no double programs; page contents tracked as checksums so that every
    /// rebuild is verified).
    pub fn new(cfg: &DeviceConfig, seed: u64, timed: bool, check: bool) -> Result<Self> {
        let mut base = PlainDevice::new(cfg, seed, timed, check, None)?;
        let g = &cfg.geometry;
        let per_channel = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
        let rain = cfg.rain.rain.then(|| {
            Rain::new(
                &mut base.ftl,
                g.channels,
                per_channel,
                cfg.gc.threshold_blocks,
                check,
            )
        });
        let page_size = u64::from(g.page_size);
        let wbuf = cfg.rain.gtf.then(|| {
            let cap = (cfg.rain.buffer_mib * 1048576.0 / page_size as f64) as usize;
            let unit = if cfg.rain.rain {
                g.channels as usize - 1
            } else {
                g.channels as usize
            };
            WriteBuffer::new(cap, cfg.rain.flush_at, unit, g.logical_pages() as usize)
        });
        Ok(RainDevice {
            base,
            rcfg: cfg.rain.clone(),
            channels: g.channels,
            livelock_ops: 4
                * u64::from(g.blocks_per_plane)
                * u64::from(g.pages_per_block)
                * u64::from(g.channels),
            rain,
            wbuf,
            flush_clock: 0,
            unit_scratch: Vec::new(),
            rebuild_scratch: Vec::new(),
        })
    }

    /// What the layer did; `blocked_fraction` comes from the engine.
    pub fn report(&self, blocked_fraction: f64) -> TtflashReport {
        TtflashReport {
            rain: self.rain.as_ref().map(|r| r.stats).unwrap_or_default(),
            parity_pages_written: self.base.ftl.counters.parity_pages_written,
            buffer_read_hits: self.wbuf.as_ref().map_or(0, |b| b.read_hits),
            buffer_full_waits: self.wbuf.as_ref().map_or(0, |b| b.full_waits),
            mean_gc_stripe_members: self.rain.as_ref().map_or(0.0, |r| {
                if r.stats.gc_stripes == 0 {
                    0.0
                } else {
                    r.stats.gc_stripe_members as f64 / r.stats.gc_stripes as f64
                }
            }),
            blocked_fraction,
        }
    }

    /// Test mode: rebuild every protected live page from its stripe and verify its checksum.
    /// Every closed stripe's parity is also checked against its members. Returns (pages
    /// verified, live pages in the open host stripe, not yet protected).
    pub fn audit(&mut self) -> Result<(u64, u64)> {
        match &mut self.rain {
            Some(r) => r.audit(&self.base.ftl),
            None => Ok((0, 0)),
        }
    }
}

impl DeviceModel for RainDevice {
    fn name(&self) -> &'static str {
        "tiny-tail"
    }

    fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        if self.rain.is_none() {
            // GTF alone: the plain device's preconditioning.
            return self.base.precondition(p, seed);
        }
        let written = self.precondition_pages(p, seed)?;
        self.base.ftl.reset_counters();
        Ok(written)
    }

    fn background(&mut self, prev_arrival: u64, now: u64) -> Result<()> {
        self.base.scheduler_idle(prev_arrival, now)?;
        // Host flushes before GC (GC is the lowest priority), then forget channel reservations
        // that ended.
        self.flush_until(now)?;
        self.rain_advance(now)?;
        self.base.res.advance(now);
        Ok(())
    }

    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone {
            done: ready,
            blocked_by_gc: false,
        };
        for lpn in pages {
            if let Some(ppn) = self.base.ftl.read(lpn) {
                if self.base.timed {
                    let d = self.read_page_rain(lpn, ppn, ready)?;
                    out.done = out.done.max(d.done);
                    out.blocked_by_gc |= d.blocked_by_gc;
                }
            }
        }
        Ok(out)
    }

    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone {
            done: ready,
            blocked_by_gc: false,
        };
        for lpn in pages {
            let d = if self.base.timed {
                self.write_page_rain(lpn, ready)?
            } else {
                self.program_page(lpn, 0, false)?
            };
            out.done = out.done.max(d.done);
            out.blocked_by_gc |= d.blocked_by_gc;
        }
        Ok(out)
    }

    fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        // The page stays in its stripe until its super-block is erased.
        self.base.trim(pages)
    }

    fn after_request(&mut self, info: &RequestInfo) -> Result<()> {
        self.base.after_request(info)
    }

    fn ftl(&self) -> &Ftl {
        &self.base.ftl
    }

    fn free_blocks(&self) -> u64 {
        self.base.free_blocks()
    }

    fn gc_busy_ns(&self) -> u64 {
        self.base.gc_busy_ns()
    }

    fn scheduler(&self) -> Option<&dyn GcScheduler> {
        self.base.scheduler()
    }

    fn set_scheduler(&mut self, s: Box<dyn GcScheduler>) -> Result<()> {
        self.base.set_scheduler(s)
    }

    fn with_scheduler(&mut self, f: SchedulerCall) -> Result<()> {
        self.base.with_scheduler(f)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

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

impl RainDevice {
    /// Run group `g`'s GC as `how` says. Under rotating GC the group's operations are chained
    /// (each starts after the previous one ends), so at most one plane of the group does GC at
    /// any instant.
    fn run_group_gc(&mut self, g: u32, how: GcRun, timed: bool) -> Result<()> {
        let rgc = self.rcfg.rgc;
        let parallel = matches!(how, GcRun::Forced(_)) && self.rcfg.parallel_forced_gc;
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
        let livelock = self.livelock_ops;
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
                    if not_before.max(self.base.res.plane_free_at(plane)) > t {
                        break;
                    }
                }
            }
            let op = r.gc_op(&mut self.base.ftl, g)?;
            let done = match op {
                GcOp::Done => break,
                GcOp::Copy(p) if timed => self.base.res.gc_copy(p, not_before),
                GcOp::Erase(p) if timed => self.base.res.gc_erase(p, not_before),
                GcOp::Parity(p) if timed => self.base.res.gc_program(p, not_before),
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
            if guard > 8 * u64::from(self.channels) + 8 {
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
        if !self.rcfg.rgc {
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
            return self.base.program_page(lpn, ready, NEVER, timed);
        }
        let mut tries = 0;
        loop {
            let next = self
                .rain
                .as_mut()
                .map(|r| r.next_data_plane(&self.base.ftl))
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
        let w = r.write_host(&mut self.base.ftl, lpn)?;
        let g = r.group_of_plane(w.plane);
        let mut d = OpDone {
            done: ready,
            blocked_by_gc: false,
        };
        if timed {
            d = self.base.res.write(w.plane, ready);
            if let Some(pp) = w.parity_plane {
                let p = self.base.res.write(pp, ready);
                d.done = d.done.max(p.done);
                d.blocked_by_gc |= p.blocked_by_gc;
            }
        }
        let r = self.rain.as_ref().expect("rain");
        if r.gc_active(g) || r.needs_gc(g) {
            let how = if timed && self.rcfg.rgc {
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
                let first = r.next_data_plane(&self.base.ftl).ok()?;
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
        let plane = self.base.ftl.plane_of_ppn(ppn);
        if self.rcfg.gtr && self.base.res.gc_busy_at(plane, ready) {
            // Planes of the read's group executing GC work now (a GC operation reserved for
            // later — a forced chain reserves the group's operations plane after plane — is
            // not executing). Rotating GC allows one; parallel forced GC more, and then the
            // read waits on its own plane (its stripe members would wait too).
            let collecting = self
                .base
                .res
                .group_of(plane)
                .filter(|&q| self.base.res.gc_collecting_at(q, ready))
                .count();
            if self.rcfg.parallel_forced_gc && collecting > 1 {
                if let Some(r) = &mut self.rain {
                    r.stats.rebuild_refused_group_collecting += 1;
                }
                return Ok(self.base.res.read(plane, ready));
            }
            if let Some(r) = &mut self.rain {
                let mut set = std::mem::take(&mut self.rebuild_scratch);
                let normal = self.base.res.peek_read(plane, ready);
                let (ok, via) = r.rebuild_set(ppn, &mut set);
                if ok {
                    let t = set
                        .iter()
                        .map(|&m| {
                            self.base
                                .res
                                .peek_read(self.base.ftl.plane_of_ppn(m), ready)
                                .done
                        })
                        .max()
                        .unwrap_or(ready);
                    if t < normal.done {
                        let mut d = OpDone {
                            done: ready,
                            blocked_by_gc: false,
                        };
                        for &m in &set {
                            let o = self.base.res.read(self.base.ftl.plane_of_ppn(m), ready);
                            d.done = d.done.max(o.done);
                            d.blocked_by_gc |= o.blocked_by_gc;
                        }
                        r.stats.rebuilt_reads += 1;
                        r.stats.rebuilds_via_origin += u64::from(via);
                        // Two planes of the group collecting: rotating GC forbids it.
                        if collecting > 1 {
                            r.stats.rebuild_while_group_collecting += 1;
                        }
                        r.verify_rebuild(&self.base.ftl, ppn, &set)?;
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
        Ok(self.base.res.read(plane, ready))
    }

    /// Preconditioning with parity (timing off): as `precondition::run`, through `program_page`.
    fn precondition_pages(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let mut prng = rng::stream(seed, "precondition");
        let n = self.base.ftl.logical_pages();
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
