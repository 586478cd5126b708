//! Program/erase suspension (Wu & He, "Reducing SSD read latency via NAND flash program and
//! erase suspension", FAST 2012): a host read arriving at a die (a plane, with multi-plane
//! operation) busy with a program or an erase suspends it; after the suspend latency the read
//! runs (array read, then its transfer on the channel), then the operation resumes after a
//! resume overhead. The operation's completion moves by exactly that time: suspend latency +
//! the read, up to the end of its transfer + resume overhead.
//!
//! The time lines are FCFS reservations, so the operation a read can suspend is the last one
//! reserved on its time line, the one the read would otherwise wait for: a read that queues
//! behind other operations first waits for them (FCFS) and then finds that one running. Its
//! suspension point is no earlier than the operation's program or erase phase (a host write's
//! or GC copy's data transfer is not suspended). Reads arriving while it is suspended are
//! served in the same suspension, one after another, with no second suspend latency. A read
//! does not suspend when the operation would end within the suspend latency anyway, nor an
//! operation suspended `flash.max_suspensions` times already.

use super::{GcSpan, OpDone, ReadParts, Resources};
use crate::config::{CellMode, DeviceConfig, OpTimes, SuspendMode};
use crate::stats::SuspendReport;

/// The array phase an operation ends with, as the time lines reserve it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Neither a program nor an erase (a GC read whose destination page is not yet full).
    Other,
    /// A page program of this many ns (a host write, a GC copy, a parity page).
    Program(u64),
    /// A block erase of this many ns.
    Erase(u64),
}

/// The last operation reserved on a time line, when it is a program or an erase.
#[derive(Debug, Clone, Copy, Default)]
struct LastOp {
    /// A program or erase the mode suspends (else the rest is stale).
    suspendable: bool,
    erase: bool,
    gc: bool,
    plane: u32,
    /// Start of its program or erase phase: no suspension before.
    phase_start: u64,
    done: u64,
    suspend_ns: u64,
    resume_ns: u64,
    /// End of the reads of its open suspension (0: none).
    reads_end: u64,
    suspensions: u32,
}

/// One cell mode's times as the lookup needs them, ns.
#[derive(Debug, Clone, Copy)]
struct ModeNs {
    program_ns: u64,
    erase_ns: u64,
    program_suspend_ns: u64,
    erase_suspend_ns: u64,
    resume_ns: u64,
}

/// What a read arriving at a busy time line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Wait (FCFS): nothing suspendable, or it ends within the suspend latency.
    Wait,
    /// The operation is at its cap.
    Cap,
    /// Suspend it at this time.
    Open(u64),
    /// It is suspended for other reads: run after them.
    Join,
}

/// Suspension's state: the last operation on each time line, and the counters.
#[derive(Debug, Clone)]
pub(super) struct Suspension {
    mode: SuspendMode,
    max: u32,
    /// Every cell mode's times, the device's own first (a hybrid device's blocks switch modes;
    /// an operation's mode is the first whose program or erase time it has).
    modes: Vec<ModeNs>,
    last: Vec<LastOp>,
    report: SuspendReport,
    time_ns: u64,
    gc_ns: u64,
    host_ns: u64,
}

impl Suspension {
    /// `None` unless `flash.suspend` is on; `time_lines` as `Resources::queue_key` counts them.
    pub(super) fn new(cfg: &DeviceConfig, time_lines: usize) -> Option<Box<Self>> {
        if !cfg.flash.suspend.on() {
            return None;
        }
        let own = cfg.geometry.cell_mode;
        // Only a hybrid device's blocks switch modes; elsewhere every operation is the own
        // mode's, whatever its time (a page type's need not be the mode's mean).
        let others = if cfg.ftl.kind == crate::config::FtlKind::Hybrid {
            vec![CellMode::Slc, CellMode::Mlc, CellMode::Tlc, CellMode::Qlc]
        } else {
            Vec::new()
        };
        let ns = crate::config::us_to_ns;
        let modes = std::iter::once(own)
            .chain(others.into_iter().filter(|&m| m != own))
            .map(|m| {
                let t = OpTimes::new(&cfg.timing, m, cfg.geometry.page_size);
                let s = cfg.timing.mode(m).suspend_times(m);
                ModeNs {
                    program_ns: t.program_ns,
                    erase_ns: t.erase_ns,
                    program_suspend_ns: ns(s.program_suspend_us),
                    erase_suspend_ns: ns(s.erase_suspend_us),
                    resume_ns: ns(s.resume_us),
                }
            })
            .collect();
        Some(Box::new(Suspension {
            mode: cfg.flash.suspend,
            max: cfg.flash.max_suspensions,
            modes,
            last: vec![LastOp::default(); time_lines],
            report: SuspendReport::default(),
            time_ns: 0,
            gc_ns: 0,
            host_ns: 0,
        }))
    }

    /// An operation reserved on time line `key`, ending at `done` with `phase`.
    fn note(&mut self, key: usize, plane: u32, done: u64, phase: Phase, gc: bool) {
        let (erase, len, m) = match phase {
            Phase::Program(ns) if self.mode.programs() => {
                let m = self.modes.iter().find(|m| m.program_ns == ns);
                (false, ns, m.unwrap_or(&self.modes[0]))
            }
            Phase::Erase(ns) => {
                let m = self.modes.iter().find(|m| m.erase_ns == ns);
                (true, ns, m.unwrap_or(&self.modes[0]))
            }
            _ => {
                self.last[key].suspendable = false;
                return;
            }
        };
        self.last[key] = LastOp {
            suspendable: true,
            erase,
            gc,
            plane,
            phase_start: done.saturating_sub(len),
            done,
            suspend_ns: if erase {
                m.erase_suspend_ns
            } else {
                m.program_suspend_ns
            },
            resume_ns: m.resume_ns,
            reads_end: 0,
            suspensions: 0,
        };
    }
}

impl Resources {
    /// When time line `key` (a plane, or a die) is free.
    #[inline]
    fn line_free(&self, key: usize) -> u64 {
        if self.multiplane {
            self.plane_free[key]
        } else {
            self.die_free[key]
        }
    }

    /// An operation was reserved on `plane` up to `done`, ending with `phase` (suspension on).
    #[inline(never)]
    pub(super) fn note_op(&mut self, plane: u32, done: u64, phase: Phase, gc: bool) {
        let key = self.queue_key(plane);
        if let Some(s) = &mut self.suspend {
            s.note(key, plane, done, phase, gc);
        }
    }

    /// What a read of time line `key`, ready at `ready`, does (suspension on).
    fn plan(&self, key: usize, ready: u64) -> Plan {
        let Some(s) = self.suspend.as_deref() else {
            return Plan::Wait;
        };
        let l = &s.last[key];
        // The last operation must still be the last reserved, and running or queued at `ready`.
        if !l.suspendable || ready >= l.done || l.done != self.line_free(key) {
            return Plan::Wait;
        }
        if ready < l.reads_end {
            return Plan::Join;
        }
        if l.suspensions >= s.max {
            return Plan::Cap;
        }
        let at = ready.max(l.phase_start);
        if l.done - at <= l.suspend_ns {
            return Plan::Wait;
        }
        Plan::Open(at)
    }

    /// When the array read of a suspending read starts, for `plan`.
    fn read_start(&self, key: usize, plan: Plan) -> Option<u64> {
        let l = &self.suspend.as_deref()?.last[key];
        match plan {
            Plan::Open(at) => Some(at + l.suspend_ns),
            Plan::Join => Some(l.reads_end),
            Plan::Wait | Plan::Cap => None,
        }
    }

    /// [`Resources::peek_read`] with suspension on: `None` when the read would not suspend.
    pub(super) fn peek_suspending(&self, plane: u32, ready: u64) -> Option<OpDone> {
        if self.host_start(plane, ready) <= ready {
            return None;
        }
        let key = self.queue_key(plane);
        let start = self.read_start(key, self.plan(key, ready))?;
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer =
            self.channels[ch].fit(self.now, start + self.times.read_ns, self.times.transfer_ns);
        Some(OpDone {
            done: xfer + self.times.transfer_ns,
            blocked_by_gc: self.gc_blocks(plane, ready),
        })
    }

    /// [`Resources::read_in`] with suspension on: the read suspends (or joins the suspension
    /// of) the operation it finds, or `None` when it takes the FCFS path.
    #[inline(never)]
    pub(super) fn read_suspending(
        &mut self,
        plane: u32,
        ready: u64,
        read_ns: u64,
    ) -> Option<OpDone> {
        if self.host_start(plane, ready) <= ready {
            return None;
        }
        let key = self.queue_key(plane);
        let plan = self.plan(key, ready);
        let start = self.read_start(key, plan);
        let blocked = self.gc_blocks(plane, ready);
        let s = self.suspend.as_deref_mut()?;
        s.report.busy_reads += 1;
        if plan == Plan::Cap {
            s.report.cap_reached += 1;
        }
        let start = start?;
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.reserve_on(ch, start + read_ns, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns;
        let s = self.suspend.as_deref_mut()?;
        let l = &mut s.last[key];
        let old_done = l.done;
        let shift = if let Plan::Open(at) = plan {
            l.suspensions += 1;
            if l.erase {
                s.report.erase_suspensions += 1;
            } else {
                s.report.program_suspensions += 1;
            }
            done - at + l.resume_ns
        } else {
            s.report.joined_reads += 1;
            done - l.reads_end
        };
        l.done += shift;
        l.reads_end = done;
        let l = *l;
        s.time_ns += shift;
        if l.gc {
            s.gc_ns += shift;
        } else {
            s.host_ns += shift;
        }
        let p = l.plane as usize;
        self.plane_free[p] = l.done;
        if !self.multiplane {
            self.die_free[key] = l.done;
            let r = plane as usize;
            self.plane_free[r] = self.plane_free[r].max(done);
        }
        if l.gc {
            self.plane_gc_until[p] = l.done;
            if let Some(log) = &mut self.gc_log {
                log.push(GcSpan {
                    start: old_done,
                    done: l.done,
                    moves_data: !l.erase,
                });
            }
        }
        if let Some(e) = &mut self.explain {
            e.extend_gc(key, old_done, l.done);
            let wait = start - ready;
            let gc = if l.gc && plan != Plan::Join { wait } else { 0 };
            let parts = ReadParts {
                wait_host: wait - gc,
                wait_gc: gc,
                wait_channel: xfer - (start + read_ns),
                array: read_ns,
                transfer: self.times.transfer_ns,
                rebuild: 0,
                retry: 0,
                rebuilt: false,
            };
            e.note(parts, done);
        }
        Some(OpDone {
            done,
            blocked_by_gc: blocked,
        })
    }

    /// Suspension's counters (`None` with `flash.suspend = "none"`).
    pub fn suspend_report(&self) -> Option<SuspendReport> {
        let s = self.suspend.as_deref()?;
        Some(SuspendReport {
            mode: s.mode.into(),
            max_suspensions: s.max,
            time_suspended_s: s.time_ns as f64 / 1e9,
            gc_time_suspended_s: s.gc_ns as f64 / 1e9,
            host_program_delay_s: s.host_ns as f64 / 1e9,
            ..s.report
        })
    }
}
