//! DFTL's cached mapping table (Gupta, Kim, Urgaonkar, "DFTL: a flash translation layer
//! employing demand-based selective caching of page-level address mappings", ASPLOS 2009):
//! which mappings the controller holds (the CMT), which of them are dirty, and what the
//! translation pages on flash say. The translation pages themselves are pages of the FTL
//! (`Ftl`), numbered after the user's logical pages, so their placement, validity, frontier
//! and GC are the FTL's own; their directory (DFTL's GTD) is the FTL's L2P entries for them,
//! in RAM. Time is the device model's: this module says what a lookup costs, in flash
//! operations, not when they run.
//!
//! The rules, after DFTL §3:
//! - a lookup that misses loads the mapping from its translation page (a flash read, unless the
//!   page was never written: then the mappings it would hold are all unmapped) into a free
//!   slot, or into the slot of the entry the replacement policy gives up;
//! - giving up a dirty entry writes its translation page back (read, modify, program), and
//!   every other dirty entry of that page is written with it and becomes clean (DFTL's batch);
//! - a host write makes its entry dirty; so does a GC move of a page whose mapping is cached;
//! - a GC move of a page whose mapping is not cached is owed to its translation page, and the
//!   pages owed by a victim are written once each before the victim is erased (DFTL's "batch
//!   updates": one read-modify-write per translation page a victim's pages belong to).
//!
//! Between a GC move and its translation page's write the new mapping is in the controller's
//! GC state (owed), so every mapping is on flash, dirty in the CMT, or owed
//! ([`MappingCache::check`]); an entry evicted dirty stays dirty until its write-back.

mod clock;
mod lru;

use crate::config::{CmtPolicy, DeviceConfig, TRANSLATION_ENTRY_BYTES};

use super::UNMAPPED;

/// No slot, no entry.
pub(crate) const NONE: u32 = u32::MAX;

/// A replacement policy over the CMT's slots (`0..capacity`). One file each here, one variant
/// of [`CmtPolicy`] and its arm in [`build`].
pub(super) trait Replacement: Send + Sync + std::fmt::Debug {
    /// The entry in `slot` was used.
    fn hit(&mut self, slot: u32);
    /// `slot` has just been given a new entry.
    fn fill(&mut self, slot: u32);
    /// The slot whose entry is given up (every slot holds one); the policy forgets it.
    fn victim(&mut self) -> u32;
    fn clone_box(&self) -> Box<dyn Replacement>;
    fn memory_bytes(&self) -> usize;
}

impl Clone for Box<dyn Replacement> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

fn build(policy: CmtPolicy, capacity: u32) -> Box<dyn Replacement> {
    match policy {
        CmtPolicy::Lru => Box::new(lru::Lru::new(capacity)),
        CmtPolicy::Clock => Box::new(clock::Clock::new(capacity)),
    }
}

/// What a lookup found and what it owes the flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup {
    /// The mapping was not cached: its translation page is read (when it is on flash) before
    /// the data access.
    pub miss: bool,
    /// The translation page to write back first: the entry given up for this one was dirty.
    pub write_back: Option<u32>,
}

/// The CMT's counters (since the last reset).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CmtCounters {
    pub read_lookups: u64,
    pub read_hits: u64,
    pub write_lookups: u64,
    pub write_hits: u64,
    /// Entries given up clean (free) and dirty (a translation page written back).
    pub clean_evictions: u64,
    pub dirty_evictions: u64,
    /// Translation pages read: misses, and the read of each read-modify-write.
    pub translation_reads: u64,
    /// Translation pages programmed for dirty evictions, and for GC's batch updates.
    pub write_backs: u64,
    pub gc_updates: u64,
}

/// The cached mapping table and the flash side of the map.
#[derive(Debug, Clone)]
pub struct MappingCache {
    capacity: u32,
    /// Mappings per translation page (a page's bytes over 4 bytes a mapping).
    per_page: u32,
    /// The FTL's logical page of translation page 0 (the first after the user's).
    base: u32,
    /// Translation pages (the user's logical pages over `per_page`, rounded up).
    pages: u32,
    /// The slot of each cached logical page's entry (`NONE` before the first): meaningful only
    /// where `cached` says so. An evicted entry's is left stale, so that a miss never loads it.
    slot_of: Vec<u32>,
    /// The logical page each used slot holds.
    lpn_of: Vec<u32>,
    used: u32,
    policy: Box<dyn Replacement>,
    /// One bit a logical page: its mapping is cached (in slot `slot_of`). GC's moves and misses
    /// ask only this, a load from an eighth of a megabyte where `slot_of`'s is from four: that
    /// load's cache miss was 40 % of a cached run's time (perf, `mqsim-small`, 2026-12-04).
    cached: Vec<u64>,
    /// One bit a logical page: its cached entry is dirty.
    dirty: Vec<u64>,
    /// Dirty bits set, per translation page: a translation write with none (most of GC's
    /// batch updates) skips clearing its page's bits, four random cache lines on 8 KiB
    /// pages (8 % of a cached run's time, perf 2026-12-04).
    dirty_in: Vec<u32>,
    /// What each logical page's translation page on flash says of it (`UNMAPPED` also for a
    /// page never written), in test mode only ([`MappingCache::keep_flash_copy`]): kept to
    /// check the bookkeeping (the controller reads it from flash), at a copy of a translation
    /// page's mappings per translation write — most of a cached run's time if always on.
    on_flash: Option<Vec<u32>>,
    /// One bit a translation page: a GC job owes it a write.
    owed: Vec<u64>,
    /// The translation pages each plane's GC job owes, in the order they were first owed.
    owed_by: Vec<Vec<u32>>,
    /// The translation page a dirty eviction owes a write-back, until it is written: the
    /// evicted entry stays dirty (uncached) meanwhile, while forced GC may run first.
    write_back: Option<u32>,
    pub counters: CmtCounters,
}

impl MappingCache {
    /// The CMT of `cfg` (`ftl.mapping = "cached"`) over `logical` user pages, its translation
    /// pages numbered from `base`; `None` with the full map.
    pub fn new(cfg: &DeviceConfig, logical: u32, base: u32, planes: u32) -> Option<Self> {
        let cap = cfg.ftl.cmt_capacity()?;
        let capacity = cap.clamp(1, u64::from(logical.max(1))) as u32;
        let per_page = Self::per_page(cfg);
        let pages = Self::pages_for(cfg, logical);
        Some(MappingCache {
            capacity,
            per_page,
            base,
            pages,
            slot_of: vec![NONE; logical as usize],
            lpn_of: vec![NONE; capacity as usize],
            used: 0,
            policy: build(cfg.ftl.cmt_policy.unwrap_or_default(), capacity),
            cached: vec![0; (logical as usize).div_ceil(64)],
            dirty: vec![0; (logical as usize).div_ceil(64)],
            dirty_in: vec![0; pages as usize],
            on_flash: None,
            owed: vec![0; (pages as usize).div_ceil(64)],
            owed_by: vec![Vec::new(); planes as usize],
            write_back: None,
            counters: CmtCounters::default(),
        })
    }

    /// Mappings a translation page holds: the page's bytes over 4 (one physical page number
    /// each; DFTL §3.1's 2 KiB pages held 512).
    pub fn per_page(cfg: &DeviceConfig) -> u32 {
        (cfg.geometry.page_size / TRANSLATION_ENTRY_BYTES).max(1)
    }

    /// Translation pages for `logical` user pages (0 with the full map).
    pub fn pages_for(cfg: &DeviceConfig, logical: u32) -> u32 {
        if cfg.ftl.cached_mapping() {
            logical.div_ceil(Self::per_page(cfg))
        } else {
            0
        }
    }

    /// Test mode: keep what the translation pages on flash say, to check it against the map
    /// ([`MappingCache::check`]).
    pub fn keep_flash_copy(&mut self) {
        self.on_flash = Some(vec![UNMAPPED; self.slot_of.len()]);
    }

    /// Heap bytes of the simulator's CMT for `cfg` over `logical` user pages (the estimate
    /// before anything is allocated); `check`: with test mode's copy of the flash side.
    pub fn estimate_bytes(cfg: &DeviceConfig, logical: u64, check: bool) -> u64 {
        let Some(cap) = cfg.ftl.cmt_capacity() else {
            return 0;
        };
        let cap = cap.min(logical.max(1));
        // slot_of (and in test mode on_flash), 4 bytes a logical page each, the cached and
        // dirty bits, lpn_of and the policy's links (at most 8 bytes a slot), per translation
        // page the owed bit and the dirty count.
        logical * if check { 8 } else { 4 }
            + 2 * logical.div_ceil(8)
            + cap * 12
            + u64::from(Self::pages_for(cfg, logical as u32)) * 5
    }

    pub fn memory_bytes(&self) -> usize {
        (self.slot_of.capacity()
            + self.lpn_of.capacity()
            + self.on_flash.as_ref().map_or(0, Vec::capacity))
            * 4
            + (self.cached.capacity() + self.dirty.capacity() + self.owed.capacity()) * 8
            + self.dirty_in.capacity() * 4
            + self.policy.memory_bytes()
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    /// Entries held now.
    pub fn used(&self) -> u32 {
        self.used
    }
    /// Mappings a translation page of this device holds.
    pub fn per_page_of(&self) -> u32 {
        self.per_page
    }
    /// Translation pages of the device.
    pub fn pages(&self) -> u32 {
        self.pages
    }
    /// The FTL's logical page of translation page `t`.
    #[inline]
    pub fn lpn_of_page(&self, t: u32) -> u32 {
        self.base + t
    }
    /// The translation page holding `lpn`'s mapping.
    #[inline]
    pub fn page_of(&self, lpn: u32) -> u32 {
        lpn / self.per_page
    }
    /// Is the FTL's logical page `lpn` a translation page?
    #[inline]
    pub fn is_translation(&self, lpn: u32) -> bool {
        lpn >= self.base
    }

    /// Hint the CPU to bring `lpn`'s slot into cache (no effect on results): a hit loads it
    /// and a miss stores it, at a random place in a table of 4 bytes a logical page.
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        super::bits::prefetch(&self.slot_of, lpn as usize);
    }

    /// Hint the CPU to bring `lpn`'s cached and dirty bits into cache (no effect on results):
    /// GC's copy loop asks them of random pages, one page ahead.
    #[inline]
    pub fn warm_bits(&self, lpn: u32) {
        super::bits::prefetch(&self.cached, lpn as usize >> 6);
        super::bits::prefetch(&self.dirty, lpn as usize >> 6);
    }

    #[inline]
    fn is_cached(&self, lpn: u32) -> bool {
        self.cached[lpn as usize >> 6] >> (lpn & 63) & 1 == 1
    }

    #[inline]
    fn is_dirty(&self, lpn: u32) -> bool {
        self.dirty[lpn as usize >> 6] >> (lpn & 63) & 1 == 1
    }

    /// Entries cached dirty now.
    pub fn dirty_entries(&self) -> u64 {
        (0..self.lpn_of.len().min(self.used as usize))
            .filter(|&s| self.is_dirty(self.lpn_of[s]))
            .count() as u64
    }

    /// Look `lpn`'s mapping up for a read or a write, loading it on a miss (the bookkeeping;
    /// the caller does the flash work the result names, write-back first).
    pub fn lookup(&mut self, lpn: u32, write: bool) -> Lookup {
        let c = &mut self.counters;
        if write {
            c.write_lookups += 1;
        } else {
            c.read_lookups += 1;
        }
        if self.is_cached(lpn) {
            let s = self.slot_of[lpn as usize];
            if write {
                self.counters.write_hits += 1;
            } else {
                self.counters.read_hits += 1;
            }
            self.policy.hit(s);
            return Lookup {
                miss: false,
                write_back: None,
            };
        }
        let mut write_back = None;
        let slot = if self.used < self.capacity {
            self.used += 1;
            self.used - 1
        } else {
            let v = self.policy.victim();
            let old = self.lpn_of[v as usize];
            self.cached[old as usize >> 6] &= !(1u64 << (old & 63));
            if self.is_dirty(old) {
                // Its translation page's write clears the bit (and every other of that page).
                self.counters.dirty_evictions += 1;
                write_back = Some(self.page_of(old));
                self.write_back = write_back;
            } else {
                self.counters.clean_evictions += 1;
            }
            v
        };
        self.slot_of[lpn as usize] = slot;
        self.cached[lpn as usize >> 6] |= 1u64 << (lpn & 63);
        self.lpn_of[slot as usize] = lpn;
        self.policy.fill(slot);
        Lookup {
            miss: true,
            write_back,
        }
    }

    /// `lpn`'s mapping changed (a host write or trim through a lookup, or a GC move of a
    /// cached one): its entry is dirty.
    #[inline]
    pub fn set_dirty(&mut self, lpn: u32) {
        debug_assert!(self.is_cached(lpn), "dirty entry not cached");
        let (w, b) = (lpn as usize >> 6, 1u64 << (lpn & 63));
        if self.dirty[w] & b == 0 {
            self.dirty[w] |= b;
            self.dirty_in[(lpn / self.per_page) as usize] += 1;
        }
    }

    /// GC on `plane` moved `lpn`: its cached entry is dirty, or its translation page is owed a
    /// write by the plane's job.
    pub fn on_gc_move(&mut self, lpn: u32, plane: u32) {
        if self.is_cached(lpn) {
            self.set_dirty(lpn);
            return;
        }
        let t = self.page_of(lpn);
        let (w, b) = (t as usize >> 6, 1u64 << (t & 63));
        if self.owed[w] & b == 0 {
            self.owed[w] |= b;
            self.owed_by[plane as usize].push(t);
        }
    }

    /// The next translation page the GC job on `plane` still owes a write (its victim is
    /// about to be erased), taken off the list.
    pub fn next_owed(&mut self, plane: u32) -> Option<u32> {
        let list = &mut self.owed_by[plane as usize];
        while let Some(t) = list.pop() {
            if self.owed[t as usize >> 6] >> (t & 63) & 1 == 1 {
                return Some(t);
            }
        }
        None
    }

    /// Translation page `t` has just been programmed with the mappings of `l2p` (the user's
    /// part of the FTL's L2P): flash now says what they say, its cached entries are clean,
    /// and no GC job owes it.
    pub fn written(&mut self, t: u32, l2p: &[u32]) {
        let lo = (t * self.per_page) as usize;
        let hi = (lo + self.per_page as usize).min(self.slot_of.len());
        if let Some(f) = &mut self.on_flash {
            f[lo..hi].copy_from_slice(&l2p[lo..hi]);
        }
        if std::mem::take(&mut self.dirty_in[t as usize]) > 0 {
            super::bits::set_bits(&mut self.dirty, lo as u32, hi as u32, false);
        }
        self.owed[t as usize >> 6] &= !(1u64 << (t & 63));
        if self.write_back == Some(t) {
            self.write_back = None;
        }
    }

    /// The bookkeeping against the truth (`l2p`, the user's part of the FTL's L2P; `gtd`, the
    /// FTL's L2P entries of the translation pages): every mapping is on flash as its
    /// translation page says, cached dirty, or owed by a GC job; slots and entries agree; a
    /// translation page never written holds no mapping. The flash side only in test mode.
    pub fn check(&self, l2p: &[u32], gtd: &[u32]) -> Result<(), String> {
        let mut cached = 0u32;
        for (lpn, &ppn) in l2p.iter().enumerate() {
            let lpn = lpn as u32;
            if self.is_cached(lpn) {
                let s = self.slot_of[lpn as usize];
                cached += 1;
                if s >= self.used || self.lpn_of[s as usize] != lpn {
                    return Err(format!(
                        "CMT: logical page {lpn} in slot {s}, which holds {}",
                        { self.lpn_of.get(s as usize).copied().unwrap_or(NONE) }
                    ));
                }
            } else if self.is_dirty(lpn) && self.write_back != Some(self.page_of(lpn)) {
                return Err(format!("CMT: logical page {lpn} is dirty but not cached"));
            }
            let Some(on_flash) = &self.on_flash else {
                continue;
            };
            if self.is_dirty(lpn) {
                continue;
            }
            let t = self.page_of(lpn);
            if self.owed[t as usize >> 6] >> (t & 63) & 1 == 1 {
                continue;
            }
            if gtd[t as usize] == UNMAPPED && on_flash[lpn as usize] != UNMAPPED {
                return Err(format!(
                    "CMT: translation page {t} was never written but holds logical page {lpn}"
                ));
            }
            if on_flash[lpn as usize] != ppn {
                return Err(format!(
                    "CMT: logical page {lpn} is at {ppn}, its translation page {t} says {}, and \
                     no dirty entry or GC batch holds the change",
                    on_flash[lpn as usize]
                ));
            }
        }
        if cached != self.used {
            return Err(format!(
                "CMT: {} entries used, {cached} logical pages cached",
                self.used
            ));
        }
        for (t, &n) in self.dirty_in.iter().enumerate() {
            let lo = t as u32 * self.per_page;
            let hi = (lo + self.per_page).min(l2p.len() as u32);
            let set = (lo..hi).filter(|&l| self.is_dirty(l)).count() as u32;
            if set != n {
                return Err(format!(
                    "CMT: translation page {t} counts {n} dirty entries, its bits {set}"
                ));
            }
        }
        Ok(())
    }
}
