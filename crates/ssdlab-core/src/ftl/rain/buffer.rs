//! GC-tolerant flush (TTFlash GTF, Yan et al. FAST 2017, §4 "GC-Tolerant Flush"): a
//! capacitor-backed RAM write buffer. A host write completes when its page is in RAM; once the
//! buffer is `flush_at` full, pages are flushed in stripe units (N − 1 pages) in the background;
//! a page's slot is freed when its program completes. A write waits only when the buffer is full
//! — then for the earliest program in flight.
//!
//! The buffer only keeps the bookkeeping; *when* a unit is flushed is the simulation's choice
//! (`ftl::rain::flush`): when the planes it goes to are idle, so that a flush never queues a burst
//! of programs in front of later reads. A unit's pages keep their slots until the whole stripe,
//! parity included, is programmed (until then a page is served from RAM, never rebuilt).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A program the GTF flush holds in RAM until its plane's GC ends (`ftl::rain::flush`): the plane,
/// the host page (`None`: a stripe's parity) and when it was flushed; with logical stripes, a
/// parity program also waits for its read-modify-write's reads on the planes of `reads`
/// (channel bits of its group) that were collecting, done when it is placed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    pub(crate) plane: u32,
    pub(crate) lpn: Option<u32>,
    pub(crate) since: u64,
    pub(crate) reads: u64,
}

/// The write buffer.
#[derive(Debug, Clone)]
pub struct WriteBuffer {
    capacity: usize,
    flush_at: usize,
    unit: usize,
    /// Pages waiting to be flushed, in arrival order.
    pending: VecDeque<u32>,
    /// When the latest page entered the buffer (no flush decision is taken before it).
    last_admit: u64,
    /// Copies of each logical page in the buffer (pending or being programmed).
    /// (u32: a buffer may hold more than 65535 pages, all copies of one page.)
    held: Vec<u32>,
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
            last_admit: 0,
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

    /// Is every slot taken (pending or being programmed)?
    pub fn is_full(&self) -> bool {
        self.occupancy() >= self.capacity
    }

    /// Is the buffer past its high-water mark, halfway from the flush threshold to full? (The
    /// rotating flush's switch to parallel flushing, `rain.rotating_flush`: an ssdlab
    /// extension, so the mark is ours — late enough that a write burst the rotation can absorb
    /// stays rotating, early enough that the parallel flush starts before writes wait.)
    /// `staged`: pages taken for flushing whose programs are held (they keep their slots).
    pub fn high_water(&self, staged: usize) -> bool {
        2 * (self.occupancy() + staged) >= self.flush_at + self.capacity
    }

    /// Is a program in flight (so that waiting for room ends)?
    pub fn has_inflight(&self) -> bool {
        !self.inflight.is_empty()
    }

    /// Wait for room in a full buffer: the earliest program in flight frees its slot. Returns
    /// when, and whether that program had waited for GC. `None` when nothing is in flight.
    pub fn wait_for_room(&mut self, ready: u64) -> Option<(u64, bool)> {
        let Reverse((done, l, b)) = self.inflight.pop()?;
        self.held[l as usize] -= 1;
        self.full_waits += 1;
        Some((ready.max(done), b))
    }

    /// Put host page `lpn` in RAM at `at`.
    pub fn admit(&mut self, lpn: u32, at: u64) {
        self.pending.push_back(lpn);
        self.held[lpn as usize] += 1;
        self.last_admit = self.last_admit.max(at);
    }

    /// When the latest page entered the buffer.
    pub fn last_admit(&self) -> u64 {
        self.last_admit
    }

    /// Is the buffer past its flush threshold with `unit` pages pending?
    pub fn wants_flush(&self, unit: usize) -> bool {
        self.occupancy() >= self.flush_at && self.pending.len() >= unit.max(1)
    }

    /// The oldest page pending flush.
    pub fn next_pending(&self) -> Option<u32> {
        self.pending.front().copied()
    }

    /// The pages pending flush, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = u32> + '_ {
        self.pending.iter().copied()
    }

    /// Take the `k` oldest pending pages (fewer if fewer are pending) into `out` for flushing.
    pub fn take(&mut self, k: usize, out: &mut Vec<u32>) {
        out.clear();
        let k = k.min(self.pending.len());
        out.extend(self.pending.drain(..k));
    }

    /// The stripe unit (pages flushed together).
    pub fn unit(&self) -> usize {
        self.unit
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
    fn flushes_whole_units_past_the_threshold_and_waits_only_when_full() {
        let mut b = WriteBuffer::new(4, 0.5, 2, 16);
        let mut unit = Vec::new();
        b.admit(1, 0);
        assert!(!b.wants_flush(2), "below the threshold");
        b.admit(2, 0);
        assert!(b.wants_flush(2));
        b.take(2, &mut unit);
        assert_eq!(unit, vec![1, 2]);
        // A stripe's pages stay in RAM until the whole stripe is durable.
        b.flushed(1, 100, true);
        b.flushed(2, 100, false);
        b.admit(3, 10);
        assert!(
            !b.wants_flush(2),
            "a unit is flushed only when a whole one is pending"
        );
        b.admit(4, 10);
        assert!(b.is_full());
        // Full: waits for the earliest program, which was behind GC.
        assert_eq!(b.wait_for_room(10), Some((100, true)));
        assert!(b.holds(2) && !b.holds(1));
        b.retire(250);
        assert!(!b.holds(2));
        assert_eq!(b.wait_for_room(300), None);
        assert_eq!(b.last_admit(), 10);
    }
}
