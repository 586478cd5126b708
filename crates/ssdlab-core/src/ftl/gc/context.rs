//! The interface between a device model and its GC scheduler. The engine calls a scheduler at named
//! decision points (after each host page write, after each request, when the device is idle);
//! the scheduler decides which unit steps to run and the [`GcContext`] executes them — on the
//! FTL always, and on the NAND time lines when timing is on.

use super::observation::Observation;
use crate::error::{Result, SsdError};
use crate::flash::Resources;
use crate::ftl::map::{Ftl, GcStep};
use crate::rl::QTable;
use crate::rng::SimRng;

/// What the engine tells a scheduler about the request just served.
#[derive(Debug, Clone, Copy)]
pub struct RequestInfo {
    pub is_write: bool,
    pub is_read: bool,
    /// Arrival minus the previous request's arrival (0 for the first): the paper's
    /// inter-request interval (Kang et al. TECS 2017 §5.2).
    pub interval_ns: u64,
    pub arrival_ns: u64,
    pub completion_ns: u64,
    pub pages: u32,
}

/// Execution of GC unit steps for a scheduler.
pub struct GcContext<'a> {
    pub ftl: &'a mut Ftl,
    /// `None` in timing-free mode.
    pub res: Option<&'a mut Resources>,
    pub rng: &'a mut SimRng,
}

impl GcContext<'_> {
    /// Run one unit step on `plane`, starting no earlier than `not_before`; returns the step and
    /// when it finishes (equal to `not_before` without timing or when there was nothing to do).
    /// The translation page writes a victim owes once erased (a cached map) are part of the
    /// erase's step: they run after it, and the step ends with the last.
    pub fn step(&mut self, plane: u32, not_before: u64) -> Result<(GcStep, u64)> {
        let step = self.ftl.gc_step(plane, self.rng)?;
        let mut done = match (&mut self.res, step) {
            (
                Some(r),
                GcStep::Copy {
                    from,
                    to,
                    read,
                    program,
                },
            ) => Copied {
                from,
                to,
                read,
                program,
            }
            .time(r, plane, not_before),
            (Some(r), GcStep::Erase { .. }) => r.gc_erase(plane, not_before),
            (Some(r), GcStep::Translation { read, to }) => {
                translation(r, plane, not_before, (read != u32::MAX).then_some(read), to)
            }
            _ => not_before,
        };
        if matches!(step, GcStep::Erase { .. }) {
            while let Some(GcStep::Translation { read, to }) = self.ftl.gc_owed_step(plane)? {
                if let Some(r) = self.res.as_deref_mut() {
                    done = translation(r, plane, done, (read != u32::MAX).then_some(read), to);
                }
            }
        }
        Ok((step, done))
    }

    /// Up to `k` copies of the started job on `plane`, the first from `not_before` and each
    /// after the one before; returns how many and when the last ends (`not_before` if none).
    /// The same steps and times as that many [`GcContext::step`]s, each from the previous end
    /// (partial GC's actions), with whole-page copies in a row timed together when the time
    /// lines allow it ([`Resources::gc_copies`]).
    pub fn copy_up_to(&mut self, plane: u32, k: u32, not_before: u64) -> Result<(u32, u64)> {
        let mut t = not_before;
        let mut pending = 0u32;
        let res = &mut self.res;
        let batch = res.as_deref().is_some_and(Resources::batches_copies);
        let n = self.ftl.gc_copy_up_to(plane, k, |step| {
            let GcStep::Copy {
                from,
                to,
                read,
                program,
            } = step
            else {
                return;
            };
            if batch && read && program {
                pending += 1;
                return;
            }
            if let Some(r) = res.as_deref_mut() {
                if pending > 0 {
                    t = r.gc_copies(plane, t, pending);
                    pending = 0;
                }
                t = Copied {
                    from,
                    to,
                    read,
                    program,
                }
                .time(r, plane, t);
            }
        })?;
        if let (Some(r), true) = (res.as_deref_mut(), pending > 0) {
            t = r.gc_copies(plane, t, pending);
        }
        Ok((n, t))
    }

    /// Collect whole victims on `plane` until its free pool is back at the threshold (and any
    /// started victim is finished). Returns when the last step finishes.
    pub fn collect_until_threshold(&mut self, plane: u32, not_before: u64) -> Result<u64> {
        self.collect_while(plane, not_before, move |f| f.needs_gc(plane))
    }

    /// Collect whole victims on `plane` until the host can write there again (forced GC).
    /// Its steps are forced GC, which no host operation passes (`flash.scheduler`).
    pub fn collect_for_host(&mut self, plane: u32, not_before: u64) -> Result<u64> {
        if let Some(r) = self.res.as_deref_mut() {
            r.set_gc_forced(true);
        }
        let done = self.collect_while(plane, not_before, move |f| !f.host_can_write(plane));
        if let Some(r) = self.res.as_deref_mut() {
            r.set_gc_forced(false);
        }
        done
    }

    /// The plane the next host page of `lpn` goes to: the allocator's choice, after forced GC there
    /// if it is out of space (whatever the scheduler: a write cannot wait forever), else any plane
    /// that can take it, else `DeviceFull` — never a hang. The common path is forced in line into
    /// every page write, the rest kept out of line (docs/speed.md, "The PGO build's inlining
    /// decisions on the page path, by hand").
    #[inline(always)]
    pub fn host_plane(&mut self, lpn: u32, not_before: u64) -> Result<u32> {
        let plane = self.ftl.next_host_plane(lpn);
        if self.ftl.host_can_write(plane) {
            return Ok(plane);
        }
        self.host_plane_after_gc(lpn, plane, not_before)
    }

    /// `host_plane` when the allocator's plane is out of space (rare: not once in the bench
    /// example's timed runs under any of the GC schedulers; out of line, so that the common path
    /// above inlines into every page write).
    #[cold]
    #[inline(never)]
    fn host_plane_after_gc(&mut self, lpn: u32, plane: u32, not_before: u64) -> Result<u32> {
        self.collect_for_host(plane, not_before)?;
        if self.ftl.host_can_write(plane) {
            return Ok(plane);
        }
        self.ftl.first_writable_plane(lpn).ok_or_else(|| {
            SsdError::DeviceFull(format!(
                "no plane can take logical page {lpn}: GC cannot reclaim space"
            ))
        })
    }

    /// Read reclaim on `plane` from `not_before`: a job in progress there first, then every
    /// block queued for reclaim (`Ftl::queue_reclaim`); when the last step ends.
    pub fn reclaim(&mut self, plane: u32, not_before: u64) -> Result<u64> {
        self.collect_while(plane, not_before, |f| f.reclaim_waiting(plane))
    }

    fn collect_while(
        &mut self,
        plane: u32,
        not_before: u64,
        more: impl Fn(&Ftl) -> bool,
    ) -> Result<u64> {
        let mut done = not_before;
        // Whole-page copies in a row are timed together when the time lines allow it
        // (`Resources::gc_copies`): the same times as one call each.
        let mut pending = 0u32;
        let res = &mut self.res;
        let batch = res.as_deref().is_some_and(Resources::batches_copies);
        // The batched copy is the common step, counted inline; timing a step is out of line.
        self.ftl.gc_while(plane, self.rng, more, |step| {
            if batch
                && matches!(
                    step,
                    GcStep::Copy {
                        read: true,
                        program: true,
                        ..
                    }
                )
            {
                pending += 1;
                return;
            }
            if let Some(r) = res.as_deref_mut() {
                done = time_step(r, plane, not_before, Timed::of(step), pending, done);
                pending = 0;
            }
        })?;
        if let (Some(r), true) = (res.as_deref_mut(), pending > 0) {
            done = r.gc_copies(plane, not_before, pending);
        }
        Ok(done)
    }
}

/// What timing a GC step needs of it: a [`GcStep`] without a victim's block or a translation
/// step's plane, 12 bytes (docs/speed.md, "A blocking GC step timed without building it": the
/// whole step was built on the stack for every copy, ahead of the test that counts a batched
/// copy without timing it). A copy keeps its pages for their types' times (page types).
#[derive(Clone, Copy)]
enum Timed {
    Copy(Copied),
    Erase,
    Translation { read: Option<u32>, to: u32 },
    Idle,
}

impl Timed {
    #[inline(always)]
    fn of(step: GcStep) -> Self {
        match step {
            GcStep::Copy {
                from,
                to,
                read,
                program,
            } => Timed::Copy(Copied {
                from,
                to,
                read,
                program,
            }),
            GcStep::Erase { .. } => Timed::Erase,
            GcStep::Translation { read, to } => Timed::Translation {
                read: (read != u32::MAX).then_some(read),
                to,
            },
            GcStep::Idle => Timed::Idle,
        }
    }
}

/// Time one GC step on `plane` (after the `pending` batched copies before it); returns when
/// the last one ends (`done` for an idle step with none pending). The counts go in and the
/// time comes out by value, so the caller's batch count stays in a register.
#[inline(never)]
fn time_step(
    r: &mut Resources,
    plane: u32,
    not_before: u64,
    step: Timed,
    pending: u32,
    mut done: u64,
) -> u64 {
    if pending > 0 {
        done = r.gc_copies(plane, not_before, pending);
    }
    match step {
        Timed::Copy(c) => c.time(r, plane, not_before),
        Timed::Erase => r.gc_erase(plane, not_before),
        Timed::Translation { read, to } => translation(r, plane, not_before, read, to),
        Timed::Idle => done,
    }
}

/// Time one GC batch update of a translation page (a cached map): its old copy `read` read on
/// its plane (array read and transfer out, as GC work there), then the page `to` transferred
/// in and programmed on `plane`, the job's. Returns when the program ends.
fn translation(r: &mut Resources, plane: u32, not_before: u64, read: Option<u32>, to: u32) -> u64 {
    let t = match read {
        Some(old) => r.gc_copy_page(r.plane_of(old), not_before, Some(old), None),
        None => not_before,
    };
    let program_ns = r.program_ns_of(to);
    r.gc_program_in(plane, t, program_ns)
}

/// A GC copy step as [`GcStep::Copy`] gives it: the victim page `from`, read if `read`, and
/// the destination page `to`, programmed if `program` (both with one unit per page: a
/// whole-page copy). Pages by number, for their types' times.
#[derive(Clone, Copy)]
struct Copied {
    from: u32,
    to: u32,
    read: bool,
    program: bool,
}

impl Copied {
    /// Time it on `plane` from `not_before`; when it ends.
    #[inline]
    fn time(self, r: &mut Resources, plane: u32, not_before: u64) -> u64 {
        let from = self.read.then_some(self.from);
        r.gc_copy_page(plane, not_before, from, self.program.then_some(self.to))
    }
}

/// A GC scheduler: decides when GC unit steps run. One file per scheduler, one variant of
/// [`crate::config::SchedulerKind`] and its arm in [`super::build_scheduler`].
pub trait GcScheduler: Send {
    fn name(&self) -> &'static str;
    /// A host page was just programmed on `plane`; `now` is the request's ready time.
    fn after_page_write(&mut self, plane: u32, now: u64, gc: &mut GcContext) -> Result<()>;
    /// A whole request has been served.
    fn after_request(&mut self, _info: &RequestInfo, _gc: &mut GcContext) -> Result<()> {
        Ok(())
    }
    /// True when [`Self::after_page_write`] does nothing unless the plane needs GC
    /// ([`crate::ftl::map::Ftl::needs_gc`]) and [`Self::after_request`] does nothing at all: a
    /// device model may then skip both calls otherwise (two calls through `dyn` a host page and one
    /// a request that would return at once; docs/speed.md, "Calls that do nothing, skipped; the
    /// open-loop time computed once"). False unless overridden.
    fn on_demand_only(&self) -> bool {
        false
    }
    /// The learned Q-table (`rlgc`, `rlgc-aggressive`), if the scheduler has one.
    fn q_table(&self) -> Option<&QTable> {
        None
    }
    /// Does it take its decisions from an outside agent (`external`: decision stepping)?
    fn is_external(&self) -> bool {
        false
    }
    /// The decision an outside agent owes now, if any (`external`).
    fn pending_decision(&self) -> Option<Observation> {
        None
    }
    /// Run the agent's action, `copies` partial-GC page copies, for the pending decision
    /// (`external`; nothing for a scheduler that decides itself).
    fn apply_decision(&mut self, _copies: u32, _gc: &mut GcContext) -> Result<()> {
        Ok(())
    }
}
