//! Per-plane indexes of full (closed) blocks, one shape per kind of [`Rule`] (what a victim
//! policy is, defined once in `victim/`), so that selection is cheap: fewest-valid keeps
//! intrusive doubly-linked buckets by valid count (O(1) amortised: a page invalidation moves a
//! block one bucket down, selection scans up from a per-plane low-water hint); oldest keeps the
//! fill order; sampling and scoring rules keep an indexable set.

use std::collections::VecDeque;

use rand::Rng;

use crate::config::VictimPolicy;
use crate::rng::SimRng;
use crate::victim::{self, Rule};

const NIL: u32 = u32::MAX;

/// The index of closed blocks that are candidates for cleaning.
#[derive(Debug, Clone)]
pub struct VictimIndex {
    policy: VictimPolicy,
    blocks_per_plane: u32,
    /// log2 of `blocks_per_plane` when a power of two, else 32 (`plane_of` by shift).
    bpp_shift: u32,
    pages_per_block: u32,
    kind: Kind,
    counts: Vec<u32>,
}

#[derive(Debug, Clone)]
enum Kind {
    Buckets {
        heads: Vec<u32>,
        next: Vec<u32>,
        prev: Vec<u32>,
        low: Vec<u32>,
    },
    Fifo {
        queues: Vec<VecDeque<u32>>,
    },
    Set {
        members: Vec<Vec<u32>>,
        pos: Vec<u32>,
        rule: SetRule,
    },
}

/// The rules an indexable set serves.
#[derive(Debug, Clone, Copy)]
enum SetRule {
    Sample(u32),
    MaxScore(fn(u32, u32, f64) -> f64),
}

impl VictimIndex {
    pub fn new(
        policy: VictimPolicy,
        planes: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
    ) -> Self {
        let total = (planes * blocks_per_plane) as usize;
        let set = |rule| Kind::Set {
            members: vec![Vec::new(); planes as usize],
            pos: vec![NIL; total],
            rule,
        };
        // One arm per kind of rule; the policy's rule is its file in `victim/`.
        let kind = match victim::rule(policy) {
            Rule::FewestValid => Kind::Buckets {
                heads: vec![NIL; planes as usize * (pages_per_block as usize + 1)],
                next: vec![NIL; total],
                prev: vec![NIL; total],
                low: vec![0; planes as usize],
            },
            Rule::Oldest => Kind::Fifo {
                queues: vec![VecDeque::new(); planes as usize],
            },
            Rule::Sample { d } => set(SetRule::Sample(d)),
            Rule::MaxScore(score) => set(SetRule::MaxScore(score)),
        };
        VictimIndex {
            policy,
            blocks_per_plane,
            bpp_shift: super::pow2_shift(u64::from(blocks_per_plane)),
            pages_per_block,
            kind,
            counts: vec![0; planes as usize],
        }
    }

    pub fn policy(&self) -> VictimPolicy {
        self.policy
    }

    /// Closed blocks indexed in `plane`.
    pub fn len(&self, plane: u32) -> u32 {
        self.counts[plane as usize]
    }

    #[inline]
    fn plane_of(&self, block: u32) -> usize {
        if self.bpp_shift < 32 {
            (block >> self.bpp_shift) as usize
        } else {
            (block / self.blocks_per_plane) as usize
        }
    }

    /// A block was filled (closed) with `valid` valid pages.
    pub fn insert(&mut self, block: u32, valid: u32) {
        let plane = self.plane_of(block);
        self.counts[plane] += 1;
        let stride = self.pages_per_block as usize + 1;
        match &mut self.kind {
            Kind::Buckets {
                heads,
                next,
                prev,
                low,
            } => {
                let h = plane * stride + valid as usize;
                link(heads, next, prev, h, block);
                if valid < low[plane] {
                    low[plane] = valid;
                }
            }
            Kind::Fifo { queues } => queues[plane].push_back(block),
            Kind::Set { members, pos, .. } => {
                pos[block as usize] = members[plane].len() as u32;
                members[plane].push(block);
            }
        }
    }

    /// A page of an indexed block was invalidated; its valid count went from `old_valid` down by
    /// one. Only greedy's buckets care.
    #[inline]
    pub fn on_invalidate(&mut self, block: u32, old_valid: u32) {
        let plane = self.plane_of(block);
        if let Kind::Buckets {
            heads,
            next,
            prev,
            low,
        } = &mut self.kind
        {
            let stride = self.pages_per_block as usize + 1;
            unlink(
                heads,
                next,
                prev,
                plane * stride + old_valid as usize,
                block,
            );
            let nv = old_valid - 1;
            link(heads, next, prev, plane * stride + nv as usize, block);
            if nv < low[plane] {
                low[plane] = nv;
            }
        }
    }

    /// The block [`VictimIndex::select`] would return for `plane` under the fewest-valid rule,
    /// left in the index; `None` when the plane has no candidate or the rule is another one.
    /// For fewest-valid, `select` and then `insert` of the same block with its valid count is
    /// no change at all (it is unlinked from the head of its bucket and linked back there), so
    /// a caller that may put the victim back can ask here first. The other rules cannot: FIFO
    /// re-queues at the back, the sets swap on removal, and sampling draws from the RNG.
    #[inline]
    pub fn peek_fewest_valid(&mut self, plane: u32) -> Option<u32> {
        let p = plane as usize;
        let stride = self.pages_per_block as usize + 1;
        match &mut self.kind {
            Kind::Buckets { heads, low, .. } if self.counts[p] > 0 => {
                let mut v = low[p] as usize;
                while heads[p * stride + v] == NIL {
                    v += 1; // as in `select`
                }
                low[p] = v as u32;
                Some(heads[p * stride + v])
            }
            _ => None,
        }
    }

    /// Choose and remove the victim of `plane`. `valid` and `closed_at` are indexed by global
    /// block number; `now` is the device's page-write counter (the age clock of cost-benefit).
    pub fn select(
        &mut self,
        plane: u32,
        valid: &[u32],
        closed_at: &[u64],
        now: u64,
        rng: &mut SimRng,
    ) -> Option<u32> {
        let p = plane as usize;
        if self.counts[p] == 0 {
            return None;
        }
        let stride = self.pages_per_block as usize + 1;
        let ppb = self.pages_per_block;
        let chosen = match &mut self.kind {
            Kind::Buckets {
                heads,
                next,
                prev,
                low,
            } => {
                let mut v = low[p] as usize;
                while heads[p * stride + v] == NIL {
                    v += 1; // counts[p] > 0 guarantees a non-empty bucket ≤ pages_per_block
                }
                low[p] = v as u32;
                let b = heads[p * stride + v];
                unlink(heads, next, prev, p * stride + v, b);
                b
            }
            Kind::Fifo { queues } => queues[p].pop_front()?,
            Kind::Set { members, pos, rule } => {
                let m = &members[p];
                let b = match *rule {
                    SetRule::Sample(d) => {
                        let mut best = m[rng.gen_range(0..m.len())];
                        for _ in 1..d {
                            let c = m[rng.gen_range(0..m.len())];
                            if valid[c as usize] < valid[best as usize] {
                                best = c;
                            }
                        }
                        best
                    }
                    SetRule::MaxScore(score) => {
                        // Age: pages written since the block was closed, + 1.
                        let mut best = m[0];
                        let mut best_score = f64::NEG_INFINITY;
                        for &c in m {
                            let age = (now - closed_at[c as usize]) as f64 + 1.0;
                            let s = score(valid[c as usize], ppb, age);
                            if s > best_score {
                                best_score = s;
                                best = c;
                            }
                        }
                        best
                    }
                };
                set_remove(members, pos, p, b);
                b
            }
        };
        self.counts[p] -= 1;
        Some(chosen)
    }

    /// Heap bytes of the index.
    pub fn memory_bytes(&self) -> usize {
        match &self.kind {
            Kind::Buckets {
                heads,
                next,
                prev,
                low,
            } => (heads.capacity() + next.capacity() + prev.capacity() + low.capacity()) * 4,
            Kind::Fifo { queues } => queues.iter().map(|q| q.capacity() * 4).sum(),
            Kind::Set { members, pos, .. } => {
                members.iter().map(|m| m.capacity() * 4).sum::<usize>() + pos.capacity() * 4
            }
        }
    }

    /// Every indexed block of `plane` (for invariant checks; not on hot paths).
    pub fn members(&self, plane: u32) -> Vec<u32> {
        let p = plane as usize;
        match &self.kind {
            Kind::Buckets { heads, next, .. } => {
                let stride = self.pages_per_block as usize + 1;
                let mut out = Vec::new();
                for v in 0..stride {
                    let mut b = heads[p * stride + v];
                    while b != NIL {
                        out.push(b);
                        b = next[b as usize];
                    }
                }
                out
            }
            Kind::Fifo { queues } => queues[p].iter().copied().collect(),
            Kind::Set { members, .. } => members[p].clone(),
        }
    }

    /// For greedy: the bucket (valid count) each indexed block sits in, for invariant checks.
    pub fn bucket_of(&self, plane: u32, block: u32) -> Option<u32> {
        if let Kind::Buckets { heads, next, .. } = &self.kind {
            let stride = self.pages_per_block as usize + 1;
            for v in 0..stride {
                let mut b = heads[plane as usize * stride + v];
                while b != NIL {
                    if b == block {
                        return Some(v as u32);
                    }
                    b = next[b as usize];
                }
            }
        }
        None
    }
}

#[inline]
fn link(heads: &mut [u32], next: &mut [u32], prev: &mut [u32], h: usize, b: u32) {
    let old = heads[h];
    next[b as usize] = old;
    prev[b as usize] = NIL;
    if old != NIL {
        prev[old as usize] = b;
    }
    heads[h] = b;
}

#[inline]
fn unlink(heads: &mut [u32], next: &mut [u32], prev: &mut [u32], h: usize, b: u32) {
    let (n, p) = (next[b as usize], prev[b as usize]);
    if p != NIL {
        next[p as usize] = n;
    } else {
        heads[h] = n;
    }
    if n != NIL {
        prev[n as usize] = p;
    }
    next[b as usize] = NIL;
    prev[b as usize] = NIL;
}

fn set_remove(members: &mut [Vec<u32>], pos: &mut [u32], plane: usize, b: u32) {
    let i = pos[b as usize] as usize;
    let m = &mut members[plane];
    let last = m.len() - 1;
    m.swap(i, last);
    pos[m[i] as usize] = i as u32;
    m.pop();
    pos[b as usize] = NIL;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fewest_valid_peek_is_a_select_put_back() {
        // Random closes, invalidations and selections on two planes: the peek names the block
        // `select` takes, leaves the index as it was, and taking that block and putting it back
        // leaves the index as it was too (the bucket order included).
        let (planes, bpp, ppb) = (2u32, 64u32, 32u32);
        let total = (planes * bpp) as usize;
        let mut ix = VictimIndex::new(VictimPolicy::Greedy, planes, bpp, ppb);
        let mut rng = crate::rng::stream(5, "victim-peek");
        let (mut valid, closed, mut indexed) =
            (vec![0u32; total], vec![0u64; total], vec![false; total]);
        let mut put_back = 0;
        for step in 0..20_000 {
            let b = rng.gen_range(0..total);
            let plane = b as u32 / bpp;
            match rng.gen_range(0..4u32) {
                0 if !indexed[b] => {
                    valid[b] = rng.gen_range(0..=ppb);
                    ix.insert(b as u32, valid[b]);
                    indexed[b] = true;
                }
                1 | 2 if indexed[b] && valid[b] > 0 => {
                    ix.on_invalidate(b as u32, valid[b]);
                    valid[b] -= 1;
                }
                _ => {
                    let before = ix.members(plane);
                    let peeked = ix.peek_fewest_valid(plane);
                    assert_eq!(ix.members(plane), before, "step {step}");
                    let taken = ix.select(plane, &valid, &closed, 0, &mut rng);
                    assert_eq!(peeked, taken, "step {step}");
                    if let Some(v) = taken {
                        if rng.gen_bool(0.5) {
                            ix.insert(v, valid[v as usize]);
                            assert_eq!(ix.members(plane), before, "step {step}");
                            put_back += 1;
                        } else {
                            indexed[v as usize] = false;
                        }
                    }
                }
            }
        }
        assert!(put_back > 1_000);
        // The other rules do not peek.
        let mut fifo = VictimIndex::new(VictimPolicy::Fifo, 1, 4, 4);
        fifo.insert(0, 1);
        assert_eq!(fifo.peek_fewest_valid(0), None);
    }
}
