//! The experiments' bindings, one call per comparison with the GIL released: thin wrappers of
//! `ssdlab_core::api::{ttflash_experiment, rlgc_experiment, fill_experiment, slc_experiment, tune_ust}`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use ssdlab_core::api;
use ssdlab_core::experiments::parallel::Progress;

use crate::errors::to_py;

/// Run `f` with the GIL released; with a `progress` callable, on a thread of its own while
/// this one calls `progress(done, total)` (simulations, or a fill's points) every 200 ms and
/// once at the end, woken when `f` returns (no wait for the rest of a period). The callback
/// only reads the counters: it never changes a result.
pub fn with_progress<R: Send>(
    py: Python<'_>,
    progress: Option<Bound<'_, PyAny>>,
    f: impl FnOnce(Arc<Progress>) -> R + Send,
) -> PyResult<R> {
    let p = Arc::new(Progress::default());
    let Some(cb) = progress else {
        return Ok(py.detach(|| f(p)));
    };
    let (waiter, ended) = (std::thread::current(), AtomicBool::new(false));
    std::thread::scope(|s| {
        let worker = {
            let (p, ended) = (Arc::clone(&p), &ended);
            s.spawn(move || {
                let out = f(p);
                // Set before the wake-up: a wait that starts after it returns at once.
                ended.store(true, Ordering::Release);
                waiter.unpark();
                out
            })
        };
        let mut reported = Ok(());
        // `is_finished` too: a worker that panicked never sets `ended`.
        while !ended.load(Ordering::Acquire) && !worker.is_finished() {
            py.detach(|| std::thread::park_timeout(Duration::from_millis(200)));
            // A callback that raises (Ctrl-C in it) is reported once the experiment ends: its
            // thread cannot be stopped midway.
            if reported.is_ok() {
                reported = cb.call1(p.get()).map(drop);
            }
        }
        let out = worker
            .join()
            .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("the experiment panicked"))?;
        reported?;
        cb.call1(p.get())?;
        Ok(out)
    })
}

/// Run the stacks (the experiment's `STACKS` when empty) on a device (preset or TOML text, with
/// overrides), a workload (JSON) and run options (JSON), up to `jobs` at once (None: the
/// core's `AUTO_JOBS`, one per CPU; results do not depend on it). Returns the comparison as JSON (`configs.<stack>` with
/// `latency_us`, `blocked_fraction`, `erases`, …).
#[pyfunction]
#[pyo3(signature = (device, origin, overrides, workload_json, options_json, stacks=Vec::new(), jobs=None, progress=None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one each
pub fn ttflash_experiment_json(
    py: Python<'_>,
    device: &str,
    origin: &str,
    overrides: Vec<String>,
    workload_json: &str,
    options_json: &str,
    stacks: Vec<String>,
    jobs: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let jobs = jobs.unwrap_or(ssdlab_core::experiments::parallel::AUTO_JOBS);
    let cfg = api::load_device(device, origin, &overrides).map_err(to_py)?;
    let wl = api::parse_workload(workload_json).map_err(to_py)?;
    let opts = api::parse_options(options_json).map_err(to_py)?;
    with_progress(py, progress, |p| {
        api::ttflash_experiment(cfg, &wl, opts, &stacks, jobs, &p)
    })?
    .map_err(to_py)
}

/// `tails_experiment_json`: the tail levers side by side (`ssdlab_core::experiments::tails`)
/// on one device and workload, the GIL released; every row when `rows` is empty.
#[pyfunction]
#[pyo3(signature = (device, origin, overrides, workload_json, options_json, rows, jobs=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn tails_experiment_json(
    py: Python<'_>,
    device: &str,
    origin: &str,
    overrides: Vec<String>,
    workload_json: &str,
    options_json: &str,
    rows: Vec<String>,
    jobs: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let jobs = jobs.unwrap_or(ssdlab_core::experiments::parallel::AUTO_JOBS);
    let wl = api::parse_workload(workload_json).map_err(to_py)?;
    let opts = api::parse_options(options_json).map_err(to_py)?;
    with_progress(py, progress, |p| {
        api::tails_experiment(device, origin, &overrides, &wl, opts, &rows, jobs, &p)
    })?
    .map_err(to_py)
}

/// `tenants_experiment_json`: tenants (`ssdlab_core::experiments::tenants`) on one device, the
/// GIL released; the default reader and writer when `flows_json` is `None`.
#[pyfunction]
#[pyo3(signature = (device, origin, overrides, flows_json, requests, options_json, rows, jobs=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn tenants_experiment_json(
    py: Python<'_>,
    device: &str,
    origin: &str,
    overrides: Vec<String>,
    flows_json: Option<&str>,
    requests: u64,
    options_json: &str,
    rows: Vec<String>,
    jobs: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let jobs = jobs.unwrap_or(ssdlab_core::experiments::parallel::AUTO_JOBS);
    let flows = flows_json
        .map(api::parse_workload)
        .transpose()
        .map_err(to_py)?;
    let opts = api::parse_options(options_json).map_err(to_py)?;
    with_progress(py, progress, |p| {
        api::tenants_experiment(
            device,
            origin,
            &overrides,
            flows.as_ref(),
            requests,
            opts,
            &rows,
            jobs,
            &p,
        )
    })?
    .map_err(to_py)
}

/// `placement_experiment_json`: host-visible placement (`ssdlab_core::experiments::placement`)
/// on one device, the GIL released; the default tenants when `workload_json` is `None`.
#[pyfunction]
#[pyo3(signature = (device, origin, overrides, workload_json, requests, options_json, rows, jobs=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn placement_experiment_json(
    py: Python<'_>,
    device: &str,
    origin: &str,
    overrides: Vec<String>,
    workload_json: Option<&str>,
    requests: u64,
    options_json: &str,
    rows: Vec<String>,
    jobs: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let jobs = jobs.unwrap_or(ssdlab_core::experiments::parallel::AUTO_JOBS);
    let wl = workload_json
        .map(api::parse_workload)
        .transpose()
        .map_err(to_py)?;
    let opts = api::parse_options(options_json).map_err(to_py)?;
    with_progress(py, progress, |p| {
        api::placement_experiment(
            device,
            origin,
            &overrides,
            wl.as_ref(),
            requests,
            opts,
            &rows,
            jobs,
            &p,
        )
    })?
    .map_err(to_py)
}

/// `rlgc_experiment_json`: every run of the RL-assisted GC comparison (Kang et al., TECS 2017)
/// from a JSON setup (`ssdlab_core::experiments::rlgc::RlgcSetup`), the GIL released.
#[pyfunction]
#[pyo3(signature = (setup_json, progress=None))]
pub fn rlgc_experiment_json(
    py: Python<'_>,
    setup_json: &str,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    with_progress(py, progress, |p| api::rlgc_experiment(setup_json, p))?.map_err(to_py)
}

/// `fill_experiment_json`: the drive-review write curve (`ssdlab_core::experiments::fill`) from
/// a JSON setup, the GIL released. Returns `points` (`{written_gb, mb_s}`), `cache_gb`, ….
#[pyfunction]
#[pyo3(signature = (setup_json, progress=None))]
pub fn fill_experiment_json(
    py: Python<'_>,
    setup_json: &str,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    with_progress(py, progress, |p| api::fill_experiment(setup_json, p))?.map_err(to_py)
}

/// `slc_experiment_json`: the SLC-cache policies by utilisation (`ssdlab_core::experiments::slc`)
/// from a JSON setup, the GIL released. Returns `utilisations.<u>.policies.<name>.{write_mb_s,
/// waf, latency_us, breakdown_us, …}`, `sensitivity`, `pretraining`.
#[pyfunction]
#[pyo3(signature = (setup_json, progress=None))]
pub fn slc_experiment_json(
    py: Python<'_>,
    setup_json: &str,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    with_progress(py, progress, |p| api::slc_experiment(setup_json, p))?.map_err(to_py)
}

/// `tune_ust_json`: `ust`'s table tuned offline on the stand-ins, the GIL released. Returns
/// `table` (rows `{up_to, slc_fraction, theta_kib}`) and every `candidates` measured.
#[pyfunction]
#[pyo3(signature = (setup_json, progress=None))]
pub fn tune_ust_json(
    py: Python<'_>,
    setup_json: &str,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    with_progress(py, progress, |p| api::tune_ust(setup_json, p))?.map_err(to_py)
}

/// `detect_experiment`: the GC-detection experiment (`ssdlab_core::experiments::detect`) from a
/// JSON setup, the GIL released. Returns (report JSON, train rows, train labels, eval rows, eval
/// labels, the tree's eval predictions) — numpy arrays for the scikit-learn comparison.
#[pyfunction]
#[allow(clippy::type_complexity)]
#[pyo3(signature = (setup_json, progress=None))]
pub fn detect_experiment<'py>(
    py: Python<'py>,
    setup_json: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<(
    String,
    Bound<'py, numpy::PyArray2<f64>>,
    Bound<'py, numpy::PyArray1<u32>>,
    Bound<'py, numpy::PyArray2<f64>>,
    Bound<'py, numpy::PyArray1<u32>>,
    Bound<'py, numpy::PyArray1<u32>>,
)> {
    use numpy::IntoPyArray;
    let out =
        with_progress(py, progress, |p| api::detect_experiment(setup_json, p))?.map_err(to_py)?;
    let report = api::to_json(&out.report).map_err(to_py)?;
    let matrix = |rows: &[Vec<f64>]| -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
        let cols = out.report.feature_names.len();
        let flat: Vec<f64> = rows.iter().flatten().copied().collect();
        numpy::ndarray::Array2::from_shape_vec((rows.len(), cols), flat)
            .map(|a| a.into_pyarray(py))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    };
    Ok((
        report,
        matrix(&out.train.rows)?,
        out.train.labels.clone().into_pyarray(py),
        matrix(&out.eval.rows)?,
        out.eval.labels.clone().into_pyarray(py),
        out.eval_predicted.clone().into_pyarray(py),
    ))
}

/// `lifetime_experiment_json`: a drive's lifetime (`ssdlab_core::experiments::lifetime`) from a
/// JSON setup, the GIL released.
#[pyfunction]
#[pyo3(signature = (setup_json, progress=None))]
pub fn lifetime_experiment_json(
    py: Python<'_>,
    setup_json: &str,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    with_progress(py, progress, |p| api::lifetime_experiment(setup_json, p))?.map_err(to_py)
}
