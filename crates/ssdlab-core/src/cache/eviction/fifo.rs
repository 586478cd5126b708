//! First in, first out: pages leave in the order they were first written, however often they
//! were read or rewritten since (the order of Tiny-Tail Flash's buffer, Yan et al. FAST 2017).

use super::Eviction;
use crate::cache::table::Table;

pub struct Fifo;

impl Eviction for Fifo {
    fn reorders_on_access(&self) -> bool {
        false
    }
    fn victim(&self, table: &Table) -> Option<u32> {
        table.least_recent().find(|&i| !table.slot(i).pinned)
    }
}
