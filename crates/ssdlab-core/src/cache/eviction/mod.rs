//! Eviction policies: which cached page gives up its slot when a new page needs one, and so in
//! which order the background flush cleans dirty pages (the cache flushes the dirty pages in
//! the recency order the policy keeps, least recent first). One file each; a new policy is its
//! file, a variant of `config::EvictionKind` and its arm in [`build`].
//!
//! A victim may be in any state: a clean one gives its slot up at once, a dirty one is flushed
//! first and one being flushed is waited for — the host's write waits meanwhile.

mod cflru;
mod fifo;
mod lru;

use super::table::Table;
use crate::config::{EvictionKind, WriteCacheConfig};

/// An eviction policy.
pub trait Eviction: Send {
    /// Does an access (a read hit, an overwrite) make a page the most recent? (LRU: yes;
    /// FIFO: no, a page's place is its first write's.)
    fn reorders_on_access(&self) -> bool;
    /// The slot to give up for a new page (the cache is full), among those not pinned (the
    /// request being admitted holds them); `None` when every slot is pinned.
    fn victim(&self, table: &Table) -> Option<u32>;
}

/// The policy `cfg` names, for a cache of `slots` pages.
pub fn build(cfg: &WriteCacheConfig, slots: u32) -> Box<dyn Eviction> {
    match cfg.eviction {
        EvictionKind::Lru => Box::new(lru::Lru),
        EvictionKind::Fifo => Box::new(fifo::Fifo),
        EvictionKind::Cflru => Box::new(cflru::Cflru::new(cfg.cflru_window, slots)),
    }
}
