//! Consistency checks of the whole FTL state, for tests and `--check` runs (O(pages)), and
//! the per-block erase statistics.

use super::{BlockState, Ftl, UNMAPPED};

impl Ftl {
    /// Track page contents as checksums (tests).
    pub fn enable_content(&mut self) {
        self.content = Some(vec![0; self.p2l.len()]);
    }
    pub(crate) fn set_content(&mut self, ppn: u32, v: u64) {
        if let Some(c) = &mut self.content {
            c[ppn as usize] = v;
        }
    }
    pub fn content(&self, ppn: u32) -> Option<u64> {
        self.content.as_ref().map(|c| c[ppn as usize])
    }

    /// Turn on the double-program detector (tests; costs one byte per page), and a cached
    /// map's copy of its flash side.
    pub fn enable_program_checks(&mut self) {
        self.program_marks = Some(vec![false; self.p2l.len()]);
        if let Some(c) = &mut self.cmt {
            c.keep_flash_copy();
        }
    }

    /// Verify every invariant; the first violation is returned as a message.
    /// - every mapped LPN points at a valid page whose P2L points back, and vice versa;
    /// - per-block valid counts equal the bitmap and the P2L;
    /// - pages at or beyond a block's write pointer are unprogrammed; free blocks are empty;
    /// - every block is in exactly one place: a free pool, a frontier, the victim index or a GC
    ///   job; free + open + full + victim = total;
    /// - greedy's buckets hold each full block under its true valid count;
    /// - with a cached map, the CMT's (`Ftl::check_translation`).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.check_translation()?;
        let ppb = self.pages_per_block;
        for (lpn, &ppn) in self.l2p.iter().enumerate() {
            if ppn != UNMAPPED {
                if self.p2l[ppn as usize] != lpn as u32 {
                    return Err(format!(
                        "L2P[{lpn}] = {ppn} but P2L[{ppn}] = {}",
                        self.p2l[ppn as usize]
                    ));
                }
                if !self.bit(ppn) {
                    return Err(format!(
                        "L2P[{lpn}] = {ppn} but the page's valid bit is clear"
                    ));
                }
            }
        }
        let total_blocks = self.valid.len() as u32;
        for b in 0..total_blocks {
            let base = b * ppb;
            let mut count = 0;
            for p in base..base + ppb {
                // P2L is only meaningful where the valid bit is set.
                let bit = self.bit(p);
                let lpn = self.p2l[p as usize];
                if bit && lpn == UNMAPPED {
                    return Err(format!("page {p}: valid bit set but P2L is unmapped"));
                }
                if bit {
                    count += 1;
                    if self.l2p[lpn as usize] != p {
                        return Err(format!(
                            "P2L[{p}] = {lpn} but L2P[{lpn}] = {}",
                            self.l2p[lpn as usize]
                        ));
                    }
                    if p - base >= self.next_page[b as usize] {
                        return Err(format!(
                            "block {b}: valid page {p} beyond the write pointer"
                        ));
                    }
                }
            }
            if count != self.valid[b as usize] {
                return Err(format!(
                    "block {b}: valid count {} but bitmap has {count}",
                    self.valid[b as usize]
                ));
            }
            if self.state[b as usize] == BlockState::Free
                && (self.next_page[b as usize] != 0 || count != 0)
            {
                return Err(format!("free block {b} is not empty"));
            }
        }
        if let Some(units) = &self.units {
            // RAIN super-blocks: the RAIN layer owns allocation (checked there); the unit victim
            // index must agree with the blocks' valid counts.
            return units.check(&self.valid);
        }
        // Every block in exactly one place.
        let mut seen = vec![0u8; total_blocks as usize];
        let mut mark = |b: u32, what: &str, want: BlockState| -> Result<(), String> {
            seen[b as usize] += 1;
            if self.state[b as usize] != want {
                return Err(format!(
                    "block {b} is in the {what} but its state is {:?}",
                    self.state[b as usize]
                ));
            }
            Ok(())
        };
        for plane in 0..self.planes {
            for &b in &self.free[plane as usize] {
                mark(b, "free pool", BlockState::Free)?;
            }
            for s in 0..self.streams {
                let f = self.frontier[plane as usize * self.streams + s];
                if f != UNMAPPED {
                    mark(f, "frontier", BlockState::Open)?;
                }
            }
            for b in self.victims.members(plane) {
                mark(b, "victim index", BlockState::Full)?;
                if self.victims.policy() == crate::config::VictimPolicy::Greedy {
                    let bucket = self.victims.bucket_of(plane, b);
                    if bucket != Some(self.valid[b as usize]) {
                        return Err(format!(
                            "block {b} sits in bucket {bucket:?} but has {} valid pages",
                            self.valid[b as usize]
                        ));
                    }
                }
            }
            if let Some(j) = self.jobs[plane as usize] {
                mark(j.victim, "GC job", BlockState::Victim)?;
            }
            if self.victims.len(plane) as usize != self.victims.members(plane).len() {
                return Err(format!(
                    "plane {plane}: victim index count disagrees with its members"
                ));
            }
        }
        for (b, st) in self.state.iter().enumerate() {
            if *st == BlockState::Bad {
                seen[b] += 1;
            }
        }
        if let Some(b) = seen.iter().position(|n| *n != 1) {
            return Err(format!(
                "block {b} is in {} places (expected exactly one)",
                seen[b]
            ));
        }
        Ok(())
    }

    pub(super) fn bit(&self, ppn: u32) -> bool {
        self.valid_bits[ppn as usize >> 6] >> (ppn & 63) & 1 == 1
    }
}

impl Ftl {
    /// Per-block erase count statistics: (min, mean, max), counting the erases since `base`
    /// (each block's count at some earlier point; empty: since the device was new).
    pub fn erase_stats(&self, base: &[u32]) -> crate::stats::EraseStats {
        erase_stats(&self.erase_count, base)
    }
}

/// The distribution of erase counts `erase_count` less their values `base` at a starting point.
pub fn erase_stats(erase_count: &[u32], base: &[u32]) -> crate::stats::EraseStats {
    crate::stats::EraseStats::of(
        erase_count
            .iter()
            .enumerate()
            .map(|(i, &e)| e - base.get(i).copied().unwrap_or(0))
            .collect(),
    )
}
