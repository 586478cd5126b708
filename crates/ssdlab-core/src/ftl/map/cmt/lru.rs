//! Least-recently-used replacement over the CMT's slots: a doubly linked list threaded through
//! one array of (previous, next) pairs (most recent at the head), O(1) per hit, fill and
//! victim. Pairs, not two arrays: a slot's two links are one cache line, not two.
//!
//! DFTL (Gupta et al., ASPLOS 2009, §3) keeps its CMT as a "segmented LRU array": the authors'
//! FlashSim code has a real segment (6,552 entries) and a ghost segment (1,640). New and hit
//! entries go to the real segment's head, the real segment's tail moves to the ghost
//! segment's head, and victims leave from the ghost segment's tail — so the two segments are
//! one LRU order cut in two, and the victims are this list's.

use super::{Replacement, NONE};

#[derive(Debug, Clone)]
pub(super) struct Lru {
    /// Each slot's (previous, next).
    links: Vec<[u32; 2]>,
    head: u32,
    tail: u32,
}

impl Lru {
    pub(super) fn new(capacity: u32) -> Self {
        Lru {
            links: vec![[NONE; 2]; capacity as usize],
            head: NONE,
            tail: NONE,
        }
    }

    fn unlink(&mut self, s: u32) {
        let [p, n] = self.links[s as usize];
        if p == NONE {
            self.head = n;
        } else {
            self.links[p as usize][1] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.links[n as usize][0] = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.links[s as usize] = [NONE, self.head];
        if self.head == NONE {
            self.tail = s;
        } else {
            self.links[self.head as usize][0] = s;
        }
        self.head = s;
    }
}

impl Replacement for Lru {
    fn hit(&mut self, slot: u32) {
        if self.head != slot {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    fn fill(&mut self, slot: u32) {
        self.push_front(slot);
    }

    fn victim(&mut self) -> u32 {
        let s = self.tail;
        debug_assert_ne!(s, NONE, "victim asked of an empty CMT");
        self.unlink(s);
        s
    }

    fn clone_box(&self) -> Box<dyn Replacement> {
        Box::new(self.clone())
    }

    fn memory_bytes(&self) -> usize {
        self.links.capacity() * 8
    }
}
