//! NAND resources and their time lines: planes (array operations, FCFS), dies (shared by their
//! planes when multi-plane operation is off) and channels (transfers, gap-filling). Given a ready
//! time, each operation returns when it completes. Knows nothing of the FTL.

mod channel;

pub use channel::ChannelTimeline;

use crate::config::{DeviceConfig, OpTimes};

/// Completion of one page operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpDone {
    pub done: u64,
    /// The operation waited for GC work on its plane.
    pub blocked_by_gc: bool,
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
}

impl Resources {
    pub fn new(cfg: &DeviceConfig) -> Self {
        let g = &cfg.geometry;
        let planes = g.planes() as usize;
        let per_channel = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
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
        }
    }

    pub fn times(&self) -> OpTimes {
        self.times
    }

    /// Forget channel reservations that ended before `now`.
    #[inline]
    pub fn advance(&mut self, now: u64) {
        for c in &mut self.channels {
            c.prune(now);
        }
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
        let start = ready.max(self.plane_free_at(plane));
        let blocked = ready < self.plane_gc_until[plane as usize];
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.channels[ch].reserve(start + self.times.read_ns, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns;
        self.occupy(plane, done);
        OpDone { done, blocked_by_gc: blocked }
    }

    /// Host page write: transfer in over the channel once the plane can take it, then program.
    #[inline]
    pub fn write(&mut self, plane: u32, ready: u64) -> OpDone {
        let plane_ready = ready.max(self.plane_free_at(plane));
        let blocked = ready < self.plane_gc_until[plane as usize];
        let ch = self.plane_channel[plane as usize] as usize;
        let xfer = self.channels[ch].reserve(plane_ready, self.times.transfer_ns);
        let done = xfer + self.times.transfer_ns + self.times.program_ns;
        self.occupy(plane, done);
        OpDone { done, blocked_by_gc: blocked }
    }

    /// GC page copy on `plane` no earlier than `not_before`: copy-back (read + program inside the
    /// plane) or, without copy-back, read + transfer out + transfer in + program.
    pub fn gc_copy(&mut self, plane: u32, not_before: u64) -> u64 {
        let start = not_before.max(self.plane_free_at(plane));
        let t = self.times;
        let done = if self.copyback {
            start + t.read_ns + t.program_ns
        } else {
            let ch = self.plane_channel[plane as usize] as usize;
            let out = self.channels[ch].reserve(start + t.read_ns, t.transfer_ns);
            let back = self.channels[ch].reserve(out + t.transfer_ns, t.transfer_ns);
            back + t.transfer_ns + t.program_ns
        };
        self.gc_busy_ns += done - start;
        self.occupy(plane, done);
        self.plane_gc_until[plane as usize] = done;
        done
    }

    /// GC block erase on `plane` no earlier than `not_before`.
    pub fn gc_erase(&mut self, plane: u32, not_before: u64) -> u64 {
        let start = not_before.max(self.plane_free_at(plane));
        let done = start + self.times.erase_ns;
        self.gc_busy_ns += done - start;
        self.occupy(plane, done);
        self.plane_gc_until[plane as usize] = done;
        done
    }

    /// The latest time any resource is busy until.
    pub fn horizon(&self) -> u64 {
        let p = self.plane_free.iter().copied().max().unwrap_or(0);
        let c = self.channels.iter().map(|c| c.busy_until()).max().unwrap_or(0);
        p.max(c)
    }
}
