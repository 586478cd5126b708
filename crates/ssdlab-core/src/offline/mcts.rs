//! Monte Carlo Tree Search over pruned candidates (Shafaei & Desnoyers §III-C, Fig. 7): UCB1
//! selection (Eq. 1), expansion of one untried candidate, a playout to the end of the trace,
//! back-propagation; a fixed number of playouts, best schedule kept. The paper completes each
//! traverse with Greedy; by default the playout policy is the best deterministic online policy
//! on the trace and the search starts from the best online schedule (`offline::run_offline`),
//! so a "near-optimal" bound no online policy beats (issue 17).
//!
//! Parallelism is by batches: the main thread selects up to `workers` leaves one after another
//! (each selection counts a visit on its path at once — a "virtual loss" — so the batch spreads
//! out), the playouts run in parallel with rayon, each worker restoring its own working copy
//! from its copy of the root state (a greedy playout rewrites most of the state, so a
//! no-allocation copy back is far cheaper than undoing millions of logged writes: 30 → 80
//! playouts/s on the 650k-write benchmark, two threads), and results are back-propagated in job order. The
//! result therefore depends only on the seed and `workers`, not on thread timing.

use std::collections::BTreeSet;

use rayon::prelude::*;

use super::future::FutureIndex;
use super::model::{Model, NONE};
use super::policies::{greedy_to_end, run_to_end, Online};
use super::prune::{pruned_candidates, PruneScratch};
use crate::rng::{self, Rng};

/// MCTS settings.
#[derive(Debug, Clone, Copy)]
pub struct MctsParams {
    pub playouts: u64,
    pub psi: u32,
    /// Coefficient of the UCB1 exploration term; 1.0 is Eq. 1 of the paper.
    pub exploration: f64,
    pub workers: usize,
    /// The policy that completes each playout (deterministic: no random draws, so results do
    /// not depend on which worker ran a playout).
    pub playout: crate::config::VictimPolicy,
}

/// What the search found.
#[derive(Debug, Clone, PartialEq)]
pub struct MctsOutcome {
    pub best_internal: u64,
    pub best_schedule: Vec<u32>,
    pub playouts: u64,
    /// Distinct complete schedules found strictly better than Greedy.
    pub better_than_greedy: u64,
    /// (playouts, best internal writes) at each power of two and at the end.
    pub convergence: Vec<(u64, u64)>,
    /// True if the whole pruned tree was visited before the budget ran out.
    pub exhausted: bool,
    /// (playout, new best internal writes) at every improvement on the incumbent, in order.
    pub improvements: Vec<(u64, u64)>,
}

struct Node {
    parent: u32,
    /// Victim chosen at the parent's decision point.
    action: u32,
    /// Victims applied afterwards at decisions with a single candidate, up to this node's.
    forced: Vec<u32>,
    untried: Vec<u32>,
    children: Vec<u32>,
    visits: u32,
    wins: f64,
    pending: bool,
    exhausted: bool,
}

struct Job {
    /// (action, forced) of each node from below the root to the new leaf; the leaf's forced list
    /// is discovered by the job.
    path: Vec<(u32, Vec<u32>)>,
    node: u32,
    /// Playouts costing at most this win (the best known when the batch began).
    win_at: u64,
    greedy: u64,
}

struct JobResult {
    forced: Vec<u32>,
    candidates: Vec<u32>,
    cost: u64,
    schedule: Option<Vec<u32>>,
    better_hash: Option<u64>,
}

struct Worker {
    /// The root state, and a working copy restored from it before each playout.
    base: Model,
    model: Model,
    scratch: PruneScratch,
    playout: Online,
}

fn schedule_hash(s: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in s {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Advance to the next decision with more than one candidate, applying single-candidate
/// decisions; returns (forced victims, candidates) — candidates empty at the end of the trace.
fn to_branch_point(
    m: &mut Model,
    fut: &FutureIndex,
    psi: u32,
    s: &mut PruneScratch,
) -> (Vec<u32>, Vec<u32>) {
    let mut forced = Vec::new();
    let mut cands = Vec::new();
    while m.advance(fut) {
        pruned_candidates(m, fut, psi, s, &mut cands);
        if cands.len() == 1 {
            forced.push(cands[0]);
            m.clean(cands[0]);
        } else {
            return (forced, cands);
        }
    }
    cands.clear();
    (forced, cands)
}

fn run_job(w: &mut Worker, fut: &FutureIndex, psi: u32, greedy: bool, job: &Job) -> JobResult {
    let m = &mut w.model;
    m.restore_from(&w.base);
    let last = job.path.len().saturating_sub(1);
    for (action, forced) in &job.path[..last] {
        m.clean(*action);
        for &f in forced {
            m.advance(fut);
            m.clean(f);
        }
        m.advance(fut);
    }
    if let Some((action, _)) = job.path.last() {
        m.clean(*action);
    }
    let (forced, candidates) = to_branch_point(m, fut, psi, &mut w.scratch);
    if greedy {
        greedy_to_end(m, fut);
    } else {
        run_to_end(m, fut, &mut w.playout);
    }
    let cost = m.internal_writes();
    let schedule = (cost < job.win_at).then(|| m.schedule().to_vec());
    let better_hash = (cost < job.greedy).then(|| schedule_hash(m.schedule()));
    JobResult {
        forced,
        candidates,
        cost,
        schedule,
        better_hash,
    }
}

struct Tree {
    nodes: Vec<Node>,
    exploration: f64,
}

impl Tree {
    fn select(&mut self, rng: &mut crate::rng::SimRng) -> Option<u32> {
        let mut at = 0u32;
        loop {
            let n = &self.nodes[at as usize];
            if n.exhausted || n.pending {
                return None;
            }
            if !n.untried.is_empty() {
                // Greedy's choice (the first candidate) first, then the others in seeded order.
                let i = if n.children.is_empty() {
                    0
                } else {
                    rng.gen_range(0..n.untried.len())
                };
                let action = self.nodes[at as usize].untried.remove(i);
                let id = self.nodes.len() as u32;
                self.nodes.push(Node {
                    parent: at,
                    action,
                    forced: Vec::new(),
                    untried: Vec::new(),
                    children: Vec::new(),
                    visits: 0,
                    wins: 0.0,
                    pending: true,
                    exhausted: false,
                });
                self.nodes[at as usize].children.push(id);
                let mut up = id;
                while up != NONE {
                    self.nodes[up as usize].visits += 1; // virtual loss until the result arrives
                    up = self.nodes[up as usize].parent;
                }
                return Some(id);
            }
            let ln_n = f64::from(n.visits.max(1)).ln();
            let mut best: Option<(f64, u32)> = None;
            for &c in &n.children {
                let ch = &self.nodes[c as usize];
                if ch.pending || ch.exhausted || ch.visits == 0 {
                    continue;
                }
                let nj = f64::from(ch.visits);
                let ucb = ch.wins / nj + self.exploration * (2.0 * ln_n / nj).sqrt();
                if best.is_none_or(|(u, _)| ucb > u) {
                    best = Some((ucb, c));
                }
            }
            at = best?.1;
        }
    }

    fn path(&self, node: u32) -> Vec<(u32, Vec<u32>)> {
        let mut p = Vec::new();
        let mut at = node;
        while at != 0 {
            let n = &self.nodes[at as usize];
            p.push((n.action, n.forced.clone()));
            at = n.parent;
        }
        p.reverse();
        p
    }

    fn settle(&mut self, node: u32, r: JobResult, win: bool) {
        let n = &mut self.nodes[node as usize];
        n.pending = false;
        n.forced = r.forced;
        n.exhausted = r.candidates.is_empty();
        n.untried = r.candidates;
        let mut at = node;
        while at != NONE {
            if at != node {
                let n = &self.nodes[at as usize];
                let done = n.untried.is_empty()
                    && n.children.iter().all(|&c| self.nodes[c as usize].exhausted);
                self.nodes[at as usize].exhausted = done;
            }
            let n = &mut self.nodes[at as usize];
            if win {
                n.wins += 1.0;
            }
            at = n.parent;
        }
    }
}

/// The best internal writes after each power-of-two number of playouts and after the last,
/// from the improvements (`improvements` is in playout order).
fn convergence_of(improvements: &[(u64, u64)], incumbent: u64, done: u64) -> Vec<(u64, u64)> {
    let best_after = |n: u64| {
        improvements
            .iter()
            .take_while(|&&(at, _)| at <= n)
            .last()
            .map_or(incumbent, |&(_, c)| c)
    };
    let mut marks: Vec<u64> = std::iter::successors(Some(1u64), |&m| m.checked_mul(2))
        .take_while(|&m| m <= done)
        .collect();
    if marks.last() != Some(&done) {
        marks.push(done);
    }
    marks.into_iter().map(|n| (n, best_after(n))).collect()
}

/// Run the MCTS from `root` (a fresh model), starting from `incumbent` (a cost and schedule:
/// the best online policy's), so the result is never worse than it. `greedy_internal` is what
/// `better_than_greedy` counts against.
pub fn mcts(
    root: &Model,
    fut: &FutureIndex,
    p: &MctsParams,
    seed: u64,
    greedy_internal: u64,
    incumbent: (u64, Vec<u32>),
) -> MctsOutcome {
    let mut base = root.clone();
    base.set_logging(false);
    let mut scratch = PruneScratch::default();
    let (_, root_cands) = to_branch_point(&mut base, fut, p.psi, &mut scratch);
    let workers = p.workers.max(1);
    let mut pool: Vec<Worker> = (0..workers)
        .map(|_| Worker {
            base: base.clone(),
            model: base.clone(),
            scratch: PruneScratch::default(),
            playout: Online::new(p.playout, rng::stream(seed, "offline.mcts.playout")),
        })
        .collect();
    let greedy = p.playout == crate::config::VictimPolicy::Greedy;
    let mut tree = Tree {
        nodes: vec![Node {
            parent: NONE,
            action: NONE,
            forced: Vec::new(),
            exhausted: root_cands.is_empty(),
            untried: root_cands,
            children: Vec::new(),
            visits: 0,
            wins: 0.0,
            pending: false,
        }],
        exploration: p.exploration,
    };
    let mut rng = rng::stream(seed, "offline.mcts");
    let (mut best, mut best_schedule) = incumbent;
    let mut better: BTreeSet<u64> = BTreeSet::new();
    let mut done = 0u64;
    let incumbent_cost = best;
    let mut improvements = Vec::new();
    while done < p.playouts {
        let want = (p.playouts - done).min(workers as u64) as usize;
        let mut jobs = Vec::with_capacity(want);
        while jobs.len() < want {
            let Some(node) = tree.select(&mut rng) else {
                break;
            };
            jobs.push(Job {
                path: tree.path(node),
                node,
                win_at: best,
                greedy: greedy_internal,
            });
        }
        if jobs.is_empty() {
            break; // the whole pruned tree has been visited
        }
        let results: Vec<JobResult> = pool
            .par_iter_mut()
            .zip(jobs.par_iter())
            .map(|(w, job)| run_job(w, fut, p.psi, greedy, job))
            .collect();
        for (job, r) in jobs.iter().zip(results) {
            let win = r.cost <= job.win_at;
            if r.cost < best {
                if let Some(s) = &r.schedule {
                    best = r.cost;
                    best_schedule = s.clone();
                    improvements.push((done + 1, best));
                }
            }
            if let Some(h) = r.better_hash {
                better.insert(h);
            }
            tree.settle(job.node, r, win);
            // Results are merged in job order, so the curve is exact per playout.
            done += 1;
        }
    }
    let convergence = convergence_of(&improvements, incumbent_cost, done);
    MctsOutcome {
        best_internal: best,
        best_schedule,
        playouts: done,
        better_than_greedy: better.len() as u64,
        convergence,
        exhausted: tree.nodes[0].exhausted,
        improvements,
    }
}
