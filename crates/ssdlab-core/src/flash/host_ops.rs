//! Host-commanded work of a zoned device beside the page reads and writes: a zone reset's
//! erases, and the runs of reads and of appends a host zone cleaner sends one plane.

use super::{OpDone, Resources};

impl Resources {
    /// Block erase of a zone reset on `plane` from `ready`: the plane is busy for the erase;
    /// not GC. (Zoned devices refuse suspension and flash schedulers.)
    pub fn erase(&mut self, plane: u32, ready: u64) -> OpDone {
        let start = self.host_start(plane, ready);
        let done = start + self.times.erase_ns;
        self.occupy(plane, done);
        OpDone {
            done,
            blocked_by_gc: false,
        }
    }

    /// `n` host page reads of `plane` from `ready`, one after another: what `n` calls of
    /// [`Resources::read`] at `ready` take (each array read, then its transfer out; the plane
    /// held until its register is empty), their transfers reserved on the channel in one pass.
    pub fn read_run(&mut self, plane: u32, ready: u64, n: u32) -> OpDone {
        let read = self.times.read_ns;
        self.run_on(plane, ready, n, read, 0)
    }

    /// `n` host page programs on `plane` from `ready`, one after another: each transfer in,
    /// then its program, as `n` calls of [`Resources::write`] at `ready` take.
    pub fn write_run(&mut self, plane: u32, ready: u64, n: u32) -> OpDone {
        let program = self.times.program_ns;
        self.run_on(plane, ready, n, 0, program)
    }

    fn run_on(&mut self, plane: u32, ready: u64, n: u32, before: u64, after: u64) -> OpDone {
        let start = self.host_start(plane, ready);
        let xfer = self.times.transfer_ns;
        let ch = self.plane_channel[plane as usize] as usize;
        let c = &mut self.channels[ch];
        c.catch_up(self.now);
        let done = c.reserve_transfers(start, n, before, xfer, after);
        self.occupy(plane, done);
        OpDone {
            done,
            blocked_by_gc: false,
        }
    }
}
