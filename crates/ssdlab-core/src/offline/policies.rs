//! Online victim-selection baselines in the single-frontier demand-cleaning model (Shafaei &
//! Desnoyers, §II, second paragraph): every member of the victim-policy family (Greedy,
//! LRW/FIFO, Cost/Benefit, Random, d-Choices), each run over the whole trace without future
//! knowledge, by the same rule (`victim/`) the online FTL uses.

use super::future::FutureIndex;
use super::model::Model;
use crate::config::VictimPolicy;
use crate::rng::{Rng, SimRng};
use crate::victim::{self, Rule};

/// One online baseline, ready to choose victims: a member of the victim-policy family
/// ([`VictimPolicy`], shared with the online FTL), in the offline model's terms.
pub struct Online {
    policy: VictimPolicy,
    rng: SimRng,
}

impl Online {
    /// `rng` drives the randomised policies (`random`, `d-choices`).
    pub fn new(policy: VictimPolicy, rng: SimRng) -> Self {
        Online { policy, rng }
    }

    /// The victim for the current decision point, by the policy's rule (`victim/`).
    pub fn choose(&mut self, m: &Model) -> Option<u32> {
        match victim::rule(self.policy) {
            // Fewest valid pages, lowest index on ties (§II; proven optimal for uniform random
            // workloads, Yang et al. [6]).
            Rule::FewestValid => m.greedy_victim(),
            // Least-Recently Written (LRW [1]): the block opened longest ago, i.e. round-robin.
            Rule::Oldest => (0..m.blocks())
                .filter(|&b| m.is_cleanable(b))
                .min_by_key(|&b| (m.stamp(b), b)),
            // Cost/Benefit (Chiang & Chang [2]). Age is the time since the block was last opened
            // as the frontier; the paper does not define age in this model, and the open time is
            // the one per-block time stamp it has.
            Rule::MaxScore(weight) => {
                let now = m.clock();
                let mut best: Option<(f64, u32)> = None;
                for b in (0..m.blocks()).filter(|&b| m.is_cleanable(b)) {
                    let age = f64::from(now - m.stamp(b)) + 1.0;
                    let s = victim::score(weight(m.valid(b), m.pages_per_block()), age);
                    if best.is_none_or(|(t, _)| s > t) {
                        best = Some((s, b));
                    }
                }
                best.map(|(_, b)| b)
            }
            // d-Choices (Van Houdt [8]; d = 1: Random): sample d blocks uniformly with
            // replacement, take the one with fewest valid pages (lowest index on ties); full
            // blocks in the sample are skipped and the sample redrawn if all were full (after 64
            // redraws, Greedy decides).
            Rule::Sample { d } => {
                for _ in 0..64 {
                    let mut pick: Option<u32> = None;
                    for _ in 0..d.max(1) {
                        let b = self.rng.gen_range(0..m.blocks());
                        if m.is_cleanable(b)
                            && pick.is_none_or(|p| (m.valid(b), b) < (m.valid(p), p))
                        {
                            pick = Some(b);
                        }
                    }
                    if pick.is_some() {
                        return pick;
                    }
                }
                m.greedy_victim()
            }
        }
    }
}

/// Run `policy` from the model's current state to the end of the sequence. Returns `false` if the
/// policy ever had no victim (impossible for validated geometry).
pub fn run_to_end(m: &mut Model, fut: &FutureIndex, policy: &mut Online) -> bool {
    while m.advance(fut) {
        match policy.choose(m) {
            Some(v) if m.clean(v) => {}
            _ => return false,
        }
    }
    true
}

/// Greedy from the current state to the end: the playout of the MCTS (§III-C, "we use Greedy
/// cleaning to complete each traverse").
#[inline]
pub fn greedy_to_end(m: &mut Model, fut: &FutureIndex) -> bool {
    while m.advance(fut) {
        match m.greedy_victim() {
            Some(v) if m.clean(v) => {}
            _ => return false,
        }
    }
    true
}
