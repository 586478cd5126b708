//! The compact FTL of the offline-cleaning model (Shafaei & Desnoyers, §II): T blocks of N_p
//! pages, one write frontier shared by host writes and cleaning copies, demand cleaning. When a
//! write arrives and the frontier block is full, a victim block with v < N_p valid pages is
//! chosen; its v valid pages are moved to its pages 0..v, it becomes the frontier at page v, and
//! the write proceeds. Every mutation can be logged in an undo log so a search branches and rolls
//! back without copying the state (one log entry per host write, one per cleaning plus the
//! victim's N_p slots).

use super::future::FutureIndex;

/// "No page": an unmapped logical page, an invalid or erased physical slot.
pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Undo {
    /// A host write of `lpn` that invalidated `old_slot` (or [`NONE`]).
    Write { lpn: u32, old_slot: u32 },
    /// A cleaning of `block`; its pre-cleaning slots are the last N_p entries of `saved`.
    Clean {
        block: u32,
        prev_fb: u32,
        prev_fp: u32,
        prev_stamp: u32,
    },
}

/// The device state. Slot `s` is page `s % N_p` of block `s / N_p`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    np: u32,
    blocks: u32,
    l2p: Vec<u32>,
    /// Logical page stored at each slot, [`NONE`] if invalid or erased.
    p2l: Vec<u32>,
    /// Write position (in the [`FutureIndex`] sequence) that created the data at each slot;
    /// kept when the slot is invalidated (undo needs it), [`NONE`] when erased and unwritten.
    born: Vec<u32>,
    valid: Vec<u32>,
    /// Clock value when each block was last chosen as a victim (its "open" time).
    stamp: Vec<u32>,
    /// One bitset of blocks per valid count 0..=N_p, for O(T/64) greedy with lowest-index ties.
    level_bits: Vec<u64>,
    level_count: Vec<u32>,
    words: usize,
    fb: u32,
    fp: u32,
    t: u32,
    internal: u64,
    schedule: Vec<u32>,
    logging: bool,
    log: Vec<Undo>,
    saved: Vec<(u32, u32)>,
}

impl Model {
    /// An empty device: all blocks erased, the frontier at page 0 of block 0 (§II: W = (1, 1)).
    /// Geometry is validated by the caller (`OfflineConfig::validate`).
    pub fn new(blocks: u32, pages_per_block: u32, logical_pages: u32) -> Self {
        let slots = blocks as usize * pages_per_block as usize;
        let words = (blocks as usize).div_ceil(64);
        let levels = pages_per_block as usize + 1;
        let mut level_bits = vec![0u64; levels * words];
        for b in 0..blocks as usize {
            level_bits[b / 64] |= 1u64 << (b % 64);
        }
        let mut level_count = vec![0u32; levels];
        level_count[0] = blocks;
        Model {
            np: pages_per_block,
            blocks,
            l2p: vec![NONE; logical_pages as usize],
            p2l: vec![NONE; slots],
            born: vec![NONE; slots],
            valid: vec![0; blocks as usize],
            stamp: vec![0; blocks as usize],
            level_bits,
            level_count,
            words,
            fb: 0,
            fp: 0,
            t: 0,
            internal: 0,
            schedule: Vec::new(),
            logging: false,
            log: Vec::new(),
            saved: Vec::new(),
        }
    }

    /// Turn undo logging on or off (off for one-shot replays; on for searches).
    pub fn set_logging(&mut self, on: bool) {
        self.logging = on;
    }

    pub fn pages_per_block(&self) -> u32 {
        self.np
    }
    pub fn blocks(&self) -> u32 {
        self.blocks
    }
    /// Position of the next write in the [`FutureIndex`] sequence.
    pub fn clock(&self) -> u32 {
        self.t
    }
    /// Valid pages in block `b`.
    #[inline]
    pub fn valid(&self, b: u32) -> u32 {
        self.valid[b as usize]
    }
    /// Clock value when `b` was last chosen as a victim.
    pub fn stamp(&self, b: u32) -> u32 {
        self.stamp[b as usize]
    }
    /// Pages copied by cleaning so far.
    pub fn internal_writes(&self) -> u64 {
        self.internal
    }
    /// Victims chosen so far, in order.
    pub fn schedule(&self) -> &[u32] {
        &self.schedule
    }
    /// The frontier block and page.
    pub fn frontier(&self) -> (u32, u32) {
        (self.fb, self.fp)
    }
    /// Write positions (births) of the valid pages of block `b`, in page order.
    pub fn valid_births(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        let base = (b * self.np) as usize;
        let end = base + self.np as usize;
        (base..end)
            .filter(|&s| self.p2l[s] != NONE)
            .map(|s| self.born[s])
    }

    /// The state a search's future depends on, appended to `out`: the clock, the frontier and
    /// the logical page of every slot (births follow from these: a valid page of `l` was born at
    /// the last write of `l` before the clock). Two decisions with equal keys have equal subtrees.
    pub fn state_key(&self, out: &mut Vec<u64>) {
        out.push(u64::from(self.t) << 32 | u64::from(self.fp));
        out.push(u64::from(self.fb));
        out.extend(self.p2l.iter().map(|&l| u64::from(l)));
    }

    /// [`Model::state_key`] up to block labels, appended to `out`, for logical spaces of at most
    /// 64 pages (`None` otherwise): the clock and frontier page, then the frontier block's set of
    /// valid logical pages as a bit mask, then every other block's mask, sorted. Relabelling
    /// blocks maps schedules to schedules one to one and changes no cost, so decisions with equal
    /// keys have subtrees of equal size when every cleanable block is a choice.
    pub fn canonical_key(&self, out: &mut Vec<u64>) -> Option<()> {
        if self.l2p.len() > 64 {
            return None;
        }
        let np = self.np as usize;
        let mask = |b: usize| {
            self.p2l[b * np..(b + 1) * np]
                .iter()
                .filter(|&&l| l != NONE)
                .fold(0u64, |m, &l| m | 1u64 << l)
        };
        out.push(u64::from(self.t) << 32 | u64::from(self.fp));
        out.push(mask(self.fb as usize));
        let start = out.len();
        out.extend(
            (0..self.blocks as usize)
                .filter(|&b| b != self.fb as usize)
                .map(mask),
        );
        out[start..].sort_unstable();
        Some(())
    }

    /// Whether `b` may be chosen: it exists and has fewer than N_p valid pages.
    pub fn is_cleanable(&self, b: u32) -> bool {
        b < self.blocks && self.valid[b as usize] < self.np
    }

    #[inline]
    fn set_valid(&mut self, b: u32, new: u32) {
        let bi = b as usize;
        let old = self.valid[bi] as usize;
        let (w, bit) = (bi / 64, 1u64 << (bi % 64));
        self.level_bits[old * self.words + w] &= !bit;
        self.level_count[old] -= 1;
        self.level_bits[new as usize * self.words + w] |= bit;
        self.level_count[new as usize] += 1;
        self.valid[bi] = new;
    }

    /// Greedy's victim (§II): fewest valid pages, lowest block index on ties; `None` only if
    /// every block is full, which validated geometry (U < T·N_p) rules out.
    pub fn greedy_victim(&self) -> Option<u32> {
        for lvl in 0..self.np as usize {
            if self.level_count[lvl] == 0 {
                continue;
            }
            let row = &self.level_bits[lvl * self.words..(lvl + 1) * self.words];
            for (w, &bits) in row.iter().enumerate() {
                if bits != 0 {
                    return Some((w * 64) as u32 + bits.trailing_zeros());
                }
            }
        }
        None
    }

    #[inline]
    fn write(&mut self, lpn: u32) {
        let s = self.fb * self.np + self.fp;
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.p2l[old as usize] = NONE;
            let ob = old / self.np;
            self.set_valid(ob, self.valid[ob as usize] - 1);
        }
        self.l2p[lpn as usize] = s;
        self.p2l[s as usize] = lpn;
        self.born[s as usize] = self.t;
        self.set_valid(self.fb, self.valid[self.fb as usize] + 1);
        self.fp += 1;
        self.t += 1;
        if self.logging {
            self.log.push(Undo::Write { lpn, old_slot: old });
        }
    }

    /// Perform host writes until a cleaning decision is needed (returns `true`) or the sequence
    /// is finished (returns `false`). Cleaning is on demand: only when a write is pending and the
    /// frontier is full, so no cleaning happens after the last write.
    pub fn advance(&mut self, fut: &FutureIndex) -> bool {
        let ops = fut.ops();
        while (self.t as usize) < ops.len() {
            if self.fp == self.np {
                return true;
            }
            self.write(ops[self.t as usize]);
        }
        false
    }

    /// Clean `victim` (§II): move its valid pages to its pages 0..v and make it the frontier.
    /// The caller guarantees [`Model::is_cleanable`]; returns `false` (and does nothing) if not.
    pub fn clean(&mut self, victim: u32) -> bool {
        if !self.is_cleanable(victim) {
            return false;
        }
        let np = self.np as usize;
        let base = victim as usize * np;
        if self.logging {
            self.saved
                .extend((base..base + np).map(|s| (self.p2l[s], self.born[s])));
            self.log.push(Undo::Clean {
                block: victim,
                prev_fb: self.fb,
                prev_fp: self.fp,
                prev_stamp: self.stamp[victim as usize],
            });
        }
        let mut w = base;
        for s in base..base + np {
            let l = self.p2l[s];
            if l != NONE {
                if s != w {
                    self.p2l[w] = l;
                    self.born[w] = self.born[s];
                    self.l2p[l as usize] = w as u32;
                }
                w += 1;
            }
        }
        for s in w..base + np {
            self.p2l[s] = NONE;
            self.born[s] = NONE;
        }
        let v = (w - base) as u32;
        self.fb = victim;
        self.fp = v;
        self.stamp[victim as usize] = self.t;
        self.internal += u64::from(v);
        self.schedule.push(victim);
        true
    }

    /// Become a copy of `other` (same geometry) without allocating: the "cheap snapshot" restore
    /// used by MCTS playouts, which rewrite most of the state — undoing millions of logged
    /// writes costs more than copying the few MB of mapping arrays back.
    pub fn restore_from(&mut self, other: &Model) {
        self.np = other.np;
        self.blocks = other.blocks;
        self.l2p.clone_from(&other.l2p);
        self.p2l.clone_from(&other.p2l);
        self.born.clone_from(&other.born);
        self.valid.clone_from(&other.valid);
        self.stamp.clone_from(&other.stamp);
        self.level_bits.clone_from(&other.level_bits);
        self.level_count.clone_from(&other.level_count);
        self.words = other.words;
        self.fb = other.fb;
        self.fp = other.fp;
        self.t = other.t;
        self.internal = other.internal;
        self.schedule.clone_from(&other.schedule);
        self.logging = other.logging;
        self.log.clone_from(&other.log);
        self.saved.clone_from(&other.saved);
    }

    /// Forget the undo history: the current state becomes the base the log rolls back to.
    pub fn clear_log(&mut self) {
        self.log.clear();
        self.saved.clear();
    }

    /// A position in the undo log to roll back to.
    pub fn mark(&self) -> usize {
        self.log.len()
    }

    /// Roll back every logged mutation after `mark`, leaving the state identical to what it was.
    pub fn undo_to(&mut self, mark: usize) {
        while self.log.len() > mark {
            let Some(entry) = self.log.pop() else { break };
            match entry {
                Undo::Write { lpn, old_slot } => {
                    self.t -= 1;
                    let s = self.l2p[lpn as usize];
                    self.p2l[s as usize] = NONE;
                    self.born[s as usize] = NONE;
                    let b = s / self.np;
                    self.set_valid(b, self.valid[b as usize] - 1);
                    self.fb = b;
                    self.fp = s % self.np;
                    self.l2p[lpn as usize] = old_slot;
                    if old_slot != NONE {
                        self.p2l[old_slot as usize] = lpn;
                        let ob = old_slot / self.np;
                        self.set_valid(ob, self.valid[ob as usize] + 1);
                    }
                }
                Undo::Clean {
                    block,
                    prev_fb,
                    prev_fp,
                    prev_stamp,
                } => {
                    let np = self.np as usize;
                    let base = block as usize * np;
                    let from = self.saved.len() - np;
                    for (i, &(l, born)) in self.saved[from..].iter().enumerate() {
                        self.p2l[base + i] = l;
                        self.born[base + i] = born;
                        if l != NONE {
                            self.l2p[l as usize] = (base + i) as u32;
                        }
                    }
                    self.saved.truncate(from);
                    self.internal -= u64::from(self.valid[block as usize]);
                    self.schedule.pop();
                    self.fb = prev_fb;
                    self.fp = prev_fp;
                    self.stamp[block as usize] = prev_stamp;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check_invariants(m: &Model) {
        let mut valid = vec![0u32; m.blocks as usize];
        for (s, &l) in m.p2l.iter().enumerate() {
            if l != NONE {
                assert_eq!(m.l2p[l as usize], s as u32);
                valid[s / m.np as usize] += 1;
            }
        }
        assert_eq!(valid, m.valid);
    }

    proptest! {
        #[test]
        fn offline_model_undo_restores_state(
            trace in proptest::collection::vec(0u32..20, 1..200),
            choices in proptest::collection::vec(0u32..1000, 1..30),
            split in 0usize..30,
        ) {
            let fut = FutureIndex::new(&trace, 20, true);
            let mut m = Model::new(8, 4, 20);
            m.set_logging(true);
            // Reach some intermediate state first, then mark it.
            let mut it = choices.iter();
            for _ in 0..split.min(choices.len()) {
                if !m.advance(&fut) { break; }
                let c = *it.next().unwrap_or(&0);
                let victim = (0..8).map(|i| (c + i) % 8).find(|&b| m.is_cleanable(b)).unwrap();
                prop_assert!(m.clean(victim));
            }
            let before = m.clone();
            let mark = m.mark();
            for &c in it {
                if !m.advance(&fut) { break; }
                let victim = (0..8).map(|i| (c + i) % 8).find(|&b| m.is_cleanable(b)).unwrap();
                prop_assert!(m.clean(victim));
                check_invariants(&m);
            }
            m.advance(&fut);
            m.undo_to(mark);
            prop_assert_eq!(m, before);
        }
    }

    #[test]
    fn offline_model_greedy_picks_fewest_valid_lowest_index() {
        let trace = [0, 1, 2, 3, 0, 1, 4, 5, 0];
        let fut = FutureIndex::new(&trace, 6, false);
        let mut m = Model::new(4, 4, 6);
        assert!(m.advance(&fut)); // block 0 full: 0 1 2 3, then 0 is pending
        assert_eq!(m.greedy_victim(), Some(1)); // blocks 1..3 empty
        assert!(m.clean(1));
        assert!(m.advance(&fut)); // block 1: 0 1 4 5 ; block 0 keeps 2 3
        assert_eq!(m.valid(0), 2);
        assert_eq!(m.greedy_victim(), Some(2));
        assert!(m.clean(0));
        assert_eq!(m.internal_writes(), 2);
        assert_eq!(m.frontier(), (0, 2));
        check_invariants(&m);
    }
}
