//! Flash scheduling (`flash.scheduler`): which operations already queued on a die (a plane,
//! with multi-plane operation) a host operation may pass. `fcfs` passes none (the time lines'
//! own order, and no state here); `read-first` lets a host read pass programs and GC steps
//! that have not started (MQSim's priority transaction scheduling: reads first, Tavakkol et
//! al., FAST 2018); `preemptible-gc` lets host reads and writes pass GC steps that have
//! not started (Lee, Kim, Oral, Shipman, Dillow, Wang, "Preemptible I/O scheduling of garbage
//! collection for solid state drives", IEEE TCAD 2013: GC is preempted at page-copy
//! boundaries and resumed after the host request); `fair` (several flows) lets a host
//! operation of a flow that is low-intensity on its die pass queued host operations of
//! high-intensity flows (FLIN's fairness-aware queue insertion, Tavakkol et al., ISCA 2018;
//! the intensities are `flash::fair`'s).
//!
//! An operation that is running is never cut (that is suspension's job, `flash::suspend`):
//! a passing operation starts when the step running at its ready time ends — one page copy of
//! a run of copies, an erase, a host program — and after every queued operation it may not
//! pass. What it passes moves later by the time it took, in order, with the gaps between
//! them kept. Two bounds keep GC going:
//! - One queued operation may be passed `flash.max_passes` times; then it is served in turn.
//!   Lee et al. bound GC's postponement by their soft free-block threshold, not by a count;
//!   a count is needed here as well, since a read stream alone never lowers the free pool.
//! - GC the host is waiting for (forced GC: the plane's free pool is at the floor where host
//!   writes can no longer be placed, Lee et al.'s hard threshold) is never passed.
//!
//! What passed operations booked on their channel stays where it was (a GC copy's transfers,
//! a host program's data-in): the channel's gap-filling time line is kept exact for the
//! operations that are answered, and a moved operation's transfers are not moved with it
//! (docs/decisions/flash.md, "Passing and the channel"). Without copy-back, GC copies are
//! timed one at a time while a scheduler is on, so that each has its own boundary.

use std::collections::VecDeque;

use super::fair::Intensity;
use super::{GcSpan, OpDone, ReadParts, Resources};
use crate::config::{DeviceConfig, FlashScheduler};
use crate::stats::SchedulingReport;

/// Operations a time line remembers; older ones become a floor no operation passes. A victim's
/// copies timed one by one (page types, or no copy-back) are one entry each, so the bound is
/// above a block's pages (up to 1,024 in the presets): at 64, a 128-page victim's later copies
/// became a floor and reads passed 3× less GC on mqsim-small with page types (2026-12-05).
const MAX_QUEUED: usize = 2048;

/// What a queued operation is, for the passing rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    HostRead,
    HostProgram,
    Gc,
    /// GC the host waits for: never passed.
    ForcedGc,
}

/// One operation (or a run of equal GC copies) reserved on a time line over `[start, end)`.
#[derive(Debug, Clone, Copy)]
struct Queued {
    start: u64,
    end: u64,
    /// One step's length: a run of copies is `(end - start) / unit` copies; else the whole.
    unit: u64,
    op: Op,
    plane: u32,
    passes: u32,
    /// Its flow (a GC step's: the flow whose request was served when it was reserved) and
    /// whether the flow was low-intensity on this die when the operation was queued (`fair`).
    flow: u16,
    low: bool,
}

/// One time line's queued operations, in time order, and the time before which none passes.
#[derive(Debug, Clone, Default)]
struct Line {
    floor: u64,
    ops: VecDeque<Queued>,
}

/// The scheduler's state: each time line's queue, the forced-GC flag, the counters.
#[derive(Debug, Clone)]
pub(super) struct Queues {
    kind: FlashScheduler,
    max_passes: u32,
    lines: Vec<Line>,
    /// GC steps being reserved now are forced GC (`Resources::set_gc_forced`).
    forced: bool,
    report: SchedulingReport,
    gc_delay_ns: u64,
    host_delay_ns: u64,
    /// The flow of the host operations being reserved (`Resources::set_flow`; 0 with one
    /// workload), whether it is low-intensity on the die of the last one, and each die's
    /// intensities (`fair` only).
    flow: u16,
    low: bool,
    intensity: Option<Box<Intensity>>,
}

impl Queues {
    /// `None` with `flash.scheduler = "fcfs"`; `time_lines` as `Resources::queue_key` counts.
    pub(super) fn new(cfg: &DeviceConfig, time_lines: usize) -> Option<Box<Self>> {
        if cfg.flash.scheduler == FlashScheduler::Fcfs {
            return None;
        }
        Some(Box::new(Queues {
            kind: cfg.flash.scheduler,
            max_passes: cfg.flash.max_passes,
            lines: vec![Line::default(); time_lines],
            forced: false,
            report: SchedulingReport::default(),
            gc_delay_ns: 0,
            host_delay_ns: 0,
            flow: 0,
            low: false,
            intensity: (cfg.flash.scheduler == FlashScheduler::Fair)
                .then(|| Box::new(Intensity::new(cfg, time_lines))),
        }))
    }

    /// May a host operation (`read` or not) pass `q`?
    fn passable(&self, q: &Queued, read: bool) -> bool {
        if q.passes >= self.max_passes {
            return false;
        }
        match (self.kind, q.op) {
            (FlashScheduler::ReadFirst, Op::HostProgram | Op::Gc) => read,
            (FlashScheduler::PreemptibleGc, Op::Gc) => true,
            (FlashScheduler::Fair, Op::HostRead | Op::HostProgram | Op::Gc) => {
                self.low && !q.low && q.flow != self.flow
            }
            _ => false,
        }
    }

    /// An operation reserved on time line `key` over `[start, end)`, of `steps` equal steps.
    fn push(&mut self, key: usize, plane: u32, start: u64, end: u64, steps: u32, op: Op) {
        let op = if op == Op::Gc && self.forced {
            Op::ForcedGc
        } else {
            op
        };
        let line = &mut self.lines[key];
        if line.ops.len() == MAX_QUEUED {
            let old = line.ops.pop_front().map_or(0, |q| q.end);
            line.floor = line.floor.max(old);
        }
        // A GC step is charged to the flow whose request was being served when it was
        // reserved (FLIN's third stage charges GC to the flows whose writes cause it), and
        // is never low-intensity.
        let host = matches!(op, Op::HostRead | Op::HostProgram);
        line.ops.push_back(Queued {
            start,
            end,
            unit: (end - start) / u64::from(steps.max(1)),
            op,
            plane,
            passes: 0,
            flow: self.flow,
            low: host && self.low,
        });
    }

    /// Where a host operation ready at `ready` may start on time line `key` by passing
    /// queued operations, and the index of the first it passes; `None` when it passes none.
    /// A run of copies straddling that point is split there first.
    fn pass_point(&mut self, key: usize, ready: u64, read: bool) -> Option<(u64, usize)> {
        let line = &mut self.lines[key];
        while line.ops.front().is_some_and(|q| q.end <= ready) {
            let old = line.ops.pop_front().map_or(0, |q| q.end);
            line.floor = line.floor.max(old);
        }
        let mut at = ready.max(line.floor);
        let line = &self.lines[key];
        let mut first = None;
        for (i, q) in line.ops.iter().enumerate() {
            if q.end <= at {
                continue;
            }
            let started = q.start < at;
            if !self.passable(q, read) {
                at = q.end;
                first = None;
            } else if started {
                // Running (or straddling `at`): pass the rest at its next step boundary.
                let steps_done = (at - q.start).div_ceil(q.unit.max(1));
                let b = q.start + steps_done * q.unit;
                at = b;
                first = (b < q.end).then_some(i).or(first);
                if b >= q.end {
                    at = q.end;
                }
            } else if first.is_none() {
                first = Some(i);
            }
        }
        let i = first?;
        let line = &mut self.lines[key];
        let q = line.ops[i];
        if q.start < at {
            // Split the run at `at`: its first steps stay, the rest is passed.
            line.ops[i].end = at;
            line.ops.insert(i + 1, Queued { start: at, ..q });
            return Some((at, i + 1));
        }
        Some((at, i))
    }
}

impl Resources {
    /// An operation was reserved on `plane` over `[start, end)` in `steps` equal steps
    /// (scheduler on).
    #[inline(never)]
    pub(super) fn queue_op(&mut self, plane: u32, start: u64, end: u64, steps: u32, op: Op) {
        let key = self.queue_key(plane);
        if let Some(q) = &mut self.queues {
            q.push(key, plane, start, end, steps, op);
        }
    }

    /// GC steps reserved from now on are forced GC (the host waits for them), or no longer.
    pub fn set_gc_forced(&mut self, on: bool) {
        if let Some(q) = &mut self.queues {
            q.forced = on;
        }
    }

    /// Where a host operation on `plane` ready at `ready` starts by passing queued work, and
    /// the index of the first operation it passes (`None`: it passes nothing, FCFS).
    fn passing(&mut self, plane: u32, ready: u64, read: bool) -> Option<(u64, usize)> {
        let key = self.queue_key(plane);
        if let Some(qs) = self.queues.as_deref_mut() {
            if let Some(i) = &mut qs.intensity {
                qs.low = i.note(key, qs.flow, ready, read);
            }
        }
        if self.plane_free_at(plane) <= ready {
            return None;
        }
        self.queues.as_deref_mut()?.pass_point(key, ready, read)
    }

    /// The host operations reserved from now on are flow `flow`'s (several flows; the
    /// `fair` scheduler tells flows apart by it).
    pub fn set_flow(&mut self, flow: u16) {
        if let Some(q) = &mut self.queues {
            q.flow = flow;
        }
    }

    /// The host operation placed at `at` on `plane` over `[at, done)` as operation `i` of its
    /// time line: everything from `i` on moves later by what now overlaps.
    fn place(&mut self, plane: u32, at: u64, done: u64, i: usize, op: Op) {
        let key = self.queue_key(plane);
        let Some(qs) = self.queues.as_deref_mut() else {
            return;
        };
        let line = &mut qs.lines[key];
        let delta = done.saturating_sub(line.ops[i].start);
        let (mut gc_ns, mut host_ns, mut passed) = (0, 0, 0u64);
        let moved = if delta > 0 { line.ops.len() - i } else { 0 };
        for q in line.ops.iter_mut().skip(i).take(moved) {
            let old = (q.start, q.end);
            q.start += delta;
            q.end += delta;
            q.passes += 1;
            // Steps, not entries: a run of copies counts each (as copies timed one by one do).
            passed += (q.end - q.start) / q.unit.max(1);
            let p = q.plane as usize;
            self.plane_free[p] = self.plane_free[p].max(q.end);
            if matches!(q.op, Op::Gc | Op::ForcedGc) {
                // The line's GC work ends `delta` later: once a pass, however it is split up.
                gc_ns = delta;
                self.plane_gc_until[p] = self.plane_gc_until[p].max(q.end);
                if let Some(log) = &mut self.gc_log {
                    log.push(GcSpan {
                        start: q.start.max(old.1),
                        done: q.end,
                        moves_data: true,
                    });
                }
            } else {
                host_ns += delta;
            }
        }
        line.ops.insert(
            i,
            Queued {
                start: at,
                end: done,
                unit: done - at,
                op,
                plane,
                passes: 0,
                flow: qs.flow,
                low: qs.low,
            },
        );
        let end = line.ops.back().map_or(done, |q| q.end);
        if !self.multiplane {
            self.die_free[key] = self.die_free[key].max(end);
        }
        let p = plane as usize;
        self.plane_free[p] = self.plane_free[p].max(done);
        if let Some(e) = &mut self.explain {
            e.shift_gc(key, at, delta);
        }
        qs.report.ops_passed += passed;
        if op == Op::HostRead {
            qs.report.reads_passing += 1;
        } else {
            qs.report.writes_passing += 1;
        }
        qs.gc_delay_ns += gc_ns;
        qs.host_delay_ns += host_ns;
    }

    /// [`Resources::read_in`] with a scheduler on: the read passes what it may, or `None` when
    /// it passes nothing and takes the FCFS path.
    #[inline(never)]
    pub(super) fn read_passing(&mut self, plane: u32, ready: u64, read_ns: u64) -> Option<OpDone> {
        let (at, i) = self.passing(plane, ready, true)?;
        let blocked = self.gc_blocks(plane, ready);
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.reserve_on(ch, at + read_ns, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns;
        if self.explain.is_some() {
            let key = self.queue_key(plane);
            let transfer = self.times.transfer_ns;
            if let Some(e) = &mut self.explain {
                let wait = at - ready;
                let gc = e.gc_within(key, ready, at).min(wait);
                let parts = ReadParts {
                    wait_host: wait - gc,
                    wait_gc: gc,
                    wait_channel: xfer - (at + read_ns),
                    array: read_ns,
                    transfer,
                    rebuild: 0,
                    retry: 0,
                    rebuilt: false,
                };
                e.note(parts, done);
            }
        }
        self.place(plane, at, done, i, Op::HostRead);
        Some(OpDone {
            done,
            blocked_by_gc: blocked,
        })
    }

    /// [`Resources::write_in`] with a scheduler on: the write passes what it may (queued GC
    /// under `preemptible-gc`), or `None` when it passes nothing.
    #[inline(never)]
    pub(super) fn write_passing(
        &mut self,
        plane: u32,
        ready: u64,
        program_ns: u64,
    ) -> Option<OpDone> {
        let (at, i) = self.passing(plane, ready, false)?;
        let blocked = self.gc_blocks(plane, ready);
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.reserve_on(ch, at, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns + program_ns;
        self.place(plane, at, done, i, Op::HostProgram);
        Some(OpDone {
            done,
            blocked_by_gc: blocked,
        })
    }

    /// When a host read of `plane` ready at `ready` would complete if it passes queued work,
    /// without reserving anything (`None`: it would pass nothing).
    pub(super) fn peek_passing(&self, plane: u32, ready: u64) -> Option<OpDone> {
        if self.plane_free_at(plane) <= ready {
            return None;
        }
        let key = self.queue_key(plane);
        let mut qs = self.queues.as_deref()?.clone_line(key);
        let (at, _) = qs.pass_point(0, ready, true)?;
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.channels[ch].fit(self.now, at + self.times.read_ns, self.times.transfer_ns);
        Some(OpDone {
            done: xfer + self.times.transfer_ns,
            blocked_by_gc: self.gc_blocks(plane, ready),
        })
    }

    /// The scheduler's counters (`None` with `flash.scheduler = "fcfs"`).
    pub fn scheduling_report(&self) -> Option<SchedulingReport> {
        let q = self.queues.as_deref()?;
        Some(SchedulingReport {
            scheduler: q.kind.into(),
            max_passes: q.max_passes,
            gc_delay_s: q.gc_delay_ns as f64 / 1e9,
            host_program_delay_s: q.host_delay_ns as f64 / 1e9,
            ..q.report
        })
    }
}

impl Queues {
    /// A copy holding only time line `key`'s queue, as line 0 (for a look without reserving).
    fn clone_line(&self, key: usize) -> Queues {
        Queues {
            kind: self.kind,
            max_passes: self.max_passes,
            lines: vec![self.lines[key].clone()],
            forced: self.forced,
            report: SchedulingReport::default(),
            gc_delay_ns: 0,
            host_delay_ns: 0,
            flow: self.flow,
            low: self.low,
            intensity: None,
        }
    }
}
