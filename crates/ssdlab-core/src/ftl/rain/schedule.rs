//! Scheduling of the stripe-group GC on the time lines: rotating GC (one plane of a group at a
//! time, chained in the background on its own clock), plane-blocking GC, forced GC when the host
//! finds no room (optionally on all planes of the group at once, `pfg`), and the host page
//! program that triggers them.

use super::device::RainFtl;
use super::GcOp;
use crate::error::{Result, SsdError};
use crate::flash::OpDone;
use crate::ftl::map::NEVER;

/// How far a group's GC runs now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GcRun {
    /// Rotating GC: operations run one after the other, each only if it can start by `now`.
    Until(u64),
    /// To completion, each operation as soon as its plane is free from `now` (plane-blocking GC,
    /// or timing off).
    Eager(u64),
    /// Until the group can take a host super-block again (forced), from `now`.
    Forced(u64),
}

impl RainFtl {
    /// Run group `g`'s GC as `how` says. Under rotating GC the group's operations are chained
    /// (each starts after the previous one ends), so at most one plane of the group does GC at
    /// any instant.
    pub(super) fn run_group_gc(&mut self, g: u32, how: GcRun, timed: bool) -> Result<()> {
        let rgc = self.rcfg.rgc;
        let parallel = matches!(how, GcRun::Forced(_)) && self.rcfg.parallel_forced_gc;
        let rotating_flush = self.rcfg.rotating_flush;
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
            if matches!(how, GcRun::Forced(_)) && r.free_superblocks(g) > r.gc_reserve(g) {
                break;
            }
            let plane = r.gc_plane(g);
            // Rotating GC runs in the background: its chain continues from the end of its last
            // operation (through idle time since the last call), not from `now`. Forced GC
            // starts at `now`; with `parallel_forced_gc` its operations are not chained.
            let not_before = match how {
                // With the rotating flush the group's flush programs and GC operations share
                // one chain: one busy plane per group.
                GcRun::Until(_) if rotating_flush => {
                    r.gc_clock(g).max(self.group_prog_until[g as usize])
                }
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
            if cfg!(debug_assertions) || r.version.is_some() {
                // The plane checked above is the one the operation occupies (a drain's too).
                if let GcOp::Copy(p) | GcOp::Erase(p) | GcOp::Parity(p) = op {
                    assert_eq!(p, plane, "RAIN group {g}: GC operation on another plane");
                }
            }
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
    pub(super) fn rain_advance(&mut self, now: u64) -> Result<()> {
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
    pub(super) fn program_page(&mut self, lpn: u32, ready: u64, timed: bool) -> Result<OpDone> {
        if self.lrain.is_some() {
            return self.program_logical(&[lpn], ready, timed);
        }
        if self.rain.is_none() {
            return self.base.program_page(lpn, ready, NEVER, timed);
        }
        let mut tries = 0;
        loop {
            let next = self
                .rain
                .as_mut()
                .map(|r| r.next_data_plane(&mut self.base.ftl))
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
        let mut d = OpDone::at(ready);
        if timed {
            d = self.program_or_hold(w.plane, Some(lpn), ready);
            if let Some(pp) = w.parity_plane {
                let p = self.program_or_hold(pp, None, ready);
                d.join(p);
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
}
