//! When and how the hybrid device reclaims space (`super`): migration of SLC data to QLC and
//! QLC GC, run as unit steps on a plane's time line — on demand before a host write
//! ([`HybridFtl::reclaim`]) or in idle time ([`HybridFtl::idle_migrate`]).

use super::region::{Mode, Step};
use super::HybridFtl;
use crate::error::{Result, SsdError};

/// What reclaiming before a host write did: when its last step ended, and the plane time of
/// its migration and GC steps.
pub(super) struct Reclaimed {
    pub(super) end: u64,
    pub(super) migration_ns: u64,
    pub(super) gc_ns: u64,
}

impl HybridFtl {
    /// Run one reclaim step of `mode` on `plane` from `t` (timed) and account it; the step's end.
    /// With `pending`, a whole-page copy is only counted there, to be timed with the ones
    /// after it ([`HybridFtl::flush`]: the same times, ~100 instructions less per copy); the
    /// copies pending are timed before any other step.
    pub(super) fn step(
        &mut self,
        plane: u32,
        mode: Mode,
        t: u64,
        timed: bool,
        pending: Option<&mut u32>,
    ) -> Result<Option<u64>> {
        let pl = &mut self.planes[plane as usize];
        let Some(step) = pl.step(
            &mut self.base.ftl,
            &self.lay,
            mode,
            &mut self.modes,
            self.slc_wear.as_mut(),
        )?
        else {
            return Ok(None);
        };
        let r = &mut self.report;
        if let Step::Copy { from, .. } = step {
            match from {
                Mode::Slc => r.migrated_pages += 1,
                Mode::Qlc => r.qlc_gc_pages += 1,
            }
        }
        let t = match pending {
            Some(n) if timed => {
                if let Step::Copy {
                    read: true,
                    program: true,
                    ..
                } = step
                {
                    *n += 1;
                    return Ok(Some(t));
                }
                self.flush(plane, mode, t, n)
            }
            _ => t,
        };
        let busy_before = self.base.res.gc_busy_ns;
        let done = match step {
            Step::Copy {
                from,
                read,
                program,
            } => {
                let (rd, pg) = (self.times[from as usize].read_ns, self.times[1].program_ns);
                timed.then(|| {
                    self.base
                        .res
                        .gc_move(plane, t, read.then_some(rd), program.then_some(pg))
                })
            }
            Step::Erase { mode } => {
                match mode {
                    Mode::Slc => self.report.slc_erases += 1,
                    Mode::Qlc => self.report.qlc_erases += 1,
                }
                let e = self.times[mode as usize].erase_ns;
                timed.then(|| self.base.res.gc_erase_in(plane, t, e))
            }
        };
        if mode == Mode::Slc {
            // The time lines account the step's plane time (transfers included, whatever the
            // copy-back and blocking settings); migration is the SLC part of it.
            self.report.migration_busy_ns += self.base.res.gc_busy_ns - busy_before;
        }
        Ok(Some(done.unwrap_or(t)))
    }

    /// Time the `pending` whole-page copies of `mode`'s job on `plane` from `t`, as that many
    /// steps would one after another ([`crate::flash::Resources::gc_copies_in`]); their end.
    fn flush(&mut self, plane: u32, mode: Mode, t: u64, pending: &mut u32) -> u64 {
        if *pending == 0 {
            return t;
        }
        let busy_before = self.base.res.gc_busy_ns;
        let (rd, pg) = (self.times[mode as usize].read_ns, self.times[1].program_ns);
        let done = self.base.res.gc_copies_in(plane, t, *pending, rd, pg);
        *pending = 0;
        if mode == Mode::Slc {
            self.report.migration_busy_ns += self.base.res.gc_busy_ns - busy_before;
        }
        done
    }

    /// Reclaim on demand before a host write on `plane` at `t`: migrate while the SLC region is
    /// at its trigger, collect QLC while the free pool is. Returns when the last step ends and
    /// the plane time its migration and its GC steps took.
    pub(super) fn reclaim(&mut self, plane: u32, t: u64, timed: bool) -> Result<Reclaimed> {
        let mut out = Reclaimed {
            end: t,
            migration_ns: 0,
            gc_ns: 0,
        };
        loop {
            let p = &self.planes[plane as usize];
            let pool_low = p.free.len() as u32 <= self.trigger;
            // The region is at its trigger, or above its size (a policy shrank it, to 0 too).
            let over = p.in_mode[Mode::Slc as usize] > p.slc_target;
            let slc_low = self.foreground_migration
                && (over || (p.slc_target > 0 && p.slc_free() <= self.trigger));
            let cost = [Mode::Slc, Mode::Qlc].map(|m| {
                let t = &self.times[m as usize];
                (
                    t.read_ns + self.times[Mode::Qlc as usize].program_ns,
                    t.erase_ns,
                )
            });
            let pl = &mut self.planes[plane as usize];
            let mode = if pool_low {
                match pl.begin_for_space(&mut self.base.ftl, &self.lay, plane, &mut self.rng, cost)
                {
                    Some(m) => m,
                    None if pl.free.is_empty() => {
                        return Err(SsdError::DeviceFull(format!(
                            "hybrid device, plane {plane}: no free block and no victim that frees space"
                        )));
                    }
                    None => return Ok(out),
                }
            } else if slc_low && !(self.shrunk_this_request && over) {
                // A region above its size (the policy shrank it) comes down by one block per
                // host request, not all at once before one write. Ours (the paper does not say
                // how a region shrinks): one block per page write made a 256 KiB request wait
                // for 16 migrations (64 with 4 KiB units, ~30 s on yoo-qlc) whenever `rl`
                // shrank the region — a tail of tens of seconds no drive shows.
                if !pl.begin(
                    &mut self.base.ftl,
                    &self.lay,
                    plane,
                    Mode::Slc,
                    &mut self.rng,
                ) {
                    return Ok(out);
                }
                self.shrunk_this_request |= over;
                Mode::Slc
            } else {
                return Ok(out);
            };
            // Run the job to its erase, its whole-page copies timed in runs when the time lines
            // allow it (`Resources::batches_copies`; a run ends at the erase).
            let mut pending = 0u32;
            let mut batch = self.base.res.batches_copies().then_some(&mut pending);
            let busy = self.base.res.gc_busy_ns;
            loop {
                // Whole-page copies in a row in one call, when they need no timing each: only
                // counted (and, timed, added to the run).
                if !timed || batch.is_some() {
                    let pl = &mut self.planes[plane as usize];
                    let k = pl.copy_run(&mut self.base.ftl, &self.lay, mode, &mut self.modes)?;
                    if k > 0 {
                        match mode {
                            Mode::Slc => self.report.migrated_pages += u64::from(k),
                            Mode::Qlc => self.report.qlc_gc_pages += u64::from(k),
                        }
                        if let Some(n) = batch.as_deref_mut().filter(|_| timed) {
                            *n += k;
                        }
                        continue;
                    }
                }
                let Some(end) = self.step(plane, mode, out.end, timed, batch.as_deref_mut())?
                else {
                    break;
                };
                out.end = end;
                if self.planes[plane as usize].job[mode as usize].is_none() {
                    break;
                }
            }
            if let Some(n) = batch {
                out.end = self.flush(plane, mode, out.end, n);
            }
            let took = self.base.res.gc_busy_ns - busy;
            match mode {
                Mode::Slc => out.migration_ns += took,
                Mode::Qlc => out.gc_ns += took,
            }
        }
    }

    /// Idle-time migration on every plane: unit steps that start on the plane's time line
    /// (never before the previous request arrived) and before `now`.
    pub(super) fn idle_migrate(&mut self, prev_arrival: u64, now: u64) -> Result<()> {
        for plane in 0..self.lay.planes {
            loop {
                let t = self.base.res.plane_free_at(plane).max(prev_arrival);
                if t >= now {
                    break;
                }
                let pl = &mut self.planes[plane as usize];
                if !pl.begin(
                    &mut self.base.ftl,
                    &self.lay,
                    plane,
                    Mode::Slc,
                    &mut self.rng,
                ) {
                    break;
                }
                // One step at a time: the next starts only if the plane is still idle.
                self.step(plane, Mode::Slc, t, true, None)?;
            }
        }
        Ok(())
    }
}
