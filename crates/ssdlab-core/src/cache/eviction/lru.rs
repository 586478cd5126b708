//! Least recently used: the page longest without a read hit or a write goes first (MQSim's
//! data cache and SimpleSSD's internal cache layer evict this way).

use super::Eviction;
use crate::cache::table::Table;

pub struct Lru;

impl Eviction for Lru {
    fn reorders_on_access(&self) -> bool {
        true
    }
    fn victim(&self, table: &Table) -> Option<u32> {
        table.least_recent().find(|&i| !table.slot(i).pinned)
    }
}
