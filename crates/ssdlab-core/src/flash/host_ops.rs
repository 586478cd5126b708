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

    /// Host page reads from `ready`, `n` on each `(plane, n)` of `runs` (in plane order): a
    /// plane's reads one after another, what `n` calls of [`Resources::read`] at `ready` take
    /// (each array read, then its transfer out; the plane held until its register is empty),
    /// the transfers of a channel's planes taken in the order they are ready. When the last
    /// ends.
    pub fn read_runs(&mut self, runs: &[(u32, u32)], ready: u64) -> u64 {
        let read = self.times.read_ns;
        self.runs_on(runs, ready, read, 0)
    }

    /// Host page programs from `ready`, `n` on each `(plane, n)` of `runs` (in plane order):
    /// each transfer in, then its program, as [`Resources::write`] does them.
    pub fn write_runs(&mut self, runs: &[(u32, u32)], ready: u64) -> u64 {
        let program = self.times.program_ns;
        self.runs_on(runs, ready, 0, program)
    }

    /// A channel's planes are consecutive in plane order, so `runs` in plane order fall into
    /// one slice a channel, each placed in one pass of its time line.
    fn runs_on(&mut self, runs: &[(u32, u32)], ready: u64, before: u64, after: u64) -> u64 {
        debug_assert!(
            runs.windows(2).all(|w| w[0].0 < w[1].0),
            "runs in plane order"
        );
        let xfer = self.times.transfer_ns;
        let mut state: Vec<(u64, u32)> = runs
            .iter()
            .map(|&(plane, n)| (self.host_start(plane, ready), n))
            .collect();
        let mut done = ready;
        let mut i = 0;
        while i < runs.len() {
            let ch = self.plane_channel[runs[i].0 as usize];
            let end = i + runs[i..]
                .iter()
                .take_while(|r| self.plane_channel[r.0 as usize] == ch)
                .count();
            let c = &mut self.channels[ch as usize];
            c.catch_up(self.now);
            c.reserve_runs(&mut state[i..end], before, xfer, after);
            for (&(plane, _), &(t, _)) in runs[i..end].iter().zip(&state[i..end]) {
                self.occupy(plane, t);
                done = done.max(t);
            }
            i = end;
        }
        done
    }
}
