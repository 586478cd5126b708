//! NAND resources and their time lines: planes (array operations, FCFS), dies (shared by their
//! planes when multi-plane operation is off) and channels (transfers, gap-filling). Given a ready
//! time, each operation returns when it completes. Knows nothing of the FTL.
//!
//! The Tiny-Tail Flash switches (Yan et al., FAST 2017) that concern time live here: the GC
//! blocking level (plane or channel) and the ideal `nogc` device. Rotating GC is a schedule of
//! GC operations (the RAIN layer's, `ftl::rain::flush`), not a property of the time lines. A parity group is the same (chip, die, plane) index across all
//! channels (the paper's "RAIN ... same chip index across channels").

mod channel;
pub mod ecc;
mod errors;
mod explain;
mod fair;
mod group;
mod host_ops;
mod page_types;
mod queue;
mod suspend;

pub use channel::{ChannelTimeline, CopyRun, Now};
pub use ecc::Decode;
pub use errors::Errors;
pub use explain::ReadParts;

use explain::ReadExplain;
use page_types::PageTypes;
use queue::{Op, Queues};
use suspend::{Phase, Suspension};

use crate::config::{DeviceConfig, GcBlocking, OpTimes};

/// Completion of one page operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpDone {
    pub done: u64,
    /// The operation waited for GC work on its plane.
    pub blocked_by_gc: bool,
}

impl OpDone {
    /// Nothing to wait for: done at `t`.
    #[inline]
    pub fn at(t: u64) -> Self {
        OpDone {
            done: t,
            blocked_by_gc: false,
        }
    }

    /// Several operations of one request: done when the last is, blocked if any was.
    #[inline]
    pub fn join(&mut self, d: OpDone) {
        self.done = self.done.max(d.done);
        self.blocked_by_gc |= d.blocked_by_gc;
    }
}

/// One GC step's plane-busy interval `[start, done)`; `moves_data` for a copy (or a GC
/// stripe's parity program), not for an erase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GcSpan {
    pub start: u64,
    pub done: u64,
    pub moves_data: bool,
}

/// Time lines of every plane, die and channel of the device.
#[derive(Debug, Clone)]
pub struct Resources {
    times: OpTimes,
    multiplane: bool,
    copyback: bool,
    plane_free: Vec<u64>,
    /// End of the latest GC operation scheduled on each plane.
    plane_gc_until: Vec<u64>,
    die_free: Vec<u64>,
    channels: Vec<ChannelTimeline>,
    plane_die: Vec<u32>,
    plane_channel: Vec<u32>,
    /// Busy time accumulated per plane by GC (copies and erases), ns.
    pub gc_busy_ns: u64,
    /// Start of the current (latest) contiguous run of GC work on each plane.
    plane_gc_from: Vec<u64>,
    per_channel: u32,
    channel_blocking: bool,
    nogc: bool,
    /// Channel-blocking GC: end of the latest GC step holding each channel.
    chan_gc_until: Vec<u64>,
    /// Every GC step's plane-busy interval since the last [`Resources::take_gc_log`], when
    /// recording is on (the host view's GC labels).
    gc_log: Option<Vec<GcSpan>>,
    /// The read-latency breakdown, when on ([`Resources::explain_reads`]).
    explain: Option<ReadExplain>,
    /// The current request ([`Resources::advance`]), for pruning the channels' time lines.
    now: Now,
    /// Program/erase suspension, when `flash.suspend` is on (`suspend`).
    suspend: Option<Box<Suspension>>,
    /// The die scheduler's queues, when `flash.scheduler` is not `fcfs` (`queue`).
    queues: Option<Box<Queues>>,
    /// Each page's times by its type, when `flash.page_types` is on (`page_types`).
    page_types: Option<Box<PageTypes>>,
    /// Physical pages (in mapping units) a plane: a page's plane ([`Resources::plane_of`]).
    units_per_plane: u32,
    /// The error model, when `reliability.errors` is on (`errors`).
    errors: Option<Box<Errors>>,
}

impl Resources {
    pub fn new(cfg: &DeviceConfig) -> Self {
        let g = &cfg.geometry;
        let planes = g.planes() as usize;
        let per_channel = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
        let time_lines = if cfg.timing.multiplane {
            planes
        } else {
            g.dies() as usize
        };
        Resources {
            times: cfg.op_times(),
            multiplane: cfg.timing.multiplane,
            copyback: cfg.timing.copyback,
            plane_free: vec![0; planes],
            plane_gc_until: vec![0; planes],
            die_free: vec![0; g.dies() as usize],
            channels: vec![ChannelTimeline::default(); g.channels as usize],
            plane_die: (0..planes as u32).map(|p| p / g.planes_per_die).collect(),
            plane_channel: (0..planes as u32).map(|p| p / per_channel).collect(),
            gc_busy_ns: 0,
            plane_gc_from: vec![0; planes],
            per_channel,
            channel_blocking: cfg.flash.gc_blocking == GcBlocking::Channel,
            nogc: cfg.flash.nogc,
            chan_gc_until: vec![0; g.channels as usize],
            gc_log: None,
            explain: None,
            now: Now::default(),
            suspend: Suspension::new(cfg, time_lines),
            queues: Queues::new(cfg, time_lines),
            page_types: PageTypes::new(cfg),
            units_per_plane: g.pages_per_block * g.blocks_per_plane * cfg.units_per_page(),
            errors: None,
        }
    }

    /// The time line a plane's array operations queue on: the plane, or its die without
    /// multi-plane operation.
    #[inline]
    fn queue_key(&self, plane: u32) -> usize {
        if self.multiplane {
            plane as usize
        } else {
            self.plane_die[plane as usize] as usize
        }
    }

    /// Start (or stop) recording each GC step's busy interval.
    pub fn record_gc_steps(&mut self, on: bool) {
        self.gc_log = on.then(Vec::new);
    }

    /// The GC steps' busy intervals recorded since the last call, appended to `out` (in
    /// reservation order, not sorted: planes interleave).
    pub fn take_gc_log(&mut self, out: &mut Vec<GcSpan>) {
        if let Some(log) = &mut self.gc_log {
            out.append(log);
        }
    }

    /// Is `plane` executing GC work at `t` (inside its current GC run)?
    pub fn gc_collecting_at(&self, plane: u32, t: u64) -> bool {
        let p = plane as usize;
        self.plane_gc_from[p] <= t && t < self.plane_gc_until[p]
    }

    /// Earliest start of a host array operation on `plane` (channel-blocking GC also holds the
    /// plane's channel).
    #[inline(always)]
    fn host_start(&self, plane: u32, ready: u64) -> u64 {
        let s = ready.max(self.plane_free_at(plane));
        if self.channel_blocking {
            s.max(self.chan_gc_until[self.plane_channel[plane as usize] as usize])
        } else {
            s
        }
    }

    #[inline]
    fn gc_blocks(&self, plane: u32, ready: u64) -> bool {
        ready < self.plane_gc_until[plane as usize]
            || (self.channel_blocking
                && ready < self.chan_gc_until[self.plane_channel[plane as usize] as usize])
    }

    /// When a host read of `plane` ready at `ready` would complete, without reserving anything.
    pub fn peek_read(&self, plane: u32, ready: u64) -> OpDone {
        if self.suspend.is_some() {
            if let Some(d) = self.peek_suspending(plane, ready) {
                return d;
            }
        }
        if self.queues.is_some() {
            if let Some(d) = self.peek_passing(plane, ready) {
                return d;
            }
        }
        let start = self.host_start(plane, ready);
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer =
            self.channels[ch].fit(self.now, start + self.times.read_ns, self.times.transfer_ns);
        OpDone {
            done: xfer + self.times.transfer_ns,
            blocked_by_gc: self.gc_blocks(plane, ready),
        }
    }

    /// The device's channels.
    pub fn channels(&self) -> u32 {
        self.channels.len() as u32
    }

    pub fn times(&self) -> OpTimes {
        self.times
    }

    /// A new request arrives at `now`: channel reservations that ended by then can be forgotten,
    /// and are, on each channel when it is next used ([`ChannelTimeline::catch_up`]): pruning
    /// every channel at every request cost 7 % of a timed run, mostly on channels it left alone.
    #[inline]
    pub fn advance(&mut self, now: u64) {
        self.now = Now {
            at: now,
            seq: self.now.seq + 1,
        };
        if let Some(e) = &mut self.explain {
            e.prune(now);
        }
    }

    /// Reserve `dur` ns on channel `ch` at the earliest start ≥ `ready`
    /// ([`ChannelTimeline::reserve`]), pruned for the current request first.
    #[inline]
    fn reserve_on(&mut self, ch: usize, ready: u64, dur: u64) -> u64 {
        let c = &mut self.channels[ch];
        c.catch_up(self.now);
        c.reserve(ready, dur)
    }

    /// When `plane` can start its next array operation.
    #[inline]
    pub fn plane_free_at(&self, plane: u32) -> u64 {
        let p = plane as usize;
        if self.multiplane {
            self.plane_free[p]
        } else {
            self.plane_free[p].max(self.die_free[self.plane_die[p] as usize])
        }
    }

    /// End of the latest GC operation scheduled on `plane`.
    pub fn gc_until(&self, plane: u32) -> u64 {
        self.plane_gc_until[plane as usize]
    }

    /// Is `plane` (or its die) busy with GC at time `t`?
    pub fn gc_busy_at(&self, plane: u32, t: u64) -> bool {
        t < self.plane_gc_until[plane as usize]
    }

    #[inline]
    fn occupy(&mut self, plane: u32, until: u64) {
        let p = plane as usize;
        self.plane_free[p] = until;
        if !self.multiplane {
            let d = self.plane_die[p] as usize;
            self.die_free[d] = until;
        }
    }

    /// Host page read: array read on the plane, then the transfer out on the channel. The plane
    /// stays busy until its page register is emptied.
    #[inline]
    pub fn read(&mut self, plane: u32, ready: u64) -> OpDone {
        self.read_in(plane, ready, self.times.read_ns)
    }

    /// [`Resources::read`] with the array read time of the block's cell mode (hybrid devices).
    /// Forced in line, as `write_in` and `host_start` (`#[inline]` left them calls on every host
    /// page): 2.6 % fewer instructions on the timed replay (docs/speed.md, "The PGO build's
    /// inlining decisions on the page path, by hand").
    #[inline(always)]
    pub fn read_in(&mut self, plane: u32, ready: u64, read_ns: u64) -> OpDone {
        if self.suspend.is_some() {
            if let Some(d) = self.read_suspending(plane, ready, read_ns) {
                return d;
            }
        }
        if self.queues.is_some() {
            if let Some(d) = self.read_passing(plane, ready, read_ns) {
                return d;
            }
        }
        let start = self.host_start(plane, ready);
        let blocked = self.gc_blocks(plane, ready);
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.reserve_on(ch, start + read_ns, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns;
        if self.explain.is_some() {
            self.explain_read(plane, ready, start, read_ns, xfer);
        }
        self.occupy(plane, done);
        if self.queues.is_some() {
            self.queue_op(plane, start, done, 1, Op::HostRead);
        }
        OpDone {
            done,
            blocked_by_gc: blocked,
        }
    }

    /// Host page write: transfer in over the channel once the plane can take it, then program.
    #[inline]
    pub fn write(&mut self, plane: u32, ready: u64) -> OpDone {
        self.write_in(plane, ready, self.times.program_ns)
    }

    /// [`Resources::write`] with the program time of the block's cell mode (hybrid devices).
    #[inline(always)]
    pub fn write_in(&mut self, plane: u32, ready: u64, program_ns: u64) -> OpDone {
        if self.queues.is_some() {
            if let Some(d) = self.write_passing(plane, ready, program_ns) {
                return d;
            }
        }
        let plane_ready = self.host_start(plane, ready);
        let blocked = self.gc_blocks(plane, ready);
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.reserve_on(ch, plane_ready, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns + program_ns;
        self.occupy(plane, done);
        if self.suspend.is_some() {
            self.note_op(plane, done, Phase::Program(program_ns), false);
        }
        if self.queues.is_some() {
            self.queue_op(plane, plane_ready, done, 1, Op::HostProgram);
        }
        OpDone {
            done,
            blocked_by_gc: blocked,
        }
    }

    /// GC page copy on `plane` no earlier than `not_before`: copy-back (read + program inside the
    /// plane) or, without copy-back, read + transfer out + transfer in + program.
    pub fn gc_copy(&mut self, plane: u32, not_before: u64) -> u64 {
        self.gc_copy_in(plane, not_before, self.times.read_ns, self.times.program_ns)
    }

    /// [`Resources::gc_copy`] reading and programming in given cell modes' times (a hybrid
    /// device's SLC → QLC migration reads in SLC mode and programs in QLC mode).
    pub fn gc_copy_in(
        &mut self,
        plane: u32,
        not_before: u64,
        read_ns: u64,
        program_ns: u64,
    ) -> u64 {
        self.gc_move(plane, not_before, Some(read_ns), Some(program_ns))
    }

    /// One GC copy of a mapping unit smaller than a page: the victim's page read (and, without
    /// copy-back, transferred out) only if `read` is given — units of one page come out of one
    /// read —, and the destination page transferred in and programmed only if `program` is
    /// given — when the copy fills it. Nothing on flash: done at `not_before`. Both given: a
    /// whole-page copy, [`Resources::gc_copy_in`].
    pub fn gc_move(
        &mut self,
        plane: u32,
        not_before: u64,
        read: Option<u64>,
        program: Option<u64>,
    ) -> u64 {
        if self.nogc || (read.is_none() && program.is_none()) {
            return not_before;
        }
        let start = self.gc_start(plane, not_before);
        let xfer = self.times.transfer_ns;
        let (read_ns, program_ns) = (read.unwrap_or(0), program.unwrap_or(0));
        let (start, done) = if self.channel_blocking {
            let dur = if self.copyback {
                read_ns + program_ns
            } else {
                let transfers = u64::from(read.is_some()) + u64::from(program.is_some());
                read_ns + transfers * xfer + program_ns
            };
            let ch = self.plane_channel[plane as usize] as usize;
            let s = self.reserve_on(ch, start, dur);
            (s, s + dur)
        } else if self.copyback {
            (start, start + read_ns + program_ns)
        } else {
            let ch = self.plane_channel[plane as usize] as usize;
            let mut t = start + read_ns;
            if read.is_some() {
                t = self.reserve_on(ch, t, xfer) + xfer;
            }
            if program.is_some() {
                t = self.reserve_on(ch, t, xfer) + xfer + program_ns;
            }
            (start, t)
        };
        let phase = program.map_or(Phase::Other, Phase::Program);
        self.gc_finish(plane, start, done, true, phase, 1);
        done
    }

    /// Can [`Resources::gc_copies`] time a run of whole-page copies in one step? With no channel
    /// blocking, no ideal `nogc` device and nothing recording each step (the GC log, the read
    /// breakdown): each copy then occupies its plane right after the previous and, without
    /// copy-back, the channel for its two transfers ([`ChannelTimeline::reserve_copies`]).
    #[inline]
    pub fn batches_copies(&self) -> bool {
        !self.channel_blocking
            && !self.nogc
            && self.gc_log.is_none()
            && self.explain.is_none()
            && (self.copyback || self.queues.is_none())
            && self.page_types.is_none()
    }

    /// How long a whole-page GC copy occupies its plane, when that is fixed: with copy-back and
    /// copies timed in runs ([`Resources::batches_copies`]) a copy takes its read and program
    /// and nothing else, from when the plane is free. `None` when it depends on the channel.
    #[inline]
    pub fn fixed_copy_ns(&self) -> Option<u64> {
        (self.copyback && self.batches_copies())
            .then_some(self.times.read_ns + self.times.program_ns)
    }

    /// `n` ≥ 1 whole-page GC copies in a row on `plane`, none earlier than `not_before`: the
    /// same plane times, busy time and GC run as `n` calls of [`Resources::gc_copy`] (each
    /// starts when the previous ends, since that end is past `not_before`), in one step when
    /// [`Resources::batches_copies`] (O(1) with copy-back, one pass over the channel's list
    /// without), else by those calls. Returns when the last ends.
    pub fn gc_copies(&mut self, plane: u32, not_before: u64, n: u32) -> u64 {
        self.gc_copies_in(
            plane,
            not_before,
            n,
            self.times.read_ns,
            self.times.program_ns,
        )
    }

    /// [`Resources::gc_copies`] reading and programming in given cell modes' times: `n` calls
    /// of [`Resources::gc_copy_in`] (a hybrid device's migration or QLC GC job).
    pub fn gc_copies_in(
        &mut self,
        plane: u32,
        not_before: u64,
        n: u32,
        read_ns: u64,
        program_ns: u64,
    ) -> u64 {
        if !self.batches_copies() {
            let mut done = not_before;
            for _ in 0..n {
                done = self.gc_copy_in(plane, not_before, read_ns, program_ns);
            }
            return done;
        }
        let start = self.gc_start(plane, not_before);
        let done = if self.copyback {
            start + u64::from(n) * (read_ns + program_ns)
        } else {
            let c = &mut self.channels[self.plane_channel[plane as usize] as usize];
            c.catch_up(self.now);
            c.reserve_copies(CopyRun {
                start,
                copies: n,
                read_ns,
                xfer_ns: self.times.transfer_ns,
                program_ns,
            })
        };
        self.gc_finish(plane, start, done, true, Phase::Program(program_ns), n);
        done
    }

    /// GC block erase on `plane` no earlier than `not_before`.
    pub fn gc_erase(&mut self, plane: u32, not_before: u64) -> u64 {
        self.gc_erase_in(plane, not_before, self.times.erase_ns)
    }

    /// [`Resources::gc_erase`] with the erase time of the block's cell mode.
    pub fn gc_erase_in(&mut self, plane: u32, not_before: u64, erase_ns: u64) -> u64 {
        if self.nogc {
            return not_before;
        }
        let mut start = self.gc_start(plane, not_before);
        let dur = erase_ns;
        if self.channel_blocking {
            let ch = self.plane_channel[plane as usize] as usize;
            start = self.reserve_on(ch, start, dur);
        }
        let done = start + dur;
        self.gc_finish(plane, start, done, false, Phase::Erase(dur), 1);
        done
    }

    /// GC program of a page computed by the controller (a RAIN parity page of a GC stripe):
    /// transfer in, then program, on `plane`.
    pub fn gc_program(&mut self, plane: u32, not_before: u64) -> u64 {
        self.gc_program_in(plane, not_before, self.times.program_ns)
    }

    /// [`Resources::gc_program`] in a given program time (a translation page's, by its type).
    pub fn gc_program_in(&mut self, plane: u32, not_before: u64, program_ns: u64) -> u64 {
        if self.nogc {
            return not_before;
        }
        let start = self.gc_start(plane, not_before);
        let ch = self.plane_channel[plane as usize] as usize;
        let x = self.reserve_on(ch, start, self.times.transfer_ns);
        let done = x + self.times.transfer_ns + program_ns;
        self.gc_finish(plane, start, done, true, Phase::Program(program_ns), 1);
        done
    }

    /// Earliest start of a GC step: the plane must be free; under channel blocking no other GC
    /// may hold the channel.
    #[inline(always)]
    fn gc_start(&self, plane: u32, not_before: u64) -> u64 {
        let mut s = not_before.max(self.plane_free_at(plane));
        if self.channel_blocking {
            s = s.max(self.chan_gc_until[self.plane_channel[plane as usize] as usize]);
        }
        s
    }

    #[inline(always)]
    fn gc_finish(
        &mut self,
        plane: u32,
        start: u64,
        done: u64,
        moves_data: bool,
        phase: Phase,
        steps: u32,
    ) {
        let p = plane as usize;
        if self.suspend.is_some() {
            self.note_op(plane, done, phase, true);
        }
        if self.queues.is_some() {
            self.queue_op(plane, start, done, steps, Op::Gc);
        }
        self.gc_busy_ns += done - start;
        if let Some(log) = &mut self.gc_log {
            log.push(GcSpan {
                start,
                done,
                moves_data,
            });
        }
        self.occupy(plane, done);
        let key = self.queue_key(plane);
        if let Some(e) = &mut self.explain {
            e.gc_step(key, start, done);
        }
        if start > self.plane_gc_until[p] {
            self.plane_gc_from[p] = start;
        }
        self.plane_gc_until[p] = done;
        if self.channel_blocking {
            let ch = self.plane_channel[p] as usize;
            self.chan_gc_until[ch] = self.chan_gc_until[ch].max(done);
        }
    }

    /// The latest time any resource is busy until.
    pub fn horizon(&self) -> u64 {
        let p = self.plane_free.iter().copied().max().unwrap_or(0);
        let c = self
            .channels
            .iter()
            .map(|c| c.busy_until())
            .max()
            .unwrap_or(0);
        p.max(c)
    }
}
