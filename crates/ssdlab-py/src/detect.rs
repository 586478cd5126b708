//! Host-side GC detection (issue 13, `ssdlab_core::detect`): recordings and their `iostat -x`
//! fields, the detector's attribute names and rows, C4.5 trees (`Tree`) and the streaming
//! detector (`Detector`). Conversions and error mapping only.

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use ssdlab_core::detect::c45::{C45Params, Dataset, Tree as CoreTree};
use ssdlab_core::detect::diskstats::{append_snapshot, Recording, Snapshot, PROC_DISKSTATS};
use ssdlab_core::detect::features::{self, DEFAULT_WINDOW};
use ssdlab_core::detect::iostat::{self, Interval};
use ssdlab_core::detect::watch::{Step, Watch};

use crate::errors::to_py;

/// An interval as a dict: `disk_device`, its uptimes (`start_s`, `end_s`, `interval_s`), then
/// the fields under sysstat's JSON names (`Interval::json_fields`).
fn interval_dict<'py>(py: Python<'py>, iv: &Interval) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("disk_device", &iv.device)?;
    d.set_item("start_s", iv.start_cs as f64 / 100.0)?;
    d.set_item("end_s", iv.end_cs as f64 / 100.0)?;
    d.set_item("interval_s", iv.itv_cs as f64 / 100.0)?;
    for (k, v) in iv.json_fields() {
        d.set_item(k, v)?;
    }
    Ok(d)
}

fn series_of(path: &str, device: &str) -> PyResult<Vec<Interval>> {
    let rec = Recording::read(Path::new(path)).map_err(to_py)?;
    iostat::series(&rec, device).map_err(to_py)
}

/// The `iostat -x` fields of `device` per interval of the recording at `path`, as dicts keyed
/// by sysstat's JSON names.
#[pyfunction]
fn iostat_series<'py>(py: Python<'py>, path: &str, device: &str) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for iv in series_of(path, device)? {
        out.append(interval_dict(py, &iv)?)?;
    }
    Ok(out)
}

/// The table `iostat -x` prints for `device` (sysstat 12.6's columns, or sysstat 11's with
/// `legacy`): the header, starting with `uptime` (the interval's end, s), and one row per
/// interval.
#[pyfunction]
#[pyo3(signature = (path, device, legacy=false))]
fn iostat_columns(
    path: &str,
    device: &str,
    legacy: bool,
) -> PyResult<(Vec<String>, Vec<Vec<f64>>)> {
    let series = series_of(path, device)?;
    let cols = |iv: &Interval| {
        if legacy {
            features::legacy_device_columns(iv)
        } else {
            iv.columns()
        }
    };
    let mut header = vec!["uptime".to_string()];
    if let Some(iv) = series.first() {
        header.extend(cols(iv).into_iter().map(|(k, _)| k.to_string()));
    }
    let rows = series
        .iter()
        .map(|iv| {
            let mut r = vec![iv.end_cs as f64 / 100.0];
            r.extend(cols(iv).into_iter().map(|(_, v)| v));
            r
        })
        .collect();
    Ok((header, rows))
}

/// The detector's attribute names, in row order.
#[pyfunction]
fn detect_feature_names() -> Vec<String> {
    features::feature_names()
}

/// The detector's attribute rows of `device` over the recording at `path`, standard deviations
/// over `window` samples (default: the core's, the paper's 50).
#[pyfunction]
#[pyo3(signature = (path, device, window=None))]
fn recording_features(path: &str, device: &str, window: Option<usize>) -> PyResult<Vec<Vec<f64>>> {
    let series = series_of(path, device)?;
    features::rows(&series, window.unwrap_or(DEFAULT_WINDOW)).map_err(to_py)
}

/// One snapshot in the recording format from the texts of `/proc/uptime` and `/proc/diskstats`
/// (both checked; with `device`, it must be present).
#[pyfunction]
#[pyo3(signature = (proc_uptime, proc_diskstats, device=None))]
fn proc_snapshot_text(
    proc_uptime: &str,
    proc_diskstats: &str,
    device: Option<&str>,
) -> PyResult<String> {
    if let Some(name) = device {
        let snap = Snapshot::from_proc(proc_uptime, proc_diskstats).map_err(to_py)?;
        snap.require(name, PROC_DISKSTATS).map_err(to_py)?;
    }
    let mut out = String::new();
    append_snapshot(&mut out, proc_uptime, proc_diskstats).map_err(to_py)?;
    Ok(out)
}

/// A C4.5 tree over named numeric features (`ssdlab_core::detect::c45`).
#[pyclass(name = "Tree", module = "ssdlab._core", frozen)]
pub struct Tree(CoreTree);

#[pymethods]
impl Tree {
    /// Fit on `rows` (one list of `feature_names` values per case) and integer `labels`; the
    /// C4.5 settings default to the core's (C4.5's own: 2 cases, CF 0.25, pruned).
    #[staticmethod]
    #[pyo3(signature = (feature_names, rows, labels, min_objs=None, cf=None, prune=None))]
    fn fit(
        py: Python<'_>,
        feature_names: Vec<String>,
        rows: Vec<Vec<f64>>,
        labels: Vec<u32>,
        min_objs: Option<u32>,
        cf: Option<f64>,
        prune: Option<bool>,
    ) -> PyResult<Tree> {
        let d = C45Params::default();
        let params = C45Params {
            min_objs: min_objs.unwrap_or(d.min_objs),
            cf: cf.unwrap_or(d.cf),
            prune: prune.unwrap_or(d.prune),
        };
        let data = Dataset {
            feature_names,
            rows,
            labels,
        };
        py.detach(|| CoreTree::fit(&data, &params))
            .map(Tree)
            .map_err(to_py)
    }

    #[staticmethod]
    fn load(path: &str) -> PyResult<Tree> {
        CoreTree::load(Path::new(path)).map(Tree).map_err(to_py)
    }

    fn save(&self, path: &str) -> PyResult<()> {
        self.0.save(Path::new(path)).map_err(to_py)
    }

    /// Read the JSON `to_json` writes; `origin` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (text, origin="<json>"))]
    fn from_json(text: &str, origin: &str) -> PyResult<Tree> {
        CoreTree::from_json(text, origin).map(Tree).map_err(to_py)
    }

    fn to_json(&self) -> PyResult<String> {
        self.0.to_json().map_err(to_py)
    }

    /// The class of every row.
    fn predict(&self, rows: Vec<Vec<f64>>) -> PyResult<Vec<u32>> {
        self.0.predict_rows(&rows).map_err(to_py)
    }

    fn rules_text(&self) -> String {
        self.0.to_rules_text()
    }

    fn features_used(&self) -> Vec<String> {
        self.0.features_used()
    }

    #[getter]
    fn feature_names(&self) -> Vec<String> {
        self.0.feature_names().to_vec()
    }

    #[getter]
    fn classes(&self) -> Vec<u32> {
        self.0.classes().to_vec()
    }

    #[getter]
    fn leaves(&self) -> usize {
        self.0.leaves()
    }

    fn __repr__(&self) -> String {
        format!(
            "Tree({} features, {} leaves, uses {:?})",
            self.0.feature_names().len(),
            self.0.leaves(),
            self.0.features_used()
        )
    }
}

/// The streaming GC detector of one device (`ssdlab_core::detect::watch`).
#[pyclass(module = "ssdlab._core")]
pub struct Detector(Watch);

fn step_dict<'py>(py: Python<'py>, s: &Step) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("start_s", s.interval.start_cs as f64 / 100.0)?;
    d.set_item("end_s", s.interval.end_cs as f64 / 100.0)?;
    d.set_item("class", s.class)?;
    d.set_item("gc", s.is_gc())?;
    d.set_item("episode", s.episode)?;
    d.set_item("episode_start", s.episode_start)?;
    let f = PyDict::new(py);
    for (k, v) in features::feature_names().iter().zip(&s.features) {
        f.set_item(k, v)?;
    }
    d.set_item("features", f)?;
    d.set_item("iostat", interval_dict(py, &s.interval)?)?;
    Ok(d)
}

#[pymethods]
impl Detector {
    /// A detector of `device` with `tree` (over `detect_feature_names()`, classes 0 = no GC and
    /// 1 = GC) and standard deviations over `window` samples (default: the paper's 50).
    #[new]
    #[pyo3(signature = (device, tree, window=None))]
    fn new(device: &str, tree: &Tree, window: Option<usize>) -> PyResult<Self> {
        Watch::new(device, tree.0.clone(), window.unwrap_or(DEFAULT_WINDOW))
            .map(Detector)
            .map_err(to_py)
    }

    /// One live snapshot (the texts of `/proc/uptime` and `/proc/diskstats` read together): the
    /// interval's verdict as a dict, or None for the first snapshot.
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        proc_uptime: &str,
        proc_diskstats: &str,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        match self.0.push(proc_uptime, proc_diskstats).map_err(to_py)? {
            Some(s) => Ok(Some(step_dict(py, &s)?)),
            None => Ok(None),
        }
    }

    /// Every interval's verdict over the recording at `path`.
    fn replay<'py>(&mut self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyList>> {
        let rec = Recording::read(Path::new(path)).map_err(to_py)?;
        let steps = self.0.replay(&rec).map_err(to_py)?;
        let out = PyList::empty(py);
        for s in &steps {
            out.append(step_dict(py, s)?)?;
        }
        Ok(out)
    }

    fn reset(&mut self) {
        self.0.reset();
    }

    #[getter]
    fn device(&self) -> String {
        self.0.device().to_string()
    }

    #[getter]
    fn window(&self) -> usize {
        self.0.window()
    }

    #[getter]
    fn tree(&self) -> Tree {
        Tree(self.0.tree().clone())
    }
}

/// Adds this file's functions, classes and `DETECT_DEFAULT_WINDOW` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tree>()?;
    m.add_class::<Detector>()?;
    m.add_function(wrap_pyfunction!(iostat_series, m)?)?;
    m.add_function(wrap_pyfunction!(iostat_columns, m)?)?;
    m.add_function(wrap_pyfunction!(detect_feature_names, m)?)?;
    m.add_function(wrap_pyfunction!(recording_features, m)?)?;
    m.add_function(wrap_pyfunction!(proc_snapshot_text, m)?)?;
    m.add("DETECT_DEFAULT_WINDOW", DEFAULT_WINDOW)?;
    Ok(())
}
