//! CLOCK (second-chance) replacement over the CMT's slots, as FEMU's CMT: a reference bit per
//! slot, set on a hit or a fill; the hand sweeps the slots in order, clearing set bits, and the
//! first slot found clear is the victim (the hand then stands after it).

use super::Replacement;

#[derive(Debug, Clone)]
pub(super) struct Clock {
    referenced: Vec<bool>,
    hand: u32,
}

impl Clock {
    pub(super) fn new(capacity: u32) -> Self {
        Clock {
            referenced: vec![false; capacity as usize],
            hand: 0,
        }
    }
}

impl Replacement for Clock {
    fn hit(&mut self, slot: u32) {
        self.referenced[slot as usize] = true;
    }

    fn fill(&mut self, slot: u32) {
        self.referenced[slot as usize] = true;
    }

    fn victim(&mut self) -> u32 {
        // Only asked when every slot holds an entry; at most one full sweep clears every bit.
        let n = self.referenced.len() as u32;
        loop {
            let s = self.hand;
            self.hand = if s + 1 == n { 0 } else { s + 1 };
            if self.referenced[s as usize] {
                self.referenced[s as usize] = false;
            } else {
                return s;
            }
        }
    }

    fn clone_box(&self) -> Box<dyn Replacement> {
        Box::new(self.clone())
    }

    fn memory_bytes(&self) -> usize {
        self.referenced.capacity()
    }
}
