//! Near-optimal offline cleaning: Shafaei & Desnoyers, "Near-Optimal Offline Cleaning for
//! Flash-Based SSDs". [`compare`] builds one workload's offline problem once and runs each
//! method (online baselines, exhaustive and pruned DFS, MCTS) and each multi-frontier placement
//! on it (§IV, Fig. 8–9); [`table_one`] is Table I (§IV-A): exhaustive vs pruned DFS vs Greedy on
//! the four toy traces. The front end (`python/ssdlab/experiments/offline.py`) only formats.

use serde::Serialize;
use strum::IntoEnumIterator;

use crate::error::Result;
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

/// Table I's rows: one toy trace's comparison each.
#[derive(Debug, Clone, Serialize)]
pub struct TableOneRow {
    pub dist: ToyDistribution,
    #[serde(flatten)]
    pub comparison: OfflineComparison,
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

/// Table I: on each toy trace (8 blocks × 4 pages, 46 writes), exhaustive DFS (exact bound),
/// pruned DFS (Algorithms 1–3) and Greedy.
pub fn table_one(seed: u64) -> Result<Vec<TableOneRow>> {
    let methods = ["exhaustive", "pruned", "greedy"]
        .map(OfflineMethod::from_name)
        .into_iter()
        .collect::<Result<Vec<_>>>()?;
    ToyDistribution::iter()
        .map(|dist| {
            let workload = OfflineWorkload::Toy(ToySpec {
                dist,
                writes: crate::offline::TOY_WRITES,
                seed: None,
            });
            let comparison = compare(&workload, &OfflineSetup::default(), &methods, &[], seed)?;
            Ok(TableOneRow { dist, comparison })
        })
        .collect()
}
