//! Stripe bookkeeping: stripe-aligned allocation with rotating parity, member and liveness
//! tracking, retirement on death or erase, rebuild sets and their checksum verification.

use crate::error::{Result, SsdError};
use crate::ftl::Ftl;

use super::page_checksum;

const NONE: u32 = u32::MAX;

/// Counters of the RAIN layer (since the simulation started, preconditioning excluded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RainStats {
    /// Stripes closed with a parity page.
    pub stripes_closed: u64,
    /// Stripes retired because every data member was overwritten or trimmed.
    pub stripes_dead: u64,
    /// Stripes retired because GC erased the block of one of their members.
    pub stripes_broken: u64,
    /// Reads served by XOR-rebuilding from the rest of the stripe (GTR).
    pub rebuilt_reads: u64,
    /// Reads on a GC-busy plane whose stripe could not rebuild them (moved by GC, open stripe).
    pub rebuild_unavailable: u64,
    /// Reads on a GC-busy plane where rebuilding would not have been sooner than waiting.
    pub rebuild_not_sooner: u64,
    /// Rebuilt reads during which another plane of the same group was collecting (0 under RGC).
    pub rebuild_while_group_collecting: u64,
    /// Rebuilt pages whose content was verified against the written checksum (test mode).
    pub rebuilds_verified: u64,
}

/// RAIN state of one device. See the module docs of [`crate::rain`] for the design.
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
    open_broken: bool,
    acc: u64,
    cap: u32,
    next_slot: u32,
    free: Vec<u32>,
    members: Vec<u32>,
    member_lpn: Vec<u32>,
    live: Vec<u32>,
    stripe_of_ppn: Vec<u32>,
    stripe_of_lpn: Vec<u32>,
    version: Option<Vec<u32>>,
    scratch: Vec<u32>,
    pub stats: RainStats,
}

impl Rain {
    /// RAIN over `channels` channels with `per_channel` planes each; `check` tracks page
    /// contents as checksums (tests) so that every rebuild is verified.
    pub fn new(ftl: &mut Ftl, channels: u32, per_channel: u32, check: bool) -> Self {
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
            open_broken: false,
            acc: 0,
            cap,
            next_slot: 0,
            free: Vec::new(),
            members: vec![NONE; cap as usize * k],
            member_lpn: vec![NONE; cap as usize * k],
            live: vec![0; cap as usize],
            stripe_of_ppn: vec![NONE; phys],
            stripe_of_lpn: vec![NONE; ftl.logical_pages() as usize],
            version: check.then(|| vec![0; ftl.logical_pages() as usize]),
            scratch: Vec::new(),
            stats: RainStats::default(),
        }
    }

    /// Data pages per stripe (N − 1).
    pub fn data_pages(&self) -> u32 {
        self.n - 1
    }

    fn alloc_slot(&mut self, ftl: &mut Ftl) -> u32 {
        if let Some(s) = self.free.pop() {
            return s;
        }
        if self.next_slot == self.cap {
            self.cap *= 2;
            ftl.enable_parity(self.cap);
            let k = (self.n - 1) as usize;
            self.members.resize(self.cap as usize * k, NONE);
            self.member_lpn.resize(self.cap as usize * k, NONE);
            self.live.resize(self.cap as usize, 0);
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
            self.seq += 1;
            self.filled = 0;
            self.open_broken = false;
            self.acc = 0;
        }
        let i = self.filled;
        let ch = if i < self.open_parity_ch { i } else { i + 1 };
        ch * self.per_channel + self.open_group
    }

    /// A host data page of `lpn` was programmed at `ppn` (on the plane `next_data_plane` gave,
    /// or a fallback). Returns the plane the stripe's parity must go to when it is complete.
    pub fn on_data_written(&mut self, ftl: &mut Ftl, lpn: u32, ppn: u32) -> Option<u32> {
        // Erases (by the GC that made room for this write) first, so that a reused page is
        // never taken for a member of its old stripe.
        self.drain_erased(ftl);
        self.unlink(ftl, lpn);
        let c = match &mut self.version {
            Some(v) => {
                v[lpn as usize] += 1;
                page_checksum(lpn, v[lpn as usize])
            }
            None => 0,
        };
        ftl.set_content(ppn, c);
        self.acc ^= c;
        let s = self.open;
        let at = (s * (self.n - 1) + self.filled) as usize;
        self.members[at] = ppn;
        self.member_lpn[at] = lpn;
        self.stripe_of_ppn[ppn as usize] = s;
        self.stripe_of_lpn[lpn as usize] = s;
        self.live[s as usize] += 1;
        self.filled += 1;
        (self.filled == self.n - 1).then(|| self.open_parity_ch * self.per_channel + self.open_group)
    }

    /// Program the parity of the complete open stripe on `plane` and close the stripe.
    /// Returns the parity page, or None when the stripe broke while open (nothing written).
    pub fn write_parity(&mut self, ftl: &mut Ftl, plane: u32) -> Result<Option<u32>> {
        let s = self.open;
        self.open = NONE;
        if self.open_broken || self.live[s as usize] == 0 {
            self.retire(ftl, s);
            return Ok(None);
        }
        let ppn = ftl.write_parity(s, plane)?;
        ftl.set_content(ppn, self.acc);
        self.stats.stripes_closed += 1;
        Ok(Some(ppn))
    }

    /// The host overwrote or trimmed `lpn`: its old copy is dead.
    pub fn unlink(&mut self, ftl: &mut Ftl, lpn: u32) {
        let s = self.stripe_of_lpn[lpn as usize];
        if s == NONE {
            return;
        }
        self.stripe_of_lpn[lpn as usize] = NONE;
        self.live[s as usize] -= 1;
        if self.live[s as usize] == 0 && s != self.open {
            self.stats.stripes_dead += 1;
            self.retire(ftl, s);
        }
    }

    /// Retire every stripe with a member in a block erased since the last call.
    pub fn drain_erased(&mut self, ftl: &mut Ftl) {
        ftl.take_erased(&mut self.scratch);
        if self.scratch.is_empty() {
            return;
        }
        let blocks = std::mem::take(&mut self.scratch);
        for &b in &blocks {
            let base = (b * self.pages_per_block) as usize;
            for p in base..base + self.pages_per_block as usize {
                let s = self.stripe_of_ppn[p];
                if s == NONE {
                    continue;
                }
                if s == self.open {
                    self.open_broken = true;
                    self.stripe_of_ppn[p] = NONE;
                } else {
                    self.stats.stripes_broken += 1;
                    self.retire(ftl, s);
                }
            }
        }
        self.scratch = blocks;
        self.scratch.clear();
    }

    fn retire(&mut self, ftl: &mut Ftl, s: u32) {
        let k = (self.n - 1) as usize;
        for i in s as usize * k..(s as usize + 1) * k {
            let ppn = self.members[i];
            if ppn != NONE && self.stripe_of_ppn[ppn as usize] == s {
                self.stripe_of_ppn[ppn as usize] = NONE;
            }
            let lpn = self.member_lpn[i];
            if lpn != NONE && self.stripe_of_lpn[lpn as usize] == s {
                self.stripe_of_lpn[lpn as usize] = NONE;
            }
            self.members[i] = NONE;
            self.member_lpn[i] = NONE;
        }
        self.live[s as usize] = 0;
        ftl.drop_parity(s);
        self.free.push(s);
    }

    /// The pages to read to rebuild `ppn` (the other data members and the parity), or false
    /// when its stripe cannot rebuild it (not in a closed, intact stripe).
    pub fn rebuild_set(&self, ftl: &Ftl, ppn: u32, out: &mut Vec<u32>) -> bool {
        out.clear();
        let s = self.stripe_of_ppn[ppn as usize];
        if s == NONE || s == self.open {
            return false;
        }
        let Some(parity) = ftl.parity_location(s) else { return false };
        let k = (self.n - 1) as usize;
        for &m in &self.members[s as usize * k..(s as usize + 1) * k] {
            if m != ppn && m != NONE {
                out.push(m);
            }
        }
        out.push(parity);
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

    /// Test mode: rebuild every live data page of every closed stripe and verify it. Returns how
    /// many pages were verified.
    pub fn audit(&mut self, ftl: &Ftl) -> Result<u64> {
        let k = (self.n - 1) as usize;
        let mut set = Vec::new();
        let mut n = 0;
        for s in 0..self.next_slot {
            if s == self.open || self.live[s as usize] == 0 {
                continue;
            }
            for i in 0..k {
                let ppn = self.members[s as usize * k + i];
                if ppn == NONE || ftl.lookup(self.member_lpn[s as usize * k + i]) != Some(ppn) {
                    continue;
                }
                if self.rebuild_set(ftl, ppn, &mut set) {
                    self.verify_rebuild(ftl, ppn, &set)?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }

    /// Stripes holding parity now.
    pub fn live_stripes(&self) -> u64 {
        (0..self.next_slot).filter(|&s| self.live[s as usize] > 0 && s != self.open).count() as u64
    }

}
