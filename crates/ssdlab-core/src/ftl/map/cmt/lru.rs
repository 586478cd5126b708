//! Least-recently-used replacement over the CMT's slots: a doubly linked list threaded through
//! two arrays (most recent at the head), O(1) per hit, fill and victim.
//!
//! DFTL (Gupta et al., ASPLOS 2009, §3) keeps its CMT as a "segmented LRU array": the authors'
//! FlashSim code has a real segment (6,552 entries) and a ghost segment (1,640). New and hit
//! entries go to the real segment's head, the real segment's tail moves to the ghost
//! segment's head, and victims leave from the ghost segment's tail — so the two segments are
//! one LRU order cut in two, and the victims are this list's.

use super::{Replacement, NONE};

#[derive(Debug, Clone)]
pub(super) struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
}

impl Lru {
    pub(super) fn new(capacity: u32) -> Self {
        Lru {
            prev: vec![NONE; capacity as usize],
            next: vec![NONE; capacity as usize],
            head: NONE,
            tail: NONE,
        }
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NONE;
        self.next[s as usize] = self.head;
        if self.head == NONE {
            self.tail = s;
        } else {
            self.prev[self.head as usize] = s;
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
        (self.prev.capacity() + self.next.capacity()) * 4
    }
}
