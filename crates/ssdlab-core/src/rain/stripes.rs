//! Logical stripes: stripe-aligned allocation with rotating parity; membership by stripe id
//! (logical page → stripe), current member locations through the maps, dead members kept in the
//! parity until their page is erased, re-parity when it is; rebuild sets and their checksum
//! verification. See the module docs of [`crate::rain`] for the design.

use crate::error::{Result, SsdError};
use crate::ftl::Ftl;

use super::page_checksum;

const NONE: u32 = u32::MAX;

/// Counters of the RAIN layer (since the simulation started, preconditioning excluded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RainStats {
    /// Stripes closed with a parity page.
    pub stripes_closed: u64,
    /// Stripes retired because every data member was overwritten or trimmed.
    pub stripes_dead: u64,
    /// Parity pages rewritten because GC erased a dead member of a live stripe (the new parity
    /// is the old one XOR the dead page; one program each, counted in the parity writes too).
    pub reparity_writes: u64,
    /// Stripes retired with live members because a dead member was erased and fewer than
    /// `unprotect_below` members were live (their live pages lost protection).
    pub stripes_unprotected: u64,
    /// Reads served by XOR-rebuilding from the rest of the stripe (GTR).
    pub rebuilt_reads: u64,
    /// Reads on a GC-busy plane whose stripe could not rebuild them (open stripe, parity being
    /// rewritten, or a co-member not in its group — after a fallback allocation).
    pub rebuild_unavailable: u64,
    /// Reads on a GC-busy plane where rebuilding would not have been sooner than waiting.
    pub rebuild_not_sooner: u64,
    /// Rebuilt reads during which another plane of the same group was collecting (0 under RGC).
    pub rebuild_while_group_collecting: u64,
    /// Rebuilt pages whose content was verified against the written checksum (test mode).
    pub rebuilds_verified: u64,
}

/// RAIN state of one device.
#[derive(Debug, Clone)]
pub struct Rain {
    n: u32,
    per_channel: u32,
    pages_per_block: u32,
    seq: u64,
    open: u32,
    open_group: u32,
    open_parity_ch: u32,
    filled: u32,
    cap: u32,
    next_slot: u32,
    free: Vec<u32>,
    /// Per stripe × (N − 1): the logical page of each data member (NONE: empty slot).
    member_lpn: Vec<u32>,
    /// Per stripe × (N − 1): the physical page still holding a dead member (NONE: live/empty).
    dead_ppn: Vec<u32>,
    /// Live data members per stripe.
    live: Vec<u32>,
    /// Per stripe: the plane its parity belongs on (rewrites go there).
    parity_plane: Vec<u32>,
    /// Per stripe: its parity is stale until rewritten (a dead member was erased).
    stale: Vec<bool>,
    /// Stripes waiting for their parity to be rewritten.
    pending: Vec<u32>,
    /// Per logical page: the stripe its current copy belongs to.
    stripe_of_lpn: Vec<u32>,
    /// Per physical page: the stripe it is a dead member of.
    dead_of_ppn: Vec<u32>,
    unprotect_below: u32,
    version: Option<Vec<u32>>,
    scratch: Vec<u32>,
    pub stats: RainStats,
}

impl Rain {
    /// RAIN over `channels` channels with `per_channel` planes each; `check` tracks page
    /// contents as checksums (tests) so that every rebuild is verified.
    pub fn new(ftl: &mut Ftl, channels: u32, per_channel: u32, unprotect_below: u32, check: bool) -> Self {
        let phys = ftl.planes() as usize * ftl.blocks_per_plane() as usize * ftl.pages_per_block() as usize;
        let cap = (phys / (channels as usize - 1)).max(16) as u32;
        ftl.enable_parity(cap);
        if check {
            ftl.enable_content();
        }
        let k = channels as usize - 1;
        Rain {
            n: channels,
            per_channel,
            pages_per_block: ftl.pages_per_block(),
            seq: 0,
            open: NONE,
            open_group: 0,
            open_parity_ch: 0,
            filled: 0,
            cap,
            next_slot: 0,
            free: Vec::new(),
            member_lpn: vec![NONE; cap as usize * k],
            dead_ppn: vec![NONE; cap as usize * k],
            live: vec![0; cap as usize],
            parity_plane: vec![NONE; cap as usize],
            stale: vec![false; cap as usize],
            pending: Vec::new(),
            stripe_of_lpn: vec![NONE; ftl.logical_pages() as usize],
            dead_of_ppn: vec![NONE; phys],
            unprotect_below,
            version: check.then(|| vec![0; ftl.logical_pages() as usize]),
            scratch: Vec::new(),
            stats: RainStats::default(),
        }
    }

    fn k(&self) -> usize {
        (self.n - 1) as usize
    }

    fn alloc_slot(&mut self, ftl: &mut Ftl) -> u32 {
        if let Some(s) = self.free.pop() {
            return s;
        }
        if self.next_slot == self.cap {
            self.cap *= 2;
            ftl.enable_parity(self.cap);
            let k = self.k();
            self.member_lpn.resize(self.cap as usize * k, NONE);
            self.dead_ppn.resize(self.cap as usize * k, NONE);
            self.live.resize(self.cap as usize, 0);
            self.parity_plane.resize(self.cap as usize, NONE);
            self.stale.resize(self.cap as usize, false);
        }
        self.next_slot += 1;
        self.next_slot - 1
    }

    /// The plane of the next host data page: the next data channel of the open stripe (opening
    /// one if needed: group `seq mod groups`, parity channel `seq mod N`).
    pub fn next_data_plane(&mut self, ftl: &mut Ftl) -> u32 {
        if self.open == NONE {
            self.open = self.alloc_slot(ftl);
            self.open_group = (self.seq % u64::from(self.per_channel)) as u32;
            self.open_parity_ch = (self.seq % u64::from(self.n)) as u32;
            self.parity_plane[self.open as usize] = self.open_parity_ch * self.per_channel + self.open_group;
            self.seq += 1;
            self.filled = 0;
        }
        let i = self.filled;
        let ch = if i < self.open_parity_ch { i } else { i + 1 };
        ch * self.per_channel + self.open_group
    }

    /// The host is about to overwrite or trim `lpn`: its current copy becomes a dead member of
    /// its stripe, still folded into the parity until its page is erased.
    pub fn unlink(&mut self, ftl: &mut Ftl, lpn: u32) {
        self.drain_erased(ftl);
        let s = self.stripe_of_lpn[lpn as usize];
        if s == NONE {
            return;
        }
        self.stripe_of_lpn[lpn as usize] = NONE;
        let k = self.k();
        let base = s as usize * k;
        let i = (0..k).find(|&i| self.member_lpn[base + i] == lpn).expect("a live member has a slot");
        self.member_lpn[base + i] = NONE;
        if let Some(old) = ftl.lookup(lpn) {
            self.dead_ppn[base + i] = old;
            self.dead_of_ppn[old as usize] = s;
        }
        self.live[s as usize] -= 1;
        if self.live[s as usize] == 0 && s != self.open {
            self.stats.stripes_dead += 1;
            self.retire(ftl, s);
        }
    }

    /// A host data page of `lpn` was programmed at `ppn` (after `unlink(lpn)`). Returns the
    /// plane the stripe's parity must go to when the stripe is complete.
    pub fn on_data_written(&mut self, ftl: &mut Ftl, lpn: u32, ppn: u32) -> Option<u32> {
        self.drain_erased(ftl);
        let c = match &mut self.version {
            Some(v) => {
                v[lpn as usize] += 1;
                page_checksum(lpn, v[lpn as usize])
            }
            None => 0,
        };
        ftl.set_content(ppn, c);
        let s = self.open;
        let at = s as usize * self.k() + self.filled as usize;
        self.member_lpn[at] = lpn;
        self.stripe_of_lpn[lpn as usize] = s;
        self.live[s as usize] += 1;
        self.filled += 1;
        (self.filled == self.n - 1).then(|| self.parity_plane[s as usize])
    }

    /// XOR of what the stripe's members (live copies and surviving dead pages) hold now.
    fn members_xor(&self, ftl: &Ftl, s: u32) -> u64 {
        let mut acc = 0u64;
        if ftl.content(0).is_none() {
            return 0;
        }
        let base = s as usize * self.k();
        for i in 0..self.k() {
            let l = self.member_lpn[base + i];
            if l != NONE {
                acc ^= ftl.lookup(l).and_then(|p| ftl.content(p)).unwrap_or(0);
            }
            let d = self.dead_ppn[base + i];
            if d != NONE {
                acc ^= ftl.content(d).unwrap_or(0);
            }
        }
        acc
    }

    /// Program the parity of the complete open stripe on `plane` and close the stripe.
    /// Returns the parity page, or None when every member already died (nothing written).
    pub fn write_parity(&mut self, ftl: &mut Ftl, plane: u32) -> Result<Option<u32>> {
        self.drain_erased(ftl);
        let s = self.open;
        self.open = NONE;
        if self.live[s as usize] == 0 {
            self.stats.stripes_dead += 1;
            self.retire(ftl, s);
            return Ok(None);
        }
        let ppn = ftl.write_parity(s, plane)?;
        ftl.set_content(ppn, self.members_xor(ftl, s));
        self.stale[s as usize] = false;
        self.stats.stripes_closed += 1;
        Ok(Some(ppn))
    }

    /// The next stripe whose parity must be rewritten, and the plane it goes to.
    pub fn next_reparity(&mut self) -> Option<(u32, u32)> {
        while let Some(s) = self.pending.pop() {
            if self.stale[s as usize] && self.live[s as usize] > 0 {
                return Some((s, self.parity_plane[s as usize]));
            }
        }
        None
    }

    /// Rewrite the parity of stale stripe `s` on `plane`: new parity = old parity XOR the erased
    /// dead member (the controller reads both before the erase; here the new value is recomputed
    /// from what the members hold, which is the same). Returns the new parity page.
    pub fn rewrite_parity(&mut self, ftl: &mut Ftl, s: u32, plane: u32) -> Result<Option<u32>> {
        self.drain_erased(ftl);
        if !self.stale[s as usize] || self.live[s as usize] == 0 {
            return Ok(None);
        }
        let ppn = ftl.write_parity(s, plane)?;
        ftl.set_content(ppn, self.members_xor(ftl, s));
        self.stale[s as usize] = false;
        self.stats.reparity_writes += 1;
        Ok(Some(ppn))
    }

    /// Account for every block erased since the last call: a dead member whose page is erased
    /// leaves its stripe; a closed live stripe then needs its parity rewritten.
    pub fn drain_erased(&mut self, ftl: &mut Ftl) {
        ftl.take_erased(&mut self.scratch);
        if self.scratch.is_empty() {
            return;
        }
        let blocks = std::mem::take(&mut self.scratch);
        let k = self.k();
        for &b in &blocks {
            let base = (b * self.pages_per_block) as usize;
            for p in base..base + self.pages_per_block as usize {
                let s = self.dead_of_ppn[p];
                if s == NONE {
                    continue;
                }
                self.dead_of_ppn[p] = NONE;
                let sb = s as usize * k;
                if let Some(i) = (0..k).find(|&i| self.dead_ppn[sb + i] == p as u32) {
                    self.dead_ppn[sb + i] = NONE;
                }
                if s == self.open || self.live[s as usize] == 0 {
                    continue;
                }
                if self.live[s as usize] < self.unprotect_below {
                    self.stats.stripes_unprotected += 1;
                    self.retire(ftl, s);
                } else if !self.stale[s as usize] {
                    self.stale[s as usize] = true;
                    self.pending.push(s);
                }
            }
        }
        self.scratch = blocks;
        self.scratch.clear();
    }

    fn retire(&mut self, ftl: &mut Ftl, s: u32) {
        let k = self.k();
        for i in s as usize * k..(s as usize + 1) * k {
            let lpn = self.member_lpn[i];
            if lpn != NONE && self.stripe_of_lpn[lpn as usize] == s {
                self.stripe_of_lpn[lpn as usize] = NONE;
            }
            let d = self.dead_ppn[i];
            if d != NONE && self.dead_of_ppn[d as usize] == s {
                self.dead_of_ppn[d as usize] = NONE;
            }
            self.member_lpn[i] = NONE;
            self.dead_ppn[i] = NONE;
        }
        self.live[s as usize] = 0;
        self.stale[s as usize] = false;
        ftl.drop_parity(s);
        self.free.push(s);
    }

    /// The pages to read to rebuild the current copy of `lpn` at `ppn`: the other members'
    /// current pages (live ones through the map, dead ones where they still lie) and the
    /// parity. False when the stripe cannot rebuild it now (open, or parity stale).
    pub fn rebuild_set(&self, ftl: &Ftl, lpn: u32, ppn: u32, out: &mut Vec<u32>) -> bool {
        out.clear();
        let s = self.stripe_of_lpn[lpn as usize];
        if s == NONE || s == self.open || self.stale[s as usize] {
            return false;
        }
        let Some(parity) = ftl.parity_location(s) else { return false };
        let base = s as usize * self.k();
        for i in 0..self.k() {
            let l = self.member_lpn[base + i];
            if l != NONE && l != lpn {
                match ftl.lookup(l) {
                    Some(p) => out.push(p),
                    None => return false,
                }
            }
            let d = self.dead_ppn[base + i];
            if d != NONE {
                out.push(d);
            }
        }
        out.push(parity);
        debug_assert!(!out.contains(&ppn));
        true
    }

    /// Test mode: XOR the rebuild set and compare with what the host last wrote to the page.
    pub fn verify_rebuild(&mut self, ftl: &Ftl, ppn: u32, set: &[u32]) -> Result<()> {
        let Some(v) = &self.version else { return Ok(()) };
        let lpn = ftl.owner(ppn).ok_or_else(|| SsdError::Invalid(format!("rebuild of page {ppn}, which holds no live data")))?;
        let rebuilt = set.iter().fold(0u64, |a, &m| a ^ ftl.content(m).unwrap_or(0));
        let written = page_checksum(lpn, v[lpn as usize]);
        if rebuilt != written || ftl.content(ppn) != Some(written) {
            return Err(SsdError::Invalid(format!(
                "RAIN bug: page {ppn} (logical {lpn}) rebuilt as {rebuilt:#x}, written {written:#x}, stored {:#x?}",
                ftl.content(ppn)
            )));
        }
        self.stats.rebuilds_verified += 1;
        Ok(())
    }

    /// Test mode: rebuild every live data page of every closed, current stripe and verify it.
    /// Returns how many pages were verified and how many live pages had no usable stripe.
    pub fn audit(&mut self, ftl: &Ftl) -> Result<(u64, u64)> {
        let mut set = Vec::new();
        let (mut ok, mut unprotected) = (0, 0);
        for lpn in 0..ftl.logical_pages() {
            let Some(ppn) = ftl.lookup(lpn) else { continue };
            if self.rebuild_set(ftl, lpn, ppn, &mut set) {
                self.verify_rebuild(ftl, ppn, &set)?;
                ok += 1;
            } else {
                unprotected += 1;
            }
        }
        Ok((ok, unprotected))
    }

    /// Live logical pages over live stripes (closed or open): the mean stripe occupancy that
    /// sets parity's space (one parity page per live stripe).
    pub fn mean_live_members(&self) -> f64 {
        let (mut pages, mut stripes) = (0u64, 0u64);
        for s in 0..self.next_slot as usize {
            if self.live[s] > 0 {
                pages += u64::from(self.live[s]);
                stripes += 1;
            }
        }
        if stripes == 0 { 0.0 } else { pages as f64 / stripes as f64 }
    }

    /// Stripes holding parity now.
    pub fn live_stripes(&self) -> u64 {
        (0..self.next_slot).filter(|&s| self.live[s as usize] > 0 && s != self.open).count() as u64
    }
}
