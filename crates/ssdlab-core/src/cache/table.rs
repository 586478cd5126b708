//! The cache's slots: one per cached page, found by logical page, in two orders — recency (all
//! pages; the eviction policy reads it from its least recent end) and flush (the dirty pages
//! not in flight, in the same order). Both are intrusive doubly linked lists over slot
//! numbers: every operation the cache does per page is O(1).

use rustc_hash::FxHashMap;

/// No slot / no page.
pub(crate) const NONE: u32 = u32::MAX;

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Nothing (on the free list).
    Free,
    /// A page newer than flash, not being flushed.
    Dirty,
    /// A page whose flush is in flight (until `Slot::flight_done`).
    Flushing,
    /// A page flash has too: it can give up its slot at no cost.
    Clean,
}

/// One cached page.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub lpn: u32,
    pub state: State,
    /// Overwritten while its flush was in flight: dirty again once that flush completes.
    pub redirty: bool,
    /// Trimmed while its flush was in flight: freed once it completes.
    pub dropped: bool,
    /// Written by the request being admitted: not a victim until it is in.
    pub pinned: bool,
    /// Pages of the host request that wrote it last (a size hint for the FTL: the hybrid
    /// FTL routes by request size).
    pub req_pages: u32,
    /// When the oldest acknowledged version not yet sent to flash was acknowledged (`u64::MAX`:
    /// none), and, while a flush is in flight, the oldest acknowledgement it covers and when
    /// it completes: what a power cut at a given time loses.
    pub unflushed_since: u64,
    pub flight_since: u64,
    pub flight_done: u64,
}

impl Slot {
    fn empty() -> Self {
        Slot {
            lpn: NONE,
            state: State::Free,
            redirty: false,
            dropped: false,
            pinned: false,
            req_pages: 1,
            unflushed_since: u64::MAX,
            flight_since: u64::MAX,
            flight_done: 0,
        }
    }
}

/// An intrusive list over slot numbers: `head` is the most recent end, `tail` the least. A
/// slot's two links sit side by side (`[prev, next]`): an unlink touches one cache line per
/// neighbour, not two.
#[derive(Debug, Clone)]
struct Links {
    link: Vec<[u32; 2]>,
    head: u32,
    tail: u32,
    len: usize,
}

const PREV: usize = 0;
const NEXT: usize = 1;

impl Links {
    fn new(n: usize) -> Self {
        Links {
            link: vec![[NONE; 2]; n],
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }

    #[inline]
    fn prev(&self, i: u32) -> u32 {
        self.link[i as usize][PREV]
    }

    fn push_front(&mut self, i: u32) {
        self.link[i as usize] = [NONE, self.head];
        if self.head != NONE {
            self.link[self.head as usize][PREV] = i;
        } else {
            self.tail = i;
        }
        self.head = i;
        self.len += 1;
    }

    fn remove(&mut self, i: u32) {
        let [p, n] = self.link[i as usize];
        if p != NONE {
            self.link[p as usize][NEXT] = n;
        } else {
            self.head = n;
        }
        if n != NONE {
            self.link[n as usize][PREV] = p;
        } else {
            self.tail = p;
        }
        self.link[i as usize] = [NONE; 2];
        self.len -= 1;
    }
}

/// The slots and their orders.
#[derive(Debug, Clone)]
pub struct Table {
    slots: Vec<Slot>,
    index: FxHashMap<u32, u32>,
    free: Vec<u32>,
    recency: Links,
    flush: Links,
    /// Slots by state (dirty and flushing together are the pages flash does not have yet).
    dirty: usize,
    flushing: usize,
}

impl Table {
    pub fn new(capacity: u32) -> Self {
        let n = capacity as usize;
        Table {
            slots: vec![Slot::empty(); n],
            index: FxHashMap::default(),
            free: (0..capacity).rev().collect(),
            recency: Links::new(n),
            flush: Links::new(n),
            dirty: 0,
            flushing: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The slot holding `lpn`, if cached.
    #[inline]
    pub fn find(&self, lpn: u32) -> Option<u32> {
        self.index.get(&lpn).copied()
    }

    pub fn slot(&self, i: u32) -> &Slot {
        &self.slots[i as usize]
    }

    pub fn slot_mut(&mut self, i: u32) -> &mut Slot {
        &mut self.slots[i as usize]
    }

    /// Pages flash does not have yet: dirty, or with their flush in flight.
    pub fn unflushed(&self) -> usize {
        self.dirty + self.flushing
    }

    pub fn dirty(&self) -> usize {
        self.dirty
    }

    pub fn flushing(&self) -> usize {
        self.flushing
    }

    pub fn cached(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn has_free(&self) -> bool {
        !self.free.is_empty()
    }

    /// Take a free slot for `lpn` (the caller checked [`Self::has_free`]), as the most recent
    /// page, in `state` (dirty or flushing).
    pub fn insert(&mut self, lpn: u32, state: State) -> u32 {
        let i = self.free.pop().expect("a free slot");
        let s = &mut self.slots[i as usize];
        *s = Slot::empty();
        s.lpn = lpn;
        s.state = State::Clean;
        self.index.insert(lpn, i);
        self.recency.push_front(i);
        self.set_state(i, state);
        i
    }

    /// Give up slot `i` (any state), its page no longer cached.
    pub fn evict(&mut self, i: u32) {
        self.set_state(i, State::Clean);
        let lpn = self.slots[i as usize].lpn;
        if self.index.get(&lpn) == Some(&i) {
            self.index.remove(&lpn);
        }
        self.recency.remove(i);
        self.slots[i as usize] = Slot::empty();
        self.free.push(i);
    }

    /// Forget which page slot `i` holds (a trim while its flush is in flight); the slot is
    /// evicted when the flush completes.
    pub fn unindex(&mut self, i: u32) {
        let lpn = self.slots[i as usize].lpn;
        if self.index.get(&lpn) == Some(&i) {
            self.index.remove(&lpn);
        }
    }

    /// Move slot `i` to `state`, keeping the counts and the flush order (a slot becoming dirty
    /// joins the flush order at its most recent end).
    pub fn set_state(&mut self, i: u32, state: State) {
        let old = self.slots[i as usize].state;
        if old == state {
            return;
        }
        match old {
            State::Dirty => {
                self.dirty -= 1;
                self.flush.remove(i);
            }
            State::Flushing => self.flushing -= 1,
            State::Free | State::Clean => {}
        }
        match state {
            State::Dirty => {
                self.dirty += 1;
                self.flush.push_front(i);
            }
            State::Flushing => self.flushing += 1,
            State::Free | State::Clean => {}
        }
        self.slots[i as usize].state = state;
    }

    /// Make slot `i` the most recent (in the flush order too, if dirty).
    pub fn touch(&mut self, i: u32) {
        self.recency.remove(i);
        self.recency.push_front(i);
        if self.slots[i as usize].state == State::Dirty {
            self.flush.remove(i);
            self.flush.push_front(i);
        }
    }

    /// Slots from the least recent, in recency order.
    pub fn least_recent(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(
            (self.recency.tail != NONE).then_some(self.recency.tail),
            |&i| {
                let p = self.recency.prev(i);
                (p != NONE).then_some(p)
            },
        )
    }

    /// Dirty slots not in flight, next to flush first.
    pub fn flush_order(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors((self.flush.tail != NONE).then_some(self.flush.tail), |&i| {
            let p = self.flush.prev(i);
            (p != NONE).then_some(p)
        })
    }

    /// Every occupied slot (for checks and the power cut).
    pub fn occupied(&self) -> impl Iterator<Item = (u32, &Slot)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.state != State::Free)
            .map(|(i, s)| (i as u32, s))
    }

    /// The lists and counts agree with the slots' states.
    pub fn check(&self) -> Result<(), String> {
        let n = self.occupied().count();
        if n != self.cached() || self.recency.len != n {
            return Err(format!(
                "cache: {n} slots occupied, {} counted, {} in recency order",
                self.cached(),
                self.recency.len
            ));
        }
        let dirty = self
            .occupied()
            .filter(|(_, s)| s.state == State::Dirty)
            .count();
        let flushing = self
            .occupied()
            .filter(|(_, s)| s.state == State::Flushing)
            .count();
        if dirty != self.dirty || flushing != self.flushing || self.flush.len != dirty {
            return Err(format!(
                "cache: {dirty} dirty and {flushing} flushing slots, counted {} and {}, {} in flush order",
                self.dirty, self.flushing, self.flush.len
            ));
        }
        for (i, s) in self.occupied() {
            if !s.dropped && self.index.get(&s.lpn) != Some(&i) {
                return Err(format!(
                    "cache: slot {i} holds page {} but is not indexed",
                    s.lpn
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_follow_use_and_state() {
        let mut t = Table::new(4);
        let a = t.insert(10, State::Dirty);
        let b = t.insert(11, State::Dirty);
        let c = t.insert(12, State::Clean);
        assert_eq!(t.least_recent().collect::<Vec<_>>(), vec![a, b, c]);
        assert_eq!(t.flush_order().collect::<Vec<_>>(), vec![a, b]);
        t.touch(a);
        assert_eq!(t.least_recent().collect::<Vec<_>>(), vec![b, c, a]);
        assert_eq!(t.flush_order().collect::<Vec<_>>(), vec![b, a]);
        t.set_state(b, State::Flushing);
        assert_eq!((t.dirty(), t.flushing(), t.unflushed()), (1, 1, 2));
        assert_eq!(t.flush_order().collect::<Vec<_>>(), vec![a]);
        t.evict(c);
        assert_eq!(t.find(12), None);
        assert_eq!(t.cached(), 2);
        t.check().unwrap();
        let d = t.insert(13, State::Dirty);
        assert_eq!(d, c, "the freed slot is reused");
        assert_eq!(t.find(13), Some(d));
        t.check().unwrap();
    }
}
