//! Offline cleaning (Shafaei & Desnoyers): one coarse call that loads a workload and runs a list
//! of methods on it with the GIL released; JSON in, JSON out.

use pyo3::prelude::*;
use ssdlab_core::api;

use crate::errors::to_py;

/// Run the methods of `methods_json` (one object or an array) on the offline problem of
/// `workload_json` and `setup_json`, and each placement of `placements_json` (an array of names)
/// with greedy cleaning; returns `{"problem": …, "reports": […], "placements": […]}` as JSON.
#[pyfunction]
#[pyo3(signature = (workload_json, setup_json, methods_json, seed, placements_json="[]"))]
pub fn run_offline_json(
    py: Python<'_>,
    workload_json: &str,
    setup_json: &str,
    methods_json: &str,
    seed: u64,
    placements_json: &str,
) -> PyResult<String> {
    py.detach(|| {
        api::run_offline_json(
            workload_json,
            setup_json,
            methods_json,
            placements_json,
            seed,
        )
    })
    .map_err(to_py)
}

/// Tables I and II of the offline-cleaning paper on the four toy traces
/// (`api::offline_table_one`), `jobs` draws at once (None: the core's `AUTO_JOBS`, one per
/// CPU).
#[pyfunction]
#[pyo3(signature = (seed, draws, jobs=None, progress=None))]
pub fn offline_table_one_json(
    py: Python<'_>,
    seed: u64,
    draws: u64,
    jobs: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let jobs = jobs.unwrap_or(ssdlab_core::experiments::parallel::AUTO_JOBS);
    crate::experiments::with_progress(py, progress, |p| {
        api::offline_table_one(seed, draws, jobs, &p)
    })?
    .map_err(to_py)
}
