//! Near-optimal offline cleaning: Shafaei & Desnoyers, "Near-Optimal Offline Cleaning for
//! Flash-Based SSDs". [`compare`] builds one workload's offline problem once and runs each
//! method (online baselines, exhaustive and pruned DFS, MCTS) and each multi-frontier placement
//! on it (§IV, Fig. 8–9); [`table_one`] is Table I (§IV-A): exhaustive vs pruned DFS vs Greedy on
//! the four toy traces. The front end (`python/ssdlab/experiments/offline.py`) only formats.

use serde::Serialize;
use strum::IntoEnumIterator;

use crate::config::VictimPolicy;
use crate::error::{Result, SsdError};
use crate::offline::future::FutureIndex;
use crate::offline::mcts::{mcts, MctsParams};
use crate::offline::model::Model;
use crate::offline::toy::TOY_PSI;
use crate::offline::{
    load_problem, run_offline, run_placement, OfflineMethod, OfflineProblem, OfflineReport,
    OfflineSetup, OfflineWorkload, PlacementReport, ToyDistribution, ToySpec,
};

/// One workload's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct OfflineComparison {
    pub problem: OfflineProblem,
    pub reports: Vec<OfflineReport>,
    pub placements: Vec<PlacementReport>,
}

/// Draws of each toy distribution in Table I: several, since one draw of 46 writes decides
/// little (issue 17).
pub const TABLE_ONE_DRAWS: u64 = 5;
/// MCTS runs per toy draw behind Table II's accuracy.
pub const TABLE_TWO_RUNS: u64 = 10;

/// Table I's rows: one toy draw's comparison each, with its Table II measurement.
#[derive(Debug, Clone, Serialize)]
pub struct TableOneRow {
    pub dist: ToyDistribution,
    /// The draw (the toy trace's seed).
    pub draw: u64,
    #[serde(flatten)]
    pub comparison: OfflineComparison,
    pub mcts: MctsMatch,
}

/// Table II (§IV-B) on one toy draw: MCTS as the paper ran it — UCB1, Greedy playouts, ψ as the
/// pruned DFS's, started from Greedy's schedule, one worker — against the pruned DFS. The paper's
/// "Traverses (%)" is the playouts MCTS needed to reach the pruned DFS's internal writes as a
/// share of the pruned tree's traverses (here the median over runs; it can exceed 100 %: MCTS
/// expands one node per playout and a tree has more nodes than leaves, so it may need more
/// playouts than the tree has schedules); its "Accuracy" the share of runs that reached them
/// within as many playouts as the pruned tree has traverses. Runs may go on to 4× that
/// (at least 64) to measure the playouts needed.
#[derive(Debug, Clone, Serialize)]
pub struct MctsMatch {
    /// The pruned DFS's internal writes.
    pub target: u64,
    /// The pruned tree's traverses: the accuracy budget.
    pub budget: u64,
    pub runs: u64,
    /// Runs that reached `target` within `budget` playouts.
    pub reached: u64,
    /// Per run, the playouts after which its best first reached `target` (0: Greedy's schedule
    /// already does).
    pub playouts_needed: Vec<Option<u64>>,
    /// Median of `playouts_needed` (over the runs that reached `target` at all), as a share of
    /// `budget`, in %.
    pub traverses_pct: Option<f64>,
    pub accuracy_pct: f64,
}

fn mcts_match(
    problem: &OfflineProblem,
    greedy: &OfflineReport,
    pruned: &OfflineReport,
) -> MctsMatch {
    let cfg = &problem.config;
    let fut = FutureIndex::new(&problem.writes, cfg.logical_pages, cfg.prefill);
    let root = Model::new(cfg.blocks, cfg.pages_per_block, cfg.logical_pages);
    let budget = pruned.traverses.max(1);
    let params = MctsParams {
        playouts: (4 * budget).max(64),
        psi: TOY_PSI,
        exploration: crate::offline::registry::default_exploration(),
        workers: 1,
        playout: VictimPolicy::Greedy,
    };
    let target = pruned.internal_writes;
    let g = greedy.internal_writes;
    let needed: Vec<Option<u64>> = (1..=TABLE_TWO_RUNS)
        .map(|run| {
            if g <= target {
                return Some(0);
            }
            let out = mcts(&root, &fut, &params, run, g, (g, greedy.schedule.clone()));
            out.improvements
                .iter()
                .find(|&&(_, c)| c <= target)
                .map(|&(n, _)| n)
        })
        .collect();
    let mut hit: Vec<u64> = needed.iter().flatten().copied().collect();
    hit.sort_unstable();
    let reached = hit.iter().filter(|&&n| n <= budget).count() as u64;
    MctsMatch {
        target,
        budget,
        runs: TABLE_TWO_RUNS,
        reached,
        traverses_pct: (!hit.is_empty())
            .then(|| hit[(hit.len() - 1) / 2] as f64 / budget as f64 * 100.0),
        accuracy_pct: reached as f64 / TABLE_TWO_RUNS as f64 * 100.0,
        playouts_needed: needed,
    }
}

/// Build the offline problem of `workload` on `setup` once, then run each method and each
/// placement (`dual-frontier`, `hot-cold`, `eti`, `oracle`, `single`, replayed with greedy
/// cleaning) on it. Every method is validated before any runs.
pub fn compare(
    workload: &OfflineWorkload,
    setup: &OfflineSetup,
    methods: &[OfflineMethod],
    placements: &[String],
    seed: u64,
) -> Result<OfflineComparison> {
    let problem = load_problem(workload, setup, seed)?;
    for m in methods {
        m.validate(problem.config.pages_per_block)?;
    }
    let reports = methods
        .iter()
        .map(|m| run_offline(&problem.writes, &problem.config, m, seed))
        .collect::<Result<Vec<_>>>()?;
    let placements = placements
        .iter()
        .map(|p| run_placement(&problem.writes, &problem.config, p))
        .collect::<Result<Vec<_>>>()?;
    Ok(OfflineComparison {
        problem,
        reports,
        placements,
    })
}

/// Table I (§IV-A) and Table II (§IV-B): on `draws` draws of each toy distribution (seeds
/// `seed`, `seed` + 1, …; 8 blocks × 4 pages, 46 writes), exhaustive DFS (exact bound), pruned DFS
/// (Algorithms 1–3, ψ = [`TOY_PSI`]) and Greedy, each with its unbounded traverse count, and MCTS
/// against the pruned DFS ([`MctsMatch`]). The draws are independent (each MCTS match runs on one
/// worker): up to `jobs` at once on threads ([`super::parallel`]; 0: one per CPU), which
/// changes no result.
pub fn table_one(
    seed: u64,
    draws: u64,
    jobs: usize,
    progress: &super::parallel::Progress,
) -> Result<Vec<TableOneRow>> {
    if draws == 0 {
        return Err(SsdError::config("draws", "must be at least 1"));
    }
    let methods = [
        OfflineMethod::Exhaustive {
            bound: true,
            limit: None,
        },
        OfflineMethod::Pruned {
            psi: Some(TOY_PSI),
            bound: true,
            limit: None,
        },
        OfflineMethod::Greedy,
    ];
    let items: Vec<(ToyDistribution, u64)> = ToyDistribution::iter()
        .flat_map(|dist| (seed..seed.saturating_add(draws)).map(move |draw| (dist, draw)))
        .collect();
    // Toy problems are a few KiB: only the CPUs and the items bound the jobs.
    let jobs = super::parallel::jobs_for(jobs, items.len(), &[], &Default::default());
    super::parallel::map(&items, jobs, progress, |&(dist, draw)| {
        let workload = OfflineWorkload::Toy(ToySpec {
            dist,
            writes: crate::offline::TOY_WRITES,
            footprint: None,
            seed: Some(draw),
        });
        let comparison = compare(&workload, &OfflineSetup::default(), &methods, &[], seed)?;
        let [_, pruned, greedy] = &comparison.reports[..] else {
            unreachable!("three methods")
        };
        let mcts = mcts_match(&comparison.problem, greedy, pruned);
        Ok(TableOneRow {
            dist,
            draw,
            comparison,
            mcts,
        })
    })
}
