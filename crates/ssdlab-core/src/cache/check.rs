//! Test mode's record of the cache (`check`): every acknowledged host write and every flush,
//! so that a test can tell, from the record alone, what a power cut loses; and the invariant
//! that every acknowledged page is in the cache or on flash with its last version.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{CacheMode, WriteCache};

/// One entry of the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheEvent {
    /// A host write of `lpn` acknowledged at `at`: its `version`-th write (from 1; trims do not
    /// reset the count).
    Ack { lpn: u32, version: u32, at: u64 },
    /// A flush of `lpn` covering its writes up to `version`, its program done at `done`.
    Flushed { lpn: u32, version: u32, done: u64 },
    /// `lpn` trimmed at `at`.
    Trim { lpn: u32, at: u64 },
}

/// The record and what keeping it needs.
#[derive(Debug, Default)]
pub(super) struct Check {
    /// Writes acknowledged so far per page, and the pages written and not trimmed since.
    versions: FxHashMap<u32, u32>,
    live: FxHashSet<u32>,
    /// The last version each page's latest flush covers, and the version each slot's flush in
    /// flight covers until its completion is known.
    flushed: FxHashMap<u32, u32>,
    flight_version: FxHashMap<u32, u32>,
    pub(super) events: Vec<CacheEvent>,
}

impl WriteCache {
    /// The record of acknowledgements and flushes (empty outside test mode).
    pub fn events(&self) -> &[CacheEvent] {
        self.check.as_ref().map_or(&[], |c| &c.events)
    }

    /// The cache's invariants, and (test mode) that every acknowledged page is in the cache or
    /// on flash with its last version: `mapped(lpn)` says whether the FTL maps it.
    pub fn check_invariants(
        &self,
        mapped: &dyn Fn(u32) -> bool,
    ) -> std::result::Result<(), String> {
        self.table.check()?;
        let Some(c) = &self.check else {
            return Ok(());
        };
        for &lpn in &c.live {
            if self.table.find(lpn).is_some() {
                continue;
            }
            let v = c.versions[&lpn];
            let flushed = c.flushed.get(&lpn).copied().unwrap_or(0);
            if flushed != v || !mapped(lpn) {
                return Err(format!(
                    "write cache: page {lpn}'s write {v} was acknowledged, but the cache does not \
                     hold it and flash has {} (mapped: {})",
                    if flushed == 0 {
                        "none".to_string()
                    } else {
                        format!("write {flushed}")
                    },
                    mapped(lpn)
                ));
            }
        }
        Ok(())
    }

    /// Each of `slots`' pages acknowledged at `at`.
    pub(super) fn note_acks(&mut self, slots: &[u32], at: u64) {
        let Some(c) = &mut self.check else { return };
        for &i in slots {
            let lpn = self.table.slot(i).lpn;
            let v = c.versions.entry(lpn).or_insert(0);
            *v += 1;
            c.live.insert(lpn);
            c.events.push(CacheEvent::Ack {
                lpn,
                version: *v,
                at,
            });
        }
    }

    /// Slot `i`'s flush is being issued: it covers the page's writes so far, and the one its
    /// request is about to acknowledge when it is being taken in (pinned; write-through).
    pub(super) fn note_flight(&mut self, i: u32) {
        let coming = self.mode == CacheMode::WriteThrough || self.table.slot(i).pinned;
        let Some(c) = &mut self.check else { return };
        let lpn = self.table.slot(i).lpn;
        let v = c.versions.get(&lpn).copied().unwrap_or(0) + u32::from(coming);
        c.flushed.insert(lpn, v);
        c.flight_version.insert(i, v);
    }

    /// Slot `i`'s flush completes at `done`.
    pub(super) fn note_flushed(&mut self, i: u32, done: u64) {
        let lpn = self.table.slot(i).lpn;
        let Some(c) = &mut self.check else { return };
        if let Some(version) = c.flight_version.remove(&i) {
            c.events.push(CacheEvent::Flushed { lpn, version, done });
        }
    }

    /// `lpn` trimmed at `at`.
    pub(super) fn note_trim(&mut self, lpn: u32, at: u64) {
        let Some(c) = &mut self.check else { return };
        c.live.remove(&lpn);
        c.events.push(CacheEvent::Trim { lpn, at });
    }
}
