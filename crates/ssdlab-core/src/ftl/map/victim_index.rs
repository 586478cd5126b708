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
#[derive(Debug, Clone)]
enum SetRule {
    Sample(u32),
    /// The rule's weight `(benefit, cost)` for each valid count 0..=pages_per_block, computed once:
    /// the scan then does one multiplication and one division a candidate, the same operations on
    /// the same values as the rule's [`victim::score`] (docs/speed.md, "Cost-benefit's scan on a
    /// table of weights").
    MaxScore(Vec<(f64, f64)>),
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
            Rule::MaxScore(weight) => set(SetRule::MaxScore(
                (0..=pages_per_block)
                    .map(|v| weight(v, pages_per_block))
                    .collect(),
            )),
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
    #[inline(always)]
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
        self.select_if(plane, valid, closed_at, now, rng, u32::MAX)
    }

    /// [`VictimIndex::select`], keeping the victim only if it has at most `max_valid` valid pages;
    /// otherwise the index is as if it had been taken and inserted again, and `None`. For
    /// fewest-valid that is no change (its head would be unlinked and linked back), so the block is
    /// not taken at all, in line: `rlgc-aggressive`'s early trigger refuses at nearly every
    /// decision (docs/speed.md, "The early trigger's victim not taken to be put back"). FIFO
    /// re-queues a refused block at the back and the sets append it, an order their later choices
    /// depend on, so [`VictimIndex::take_if`] takes and inserts it.
    #[inline]
    pub fn select_if(
        &mut self,
        plane: u32,
        valid: &[u32],
        closed_at: &[u64],
        now: u64,
        rng: &mut SimRng,
        max_valid: u32,
    ) -> Option<u32> {
        let p = plane as usize;
        if self.counts[p] == 0 {
            return None;
        }
        let stride = self.pages_per_block as usize + 1;
        let Kind::Buckets {
            heads,
            next,
            prev,
            low,
        } = &mut self.kind
        else {
            return self.take_if(p, valid, closed_at, now, rng, max_valid);
        };
        let h = least_valid_slot(heads, low, stride, p);
        let b = heads[h];
        if valid[b as usize] > max_valid {
            return None;
        }
        unlink(heads, next, prev, h, b);
        self.counts[p] -= 1;
        Some(b)
    }

    /// Whether [`VictimIndex::select_if`] would refuse on `plane` (return `None`) without changing
    /// anything: no candidate, or for fewest-valid a least-valid block with more than `max_valid`
    /// valid pages. `false` when only taking a block can tell (the other rules take and re-insert a
    /// refused block, which moves it in their order). For an early trigger that is refused on most
    /// planes at most decisions (docs/speed.md, "rlgc-aggressive's refused early victims answered
    /// in line").
    #[inline]
    pub fn refuses(&mut self, plane: u32, valid: &[u32], max_valid: u32) -> bool {
        if self.counts[plane as usize] == 0 {
            return true;
        }
        self.peek_least(plane)
            .is_some_and(|b| valid[b as usize] > max_valid)
    }

    /// The block fewest-valid would take next on `plane`, without taking it (`None` for the
    /// other rules, whose next pick is not known before it is made): a prefetch hint
    /// ([`super::Ftl::gc_begin_if`]).
    #[inline]
    pub fn peek_least(&mut self, plane: u32) -> Option<u32> {
        let p = plane as usize;
        if self.counts[p] == 0 {
            return None;
        }
        let stride = self.pages_per_block as usize + 1;
        let Kind::Buckets { heads, low, .. } = &mut self.kind else {
            return None;
        };
        Some(heads[least_valid_slot(heads, low, stride, p)])
    }

    /// [`VictimIndex::select_if`] for the rules other than fewest-valid, on a plane with a
    /// candidate: take the victim, and insert it again if it has more than `max_valid` valid
    /// pages.
    fn take_if(
        &mut self,
        p: usize,
        valid: &[u32],
        closed_at: &[u64],
        now: u64,
        rng: &mut SimRng,
        max_valid: u32,
    ) -> Option<u32> {
        let chosen = match &mut self.kind {
            Kind::Buckets { .. } => unreachable!("select_if serves fewest-valid itself"),
            Kind::Fifo { queues } => queues[p].pop_front()?,
            Kind::Set { members, pos, rule } => {
                let m = &members[p];
                let b = match rule {
                    &mut SetRule::Sample(d) => {
                        let mut best = m[rng.gen_range(0..m.len())];
                        for _ in 1..d {
                            let c = m[rng.gen_range(0..m.len())];
                            if valid[c as usize] < valid[best as usize] {
                                best = c;
                            }
                        }
                        best
                    }
                    SetRule::MaxScore(weights) => {
                        // Age: pages written since the block was closed, + 1. Converted through
                        // i64, which gives the same f64 as from u64 below 2^63 pages and is a
                        // single instruction on x86-64 (u64 takes a branch and several).
                        let mut best = m[0];
                        let mut best_score = f64::NEG_INFINITY;
                        for &c in m {
                            let age = (now - closed_at[c as usize]) as i64 as f64 + 1.0;
                            let s = victim::score(weights[valid[c as usize] as usize], age);
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
        if valid[chosen as usize] > max_valid {
            self.insert(chosen, valid[chosen as usize]);
            return None;
        }
        Some(chosen)
    }

    /// Take `block` (indexed, with `valid` valid pages) out of the index: a victim chosen
    /// outside the policy (static wear levelling, `super::wear_level`).
    pub fn remove(&mut self, block: u32, valid: u32) {
        let plane = self.plane_of(block);
        let stride = self.pages_per_block as usize + 1;
        match &mut self.kind {
            Kind::Buckets {
                heads, next, prev, ..
            } => unlink(heads, next, prev, plane * stride + valid as usize, block),
            Kind::Fifo { queues } => {
                let q = &mut queues[plane];
                if let Some(i) = q.iter().position(|&b| b == block) {
                    q.remove(i);
                }
            }
            Kind::Set { members, pos, .. } => set_remove(members, pos, plane, block),
        }
        self.counts[plane] -= 1;
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

/// Fewest-valid's head slot of plane `p`'s least-valid non-empty bucket (`p` has a candidate),
/// moving the plane's low-water hint `low[p]` up to it: `select_if`'s and `refuses`' scan.
#[inline(always)]
fn least_valid_slot(heads: &[u32], low: &mut [u32], stride: usize, p: usize) -> usize {
    let mut v = low[p] as usize;
    while heads[p * stride + v] == NIL {
        v += 1; // counts[p] > 0 guarantees a non-empty bucket ≤ pages_per_block
    }
    low[p] = v as u32;
    p * stride + v
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
    fn a_refusal_is_a_select_put_back() {
        // Random closes, invalidations and selections with a random limit on two planes, for
        // every kind of index: `select_if` gives the answer and leaves the index (order
        // included) and the RNG as `select` followed, on a refusal, by `insert` of the same
        // block. For fewest-valid a refusal also leaves the index as it was. `refuses` tells a
        // refusal beforehand, changing nothing: always for fewest-valid, else on an empty plane.
        // `peek_least` names fewest-valid's next victim (what `select` takes), changing nothing.
        let policies = [
            VictimPolicy::Greedy,
            VictimPolicy::Fifo,
            VictimPolicy::CostBenefit,
            VictimPolicy::Random,
            VictimPolicy::DChoices { d: 4 },
        ];
        for policy in policies {
            let (planes, bpp, ppb) = (2u32, 64u32, 32u32);
            let total = (planes * bpp) as usize;
            let mut ix = VictimIndex::new(policy, planes, bpp, ppb);
            let mut reference = ix.clone();
            let mut rng = crate::rng::stream(5, "victim-select-if");
            let (mut ix_rng, mut ref_rng) = (rng.clone(), rng.clone());
            let mut valid = vec![0u32; total];
            let closed: Vec<u64> = (0..total as u64).map(|b| b * 3 % 101).collect();
            let mut indexed = vec![false; total];
            let mut refused = 0;
            for step in 0..20_000u64 {
                let b = rng.gen_range(0..total);
                let plane = b as u32 / bpp;
                match rng.gen_range(0..4u32) {
                    0 if !indexed[b] => {
                        valid[b] = rng.gen_range(0..=ppb);
                        ix.insert(b as u32, valid[b]);
                        reference.insert(b as u32, valid[b]);
                        indexed[b] = true;
                    }
                    1 | 2 if indexed[b] && valid[b] > 0 => {
                        ix.on_invalidate(b as u32, valid[b]);
                        reference.on_invalidate(b as u32, valid[b]);
                        valid[b] -= 1;
                    }
                    _ => {
                        let limit = rng.gen_range(0..=ppb);
                        let before = ix.members(plane);
                        // `peek_least` names fewest-valid's next pick and changes nothing.
                        let peeked = ix.peek_least(plane);
                        assert_eq!(ix.members(plane), before, "{policy:?} step {step}");
                        let now = 200 + step;
                        let (refuses, empty) =
                            (ix.refuses(plane, &valid, limit), ix.len(plane) == 0);
                        let got = ix.select_if(plane, &valid, &closed, now, &mut ix_rng, limit);
                        // `refuses` answers without changing anything, and only when sure.
                        if refuses {
                            assert_eq!(got, None, "{policy:?} step {step}");
                            assert_eq!(ix.members(plane), before, "{policy:?} step {step}");
                        }
                        if policy == VictimPolicy::Greedy {
                            assert_eq!(refuses, got.is_none(), "step {step}");
                        } else {
                            assert_eq!(refuses, empty, "{policy:?} step {step}");
                        }
                        let want = reference.select(plane, &valid, &closed, now, &mut ref_rng);
                        if policy == VictimPolicy::Greedy {
                            assert_eq!(peeked, want, "step {step}");
                        } else {
                            assert_eq!(peeked, None, "{policy:?} step {step}");
                        }
                        match want {
                            Some(v) if valid[v as usize] > limit => {
                                assert_eq!(got, None, "{policy:?} step {step}");
                                reference.insert(v, valid[v as usize]);
                                if policy == VictimPolicy::Greedy {
                                    assert_eq!(ix.members(plane), before, "step {step}");
                                }
                                refused += 1;
                            }
                            _ => {
                                assert_eq!(got, want, "{policy:?} step {step}");
                                if let Some(v) = got {
                                    indexed[v as usize] = false;
                                }
                            }
                        }
                        for q in 0..planes {
                            assert_eq!(ix.members(q), reference.members(q), "{policy:?} {step}");
                        }
                        assert_eq!(ix.len(plane), reference.len(plane), "{policy:?} {step}");
                    }
                }
            }
            assert!(refused > 1_000, "{policy:?}: {refused} refusals");
            assert_eq!(ix_rng.gen::<u64>(), ref_rng.gen::<u64>(), "{policy:?}");
        }
    }
    #[test]
    fn cost_benefit_chooses_the_formulas_first_best() {
        // The tabulated scan against cost-benefit's formula evaluated in full (age converted
        // from u64, the `u == 0` case as infinity), first best in the set's order: many empty
        // blocks (ties at +∞) and ages up to 2^40 pages.
        let (planes, bpp, ppb) = (2u32, 256u32, 64u32);
        let total = (planes * bpp) as usize;
        let mut ix = VictimIndex::new(VictimPolicy::CostBenefit, planes, bpp, ppb);
        let mut rng = crate::rng::stream(9, "victim-cost-benefit");
        let mut valid = vec![0u32; total];
        let mut closed = vec![0u64; total];
        let mut indexed = vec![false; total];
        let mut now = 1u64 << 40;
        let mut chosen = 0;
        for step in 0..50_000u32 {
            let b = rng.gen_range(0..total);
            let plane = b as u32 / bpp;
            now += rng.gen_range(0..1_000u64);
            if !indexed[b] {
                valid[b] = if rng.gen_bool(0.2) {
                    0
                } else {
                    rng.gen_range(0..=ppb)
                };
                closed[b] = now - rng.gen_range(0..now);
                ix.insert(b as u32, valid[b]);
                indexed[b] = true;
            } else if step % 3 == 0 {
                let mut want: Option<(f64, u32)> = None;
                for c in ix.members(plane) {
                    let u = f64::from(valid[c as usize]) / f64::from(ppb);
                    let age = (now - closed[c as usize]) as f64 + 1.0;
                    let s = if u == 0.0 {
                        f64::INFINITY
                    } else {
                        age * (1.0 - u) / (2.0 * u)
                    };
                    if want.is_none_or(|(t, _)| s > t) {
                        want = Some((s, c));
                    }
                }
                let got = ix.select(plane, &valid, &closed, now, &mut rng);
                assert_eq!(got, want.map(|(_, c)| c), "step {step}");
                if let Some(c) = got {
                    indexed[c as usize] = false;
                    chosen += 1;
                }
            } else if valid[b] > 0 {
                ix.on_invalidate(b as u32, valid[b]);
                valid[b] -= 1;
            }
        }
        assert!(chosen > 5_000, "{chosen} selections");
    }
}
