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

    /// Host page reads from `ready`, `n` on each `(plane, n)` of `runs`: a plane's reads one
    /// after another, what `n` calls of [`Resources::read`] at `ready` take (each array read,
    /// then its transfer out; the plane held until its register is empty), the transfers of a
    /// channel's planes taken in the order they are ready. When the last ends.
    pub fn read_runs(&mut self, runs: &[(u32, u32)], ready: u64) -> u64 {
        let read = self.times.read_ns;
        self.runs_on(runs, ready, read, 0)
    }

    /// Host page programs from `ready`, `n` on each `(plane, n)` of `runs`: each transfer in,
    /// then its program, as [`Resources::write`] does them.
    pub fn write_runs(&mut self, runs: &[(u32, u32)], ready: u64) -> u64 {
        let program = self.times.program_ns;
        self.runs_on(runs, ready, 0, program)
    }

    fn runs_on(&mut self, runs: &[(u32, u32)], ready: u64, before: u64, after: u64) -> u64 {
        let xfer = self.times.transfer_ns;
        let mut done = ready;
        let mut state: Vec<(u64, u32)> = Vec::with_capacity(runs.len());
        for ch in 0..self.channels.len() {
            state.clear();
            for &(plane, n) in runs {
                if self.plane_channel[plane as usize] as usize == ch && n > 0 {
                    state.push((self.host_start(plane, ready), n));
                }
            }
            if state.is_empty() {
                continue;
            }
            let c = &mut self.channels[ch];
            c.catch_up(self.now);
            c.reserve_runs(&mut state, before, xfer, after);
            let mut k = 0;
            for &(plane, n) in runs {
                if self.plane_channel[plane as usize] as usize == ch && n > 0 {
                    let end = state[k].0;
                    self.occupy(plane, end);
                    done = done.max(end);
                    k += 1;
                }
            }
        }
        done
    }
}
