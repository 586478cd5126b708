//! Stripe-group GC of the RAIN layer: per group, rounds over the channels; at its turn a plane
//! closes due GC stripes with their parity, erases the members of collected victims that are
//! safe to erase, and copies its valid pages of the round's victim into an open GC super-block
//! (see the module docs of [`crate::ftl::rain`] for the rules and why they keep parity correct).

use super::group_state::{OpenGc, Phase};
use super::superblock::{Rain, Sb, MAX_OPEN_GC_SB, NONE, STRIPE_ROUNDS};
use crate::config::VictimPolicy;
use crate::error::{Result, SsdError};
use crate::ftl::map::Ftl;

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

impl Rain {
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
        let st = &self.gcs[g as usize];
        match (st.phase, self.drain_next(g)) {
            (Phase::Drain, Some((_, ch))) => self.plane(g, ch),
            _ => self.plane(g, st.turn),
        }
    }
    /// A drain's next operation: close the oldest open stripe (true, on its parity channel),
    /// else erase the next member of the oldest pending victim (false, on that channel). With
    /// the open stripes' parity in RAM no victim waits for a stripe, so only erases remain.
    fn drain_next(&self, g: u32) -> Option<(bool, u32)> {
        let st = &self.gcs[g as usize];
        if let (false, Some(o)) = (self.ram_parity, st.open.first()) {
            return Some((true, o.pch));
        }
        st.pending
            .front()
            .map(|&(_, _, erased)| (false, (!erased).trailing_zeros()))
    }
    /// Erase channel `c`'s member of the `k`-th victim pending erase; once all are erased the
    /// super-block is free.
    fn erase_pending_member(&mut self, ftl: &mut Ftl, g: u32, k: usize, c: u32) {
        let gi = g as usize;
        let sb = self.gcs[gi].pending[k].0;
        self.erase_member(ftl, g, c, sb);
        self.gcs[gi].pending[k].2 |= 1u64 << c;
        if self.gcs[gi].pending[k].2.count_ones() == self.n {
            self.gcs[gi].pending.remove(k);
            self.free_superblock(g, sb);
        }
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
    /// The next victim super-block of group `g`, chosen by `gc.victim` through the FTL's
    /// victim index over super-blocks (O(1)); none when the pick holds a whole super-block of
    /// data, (N − 1) · pages per block valid pages, since cleaning it would free nothing.
    ///
    /// Greedy looks at the N super-blocks with the fewest valid pages and takes the one whose
    /// *fullest member* has the fewest (ties: fewest in total, then the index's order).
    /// Copy-back keeps every copy on its plane, so collecting a super-block takes as many
    /// pages of a GC super-block's member on each plane as the victim has valid there, and a
    /// GC super-block is used up when its first member is: what a victim frees is set by its
    /// fullest member, not by its total. Greedy on the total alone picked freshly sealed GC
    /// super-blocks (few valid pages in all, one member full), whose copies sealed a new GC
    /// super-block of the same shape at once: every round freed one super-block and used one,
    /// and GC livelocked (CloudPhysics on the `ttflash` preset at 10 % spare). N candidates
    /// (a round's worth of turns) is our choice; the paper picks per plane and says nothing of
    /// super-blocks. Other policies keep their own pick.
    pub(super) fn pick_victim(&mut self, ftl: &mut Ftl, g: u32) -> u32 {
        let cap = (self.n - 1) * self.ppb;
        let Some(first) = ftl.external().select_unit(g, &mut self.victim_rng, cap - 1) else {
            return NONE;
        };
        let id = if ftl.external().victim_policy() == VictimPolicy::Greedy {
            self.fullest_member_pick(ftl, g, first, cap - 1)
        } else {
            first
        };
        self.sb_state[id as usize] = Sb::Victim;
        self.stats.superblocks_collected += 1;
        id % self.bpp
    }
    /// Greedy's pick among `first` and the next N − 1 candidates (see [`Self::pick_victim`]);
    /// the others go back to the index.
    fn fullest_member_pick(&mut self, ftl: &mut Ftl, g: u32, first: u32, max_valid: u32) -> u32 {
        let mut cands = std::mem::take(&mut self.scratch);
        cands.clear();
        cands.push(first);
        while cands.len() < self.n as usize {
            match ftl
                .external()
                .select_unit(g, &mut self.victim_rng, max_valid)
            {
                Some(u) => cands.push(u),
                None => break,
            }
        }
        let key = |u: u32| {
            let i = u % self.bpp;
            let (mut fullest, mut total) = (0, 0);
            for c in 0..self.n {
                let v = ftl.block_valid(self.blk(g, c, i));
                fullest = fullest.max(v);
                total += v;
            }
            (fullest, total)
        };
        let best = (0..cands.len()).min_by_key(|&k| key(cands[k])).unwrap_or(0);
        let id = cands[best];
        for (k, &u) in cands.iter().enumerate() {
            if k != best {
                ftl.external().return_unit(u);
            }
        }
        self.scratch = cands;
        id
    }
    pub(super) fn is_sealed(&self, g: u32, sb: u32) -> bool {
        !self.gcs[g as usize]
            .gc_sbs
            .iter()
            .any(|&(i, _)| self.sb_id(g, i) as u32 == sb)
    }
    /// One GC operation of group `g`'s stripe-group GC, applied to the FTL.
    ///
    /// Rounds: in round r the victim picked at its start is copied member by member (turn c =
    /// channel c). At its turn plane c (1) writes the parity of every open stripe whose parity
    /// channel is c and that is full (N − 1 members), in a sealed super-block, or (open stripes
    /// protected by victims, `rain.open_parity = "victim"`) `STRIPE_ROUNDS` rounds old; (2)
    /// erases its member of every pending victim that is erasable; (3) copies
    /// its own valid pages of the victim (copy-back) into its member of the GC super-block. A
    /// copy joins the oldest open stripe of an open GC super-block with no page on c and a parity
    /// channel ≠ c, or opens a stripe whose parity channel is fixed then (the one with most
    /// room) and whose parity slot is reserved. A member takes a copy only while its written
    /// pages + reserved parity slots + 1 ≤ pages per block; otherwise the super-block is sealed
    /// (its open stripes close at their parity planes' next turns, whose slots are reserved) and
    /// a fresh one is opened. With the open stripes' parity in RAM (`rain.open_parity =
    /// "ram"`, the default) a copy is protected at once, so a victim is erasable as soon as it
    /// is copied (in the next round), and its stripes wait for copies until full or sealed.
    /// Otherwise every stripe opened in round r is closed by the end of round
    /// r + `STRIPE_ROUNDS`, and a victim copied in round r is erasable once no open stripe is
    /// from round ≤ r: copies from it joined only stripes opened in rounds ≤ r, so all of them
    /// are protected by their own parity before the victim's pages (their rebuild path until
    /// then) vanish.
    ///
    /// Drain: when a copy finds no open GC super-block with room and no free super-block, but
    /// victims wait for erase (or, protected by them, stripes are open), GC closes every open
    /// stripe short when its victims wait for it (each a parity program on its own channel,
    /// into its reserved slot) and then erases every pending victim, member by member, before
    /// it copies on. Until then the pipeline of
    /// `STRIPE_ROUNDS` rounds holds up to three victims' worth of super-blocks; draining it
    /// frees them at once, at the price of short stripes (`RainStats::gc_drains` counts it).
    /// With no free super-block and nothing open or pending it still stops with `DeviceFull`.
    /// Each drain deepens the group's reserve ([`Rain::gc_reserve`]), so a device whose
    /// victims need more room than the floor leaves soon stops draining.
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
                    let aged = !self.ram_parity;
                    let pick = self.gcs[gi].open.iter().position(|o| {
                        o.pch == c && {
                            let st = &self.stripes[o.s as usize];
                            st.members.len() as u32 == n - 1
                                || (aged && st.round + STRIPE_ROUNDS <= round)
                                || self.is_sealed(g, st.sb)
                        }
                    });
                    if let Some(k) = pick {
                        let s = self.gcs[gi].open.remove(k).s;
                        self.close_gc_stripe(ftl, g, c, s)?;
                        return Ok(GcOp::Parity(p));
                    }
                    self.gcs[gi].phase = Phase::Erase;
                }
                Phase::Erase => {
                    // `open` is in creation order, and a stripe's round is its creation's. With
                    // the open stripes' parity in RAM, every copy is protected at once.
                    let oldest_open = match self.gcs[gi].open.first() {
                        Some(o) if !self.ram_parity => self.stripes[o.s as usize].round,
                        _ => u64::MAX,
                    };
                    debug_assert!(self.gcs[gi]
                        .open
                        .iter()
                        .all(|o| self.stripes[o.s as usize].round >= oldest_open));
                    let at = self.gcs[gi]
                        .pending
                        .iter()
                        .position(|&(_, r, e)| r < oldest_open && e & (1u64 << c) == 0);
                    if let Some(k) = at {
                        self.erase_pending_member(ftl, g, k, c);
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
                            if self.gc_copy(ftl, g, c, from, round)? {
                                self.gcs[gi].cursor = from - base + 1;
                                return Ok(GcOp::Copy(p));
                            }
                            // A step of no work, so that the next one's plane
                            // (`gc_plane`) is the drain's.
                            self.gcs[gi].phase = Phase::Drain;
                            self.gcs[gi].drains += 1;
                            self.stats.gc_drains += 1;
                            return Ok(GcOp::Turn);
                        }
                    }
                    return Ok(self.end_turn(ftl, g));
                }
                Phase::Drain => match self.drain_next(g) {
                    Some((true, ch)) => {
                        let s = self.gcs[gi].open.remove(0).s;
                        self.close_gc_stripe(ftl, g, ch, s)?;
                        return Ok(GcOp::Parity(self.plane(g, ch)));
                    }
                    Some((false, ch)) => {
                        self.erase_pending_member(ftl, g, 0, ch);
                        return Ok(GcOp::Erase(self.plane(g, ch)));
                    }
                    None => self.gcs[gi].phase = Phase::Copy,
                },
            }
        }
    }
    pub(super) fn end_turn(&mut self, ftl: &mut Ftl, g: u32) -> GcOp {
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
        let want = self.free_sb[gi].len() + self.gcs[gi].pending.len() < self.gc_trigger(g);
        if want {
            let v = self.pick_victim(ftl, g);
            self.gcs[gi].victim = v;
        }
        let st = &mut self.gcs[gi];
        // Open stripes whose parity is in RAM may wait for the next session.
        if st.victim == NONE && st.pending.is_empty() && (self.ram_parity || st.open.is_empty()) {
            st.active = false;
            return GcOp::Done;
        }
        GcOp::Turn
    }
    /// Seal the `j`-th open GC super-block: it takes no more copies; its open stripes close at
    /// their parity channels' next turns (their slots are reserved).
    pub(super) fn seal_gc_sb(&mut self, ftl: &mut Ftl, g: u32, j: usize) {
        let gi = g as usize;
        let (sb, _) = self.gcs[gi].gc_sbs.remove(j);
        let id = self.sb_id(g, sb) as u32;
        if !self.gcs[gi]
            .open
            .iter()
            .any(|o| self.stripes[o.s as usize].sb == id)
        {
            self.mark_full(ftl, id as usize);
        }
    }
    /// Where a copy on channel `c` goes among the open GC super-blocks: (index, stripe to join
    /// or NONE with the parity channel of a new stripe). Joining an open stripe (the oldest with
    /// no page on c and a parity channel ≠ c, in any open GC super-block whose member c has
    /// room) comes before opening one, so that stripes fill.
    pub(super) fn place_copy(&mut self, ftl: &Ftl, g: u32, c: u32) -> Option<(usize, u32, u32)> {
        let (gi, ci) = (g as usize, c as usize);
        // The oldest open stripe that can take a page on c: the front of c's index once the
        // stripes that can no longer are dropped (each is dropped once; see `joinable`).
        let join = loop {
            let Some(&(s, seq)) = self.gcs[gi].joinable[ci].front() else {
                break None;
            };
            if let Some(j) = self.can_join(ftl, g, c, s, seq) {
                break Some((j, s));
            }
            self.gcs[gi].joinable[ci].pop_front();
        };
        if cfg!(debug_assertions) || self.version.is_some() {
            self.check_place_index(ftl, g, c, join.map(|(_, s)| s));
        }
        if let Some((j, s)) = join {
            return Some((j, s, NONE));
        }
        // A new stripe: its parity goes to the other member with most room left.
        let n = self.n;
        for (j, (_, room)) in self.gcs[gi].gc_sbs.iter().enumerate() {
            if room[ci] == 0 {
                continue;
            }
            // The most room; among equals, the nearest after c.
            let mut q = (c + 1) % n;
            for d in 2..n {
                let r = (c + d) % n;
                if room[r as usize] > room[q as usize] {
                    q = r;
                }
            }
            if n > 1 && room[q as usize] >= 1 {
                return Some((j, NONE, q));
            }
        }
        None
    }
    /// Debug builds and the checking mode (`Rain::new`'s `check`, the tests'): the index gives
    /// what a scan of every open stripe gives, and each open GC super-block's room is what the
    /// FTL and the open stripes' reservations say.
    fn check_place_index(&self, ftl: &Ftl, g: u32, c: u32, join: Option<u32>) {
        let st = &self.gcs[g as usize];
        let scan = st.open.iter().map(|o| o.s).find(|&s| {
            self.can_join(ftl, g, c, s, self.stripes[s as usize].seq)
                .is_some()
        });
        assert_eq!(join, scan, "RAIN GC stripe index (group {g}, channel {c})");
        for (sb, room) in &st.gc_sbs {
            let id = self.sb_id(g, *sb) as u32;
            for q in 0..self.n {
                let reserved = st
                    .open
                    .iter()
                    .filter(|o| o.pch == q && self.stripes[o.s as usize].sb == id)
                    .count() as u32;
                let written = ftl.written_pages(self.blk(g, q, *sb));
                assert_eq!(
                    room[q as usize] + written + reserved,
                    self.ppb,
                    "RAIN GC room"
                );
            }
        }
    }
    /// Whether open GC stripe `s` (created as `seq`) can take a copy on channel `c`, and into
    /// which open GC super-block: it has no page on c, fewer than N − 1 members, its parity on
    /// another channel, and its super-block is open with room on member c (written pages +
    /// reserved parity slots < pages per block). Once false it stays false while the stripe is
    /// open: pages and reservations only grow, a sealed super-block is never reopened.
    fn can_join(&self, ftl: &Ftl, g: u32, c: u32, s: u32, seq: u64) -> Option<usize> {
        let st = &self.stripes[s as usize];
        if st.seq != seq
            || st.parity != NONE
            || st.pch == c
            || st.members.len() as u32 >= self.n - 1
        {
            return None;
        }
        let on_c = if c < 64 {
            st.channels & (1 << c) != 0
        } else {
            let p = self.plane(g, c);
            st.members.iter().any(|&m| ftl.plane_of_ppn(m) == p)
        };
        if on_c {
            return None;
        }
        let sbs = &self.gcs[g as usize].gc_sbs;
        let j = sbs
            .iter()
            .position(|e| self.sb_id(g, e.0) as u32 == st.sb)?;
        (sbs[j].1[c as usize] > 0).then_some(j)
    }
    pub(super) fn gc_copy(
        &mut self,
        ftl: &mut Ftl,
        g: u32,
        c: u32,
        from: u32,
        round: u64,
    ) -> Result<bool> {
        let gi = g as usize;
        let (j, join, pch) = match self.place_copy(ftl, g, c) {
            Some(x) => x,
            None => {
                let st = &self.gcs[gi];
                // A drain frees something only if victims wait (for erase, or, protected by
                // them, for their copies' stripes to close).
                let waiting = !st.pending.is_empty() || (!self.ram_parity && !st.open.is_empty());
                if self.free_sb[gi].is_empty() && waiting {
                    return Ok(false);
                }
                if self.gcs[gi].gc_sbs.len() >= MAX_OPEN_GC_SB {
                    self.seal_gc_sb(ftl, g, 0);
                }
                let sb = self.take_free_sb(g, Sb::Gc).ok_or_else(|| {
                    let st = &self.gcs[gi];
                    SsdError::DeviceFull(format!("RAIN group {g}: no free super-block for GC (round {}, {} victims pending erase, {} open GC stripes)", st.round, st.pending.len(), st.open.len()))
                })?;
                self.gcs[gi]
                    .gc_sbs
                    .push((sb, vec![self.ppb; self.n as usize]));
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
            self.gcs[gi].gc_sbs[j].1[pch as usize] -= 1;
            self.gcs[gi].open.push(OpenGc { s, pch });
            self.open_gc += 1;
            self.stats.open_gc_stripes_max = self.stats.open_gc_stripes_max.max(self.open_gc);
            let seq = self.stripes[s as usize].seq;
            for q in (0..self.n).filter(|&q| q != pch && q != c) {
                let queue = &mut self.gcs[gi].joinable[q as usize];
                queue.push_back((s, seq));
                // A channel with no copies for a while lets its index grow: compact it.
                if queue.len() > 64 + 4 * self.gcs[gi].open.len() {
                    let mut queue = std::mem::take(&mut self.gcs[gi].joinable[q as usize]);
                    queue.retain(|&(s, seq)| self.can_join(ftl, g, q, s, seq).is_some());
                    self.gcs[gi].joinable[q as usize] = queue;
                }
            }
            s
        };
        let to = ftl.external().copy(from, self.blk(g, c, sb))?;
        self.gcs[gi].gc_sbs[j].1[c as usize] -= 1;
        self.stripes[s as usize].add(to, c);
        self.stripes[s as usize].partial ^= ftl.content(to).unwrap_or(0);
        self.stripe_of[to as usize] = s;
        if !self.ram_parity {
            self.origin[to as usize] = from;
        }
        // A super-block none of whose members can take another copy is sealed.
        if self.gcs[gi].gc_sbs[j].1.iter().all(|&room| room == 0) {
            self.seal_gc_sb(ftl, g, j);
        }
        Ok(true)
    }
    pub(super) fn close_gc_stripe(&mut self, ftl: &mut Ftl, g: u32, c: u32, s: u32) -> Result<()> {
        let sbid = self.stripes[s as usize].sb;
        let i = sbid % self.bpp;
        let x = self.closing_parity(ftl, s)?;
        let pp = ftl.external().write_parity(self.blk(g, c, i), x)?;
        self.open_gc -= 1;
        let st = &mut self.stripes[s as usize];
        st.parity = pp;
        self.stripe_of[pp as usize] = s;
        if !self.ram_parity {
            for k in 0..self.stripes[s as usize].members.len() {
                let m = self.stripes[s as usize].members[k];
                self.origin[m as usize] = NONE;
            }
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
                .any(|o| self.stripes[o.s as usize].sb == sbid)
        {
            self.mark_full(ftl, sbid as usize);
        }
        Ok(())
    }
    pub(super) fn erase_member(&mut self, ftl: &mut Ftl, g: u32, c: u32, i: u32) {
        let b = self.blk(g, c, i);
        let pages = (b * self.ppb) as usize..((b + 1) * self.ppb) as usize;
        self.stripe_of[pages.clone()].fill(NONE);
        if !self.ram_parity {
            self.origin[pages].fill(NONE);
        }
        debug_assert_eq!(ftl.block_valid(b), 0);
        ftl.external().erase(b);
    }
    pub(super) fn free_superblock(&mut self, g: u32, i: u32) {
        let id = self.sb_id(g, i);
        let ids = std::mem::take(&mut self.sb_stripes[id]);
        self.free_stripes.extend_from_slice(&ids);
        self.sb_stripes[id] = ids;
        self.sb_stripes[id].clear();
        self.sb_state[id] = Sb::Free;
        self.free_sb[g as usize].push_back(i);
        self.stats.superblocks_erased += 1;
    }
}
