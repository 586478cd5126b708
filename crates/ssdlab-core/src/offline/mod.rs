//! Offline cleaning (Shafaei & Desnoyers, "Near-Optimal Offline Cleaning for Flash-Based SSDs"):
//! online baselines, exhaustive, pruned and MCTS search for cleaning schedules in the
//! single-frontier demand-cleaning model of the paper's §II, with every reported schedule
//! re-validated by replaying it from scratch.
//!
//! ```text
//!   trace ──► FutureIndex (prefill + trace, next-write of every position)      future.rs
//!               │
//!   Model (L2P, P2L, valid counts, frontier, undo log)                          model.rs
//!     ├─ online baselines: greedy, fifo, cost-benefit, d-choices               policies.rs
//!     ├─ candidates: all / pruned (Algorithms 1–3)                              prune.rs
//!     ├─ DFS: exhaustive, pruned                                                search.rs
//!     ├─ unbounded traverse counts (memo, Knuth's estimate)                     count.rs
//!     └─ MCTS: UCB1, greedy playouts, rayon batches                              mcts.rs
//!   OfflineMethod (serde-tagged registry)                                       registry.rs
//!   toy traces of Table I                                                       toy.rs
//!   workload → page writes, device scaled to the footprint                      input.rs
//! ```

pub mod count;
pub mod future;
pub mod input;
pub mod mcts;
pub mod model;
pub mod placement;
pub mod policies;
pub mod prune;
pub mod registry;
pub mod search;
pub mod toy;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::config::VictimPolicy;
use crate::error::{Result, SsdError};
use crate::rng;
use future::FutureIndex;
pub use input::{load_problem, OfflineProblem, OfflineSetup, OfflineWorkload, ToySpec};
use model::Model;
pub use placement::{run_placement, PlacementReport};
use policies::Online;
pub use registry::{default_psi, OfflineMethod, Playout};
use search::Branching;
pub use toy::{ToyDistribution, EXHAUSTIVE_LIMIT, TOY_WRITES};

/// Geometry of the offline model (§II): `blocks` = T, `pages_per_block` = N_p, `logical_pages`
/// = N (< T·N_p); `prefill` prepends one sequential write of every logical page (§IV-C).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfflineConfig {
    pub blocks: u32,
    pub pages_per_block: u32,
    pub logical_pages: u32,
    #[serde(default)]
    pub prefill: bool,
}

impl OfflineConfig {
    /// Check the geometry; an impossible one is a `SsdError::Config` naming the field.
    pub fn validate(&self) -> Result<()> {
        if self.blocks < 2 {
            return Err(SsdError::config(
                "offline.blocks",
                format!("need at least 2 blocks, got {}", self.blocks),
            ));
        }
        if self.pages_per_block == 0 {
            return Err(SsdError::config(
                "offline.pages_per_block",
                "must be at least 1",
            ));
        }
        let slots = u64::from(self.blocks) * u64::from(self.pages_per_block);
        if slots >= u64::from(u32::MAX) {
            return Err(SsdError::config(
                "offline.blocks",
                format!(
                    "blocks × pages_per_block = {slots} physical pages; at most {} supported",
                    u32::MAX - 1
                ),
            ));
        }
        if self.logical_pages == 0 || u64::from(self.logical_pages) >= slots {
            return Err(SsdError::config(
                "offline.logical_pages",
                format!(
                    "must be in 1..{slots} (fewer than blocks × pages_per_block), got {}",
                    self.logical_pages
                ),
            ));
        }
        Ok(())
    }
}

/// One point of the convergence curve: the best improvement after `playouts` playouts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConvergencePoint {
    pub playouts: u64,
    pub internal_writes: u64,
    pub improvement_pct: f64,
}

/// What `run_offline` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfflineReport {
    pub method: String,
    pub params: OfflineMethod,
    pub seed: u64,
    /// Trace writes (prefill excluded).
    pub host_writes: u64,
    pub prefill_writes: u64,
    /// Pages copied by cleaning over the whole run.
    pub internal_writes: u64,
    /// (host + internal) / host (§II); 1.0 for an empty trace.
    pub waf: f64,
    /// Victim selections, zero-copy ones included (= schedule length).
    pub cleanings: u64,
    pub schedule: Vec<u32>,
    /// Complete schedules visited (DFS) or playouts run (MCTS); 1 for online methods.
    pub schedules_explored: u64,
    /// The paper's Table I "Traverses": root-to-leaf paths of the method's tree *without* a
    /// bound — every schedule of the tree however bad (DFS; exhaustive with empty blocks
    /// merged, as it searches), the playouts (MCTS), 1 (online policies).
    pub traverses: u64,
    /// `traverses` is Knuth's estimate from random probes ([`count::estimate_traverses`]),
    /// because the tree has too many distinct states to count exactly.
    pub traverses_estimated: bool,
    pub playouts: u64,
    /// Distinct complete schedules found with fewer internal writes than Greedy.
    pub better_than_greedy: u64,
    pub greedy_internal_writes: u64,
    /// (greedy − this) / greedy internal writes, in percent (Table III's measure).
    pub improvement_pct: f64,
    pub convergence: Vec<ConvergencePoint>,
    /// False when a search stopped on its limit before covering its tree.
    pub complete: bool,
    /// The schedule was replayed from scratch and gave `internal_writes` exactly.
    pub revalidated: bool,
}

/// Result of replaying a schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplayOutcome {
    pub internal_writes: u64,
    pub cleanings: u64,
}

fn check_trace(trace: &[u32], cfg: &OfflineConfig) -> Result<()> {
    if let Some((i, &l)) = trace
        .iter()
        .enumerate()
        .find(|(_, &l)| l >= cfg.logical_pages)
    {
        return Err(SsdError::Invalid(format!(
            "trace write {i}: logical page {l} is outside 0..{} (offline.logical_pages)",
            cfg.logical_pages
        )));
    }
    let total = trace.len() as u64
        + if cfg.prefill {
            u64::from(cfg.logical_pages)
        } else {
            0
        };
    if total >= u64::from(u32::MAX) {
        return Err(SsdError::Invalid(format!(
            "trace of {total} writes is too long (limit {})",
            u32::MAX - 1
        )));
    }
    Ok(())
}

fn prepare(trace: &[u32], cfg: &OfflineConfig) -> Result<(FutureIndex, Model)> {
    cfg.validate()?;
    check_trace(trace, cfg)?;
    let fut = FutureIndex::new(trace, cfg.logical_pages, cfg.prefill);
    Ok((
        fut,
        Model::new(cfg.blocks, cfg.pages_per_block, cfg.logical_pages),
    ))
}

/// Replay `schedule` from an empty device through the model (the paper's §III witness check):
/// victim i is cleaned at decision i. Errors if a victim is not cleanable at its decision, or the
/// schedule is shorter or longer than the number of decisions.
pub fn replay_schedule(
    trace: &[u32],
    cfg: &OfflineConfig,
    schedule: &[u32],
) -> Result<ReplayOutcome> {
    let (fut, mut m) = prepare(trace, cfg)?;
    let mut next = schedule.iter();
    while m.advance(&fut) {
        let i = m.schedule().len();
        let Some(&victim) = next.next() else {
            return Err(SsdError::Invalid(format!(
                "schedule ends after {i} victims but the trace needs more"
            )));
        };
        if !m.clean(victim) {
            return Err(SsdError::Invalid(format!(
                "schedule victim {i} (block {victim}) is not cleanable there"
            )));
        }
    }
    if next.next().is_some() {
        return Err(SsdError::Invalid(format!(
            "schedule has {} victims but the trace needs only {}",
            schedule.len(),
            m.schedule().len()
        )));
    }
    Ok(ReplayOutcome {
        internal_writes: m.internal_writes(),
        cleanings: m.schedule().len() as u64,
    })
}

struct Found {
    internal: u64,
    schedule: Vec<u32>,
    explored: u64,
    playouts: u64,
    better: u64,
    convergence: Vec<(u64, u64)>,
    complete: bool,
    /// (traverses, estimated), see [`OfflineReport::traverses`].
    traverses: (u64, bool),
}

/// Distinct states [`tree_size`] memoises before it estimates instead (~40 MB, under a second).
const COUNT_STATES: usize = 250_000;
/// Random probes of Knuth's estimate: a relative standard error of a few per cent on the toys.
const ESTIMATE_PROBES: u32 = 20_000;

/// The unbounded tree's root-to-leaf paths: counted exactly when its distinct states fit in
/// [`COUNT_STATES`], else Knuth's estimate (seeded, so reproducible).
fn tree_size(m: &mut Model, fut: &FutureIndex, branching: Branching, seed: u64) -> (u64, bool) {
    if let Some(n) = count::count_traverses(m, fut, branching, COUNT_STATES) {
        return (n, false);
    }
    let mut r = rng::stream(seed, "offline.traverses");
    let (mean, _) = count::estimate_traverses(m, fut, branching, ESTIMATE_PROBES, &mut r);
    (mean.round() as u64, true)
}

fn run_online(fut: &FutureIndex, root: &Model, policy: &mut Online) -> Result<Found> {
    let mut m = root.clone();
    if !policies::run_to_end(&mut m, fut, policy) {
        return Err(SsdError::DeviceFull(
            "no cleanable block (geometry leaves no spare page)".into(),
        ));
    }
    let internal = m.internal_writes();
    Ok(Found {
        internal,
        schedule: m.schedule().to_vec(),
        explored: 1,
        playouts: 0,
        better: 0,
        convergence: vec![],
        complete: true,
        traverses: (1, false),
    })
}

/// Run `method` on `trace` over the device `cfg`. Every method's schedule is replayed from
/// scratch and must reproduce the reported internal writes; the DFS searches start from
/// Greedy's schedule as incumbent, MCTS from the best online policy's, so they never report
/// worse than those.
pub fn run_offline(
    trace: &[u32],
    cfg: &OfflineConfig,
    method: &OfflineMethod,
    seed: u64,
) -> Result<OfflineReport> {
    method.validate(cfg.pages_per_block)?;
    let (fut, root) = prepare(trace, cfg)?;
    // The online policies' random draws (d-choices, random) come from one named stream.
    let online = |p| Online::new(p, rng::stream(seed, "offline.d-choices"));
    let greedy = run_online(&fut, &root, &mut online(VictimPolicy::Greedy))?;
    let g = greedy.internal;
    let psi_of = |p: &Option<u32>| p.unwrap_or_else(|| default_psi(cfg.pages_per_block));
    let found = match method {
        OfflineMethod::Greedy => greedy,
        OfflineMethod::Fifo
        | OfflineMethod::CostBenefit
        | OfflineMethod::Random
        | OfflineMethod::DChoices { .. } => {
            let policy = method.victim_policy().ok_or_else(|| {
                SsdError::Invalid(format!("{} is not an online policy", method.name()))
            })?;
            run_online(&fut, &root, &mut online(policy))?
        }
        OfflineMethod::Exhaustive { bound, limit } | OfflineMethod::Pruned { bound, limit, .. } => {
            let branching = match method {
                OfflineMethod::Pruned { psi, .. } => Branching::Pruned { psi: psi_of(psi) },
                _ => Branching::All,
            };
            let mut m = root.clone();
            let traverses = tree_size(&mut m, &fut, branching, seed);
            let out = search::dfs(
                &mut m,
                &fut,
                branching,
                *bound,
                *limit,
                g,
                (g, greedy.schedule),
            );
            Found {
                internal: out.best_internal,
                schedule: out.best_schedule,
                explored: out.explored,
                playouts: 0,
                better: out.better_than_greedy,
                convergence: vec![],
                complete: out.complete,
                traverses,
            }
        }
        OfflineMethod::Mcts {
            playouts,
            playout,
            psi,
            exploration,
            workers,
        } => {
            // Every online policy's schedule, for the incumbent (the best of all) and the
            // playout policy (the best deterministic one, unless the paper's Greedy is asked).
            let mut best_online = (g, greedy.schedule, VictimPolicy::Greedy);
            let mut playout_policy = (g, VictimPolicy::Greedy);
            for p in [
                VictimPolicy::Fifo,
                VictimPolicy::CostBenefit,
                VictimPolicy::Random,
                VictimPolicy::DChoices { d: 10 },
            ] {
                let f = run_online(&fut, &root, &mut online(p))?;
                let deterministic =
                    !matches!(p, VictimPolicy::Random | VictimPolicy::DChoices { .. });
                if deterministic && f.internal < playout_policy.0 {
                    playout_policy = (f.internal, p);
                }
                if f.internal < best_online.0 {
                    best_online = (f.internal, f.schedule, p);
                }
            }
            let params = mcts::MctsParams {
                playouts: *playouts,
                psi: psi_of(psi),
                exploration: *exploration,
                workers: workers.unwrap_or_else(rayon::current_num_threads),
                playout: match playout {
                    Playout::Greedy => VictimPolicy::Greedy,
                    Playout::BestOnline => playout_policy.1,
                },
            };
            let out = mcts::mcts(
                &root,
                &fut,
                &params,
                seed,
                g,
                (best_online.0, best_online.1),
            );
            Found {
                internal: out.best_internal,
                schedule: out.best_schedule,
                explored: out.playouts,
                playouts: out.playouts,
                better: out.better_than_greedy,
                convergence: out.convergence,
                complete: out.exhausted || out.playouts >= *playouts,
                traverses: (out.playouts, false),
            }
        }
    };
    let replay = replay_schedule(trace, cfg, &found.schedule)?;
    if replay.internal_writes != found.internal {
        return Err(SsdError::Invalid(format!(
            "internal error: {} reported {} internal writes but its schedule replays to {}",
            method.name(),
            found.internal,
            replay.internal_writes
        )));
    }
    let pct = |x: u64| {
        if g == 0 {
            0.0
        } else {
            (g as f64 - x as f64) / g as f64 * 100.0
        }
    };
    let host = trace.len() as u64;
    Ok(OfflineReport {
        method: method.name().to_string(),
        params: method.clone(),
        seed,
        host_writes: host,
        prefill_writes: u64::from(fut.prefill_len()),
        internal_writes: found.internal,
        waf: if host == 0 {
            1.0
        } else {
            (host + found.internal) as f64 / host as f64
        },
        cleanings: found.schedule.len() as u64,
        schedules_explored: found.explored,
        traverses: found.traverses.0,
        traverses_estimated: found.traverses.1,
        playouts: found.playouts,
        better_than_greedy: found.better,
        greedy_internal_writes: g,
        improvement_pct: pct(found.internal),
        convergence: found
            .convergence
            .iter()
            .map(|&(n, c)| ConvergencePoint {
                playouts: n,
                internal_writes: c,
                improvement_pct: pct(c),
            })
            .collect(),
        complete: found.complete,
        revalidated: true,
        schedule: found.schedule,
    })
}
