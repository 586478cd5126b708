//! GC-tolerant flush (TTFlash GTF, Yan et al. FAST 2017): a capacitor-backed RAM write buffer.
//! Host writes complete when their pages are in RAM; pages are flushed in stripe units
//! (N − 1 pages) once the buffer is `flush_at` full; a page's slot is freed when its program
//! completes. A write waits only when the buffer is full — then for the earliest flush.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The write buffer.
#[derive(Debug, Clone)]
pub struct WriteBuffer {
    capacity: usize,
    flush_at: usize,
    unit: usize,
    pending: VecDeque<u32>,
    /// Copies of each logical page in the buffer (pending or being programmed).
    held: Vec<u16>,
    /// (program completion, lpn, blocked by GC) of pages being flushed.
    inflight: BinaryHeap<Reverse<(u64, u32, bool)>>,
    /// Reads served from the buffer.
    pub read_hits: u64,
    /// Writes that waited for buffer room.
    pub full_waits: u64,
}

impl WriteBuffer {
    /// `capacity` pages, flushing `unit` pages at a time once `flush_at` (fraction) full.
    pub fn new(capacity: usize, flush_at: f64, unit: usize, logical_pages: usize) -> Self {
        let capacity = capacity.max(unit);
        WriteBuffer {
            capacity,
            flush_at: ((capacity as f64 * flush_at).ceil() as usize).clamp(unit, capacity),
            unit,
            pending: VecDeque::new(),
            held: vec![0; logical_pages],
            inflight: BinaryHeap::new(),
            read_hits: 0,
            full_waits: 0,
        }
    }

    fn occupancy(&self) -> usize {
        self.pending.len() + self.inflight.len()
    }

    /// Free the slots of programs finished by `now`.
    pub fn retire(&mut self, now: u64) {
        while let Some(&Reverse((t, lpn, _))) = self.inflight.peek() {
            if t > now {
                break;
            }
            self.inflight.pop();
            self.held[lpn as usize] -= 1;
        }
    }

    /// Admit one host page at `ready`: returns when it is in RAM and whether that wait was
    /// behind GC (the flush it waited for was blocked by GC).
    pub fn admit(&mut self, lpn: u32, ready: u64) -> (u64, bool) {
        self.retire(ready);
        let mut t = ready;
        let mut blocked = false;
        if self.occupancy() >= self.capacity {
            self.full_waits += 1;
            if let Some(Reverse((done, l, b))) = self.inflight.pop() {
                self.held[l as usize] -= 1;
                t = t.max(done);
                blocked = b;
            }
        }
        self.pending.push_back(lpn);
        self.held[lpn as usize] += 1;
        (t, blocked)
    }

    /// The next stripe unit to flush, when the buffer is past its flush threshold.
    pub fn take_unit(&mut self, out: &mut Vec<u32>) -> bool {
        out.clear();
        if self.occupancy() < self.flush_at || self.pending.len() < self.unit {
            return false;
        }
        out.extend(self.pending.drain(..self.unit));
        true
    }

    /// A flushed page's program completes at `done`.
    pub fn flushed(&mut self, lpn: u32, done: u64, blocked: bool) {
        self.inflight.push(Reverse((done, lpn, blocked)));
    }

    /// Is the newest copy of `lpn` in RAM?
    pub fn holds(&self, lpn: u32) -> bool {
        self.held[lpn as usize] > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_only_when_full() {
        let mut b = WriteBuffer::new(4, 0.5, 2, 16);
        let mut unit = Vec::new();
        assert_eq!(b.admit(1, 0), (0, false));
        assert!(!b.take_unit(&mut unit));
        assert_eq!(b.admit(2, 0), (0, false));
        assert!(b.take_unit(&mut unit));
        assert_eq!(unit, vec![1, 2]);
        b.flushed(1, 100, true);
        b.flushed(2, 200, false);
        assert_eq!(b.admit(3, 0), (0, false));
        assert_eq!(b.admit(4, 0), (0, false));
        // Full: waits for the earliest program, which was behind GC.
        assert_eq!(b.admit(5, 10), (100, true));
        assert!(b.holds(2) && !b.holds(1));
        b.retire(250);
        assert!(!b.holds(2));
    }
}
