//! Traverses of a search tree, counted as the paper counts them (Table I, "Traverses"): the
//! root-to-leaf paths — complete cleaning schedules — of the tree *without* a bound, one path
//! per schedule however bad. Exhaustive search in the paper's complete graph branches on every
//! block with fewer than N_p valid pages (Algorithm 1, lines 4–8: empty blocks are distinct
//! choices there); pruned search on Algorithms 1–3's candidates.
//!
//! Counting 10^8 paths by walking them would take minutes per trace; instead the count below a
//! decision is memoised on the device state there ([`Model::state_key`]): two decisions with the
//! same state have the same subtree, so the count is exact and each distinct state is expanded
//! once (the tree is a DAG of states). Counts saturate at `u64::MAX`.

use std::collections::HashMap;

use super::future::FutureIndex;
use super::model::Model;
use super::prune::Branching;
use super::prune::{candidates, PruneScratch};

struct Counter<'a> {
    fut: &'a FutureIndex,
    branching: Branching,
    memo: HashMap<Vec<u64>, u64>,
    max_states: usize,
    scratch: PruneScratch,
    overflow: bool,
}

impl Counter<'_> {
    /// Paths from the decision the model is at (after `advance`) to the leaves.
    fn paths(&mut self, m: &mut Model) -> u64 {
        let mut key = Vec::new();
        match self.branching {
            // Every cleanable block is a choice, so the count does not depend on block labels.
            Branching::Complete | Branching::All if m.canonical_key(&mut key).is_some() => {}
            // Candidates break ties by block index (or the space is too wide for masks).
            _ => {
                key.clear();
                m.state_key(&mut key);
            }
        }
        if let Some(&n) = self.memo.get(&key) {
            return n;
        }
        if self.memo.len() >= self.max_states {
            self.overflow = true;
            return 0;
        }
        let mut cands = Vec::new();
        candidates(m, self.fut, self.branching, &mut self.scratch, &mut cands);
        let mut total = 0u64;
        for b in cands {
            let mark = m.mark();
            if m.clean(b) {
                let n = if m.advance(self.fut) {
                    self.paths(m)
                } else {
                    1
                };
                total = total.saturating_add(n);
            }
            m.undo_to(mark);
            if self.overflow {
                return 0;
            }
        }
        self.memo.insert(key, total);
        total
    }
}

/// The number of complete schedules of the unbounded tree below the model's state (1 if the trace
/// needs no cleaning from here), or `None` if more than `max_states` distinct states would have
/// to be kept. The model is left as it was.
pub fn count_traverses(
    m: &mut Model,
    fut: &FutureIndex,
    branching: Branching,
    max_states: usize,
) -> Option<u64> {
    let start = m.mark();
    m.set_logging(true);
    let n = if m.advance(fut) {
        let mut c = Counter {
            fut,
            branching,
            memo: HashMap::new(),
            max_states,
            scratch: PruneScratch::default(),
            overflow: false,
        };
        let n = c.paths(m);
        (!c.overflow).then_some(n)
    } else {
        Some(1)
    };
    m.undo_to(start);
    n
}

/// Knuth's estimate of the same count for trees too large to count ("Estimating the efficiency
/// of backtrack programs", Math. Comp. 29, 1975): walk `probes` random root-to-leaf paths, each
/// choice uniform among the candidates; the product of the branching factors along a path is an
/// unbiased estimate of the number of leaves. Returns (mean, standard error of the mean).
pub fn estimate_traverses(
    m: &mut Model,
    fut: &FutureIndex,
    branching: Branching,
    probes: u32,
    rng: &mut crate::rng::SimRng,
) -> (f64, f64) {
    use rand::Rng;
    let start = m.mark();
    m.set_logging(true);
    let mut scratch = PruneScratch::default();
    let mut cands = Vec::new();
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    for _ in 0..probes.max(1) {
        let mut product = 1.0f64;
        while m.advance(fut) {
            candidates(m, fut, branching, &mut scratch, &mut cands);
            product *= cands.len() as f64;
            let pick = cands[rng.gen_range(0..cands.len())];
            m.clean(pick);
        }
        m.undo_to(start);
        sum += product;
        sum_sq += product * product;
    }
    let n = f64::from(probes.max(1));
    let mean = sum / n;
    let var = (sum_sq / n - mean * mean).max(0.0);
    (mean, (var / n).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::search::dfs;
    use crate::offline::tests::skewed_writes;

    /// A problem small enough to walk every path: 5 blocks × 3 pages, 24 skewed writes.
    fn small(seed: u64) -> (FutureIndex, Model) {
        let trace = skewed_writes(24, 11, (3, 0.6), seed, "count");
        (FutureIndex::new(&trace, 11, false), Model::new(5, 3, 11))
    }

    /// Paths walked one by one: an unbounded DFS counts every complete schedule it reaches.
    fn walked(m: &mut Model, fut: &FutureIndex, b: Branching) -> u64 {
        dfs(m, fut, b, false, None, u64::MAX, (u64::MAX, vec![])).explored
    }

    #[test]
    fn offline_count_traverses_equals_walking_every_path() {
        for seed in 1..=4 {
            let (fut, mut m) = small(seed);
            for b in [
                Branching::Complete,
                Branching::All,
                Branching::Pruned { psi: 1 },
                Branching::Pruned { psi: 3 },
            ] {
                let counted = count_traverses(&mut m, &fut, b, usize::MAX).unwrap();
                let walked = walked(&mut m, &fut, b);
                assert_eq!(counted, walked, "seed {seed} {b:?}");
                assert!(counted > 1, "seed {seed} {b:?}: a tree, not a path");
            }
            // Merging empty blocks only removes choices.
            let all = count_traverses(&mut m, &fut, Branching::All, usize::MAX).unwrap();
            let complete = count_traverses(&mut m, &fut, Branching::Complete, usize::MAX).unwrap();
            assert!(all < complete, "seed {seed}: {all} vs {complete}");
            // The model is left as it was.
            assert_eq!(m.clock(), 0);
            assert_eq!(m.schedule().len(), 0);
        }
    }

    #[test]
    fn offline_count_gives_up_past_its_state_budget() {
        let (fut, mut m) = small(1);
        assert_eq!(count_traverses(&mut m, &fut, Branching::Complete, 10), None);
    }

    #[test]
    fn offline_knuth_estimate_is_near_the_count() {
        for seed in 1..=4 {
            let (fut, mut m) = small(seed);
            for b in [Branching::Complete, Branching::Pruned { psi: 1 }] {
                let exact = count_traverses(&mut m, &fut, b, usize::MAX).unwrap() as f64;
                let mut r = crate::rng::stream(seed, "test");
                let (est, se) = estimate_traverses(&mut m, &fut, b, 20_000, &mut r);
                assert!(
                    (est - exact).abs() <= 4.0 * se.max(1e-9) && (est / exact - 1.0).abs() < 0.1,
                    "seed {seed} {b:?}: estimate {est} ± {se} vs {exact}"
                );
                assert_eq!(m.clock(), 0);
            }
        }
    }
}
