//! Clean-first LRU (Park, Jung, Kang, Kim, Lee, "CFLRU: a replacement algorithm for flash
//! memory", CASES 2006, §3): the LRU list's least recent `window` pages are its clean-first
//! region; a clean page there is evicted before any dirty page, whose eviction costs a flash
//! write, and only when the region holds no clean page does the LRU page go (flushed first).
//! Dirty pages so stay longer in DRAM, where their overwrites coalesce. The paper sets the
//! window per workload; ours is `write_cache.cflru_window` of the cache (default a quarter).

use super::Eviction;
use crate::cache::table::{State, Table};

pub struct Cflru {
    window: usize,
}

impl Cflru {
    pub fn new(fraction: f64, slots: u32) -> Self {
        Cflru {
            window: ((f64::from(slots) * fraction).ceil() as usize).max(1),
        }
    }
}

impl Eviction for Cflru {
    fn reorders_on_access(&self) -> bool {
        true
    }
    fn victim(&self, table: &Table) -> Option<u32> {
        let free = |i: &u32| !table.slot(*i).pinned;
        let lru = table.least_recent().find(free)?;
        let clean = table
            .least_recent()
            .take(self.window)
            .filter(free)
            .find(|&i| table.slot(i).state == State::Clean);
        Some(clean.unwrap_or(lru))
    }
}
