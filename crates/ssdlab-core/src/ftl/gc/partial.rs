//! Partial-GC plumbing shared by the fine-grained schedulers (LazyRTGC, RL-assisted, idle
//! predictors, external): run one *action* — up to k page copies of the current victim, or its
//! erase when it is ready — on a plane's time line; and intensive GC with hysteresis (Zhang et
//! al., LazyRTGC, TODAES 2015; Kang, Shin, Yoo, TECS 2017 §5.2 "Intensive Garbage Collection").
//!
//! Thresholds are per plane (the engine's convention): the paper's device is one chip of 2 planes
//! and counts free blocks for the device; here each plane counts its own, and one decision is
//! applied to every plane that is at or below the threshold.

use super::context::GcContext;
use crate::config::{DeviceConfig, OpTimes};
use crate::error::Result;
use crate::ftl::map::GcStep;

/// LazyRTGC's partial-task size: α = ⌊t_erase / (t_read + t_program)⌋ page copies (Zhang et al.
/// TODAES 2015 §4), at least 1.
pub fn lazyrtgc_quantum(t: &OpTimes) -> u32 {
    let denom = (t.read_ns + t.program_ns).max(1);
    ((t.erase_ns / denom) as u32).max(1)
}

/// Per-plane intensive-GC state and the action executor.
#[derive(Debug, Clone)]
pub struct PartialGc {
    intensive: Vec<bool>,
    /// The FTL's [`free epoch`](crate::ftl::map::Ftl::free_epoch) at which every plane was last found
    /// out of intensive GC, nothing having run since: while it stands, no plane's count and so
    /// no plane's state can have changed, and the per-request update over every plane is
    /// skipped (bit-identical; issue 19).
    settled: Option<u64>,
    /// Intensive GC starts at ≤ this many free blocks.
    pub intensive_start: u32,
    /// …and stops above T_IGC.
    pub t_igc: u32,
    /// Copies per write request under intensive GC.
    pub intensive_copies: u32,
    /// Estimated duration of one copy and one erase (ns), for fitting steps into idle time.
    pub copy_ns: u64,
    pub erase_ns: u64,
}

impl PartialGc {
    pub fn new(cfg: &DeviceConfig) -> Self {
        let t = cfg.op_times();
        let p = &cfg.gc.partial;
        let copy_ns = if cfg.timing.copyback {
            t.read_ns + t.program_ns
        } else {
            t.read_ns + 2 * t.transfer_ns + t.program_ns
        };
        PartialGc {
            intensive: vec![false; cfg.geometry.planes() as usize],
            settled: None,
            intensive_start: p.intensive_start_blocks,
            t_igc: p.t_igc,
            intensive_copies: if p.intensive_copies == 0 {
                lazyrtgc_quantum(&t) + 1
            } else {
                p.intensive_copies
            },
            copy_ns,
            erase_ns: t.erase_ns,
        }
    }

    /// Update and return whether `plane` is under intensive GC: on at ≤ `intensive_start` free
    /// blocks, off above T_IGC.
    fn intensive(&mut self, gc: &GcContext, plane: u32) -> bool {
        let free = gc.ftl.free_blocks(plane);
        let on = &mut self.intensive[plane as usize];
        if free <= self.intensive_start {
            *on = true;
        } else if free > self.t_igc {
            *on = false;
        }
        *on
    }

    /// Whether `plane` was under intensive GC at the last update.
    pub fn is_on(&self, plane: u32) -> bool {
        self.intensive[plane as usize]
    }

    /// Update every plane's intensive state; after a write request (`run`), run the fixed
    /// number of copies (the RL policy is ignored on those planes, §5.2).
    pub fn run_intensive(&mut self, gc: &mut GcContext, now: u64, run: bool) -> Result<()> {
        let epoch = gc.ftl.free_epoch();
        if self.settled == Some(epoch) {
            return Ok(());
        }
        let mut any_on = false;
        for p in 0..gc.ftl.planes() {
            if self.intensive(gc, p) {
                any_on = true;
                if run {
                    run_action(gc, p, self.intensive_copies, now, None)?;
                }
            }
        }
        // No plane on: no action ran, so every state was decided on the counts that stand now.
        self.settled = (!any_on).then_some(epoch);
        Ok(())
    }

    /// Every plane is out of intensive GC, decided on the free counts of `epoch`
    /// ([`crate::ftl::map::Ftl::free_epoch`]), which still stand: what depends only on those counts
    /// and these states is what it was when last worked out at `epoch`.
    pub fn settled_at(&self, epoch: u64) -> bool {
        self.settled == Some(epoch)
    }
}

/// When `plane` can start GC work at the earliest, given `now`.
pub fn plane_ready(gc: &GcContext, plane: u32, now: u64) -> u64 {
    gc.res
        .as_deref()
        .map_or(now, |r| now.max(r.plane_free_at(plane)))
}

/// One action on `plane` from `now`: if the victim is ready, erase it (any k > 0); otherwise up
/// to `k` copies, stopping when the victim has no valid page left (its erase is the next
/// action). With `max_valid`, a new victim is taken only if it has at most that many valid
/// pages. Returns (copies, erased, finish time).
pub fn run_action(
    gc: &mut GcContext,
    plane: u32,
    k: u32,
    now: u64,
    max_valid: Option<u32>,
) -> Result<(u32, bool, u64)> {
    if k == 0 {
        return Ok((0, false, now));
    }
    let started = match max_valid {
        Some(m) => gc.ftl.gc_begin_if(plane, gc.rng, m),
        None => gc.ftl.gc_begin(plane, gc.rng),
    };
    if !started {
        return Ok((0, false, now));
    }
    if gc.ftl.gc_victim_ready(plane) {
        let (_, done) = gc.step(plane, now)?;
        return Ok((0, true, done));
    }
    let (copies, t) = gc.copy_up_to(plane, k, now)?;
    Ok((copies, false, t))
}

/// Run steps on `plane` while the estimated end of the next one stays within `until`. Returns
/// the number of steps run.
///
/// When a copy's duration is fixed ([`crate::flash::Resources::fixed_copy_ns`]: copy-back, one unit
/// per page), a started victim's next copies are run and timed together (docs/speed.md, "The idle
/// predictors' idle-time copies in runs"): as many as steps one at a time would run before the
/// estimate passes `until` — copy i (from 0) starts at `t + i · fixed` and runs if that plus the
/// estimate `copy_ns` is within `until`.
pub fn run_within(
    gc: &mut GcContext,
    pg: &PartialGc,
    plane: u32,
    now: u64,
    until: u64,
) -> Result<u32> {
    let mut t = plane_ready(gc, plane, now);
    let fixed = match gc.res.as_deref() {
        Some(r) if gc.ftl.units_per_page() == 1 => r.fixed_copy_ns().filter(|&d| d > 0),
        _ => None,
    };
    let mut n = 0;
    loop {
        // A new victim starts with a copy unless it is wholly invalid (then it is an erase,
        // estimated here as a copy: the one case where a step may overrun `until`).
        let est = if gc.ftl.gc_victim_ready(plane) {
            pg.erase_ns
        } else {
            pg.copy_ns
        };
        if t + est > until {
            return Ok(n);
        }
        if let Some(d) = fixed {
            if gc.ftl.gc_remaining_copies(plane) > 0 {
                let k = (until - t - est) / d + 1;
                let (copies, done) = gc.copy_up_to(plane, k.min(u64::from(u32::MAX)) as u32, t)?;
                if copies > 0 {
                    t = done;
                    n += copies;
                    continue;
                }
            }
        }
        let (s, done) = gc.step(plane, t)?;
        if s == GcStep::Idle {
            return Ok(n);
        }
        t = done;
        n += 1;
    }
}

/// The smallest free-block count over the planes.
pub fn min_free(gc: &GcContext) -> u32 {
    (0..gc.ftl.planes())
        .map(|p| gc.ftl.free_blocks(p))
        .min()
        .unwrap_or(0)
}
