//! Super-block (stripe-group) RAIN with stripe-group GC. See the module docs of [`crate::rain`].

use std::collections::VecDeque;

use crate::error::{Result, SsdError};
use crate::ftl::Ftl;

use super::page_checksum;

const NONE: u32 = u32::MAX;
/// Free super-blocks of a group the host may not take (kept for GC frontiers).
const GC_RESERVE: usize = 4;
/// Rounds a GC stripe stays open for copies of later victims before it is closed short (the
/// copies of one victim are unevenly spread over its members — copy-back keeps each on its
/// plane — so the next victims' copies fill its stripes; measured on the test device at 40 %
/// spare: 1 round, 4.93 members per GC stripe of 7; 2 rounds, 5.34 and 5 % fewer erases;
/// 4 rounds, no better).
const STRIPE_ROUNDS: u64 = 2;
/// GC super-blocks a group keeps open for copies (copy-back keeps each page on its plane, so
/// one member fills before the others; a second open super-block takes its overflow).
const MAX_OPEN_GC_SB: usize = 2;

/// Counters of the RAIN layer (since the simulation started, preconditioning excluded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RainStats {
    /// Host stripes closed with their parity (always N − 1 data pages).
    pub host_stripes: u64,
    /// GC stripes closed with their parity, and how many of them had fewer than N − 1 members
    /// (closed early so that their victim could be erased), and their data members in total.
    pub gc_stripes: u64,
    pub gc_short_stripes: u64,
    /// … of which closed because their super-block was sealed (the rest: a round old).
    pub gc_short_sealed: u64,
    pub gc_stripe_members: u64,
    /// Parity pages programmed by host stripes and by GC stripes.
    pub host_parity_writes: u64,
    pub gc_parity_writes: u64,
    /// Victim super-blocks collected (copied) and erased.
    pub superblocks_collected: u64,
    pub superblocks_erased: u64,
    /// Times a host write found no group with room and GC ran without yielding (forced).
    pub forced_gc: u64,
    /// Reads served by XOR-rebuilding from the rest of the stripe (GTR).
    pub rebuilt_reads: u64,
    /// … of which through the pre-GC copy's stripe (the page's new stripe still open).
    pub rebuilds_via_origin: u64,
    /// Reads on a GC-busy plane whose stripe could not rebuild them (an open host stripe).
    pub rebuild_unavailable: u64,
    /// Reads on a GC-busy plane where rebuilding would not have been sooner than waiting.
    pub rebuild_not_sooner: u64,
    /// Rebuilt reads while two planes of the read's group were executing GC (0 under RGC).
    pub rebuild_while_group_collecting: u64,
    /// Reads on a GC-busy plane not rebuilt because another plane of their group was collecting
    /// too (parallel forced GC).
    pub rebuild_refused_group_collecting: u64,
    /// Rebuilt pages whose content was verified against the written checksum (test mode).
    pub rebuilds_verified: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sb {
    Free,
    Host,
    Gc,
    Full,
    Victim,
}

#[derive(Debug, Clone, Default)]
struct Stripe {
    members: Vec<u32>,
    parity: u32,
    sb: u32,
    round: u64,
    /// Channel of the parity page (GC stripes: fixed when the stripe is created).
    pch: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Parity,
    Erase,
    Copy,
}

/// One GC operation, as executed on the FTL (the caller gives it time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcOp {
    Copy(u32),
    Erase(u32),
    Parity(u32),
    /// A turn ended without work (no time).
    Turn,
    /// The group's GC stopped.
    Done,
}

#[derive(Debug, Clone)]
struct GroupGc {
    active: bool,
    round: u64,
    turn: u32,
    phase: Phase,
    victim: u32,
    cursor: u32,
    /// Victims copied, waiting for erase: (super-block, round copied, bit mask of erased members).
    pending: VecDeque<(u32, u64, u64)>,
    /// The GC super-blocks taking copies, oldest first, each with its per-channel page slots
    /// reserved for the parity of its open stripes.
    gc_sbs: Vec<(u32, Vec<u32>)>,
    /// Open GC stripes (in `gc_sbs` or in sealed GC super-blocks).
    open: Vec<u32>,
    /// End of the group's last GC operation (rotating GC chains its operations).
    clock: u64,
}

/// Host write result: the data page's plane and, when it closed its stripe, the parity's.
#[derive(Debug, Clone, Copy)]
pub struct HostWrite {
    pub plane: u32,
    pub parity_plane: Option<u32>,
}

/// RAIN state of one device.
#[derive(Debug, Clone)]
pub struct Rain {
    n: u32,
    groups: u32,
    bpp: u32,
    ppb: u32,
    threshold: usize,
    sb_state: Vec<Sb>,
    sb_stripes: Vec<Vec<u32>>,
    free_sb: Vec<VecDeque<u32>>,
    host_sb: Vec<u32>,
    next_group: u32,
    /// The open host stripe: id, group, parity channel, data pages written.
    hs: u32,
    hs_group: u32,
    hs_pch: u32,
    hs_filled: u32,
    gcs: Vec<GroupGc>,
    stripes: Vec<Stripe>,
    free_stripes: Vec<u32>,
    stripe_of: Vec<u32>,
    origin: Vec<u32>,
    version: Option<Vec<u32>>,
    scratch: Vec<u32>,
    pub stats: RainStats,
}

impl Rain {
    /// RAIN over `channels` channels × `groups` planes each; `check` tracks page contents as
    /// checksums (tests) so that every rebuild is verified.
    pub fn new(ftl: &mut Ftl, channels: u32, groups: u32, threshold: u32, check: bool) -> Self {
        ftl.enable_external_alloc();
        if check {
            ftl.enable_content();
        }
        let bpp = ftl.blocks_per_plane();
        let phys = (ftl.planes() * bpp * ftl.pages_per_block()) as usize;
        assert!(channels <= 64, "RAIN: at most 64 channels");
        let gc = GroupGc {
            active: false,
            round: 0,
            turn: 0,
            phase: Phase::Parity,
            victim: NONE,
            cursor: 0,
            pending: VecDeque::new(),
            gc_sbs: Vec::new(),
            open: Vec::new(),
            clock: 0,
        };
        Rain {
            n: channels,
            groups,
            bpp,
            ppb: ftl.pages_per_block(),
            threshold: (threshold as usize).max(GC_RESERVE + 3),
            sb_state: vec![Sb::Free; (groups * bpp) as usize],
            sb_stripes: vec![Vec::new(); (groups * bpp) as usize],
            free_sb: (0..groups).map(|_| (0..bpp).collect()).collect(),
            host_sb: vec![NONE; groups as usize],
            next_group: 0,
            hs: NONE,
            hs_group: 0,
            hs_pch: 0,
            hs_filled: 0,
            gcs: vec![gc; groups as usize],
            stripes: Vec::new(),
            free_stripes: Vec::new(),
            stripe_of: vec![NONE; phys],
            origin: vec![NONE; phys],
            version: check.then(|| vec![0; ftl.logical_pages() as usize]),
            scratch: Vec::new(),
            stats: RainStats::default(),
        }
    }

    pub fn groups(&self) -> u32 {
        self.groups
    }
    fn plane(&self, g: u32, c: u32) -> u32 {
        c * self.groups + g
    }
    fn blk(&self, g: u32, c: u32, i: u32) -> u32 {
        self.plane(g, c) * self.bpp + i
    }
    fn sb_id(&self, g: u32, i: u32) -> usize {
        (g * self.bpp + i) as usize
    }
    /// The parity group of a plane.
    pub fn group_of_plane(&self, plane: u32) -> u32 {
        plane % self.groups
    }
    pub fn free_superblocks(&self, g: u32) -> usize {
        self.free_sb[g as usize].len()
    }
    /// Free super-blocks per group the host may not take.
    pub fn gc_reserve(&self) -> usize {
        GC_RESERVE
    }
    pub fn needs_gc(&self, g: u32) -> bool {
        self.free_sb[g as usize].len() < self.threshold
    }
    pub fn gc_active(&self, g: u32) -> bool {
        self.gcs[g as usize].active
    }
    pub fn gc_clock(&self, g: u32) -> u64 {
        self.gcs[g as usize].clock
    }
    pub fn set_gc_clock(&mut self, g: u32, t: u64) {
        self.gcs[g as usize].clock = t;
    }
    /// The plane the group's next GC operation runs on.
    pub fn gc_plane(&self, g: u32) -> u32 {
        self.plane(g, self.gcs[g as usize].turn)
    }
    /// Start GC on group `g` (no effect if running).
    pub fn activate(&mut self, g: u32, now: u64) {
        let st = &mut self.gcs[g as usize];
        if !st.active {
            st.active = true;
            st.clock = st.clock.max(now);
            st.turn = 0;
            st.phase = Phase::Parity;
            st.cursor = 0;
        }
    }

    fn new_stripe(&mut self, sb: usize, round: u64, pch: u32) -> u32 {
        let id = match self.free_stripes.pop() {
            Some(id) => id,
            None => {
                self.stripes.push(Stripe::default());
                self.stripes.len() as u32 - 1
            }
        };
        let s = &mut self.stripes[id as usize];
        s.members.clear();
        s.parity = NONE;
        s.sb = sb as u32;
        s.round = round;
        s.pch = pch;
        self.sb_stripes[sb].push(id);
        id
    }

    fn take_free_sb(&mut self, g: u32, state: Sb) -> Option<u32> {
        let i = self.free_sb[g as usize].pop_front()?;
        let id = self.sb_id(g, i);
        self.sb_state[id] = state;
        Some(i)
    }

    /// The group the next host stripe goes to (rotating over groups with room), or Err(group)
    /// when no group can take one without GC first.
    fn host_group(&mut self, ftl: &Ftl) -> std::result::Result<u32, u32> {
        for d in 0..self.groups {
            let g = (self.next_group + d) % self.groups;
            let h = self.host_sb[g as usize];
            let room = h != NONE && ftl.written_pages(self.blk(g, 0, h)) < self.ppb;
            if room || self.free_sb[g as usize].len() > GC_RESERVE {
                return Ok(g);
            }
        }
        Err(self.next_group)
    }

    /// Where the next host data page goes, opening a stripe if needed; Err(group) when GC must
    /// run first (forced) on that group.
    pub fn next_data_plane(&mut self, ftl: &Ftl) -> std::result::Result<u32, u32> {
        if self.hs == NONE {
            let g = self.host_group(ftl)?;
            self.next_group = (g + 1) % self.groups;
            let mut h = self.host_sb[g as usize];
            if h == NONE || ftl.written_pages(self.blk(g, 0, h)) == self.ppb {
                if h != NONE {
                    let id = self.sb_id(g, h);
                    self.sb_state[id] = Sb::Full;
                }
                h = self
                    .take_free_sb(g, Sb::Host)
                    .expect("host_group checked room");
                self.host_sb[g as usize] = h;
            }
            let k = ftl.written_pages(self.blk(g, 0, h));
            self.hs = self.new_stripe(self.sb_id(g, h), 0, k % self.n);
            self.hs_group = g;
            self.hs_pch = k % self.n;
            self.hs_filled = 0;
        }
        let i = self.hs_filled;
        let ch = if i < self.hs_pch { i } else { i + 1 };
        Ok(self.plane(self.hs_group, ch))
    }

    /// Program host page `lpn` into the open host stripe (after `next_data_plane`), and its
    /// parity when it completes the stripe.
    pub fn write_host(&mut self, ftl: &mut Ftl, lpn: u32) -> Result<HostWrite> {
        let g = self.hs_group;
        let h = self.host_sb[g as usize];
        let i = self.hs_filled;
        let ch = if i < self.hs_pch { i } else { i + 1 };
        let ppn = ftl.rain_write_host(lpn, self.blk(g, ch, h))?;
        let c = match &mut self.version {
            Some(v) => {
                v[lpn as usize] += 1;
                page_checksum(lpn, v[lpn as usize])
            }
            None => 0,
        };
        ftl.set_content(ppn, c);
        let s = self.hs;
        self.stripes[s as usize].members.push(ppn);
        self.stripe_of[ppn as usize] = s;
        self.hs_filled += 1;
        let mut out = HostWrite {
            plane: self.plane(g, ch),
            parity_plane: None,
        };
        if self.hs_filled == self.n - 1 {
            let x = self.members_xor(ftl, s);
            let pp = ftl.rain_write_parity(self.blk(g, self.hs_pch, h), x)?;
            self.stripes[s as usize].parity = pp;
            self.stripe_of[pp as usize] = s;
            self.hs = NONE;
            self.stats.host_stripes += 1;
            self.stats.host_parity_writes += 1;
            out.parity_plane = Some(self.plane(g, self.hs_pch));
            if ftl.written_pages(self.blk(g, 0, h)) == self.ppb {
                let id = self.sb_id(g, h);
                self.sb_state[id] = Sb::Full;
                self.host_sb[g as usize] = NONE;
            }
        }
        Ok(out)
    }

    /// Host data pages that complete the open host stripe (N − 1 when none is open).
    pub fn host_stripe_left(&self) -> u32 {
        if self.hs == NONE {
            self.n - 1
        } else {
            self.n - 1 - self.hs_filled
        }
    }

    fn members_xor(&self, ftl: &Ftl, s: u32) -> u64 {
        self.stripes[s as usize]
            .members
            .iter()
            .fold(0u64, |a, &m| a ^ ftl.content(m).unwrap_or(0))
    }

    fn sb_valid(&self, ftl: &Ftl, g: u32, i: u32) -> u32 {
        (0..self.n)
            .map(|c| ftl.block_valid(self.blk(g, c, i)))
            .sum()
    }

    fn pick_victim(&mut self, ftl: &Ftl, g: u32) -> u32 {
        let cap = (self.n - 1) * self.ppb;
        let mut best = (u32::MAX, NONE);
        for i in 0..self.bpp {
            if self.sb_state[self.sb_id(g, i)] == Sb::Full {
                let v = self.sb_valid(ftl, g, i);
                if v < best.0 {
                    best = (v, i);
                }
            }
        }
        if best.1 == NONE || best.0 >= cap {
            return NONE;
        }
        let id = self.sb_id(g, best.1);
        self.sb_state[id] = Sb::Victim;
        self.stats.superblocks_collected += 1;
        best.1
    }

    fn is_sealed(&self, g: u32, sb: u32) -> bool {
        !self.gcs[g as usize]
            .gc_sbs
            .iter()
            .any(|&(i, _)| self.sb_id(g, i) as u32 == sb)
    }

    /// One GC operation of group `g`'s stripe-group GC, applied to the FTL.
    ///
    /// Rounds: in round r the victim picked at its start is copied member by member (turn c =
    /// channel c). At its turn plane c (1) writes the parity of every open stripe whose parity
    /// channel is c and that is full (N − 1 members), `STRIPE_ROUNDS` rounds old, or in a sealed
    /// super-block; (2) erases its member of every pending victim that is erasable; (3) copies
    /// its own valid pages of the victim (copy-back) into its member of the GC super-block. A
    /// copy joins the oldest open stripe of an open GC super-block with no page on c and a parity
    /// channel ≠ c, or opens a stripe whose parity channel is fixed then (the one with most
    /// room) and whose parity slot is reserved. A member takes a copy only while its written
    /// pages + reserved parity slots + 1 ≤ pages per block; otherwise the super-block is sealed
    /// (its open stripes close at their parity planes' next turns, whose slots are reserved) and
    /// a fresh one is opened. Every stripe opened in round r is closed by the end of round
    /// r + `STRIPE_ROUNDS`. A victim copied in round r is erasable once no open stripe is from round ≤ r:
    /// copies from it joined only stripes opened in rounds ≤ r, so all of them are protected
    /// by their own parity before the victim's pages (their rebuild path until then) vanish.
    pub fn gc_op(&mut self, ftl: &mut Ftl, g: u32) -> Result<GcOp> {
        let gi = g as usize;
        if !self.gcs[gi].active {
            return Ok(GcOp::Done);
        }
        let c = self.gcs[gi].turn;
        let p = self.plane(g, c);
        let round = self.gcs[gi].round;
        loop {
            match self.gcs[gi].phase {
                Phase::Parity => {
                    let n = self.n;
                    let pick = self.gcs[gi].open.iter().position(|&s| {
                        let st = &self.stripes[s as usize];
                        st.pch == c
                            && (st.members.len() as u32 == n - 1
                                || st.round + STRIPE_ROUNDS <= round
                                || self.is_sealed(g, st.sb))
                    });
                    if let Some(k) = pick {
                        let s = self.gcs[gi].open.remove(k);
                        self.close_gc_stripe(ftl, g, c, s)?;
                        return Ok(GcOp::Parity(p));
                    }
                    self.gcs[gi].phase = Phase::Erase;
                }
                Phase::Erase => {
                    let n = self.n;
                    let oldest_open = self.gcs[gi]
                        .open
                        .iter()
                        .map(|&s| self.stripes[s as usize].round)
                        .min()
                        .unwrap_or(u64::MAX);
                    let at = self.gcs[gi]
                        .pending
                        .iter()
                        .position(|&(_, r, e)| r < oldest_open && e & (1u64 << c) == 0);
                    if let Some(k) = at {
                        let (sb, _, _) = self.gcs[gi].pending[k];
                        self.erase_member(ftl, g, c, sb);
                        self.gcs[gi].pending[k].2 |= 1u64 << c;
                        if self.gcs[gi].pending[k].2.count_ones() == n {
                            self.gcs[gi].pending.remove(k);
                            self.free_superblock(g, sb);
                        }
                        return Ok(GcOp::Erase(p));
                    }
                    self.gcs[gi].phase = Phase::Copy;
                    self.gcs[gi].cursor = 0;
                }
                Phase::Copy => {
                    let v = self.gcs[gi].victim;
                    if v != NONE {
                        let b = self.blk(g, c, v);
                        let base = b * self.ppb;
                        if let Some(from) =
                            ftl.next_valid(base + self.gcs[gi].cursor, base + self.ppb)
                        {
                            self.gcs[gi].cursor = from - base + 1;
                            self.gc_copy(ftl, g, c, from, round)?;
                            return Ok(GcOp::Copy(p));
                        }
                    }
                    return Ok(self.end_turn(ftl, g));
                }
            }
        }
    }

    fn end_turn(&mut self, ftl: &Ftl, g: u32) -> GcOp {
        let gi = g as usize;
        let st = &mut self.gcs[gi];
        st.phase = Phase::Parity;
        st.cursor = 0;
        st.turn += 1;
        if st.turn < self.n {
            return GcOp::Turn;
        }
        st.turn = 0;
        st.round += 1;
        if st.victim != NONE {
            let (v, r) = (st.victim, st.round - 1);
            st.pending.push_back((v, r, 0));
            st.victim = NONE;
        }
        // Victims pending erase count as free (they are, within two rounds).
        let want = self.free_sb[gi].len() + self.gcs[gi].pending.len() < self.threshold;
        if want {
            let v = self.pick_victim(ftl, g);
            self.gcs[gi].victim = v;
        }
        let st = &mut self.gcs[gi];
        if st.victim == NONE && st.pending.is_empty() && st.open.is_empty() {
            st.active = false;
            return GcOp::Done;
        }
        GcOp::Turn
    }

    /// Seal the `j`-th open GC super-block: it takes no more copies; its open stripes close at
    /// their parity channels' next turns (their slots are reserved).
    fn seal_gc_sb(&mut self, g: u32, j: usize) {
        let gi = g as usize;
        let (sb, _) = self.gcs[gi].gc_sbs.remove(j);
        let id = self.sb_id(g, sb) as u32;
        if !self.gcs[gi]
            .open
            .iter()
            .any(|&s| self.stripes[s as usize].sb == id)
        {
            self.sb_state[id as usize] = Sb::Full;
        }
    }

    /// Where a copy on channel `c` goes among the open GC super-blocks: (index, stripe to join
    /// or NONE with the parity channel of a new stripe). Joining an open stripe (the oldest with
    /// no page on c and a parity channel ≠ c, in any open GC super-block whose member c has
    /// room) comes before opening one, so that stripes fill.
    fn place_copy(&self, ftl: &Ftl, g: u32, c: u32) -> Option<(usize, u32, u32)> {
        let gi = g as usize;
        let n = self.n;
        let p = self.plane(g, c);
        let sbs = &self.gcs[gi].gc_sbs;
        let free = |j: usize, q: u32| {
            self.ppb - ftl.written_pages(self.blk(g, q, sbs[j].0)) - sbs[j].1[q as usize]
        };
        let join = self.gcs[gi].open.iter().copied().find_map(|s| {
            let st = &self.stripes[s as usize];
            let j = sbs
                .iter()
                .position(|e| self.sb_id(g, e.0) as u32 == st.sb)?;
            let ok = free(j, c) > 0
                && st.pch != c
                && (st.members.len() as u32) < n - 1
                && !st.members.iter().any(|&m| ftl.plane_of_ppn(m) == p);
            ok.then_some((j, s))
        });
        if let Some((j, s)) = join {
            return Some((j, s, NONE));
        }
        // A new stripe: its parity goes to the other member with most room left.
        for j in 0..sbs.len() {
            if free(j, c) == 0 {
                continue;
            }
            let q = (1..n)
                .map(|d| (c + d) % n)
                .max_by_key(|&q| (free(j, q), std::cmp::Reverse((q + n - c) % n)))?;
            if free(j, q) >= 1 {
                return Some((j, NONE, q));
            }
        }
        None
    }

    fn gc_copy(&mut self, ftl: &mut Ftl, g: u32, c: u32, from: u32, round: u64) -> Result<()> {
        let gi = g as usize;
        let (j, join, pch) = match self.place_copy(ftl, g, c) {
            Some(x) => x,
            None => {
                if self.gcs[gi].gc_sbs.len() >= MAX_OPEN_GC_SB {
                    self.seal_gc_sb(g, 0);
                }
                let sb = self.take_free_sb(g, Sb::Gc).ok_or_else(|| {
                    let st = &self.gcs[gi];
                    SsdError::DeviceFull(format!("RAIN group {g}: no free super-block for GC (round {}, {} victims pending erase, {} open GC stripes)", st.round, st.pending.len(), st.open.len()))
                })?;
                self.gcs[gi].gc_sbs.push((sb, vec![0; self.n as usize]));
                self.place_copy(ftl, g, c).ok_or_else(|| {
                    SsdError::Invalid(format!(
                        "RAIN bug: a fresh GC super-block of group {g} cannot take a copy"
                    ))
                })?
            }
        };
        let sb = self.gcs[gi].gc_sbs[j].0;
        let id = self.sb_id(g, sb) as u32;
        let s = if join != NONE {
            join
        } else {
            let s = self.new_stripe(id as usize, round, pch);
            self.gcs[gi].gc_sbs[j].1[pch as usize] += 1;
            self.gcs[gi].open.push(s);
            s
        };
        let to = ftl.rain_copy(from, self.blk(g, c, sb))?;
        self.stripes[s as usize].members.push(to);
        self.stripe_of[to as usize] = s;
        self.origin[to as usize] = from;
        // A super-block none of whose members can take another copy is sealed.
        let resv = &self.gcs[gi].gc_sbs[j].1;
        if (0..self.n).all(|q| ftl.written_pages(self.blk(g, q, sb)) + resv[q as usize] >= self.ppb)
        {
            self.seal_gc_sb(g, j);
        }
        Ok(())
    }

    fn close_gc_stripe(&mut self, ftl: &mut Ftl, g: u32, c: u32, s: u32) -> Result<()> {
        let sbid = self.stripes[s as usize].sb;
        let i = sbid % self.bpp;
        let x = self.members_xor(ftl, s);
        let pp = ftl.rain_write_parity(self.blk(g, c, i), x)?;
        let i_sb = sbid % self.bpp;
        if let Some(e) = self.gcs[g as usize].gc_sbs.iter_mut().find(|e| e.0 == i_sb) {
            e.1[c as usize] -= 1;
        }
        let st = &mut self.stripes[s as usize];
        st.parity = pp;
        self.stripe_of[pp as usize] = s;
        for k in 0..self.stripes[s as usize].members.len() {
            let m = self.stripes[s as usize].members[k];
            self.origin[m as usize] = NONE;
        }
        let len = self.stripes[s as usize].members.len() as u32;
        self.stats.gc_stripes += 1;
        self.stats.gc_parity_writes += 1;
        self.stats.gc_stripe_members += u64::from(len);
        if len < self.n - 1 {
            self.stats.gc_short_stripes += 1;
            if self.is_sealed(g, sbid) {
                self.stats.gc_short_sealed += 1;
            }
        }
        if self.is_sealed(g, sbid)
            && !self.gcs[g as usize]
                .open
                .iter()
                .any(|&o| self.stripes[o as usize].sb == sbid)
        {
            self.sb_state[sbid as usize] = Sb::Full;
        }
        Ok(())
    }

    fn erase_member(&mut self, ftl: &mut Ftl, g: u32, c: u32, i: u32) {
        let b = self.blk(g, c, i);
        let base = (b * self.ppb) as usize;
        for p in base..base + self.ppb as usize {
            self.stripe_of[p] = NONE;
            self.origin[p] = NONE;
        }
        debug_assert_eq!(ftl.block_valid(b), 0);
        ftl.rain_erase(b);
    }

    fn free_superblock(&mut self, g: u32, i: u32) {
        let id = self.sb_id(g, i);
        let ids = std::mem::take(&mut self.sb_stripes[id]);
        self.free_stripes.extend_from_slice(&ids);
        self.sb_stripes[id] = ids;
        self.sb_stripes[id].clear();
        self.sb_state[id] = Sb::Free;
        self.free_sb[g as usize].push_back(i);
        self.stats.superblocks_erased += 1;
    }

    /// The pages to XOR to rebuild the page at `ppn`: the rest of its stripe and the parity —
    /// or, when its stripe is a GC stripe still open, the rest of the stripe of the page it was
    /// copied from (still intact: the victim is erased only after the copy's stripe is closed).
    /// Returns (available, through the origin).
    pub fn rebuild_set(&self, ppn: u32, out: &mut Vec<u32>) -> (bool, bool) {
        out.clear();
        let mut at = ppn;
        let mut s = self.stripe_of[ppn as usize];
        if s == NONE {
            return (false, false);
        }
        let mut via = false;
        if self.stripes[s as usize].parity == NONE {
            at = self.origin[ppn as usize];
            if at == NONE {
                return (false, false);
            }
            s = self.stripe_of[at as usize];
            if s == NONE || self.stripes[s as usize].parity == NONE {
                return (false, false);
            }
            via = true;
        }
        let st = &self.stripes[s as usize];
        out.extend(st.members.iter().copied().filter(|&m| m != at));
        out.push(st.parity);
        (true, via)
    }

    /// Test mode: XOR the rebuild set and compare with what the host last wrote to the page.
    pub fn verify_rebuild(&mut self, ftl: &Ftl, ppn: u32, set: &[u32]) -> Result<()> {
        let Some(v) = &self.version else {
            return Ok(());
        };
        let lpn = ftl.owner(ppn).ok_or_else(|| {
            SsdError::Invalid(format!("rebuild of page {ppn}, which holds no live data"))
        })?;
        let rebuilt = set
            .iter()
            .fold(0u64, |a, &m| a ^ ftl.content(m).unwrap_or(0));
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

    /// Test mode: every closed stripe's parity equals the XOR of its members, and every live
    /// page rebuilds to what the host wrote. Returns (pages verified, live pages in an open
    /// host stripe, i.e. not yet protected).
    pub fn audit(&mut self, ftl: &Ftl) -> Result<(u64, u64)> {
        if self.version.is_none() {
            return Ok((0, 0));
        }
        for (i, st) in self.stripes.iter().enumerate() {
            // (A victim being erased member by member no longer holds all of its stripes; its
            // pages are copied already and only served as rebuild paths until then.)
            let intact = st
                .members
                .iter()
                .all(|&m| self.stripe_of[m as usize] == i as u32);
            if st.parity != NONE && self.stripe_of[st.parity as usize] == i as u32 && intact {
                let x = self.members_xor(ftl, i as u32);
                if ftl.content(st.parity) != Some(x) {
                    return Err(SsdError::Invalid(format!(
                        "RAIN bug: stripe {i} parity {:#x?} != XOR of members {x:#x}",
                        ftl.content(st.parity)
                    )));
                }
            }
        }
        let mut set = std::mem::take(&mut self.scratch);
        let (mut ok, mut open) = (0, 0);
        for lpn in 0..ftl.logical_pages() {
            let Some(ppn) = ftl.lookup(lpn) else { continue };
            if self.rebuild_set(ppn, &mut set).0 {
                self.verify_rebuild(ftl, ppn, &set)?;
                ok += 1;
            } else {
                open += 1;
            }
        }
        self.scratch = set;
        Ok((ok, open))
    }
}
