//! Super-block allocation and host stripes of the RAIN layer: the super-block table, free
//! super-blocks per group, the open host stripe and its parity. See the module docs of
//! [`crate::ftl::rain`].

use std::collections::VecDeque;

use crate::error::Result;
use crate::ftl::map::{Ftl, UnitLayout};
use crate::rng::{self, SimRng};
use crate::stats::RainStats;

use super::group_state::GroupGc;
use super::page_checksum;

pub(super) use super::group_state::NONE;
/// Free super-blocks of a group the host may not take (kept for GC frontiers); GC starts
/// below this + 2 (or the device's `gc.threshold_blocks`, if more). The paper says nothing of
/// super-block reserves. Measured (ttflash, 1M requests, 40 % spare; extra erases over nogc at
/// 64 / 256 blocks per plane): reserve 4 and trigger 7, +34.1 / +25.3 %; 3 and 5, +26.7 /
/// +23.9 %; 2 and 4, +23.7 / +23.5 %. Below 4 a collecting group can run out in the middle of
/// its pipeline (up to `STRIPE_ROUNDS` + 1 victims copied, not yet erased); it then drains
/// (`Rain::gc_op`), which costs short stripes only where that happens (at 10 % spare, with open
/// stripes protected by their victims), and deepens its reserve. With the open stripes' parity
/// in RAM (the default) the pipeline holds one victim and no group has drained in any run.
pub(super) const GC_RESERVE: usize = 2;
/// How much deeper a group's reserve grows, one super-block per drain (never back): a drain
/// says this device's victims need more room than the floor left. Up to the round-10
/// reserve of 4. With open stripes protected by their victims, on the `ttflash` preset at 10 %
/// spare the groups get there while preconditioning, and TPC-C stitched 32× slower then erases
/// 18,384 blocks against 20,208 with a fixed floor of 2 (docs/ttflash.md, round 11). At 40 %
/// spare, or with the open stripes' parity in RAM, no group drains.
pub(super) const MAX_EXTRA_RESERVE: usize = 2;
/// With open GC stripes protected by their victims (`rain.open_parity = "victim"`): rounds a GC
/// stripe stays open for copies of later victims before it is closed short (the
/// copies of one victim are unevenly spread over its members — copy-back keeps each on its
/// plane — so the next victims' copies fill its stripes; measured on the test device at 40 %
/// spare: 1 round, 4.93 members per GC stripe of 7; 2 rounds, 5.34 and 5 % fewer erases;
/// 4 rounds, no better).
pub(super) const STRIPE_ROUNDS: u64 = 2;
/// GC super-blocks a group keeps open for copies (copy-back keeps each page on its plane, so
/// one member fills before the others; a second open super-block takes its overflow).
pub(super) const MAX_OPEN_GC_SB: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sb {
    Free,
    Host,
    Gc,
    Full,
    Victim,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Stripe {
    pub(super) members: Vec<u32>,
    pub(super) parity: u32,
    pub(super) sb: u32,
    pub(super) round: u64,
    /// Channel of the parity page (GC stripes: fixed when the stripe is created).
    pub(super) pch: u32,
    /// Channels (below 64) its data pages are on: what `can_join` asks of a GC stripe at a
    /// copy, without scanning the members.
    pub(super) channels: u64,
    /// Creation number (ids are reused): tells an index entry of a closed stripe from the
    /// stripe that reused its id.
    pub(super) seq: u64,
    /// Running XOR of its data pages' contents (test mode; 0 otherwise): the parity RAM holds
    /// while the stripe is open (`rain.open_parity = "ram"`).
    pub(super) partial: u64,
}

impl Stripe {
    /// Add data page `ppn`, on channel `c`.
    pub(super) fn add(&mut self, ppn: u32, c: u32) {
        self.members.push(ppn);
        if c < 64 {
            self.channels |= 1 << c;
        }
    }
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
    pub(super) n: u32,
    pub(super) groups: u32,
    pub(super) bpp: u32,
    pub(super) ppb: u32,
    pub(super) threshold: usize,
    pub(super) sb_state: Vec<Sb>,
    pub(super) sb_stripes: Vec<Vec<u32>>,
    pub(super) free_sb: Vec<VecDeque<u32>>,
    pub(super) host_sb: Vec<u32>,
    pub(super) next_group: u32,
    /// The open host stripe: id, group, parity channel, data pages written.
    pub(super) hs: u32,
    pub(super) hs_group: u32,
    pub(super) hs_pch: u32,
    pub(super) hs_filled: u32,
    pub(super) gcs: Vec<GroupGc>,
    /// Open stripes' parity is in RAM (`rain.open_parity = "ram"`): their pages are
    /// rebuildable, so victims need not wait for their copies' stripes to close.
    pub(super) ram_parity: bool,
    /// GC stripes open now, over all groups.
    pub(super) open_gc: u64,
    pub(super) stripes: Vec<Stripe>,
    pub(super) free_stripes: Vec<u32>,
    /// Stripes created so far (`Stripe::seq`).
    pub(super) stripes_created: u64,
    pub(super) stripe_of: Vec<u32>,
    /// The page each GC copy came from, its rebuild path while its stripe is open (`rain.
    /// open_parity = "victim"`; empty with the open stripes' parity in RAM).
    pub(super) origin: Vec<u32>,
    pub(super) version: Option<Vec<u32>>,
    pub(super) scratch: Vec<u32>,
    /// Random and d-choices victim policies draw from here (its own stream of the run's seed).
    pub(super) victim_rng: SimRng,
    pub stats: RainStats,
}

impl Rain {
    /// RAIN over `channels` channels × `groups` planes each; `check` tracks page contents as
    /// checksums (tests) so that every rebuild is verified; `ram_parity`: open stripes' parity
    /// is kept in RAM (`rain.open_parity`).
    pub fn new(
        ftl: &mut Ftl,
        channels: u32,
        groups: u32,
        threshold: u32,
        check: bool,
        seed: u64,
        ram_parity: bool,
    ) -> Self {
        let bpp = ftl.blocks_per_plane();
        // Super-block i of group g is block i of plane(g, c) on every channel c; its id
        // (g · bpp + i) is its unit in the FTL's victim index, so that victims are picked per
        // group, by `gc.victim`, over super-blocks.
        let total = ftl.planes() * bpp;
        let unit_of_block = (0..total)
            .map(|b| (b / bpp) % groups * bpp + b % bpp)
            .collect();
        ftl.hand_over_allocation(UnitLayout {
            groups,
            units_per_group: bpp,
            unit_of_block,
        });
        if check {
            ftl.enable_content();
        }
        let phys = (ftl.planes() * bpp * ftl.pages_per_block()) as usize;
        assert!(channels <= 64, "RAIN: at most 64 channels");
        let gc = GroupGc::new(channels);
        Rain {
            n: channels,
            groups,
            bpp,
            ppb: ftl.pages_per_block(),
            threshold: threshold as usize,
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
            ram_parity,
            open_gc: 0,
            stripes: Vec::new(),
            free_stripes: Vec::new(),
            stripes_created: 0,
            stripe_of: vec![NONE; phys],
            // Only rebuilds through the victim read it (`rain.open_parity = "victim"`).
            origin: if ram_parity {
                Vec::new()
            } else {
                vec![NONE; phys]
            },
            version: check.then(|| vec![0; ftl.logical_pages() as usize]),
            scratch: Vec::new(),
            victim_rng: rng::stream(seed, "rain-victim"),
            stats: RainStats::default(),
        }
    }
    pub fn groups(&self) -> u32 {
        self.groups
    }
    pub(super) fn plane(&self, g: u32, c: u32) -> u32 {
        c * self.groups + g
    }
    pub(super) fn blk(&self, g: u32, c: u32, i: u32) -> u32 {
        self.plane(g, c) * self.bpp + i
    }
    pub(super) fn sb_id(&self, g: u32, i: u32) -> usize {
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
    pub fn gc_reserve(&self, g: u32) -> usize {
        GC_RESERVE + (self.gcs[g as usize].drains as usize).min(MAX_EXTRA_RESERVE)
    }
    /// GC starts on group `g` below this many free super-blocks (victims pending erase
    /// counted): two above its reserve, or the device's `gc.threshold_blocks` if more.
    pub(super) fn gc_trigger(&self, g: u32) -> usize {
        self.threshold.max(self.gc_reserve(g) + 2)
    }
    pub fn needs_gc(&self, g: u32) -> bool {
        self.free_sb[g as usize].len() < self.gc_trigger(g)
    }
    pub(super) fn new_stripe(&mut self, sb: usize, round: u64, pch: u32) -> u32 {
        let id = match self.free_stripes.pop() {
            Some(id) => {
                // Reused stripes are cold (freed with their super-block long ago): fetch the
                // record of the one after next, and the member list of the next (its record
                // was fetched by the previous call), while this one is filled.
                let k = self.free_stripes.len();
                if k >= 2 {
                    crate::ftl::map::prefetch(&self.stripes, self.free_stripes[k - 2] as usize);
                }
                if let Some(&next) = self.free_stripes.last() {
                    let m = &self.stripes[next as usize].members;
                    crate::ftl::map::prefetch(m, 0);
                }
                id
            }
            None => {
                self.stripes.push(Stripe::default());
                self.stripes.len() as u32 - 1
            }
        };
        let s = &mut self.stripes[id as usize];
        s.members.clear();
        s.channels = 0;
        s.parity = NONE;
        s.sb = sb as u32;
        s.round = round;
        s.pch = pch;
        s.partial = 0;
        s.seq = self.stripes_created;
        self.stripes_created += 1;
        self.sb_stripes[sb].push(id);
        id
    }
    /// Super-block `id` takes no more pages: it becomes a GC candidate (once).
    pub(super) fn mark_full(&mut self, ftl: &mut Ftl, id: usize) {
        if self.sb_state[id] != Sb::Full {
            self.sb_state[id] = Sb::Full;
            ftl.external().close_unit(id as u32);
        }
    }
    pub(super) fn take_free_sb(&mut self, g: u32, state: Sb) -> Option<u32> {
        let i = self.free_sb[g as usize].pop_front()?;
        let id = self.sb_id(g, i);
        self.sb_state[id] = state;
        Some(i)
    }
    /// The group the next host stripe goes to (rotating over groups with room), or Err(group)
    /// when no group can take one without GC first.
    pub(super) fn host_group(&mut self, ftl: &Ftl) -> std::result::Result<u32, u32> {
        for d in 0..self.groups {
            let g = (self.next_group + d) % self.groups;
            let h = self.host_sb[g as usize];
            let room = h != NONE && ftl.written_pages(self.blk(g, 0, h)) < self.ppb;
            if room || self.free_sb[g as usize].len() > self.gc_reserve(g) {
                return Ok(g);
            }
        }
        Err(self.next_group)
    }
    /// Where the next host data page goes, opening a stripe if needed; Err(group) when GC must
    /// run first (forced) on that group.
    pub fn next_data_plane(&mut self, ftl: &mut Ftl) -> std::result::Result<u32, u32> {
        if self.hs == NONE {
            let g = self.host_group(ftl)?;
            self.next_group = (g + 1) % self.groups;
            let mut h = self.host_sb[g as usize];
            if h == NONE || ftl.written_pages(self.blk(g, 0, h)) == self.ppb {
                if h != NONE {
                    self.mark_full(ftl, self.sb_id(g, h));
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
        let ppn = ftl.external().write_host(lpn, self.blk(g, ch, h))?;
        let c = match &mut self.version {
            Some(v) => {
                v[lpn as usize] += 1;
                page_checksum(lpn, v[lpn as usize])
            }
            None => 0,
        };
        ftl.external().set_content(ppn, c);
        let s = self.hs;
        self.stripes[s as usize].add(ppn, ch);
        self.stripes[s as usize].partial ^= c;
        self.stripe_of[ppn as usize] = s;
        self.hs_filled += 1;
        let mut out = HostWrite {
            plane: self.plane(g, ch),
            parity_plane: None,
        };
        if self.hs_filled == self.n - 1 {
            let x = self.closing_parity(ftl, s)?;
            let pp = ftl
                .external()
                .write_parity(self.blk(g, self.hs_pch, h), x)?;
            self.stripes[s as usize].parity = pp;
            self.stripe_of[pp as usize] = s;
            self.hs = NONE;
            self.stats.host_stripes += 1;
            self.stats.host_parity_writes += 1;
            out.parity_plane = Some(self.plane(g, self.hs_pch));
            if ftl.written_pages(self.blk(g, 0, h)) == self.ppb {
                self.mark_full(ftl, self.sb_id(g, h));
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
    /// The parity of stripe `s` as it closes: the XOR of its members, which in test mode
    /// must equal the running parity kept while it was open.
    pub(super) fn closing_parity(&self, ftl: &Ftl, s: u32) -> Result<u64> {
        let x = self.members_xor(ftl, s);
        if self.version.is_some() && x != self.stripes[s as usize].partial {
            return Err(crate::error::SsdError::Invalid(format!(
                "RAIN bug: stripe {s}'s running parity {:#x} != XOR of its members {x:#x}",
                self.stripes[s as usize].partial
            )));
        }
        Ok(x)
    }
    pub(super) fn members_xor(&self, ftl: &Ftl, s: u32) -> u64 {
        self.stripes[s as usize]
            .members
            .iter()
            .fold(0u64, |a, &m| a ^ ftl.content(m).unwrap_or(0))
    }
}
