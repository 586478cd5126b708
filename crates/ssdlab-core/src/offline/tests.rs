//! Tests of the offline module as a whole: exhaustive search against an independent brute force,
//! the Table I toy problems, MCTS guarantees and reproducibility, validation errors.

use std::collections::HashMap;

use super::future::FutureIndex;
use super::model::Model;
use super::prune::{pruned_candidates, PruneScratch};
use super::toy::{toy_config, toy_trace, ToyDistribution, TOY_WRITES};
use super::*;
use crate::rng::Rng;

/// A deliberately naive model of §II, written apart from `model.rs`: blocks as vectors of
/// optional pages, a hash map for the mapping, the whole state cloned at every branch.
#[derive(Clone)]
struct Naive {
    np: usize,
    blocks: Vec<Vec<Option<u32>>>,
    place: HashMap<u32, (usize, usize)>,
    fb: usize,
    fp: usize,
}

impl Naive {
    fn new(t: usize, np: usize) -> Self {
        Naive {
            np,
            blocks: vec![vec![None; np]; t],
            place: HashMap::new(),
            fb: 0,
            fp: 0,
        }
    }
    fn write(&mut self, lpn: u32) {
        if let Some((b, p)) = self.place.get(&lpn).copied() {
            self.blocks[b][p] = None;
        }
        self.blocks[self.fb][self.fp] = Some(lpn);
        self.place.insert(lpn, (self.fb, self.fp));
        self.fp += 1;
    }
    fn clean(&mut self, b: usize) -> u64 {
        let keep: Vec<u32> = self.blocks[b].iter().flatten().copied().collect();
        self.blocks[b] = vec![None; self.np];
        for (i, &l) in keep.iter().enumerate() {
            self.blocks[b][i] = Some(l);
            self.place.insert(l, (b, i));
        }
        self.fb = b;
        self.fp = keep.len();
        keep.len() as u64
    }
    /// Fewest internal writes to finish `trace[i..]`, trying every block at every decision.
    fn optimum(mut self, trace: &[u32], mut i: usize) -> u64 {
        while i < trace.len() {
            if self.fp == self.np {
                let mut best = u64::MAX;
                for b in 0..self.blocks.len() {
                    if self.blocks[b].iter().flatten().count() < self.np {
                        let mut c = self.clone();
                        let moved = c.clean(b);
                        best = best.min(moved + c.optimum(trace, i));
                    }
                }
                return best;
            }
            self.write(trace[i]);
            i += 1;
        }
        0
    }
}

fn tiny_cases() -> Vec<(OfflineConfig, Vec<u32>)> {
    let mut r = crate::rng::stream(11, "offline.test.tiny");
    let mut out = Vec::new();
    for case in 0..36 {
        let (blocks, np, logical, writes) = match case % 3 {
            0 => (4, 3, 7, 15),
            1 => (5, 2, 6, 14),
            _ => (3, 4, 8, 14),
        };
        let hot = logical / 3 + 1;
        let trace: Vec<u32> = (0..writes)
            .map(|_| {
                if r.gen_bool(0.6) {
                    r.gen_range(0..hot)
                } else {
                    r.gen_range(0..logical)
                }
            })
            .collect();
        out.push((
            OfflineConfig {
                blocks,
                pages_per_block: np,
                logical_pages: logical,
                prefill: case % 2 == 1,
            },
            trace,
        ));
    }
    out
}

#[test]
fn offline_exhaustive_equals_independent_brute_force() {
    let mut greedy_worse = 0;
    for (cfg, trace) in tiny_cases() {
        let mut full: Vec<u32> = if cfg.prefill {
            (0..cfg.logical_pages).collect()
        } else {
            vec![]
        };
        full.extend_from_slice(&trace);
        let truth = Naive::new(cfg.blocks as usize, cfg.pages_per_block as usize).optimum(&full, 0);
        for bound in [true, false] {
            let ex = run_offline(
                &trace,
                &cfg,
                &OfflineMethod::Exhaustive { bound, limit: None },
                0,
            )
            .unwrap();
            assert_eq!(ex.internal_writes, truth, "{cfg:?} {trace:?} bound={bound}");
            assert!(ex.complete && ex.revalidated);
        }
        let pruned = run_offline(
            &trace,
            &cfg,
            &OfflineMethod::Pruned {
                psi: Some(1),
                bound: false,
                limit: None,
            },
            0,
        )
        .unwrap();
        assert!(
            pruned.internal_writes >= truth
                && pruned.internal_writes <= pruned.greedy_internal_writes
        );
        if pruned.greedy_internal_writes > truth {
            greedy_worse += 1;
        }
    }
    assert!(
        greedy_worse > 0,
        "greedy should miss the optimum on some tiny case (seed Fig. 2)"
    );
}

#[test]
fn offline_toy_footprint_out_of_reach_is_a_clear_error() {
    let e = toy_trace(ToyDistribution::Gamma, TOY_WRITES, 32, 1).unwrap_err();
    assert!(
        e.to_string().contains("toy footprint: must be in 1..=31"),
        "{e}"
    );
    let e = toy_trace(ToyDistribution::Normal, 10, 12, 1).unwrap_err();
    assert!(e.to_string().contains("at most the writes (10)"), "{e}");
    // Reachable but never drawn: a normal with sd 4 does not cover 31 pages in 31 writes.
    let e = toy_trace(ToyDistribution::Normal, 31, 31, 1).unwrap_err();
    assert!(
        e.to_string()
            .contains("no trace of 31 writes with footprint 31"),
        "{e}"
    );
}

/// The pruned DFS runs with its bound, as `experiment offline-toy`'s Table I does: unbounded, the
/// Normal draw alone (optimum 0) walked 32 M schedules, 78 s of CI. The unbounded pruned tree is
/// checked against brute force (`offline_exhaustive_equals_independent_brute_force`) and its
/// traverse counts against a walk of every path (`count.rs`).
#[test]
fn offline_toy_table_one_exhaustive_pruned_greedy() {
    let cfg = toy_config();
    let mut greedy_worse = 0;
    for (i, dist) in ToyDistribution::ALL.into_iter().enumerate() {
        let trace = toy_trace(dist, TOY_WRITES, dist.footprint(), 1 + i as u64).unwrap();
        let mut distinct = trace.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len() as u32, dist.footprint(), "{dist:?}");
        assert!((15..=29).contains(&distinct.len()), "the paper's range");
        let greedy = run_offline(&trace, &cfg, &OfflineMethod::Greedy, 0).unwrap();
        let ex = run_offline(
            &trace,
            &cfg,
            &OfflineMethod::Exhaustive {
                bound: true,
                limit: None,
            },
            0,
        )
        .unwrap();
        let pr = run_offline(
            &trace,
            &cfg,
            &OfflineMethod::Pruned {
                psi: None,
                bound: true,
                limit: None,
            },
            0,
        )
        .unwrap();
        eprintln!(
            "Table I {dist:?}: footprint {} | exhaustive {} writes ({} schedules, bounded) | pruned {} writes ({} schedules) | greedy {}",
            distinct.len(),
            ex.internal_writes,
            ex.schedules_explored,
            pr.internal_writes,
            pr.schedules_explored,
            greedy.internal_writes
        );
        assert!(ex.complete && pr.complete);
        assert!(
            ex.internal_writes <= pr.internal_writes
                && pr.internal_writes <= greedy.internal_writes
        );
        assert!(
            pr.internal_writes <= ex.internal_writes + 2,
            "pruned far from optimal on {dist:?}"
        );
        if greedy.internal_writes > ex.internal_writes {
            greedy_worse += 1;
        }
    }
    assert!(
        greedy_worse > 0,
        "greedy is worse than optimal on some toy trace, as in Table I"
    );
}

/// A skewed write trace: a share `p_hot` of the writes goes to the first `hot` of `logical`
/// pages, the rest to the others; drawn from `rng::stream(seed, stream)`.
pub(super) fn skewed_writes(
    writes: usize,
    logical: u32,
    (hot, p_hot): (u32, f64),
    seed: u64,
    stream: &str,
) -> Vec<u32> {
    let mut r = crate::rng::stream(seed, stream);
    (0..writes)
        .map(|_| {
            if r.gen_bool(p_hot) {
                r.gen_range(0..hot)
            } else {
                r.gen_range(hot..logical)
            }
        })
        .collect()
}

/// 80 % of the writes to 20 % of the pages.
fn hot_cold(writes: usize, logical: u32, seed: u64) -> Vec<u32> {
    skewed_writes(
        writes,
        logical,
        ((logical / 5).max(1), 0.8),
        seed,
        "offline.test.hotcold",
    )
}

#[test]
fn offline_mcts_never_worse_than_greedy_revalidates_and_is_reproducible() {
    let cfg = OfflineConfig {
        blocks: 24,
        pages_per_block: 8,
        logical_pages: 160,
        prefill: true,
    };
    for seed in 0..3u64 {
        let trace = hot_cold(2_000, 160, seed);
        let method = OfflineMethod::Mcts {
            playouts: 96,
            playout: Playout::BestOnline,
            psi: None,
            exploration: 1.0,
            workers: Some(2),
        };
        let a = run_offline(&trace, &cfg, &method, seed).unwrap();
        let b = run_offline(&trace, &cfg, &method, seed).unwrap();
        assert_eq!(a, b, "same seed and workers must give the same report");
        assert!(a.internal_writes <= a.greedy_internal_writes);
        assert!(a.revalidated && a.playouts == 96);
        let replay = replay_schedule(&trace, &cfg, &a.schedule).unwrap();
        assert_eq!(replay.internal_writes, a.internal_writes);
        let curve: Vec<u64> = a.convergence.iter().map(|c| c.playouts).collect();
        assert_eq!(curve, vec![1, 2, 4, 8, 16, 32, 64, 96]);
        assert!(a
            .convergence
            .windows(2)
            .all(|w| w[1].internal_writes <= w[0].internal_writes));
        eprintln!(
            "mcts seed {seed}: greedy {} → {} ({:.2}%), {} better schedules",
            a.greedy_internal_writes, a.internal_writes, a.improvement_pct, a.better_than_greedy
        );
    }
}

#[test]
fn offline_mcts_on_toy_reaches_pruned_dfs() {
    let cfg = toy_config();
    for (i, dist) in ToyDistribution::ALL.into_iter().enumerate() {
        let trace = toy_trace(dist, TOY_WRITES, dist.footprint(), 1 + i as u64).unwrap();
        let pr = run_offline(
            &trace,
            &cfg,
            &OfflineMethod::Pruned {
                psi: None,
                bound: true,
                limit: None,
            },
            0,
        )
        .unwrap();
        let mc = run_offline(
            &trace,
            &cfg,
            &OfflineMethod::Mcts {
                playouts: 4096,
                playout: Playout::BestOnline,
                psi: None,
                exploration: 1.0,
                workers: Some(2),
            },
            7,
        )
        .unwrap();
        eprintln!(
            "toy {dist:?}: pruned DFS {} | mcts {} after {} playouts | greedy {}",
            pr.internal_writes, mc.internal_writes, mc.playouts, mc.greedy_internal_writes
        );
        assert!(mc.internal_writes <= mc.greedy_internal_writes);
        // With the whole pruned tree covered, MCTS must find the pruned DFS optimum.
        if mc.playouts < 4096 {
            assert_eq!(mc.internal_writes, pr.internal_writes);
        }
    }
}

#[test]
fn offline_pruned_first_candidate_is_greedy_choice() {
    let trace = hot_cold(3_000, 100, 5);
    let fut = FutureIndex::new(&trace, 100, true);
    let mut m = Model::new(16, 8, 100);
    let mut s = PruneScratch::default();
    let mut cands = Vec::new();
    let mut r = crate::rng::stream(1, "offline.test.walk");
    let mut branching = 0usize;
    while m.advance(&fut) {
        pruned_candidates(&m, &fut, 2, &mut s, &mut cands);
        assert_eq!(cands.first().copied(), m.greedy_victim());
        assert!(cands.iter().all(|&b| m.is_cleanable(b)));
        branching += cands.len();
        let pick = cands[r.gen_range(0..cands.len())];
        assert!(m.clean(pick));
    }
    assert!(
        branching > m.schedule().len(),
        "pruning should leave some choices"
    );
}

#[test]
fn offline_online_baselines_run_and_revalidate() {
    let cfg = OfflineConfig {
        blocks: 32,
        pages_per_block: 16,
        logical_pages: 400,
        prefill: true,
    };
    let trace = hot_cold(20_000, 400, 3);
    use strum::IntoEnumIterator;
    for m in OfflineMethod::iter().filter(|m| m.victim_policy().is_some()) {
        let method = OfflineMethod::from_name(m.name()).unwrap();
        let rep = run_offline(&trace, &cfg, &method, 9).unwrap();
        assert!(
            rep.revalidated && rep.waf >= 1.0 && rep.internal_writes > 0,
            "{}",
            m.name()
        );
        eprintln!(
            "{:>12}: internal {} waf {:.3}",
            m.name(),
            rep.internal_writes,
            rep.waf
        );
    }
}

#[test]
fn offline_config_and_input_errors_name_the_field() {
    let ok = OfflineConfig {
        blocks: 4,
        pages_per_block: 4,
        logical_pages: 10,
        prefill: false,
    };
    let e = |c: OfflineConfig| {
        run_offline(&[0], &c, &OfflineMethod::Greedy, 0)
            .unwrap_err()
            .to_string()
    };
    assert!(e(OfflineConfig {
        logical_pages: 16,
        ..ok.clone()
    })
    .contains("offline.logical_pages"));
    assert!(e(OfflineConfig {
        blocks: 1,
        ..ok.clone()
    })
    .contains("offline.blocks"));
    assert!(e(OfflineConfig {
        pages_per_block: 0,
        ..ok.clone()
    })
    .contains("offline.pages_per_block"));
    let err = run_offline(&[3, 10], &ok, &OfflineMethod::Greedy, 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("trace write 1") && err.contains("logical page 10"),
        "{err}"
    );
    let trace = [0, 1, 2, 3, 0, 1, 2, 3, 4, 5];
    let rep = run_offline(&trace, &ok, &OfflineMethod::Greedy, 0).unwrap();
    assert!(replay_schedule(&trace, &ok, &rep.schedule[..rep.schedule.len() - 1]).is_err());
    let mut longer = rep.schedule.clone();
    longer.push(0);
    assert!(replay_schedule(&trace, &ok, &longer).is_err());
    assert!(replay_schedule(&trace, &ok, &[9, 9, 9]).is_err());
}
