//! `Simulation` (Python's name; `Simulator` here, beside the core's `sim::Simulation` it holds):
//! a simulation held by Python, advanced in coarse chunks with the GIL released.

use std::sync::MutexGuard;

use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdlab_core::api;
use ssdlab_core::sim::Simulation;
use ssdlab_core::trace::OpKind;

use crate::cell::SimCell;
use crate::errors::to_py;

#[pyclass(module = "ssdlab._core", name = "Simulation")]
pub struct Simulator {
    sim: SimCell,
}

impl Simulator {
    fn lock(&self) -> MutexGuard<'_, Simulation> {
        self.sim.lock()
    }
}

#[pymethods]
impl Simulator {
    /// Build from a device (preset name or TOML text with its origin), `--set` overrides, a
    /// workload spec (JSON) and run options (JSON).
    #[new]
    fn new(
        device: &str,
        origin: &str,
        overrides: Vec<String>,
        workload_json: &str,
        options_json: &str,
    ) -> PyResult<Self> {
        Ok(Simulator {
            sim: SimCell::build(device, origin, &overrides, workload_json, options_json)?,
        })
    }

    /// Serve up to `budget` requests; True when the workload is exhausted.
    fn advance(&mut self, py: Python<'_>, budget: u64) -> PyResult<bool> {
        let mut guard = self.lock();
        let sim: &mut Simulation = &mut guard;
        py.detach(|| sim.advance(budget)).map_err(to_py)
    }

    fn requests_done(&self) -> u64 {
        self.lock().requests_done()
    }

    /// The result so far, as JSON (the time series come from `series`).
    fn result_json(&self) -> PyResult<String> {
        api::to_json(&self.lock().result()).map_err(to_py)
    }

    /// Sampled time series as numpy arrays, keyed by column.
    fn series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.lock().result().series;
        let d = PyDict::new(py);
        d.set_item("time_s", s.time_s.into_pyarray(py))?;
        d.set_item("host_pages", s.host_pages.into_pyarray(py))?;
        d.set_item("free_blocks", s.free_blocks.into_pyarray(py))?;
        d.set_item("waf", s.waf.into_pyarray(py))?;
        d.set_item("gc_pages", s.gc_pages.into_pyarray(py))?;
        d.set_item("erases", s.erases.into_pyarray(py))?;
        d.set_item("requests", s.requests.into_pyarray(py))?;
        if !s.dirty_pages.is_empty() {
            d.set_item("dirty_pages", s.dirty_pages.into_pyarray(py))?;
        }
        Ok(d)
    }

    /// The host view's intervals (`iostat_interval_us`) as columns of numpy arrays, in the
    /// core's order (`IostatRow::columns`); an empty dict when the view is off or the run is
    /// shorter than one interval.
    fn iostat<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = self.lock();
        let rows = sim.iostat_rows();
        let d = PyDict::new(py);
        let Some(first) = rows.first() else {
            return Ok(d);
        };
        let names: Vec<&str> = first.columns().iter().map(|c| c.0).collect();
        let mut cols: Vec<Vec<f64>> = vec![Vec::with_capacity(rows.len()); names.len()];
        for r in rows {
            for (i, (_, v)) in r.columns().into_iter().enumerate() {
                cols[i].push(v);
            }
        }
        for (n, c) in names.into_iter().zip(cols) {
            d.set_item(n, c.into_pyarray(py))?;
        }
        Ok(d)
    }

    /// Latency histogram of `op` ("read", "write", or None for all) as an (n, 2) array of
    /// (latency µs, count).
    #[pyo3(signature = (op=None))]
    fn latency_distribution<'py>(
        &self,
        py: Python<'py>,
        op: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let kind = match op {
            None | Some("all") => None,
            Some("read") => Some(OpKind::Read),
            Some("write") => Some(OpKind::Write),
            Some("trim") => Some(OpKind::Trim),
            Some(other) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "op: expected read, write, trim or all, got '{other}'"
                )))
            }
        };
        let rows: Vec<Vec<f64>> = self
            .lock()
            .latency_distribution(kind)
            .into_iter()
            .map(|(v, c)| vec![v, c as f64])
            .collect();
        if rows.is_empty() {
            return Ok(numpy::ndarray::Array2::<f64>::zeros((0, 2)).into_pyarray(py));
        }
        PyArray2::from_vec2(py, &rows)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// Every type's latency distribution in logarithmic bins (the core's
    /// `LatencyRecorder::coarse`) as JSON: `{read|write|all: {latency_us: [..], count: [..]}}`.
    fn latency_distributions_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.lock().latency_distributions())
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// Each flow's latency distributions in logarithmic bins, as JSON: a list in the flows'
    /// order of `{read|write|all: {latency_us: [..], count: [..]}}` (`[]` for one workload).
    fn flow_distributions_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.lock().flow_distributions())
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// Save the learned Q-table to `path` (error if the scheduler has none).
    fn save_q_table(&self, path: &str) -> PyResult<()> {
        self.lock().save_q_table(path).map_err(to_py)
    }

    /// Erase count of every block, as a numpy array.
    fn erase_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.lock().ftl().erase_counts().to_vec().into_pyarray(py)
    }
}
