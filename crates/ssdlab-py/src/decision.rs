//! `DecisionSimulator`: a simulation whose GC decisions come from Python (the Gymnasium
//! environment). Coarse crossings: one call serves requests up to the next decision point.

use std::sync::MutexGuard;

use pyo3::prelude::*;
use ssdlab_core::api;
use ssdlab_core::sim::Simulation;

use crate::cell::SimCell;
use crate::errors::to_py;

#[pyclass(module = "ssdlab._core")]
pub struct DecisionSimulator {
    sim: SimCell,
}

impl DecisionSimulator {
    fn lock(&self) -> MutexGuard<'_, Simulation> {
        self.sim.lock()
    }
}

#[pymethods]
impl DecisionSimulator {
    /// Same arguments as `Simulation`; the device must use `gc.scheduler = "external"`.
    #[new]
    fn new(
        device: &str,
        origin: &str,
        overrides: Vec<String>,
        workload_json: &str,
        options_json: &str,
    ) -> PyResult<Self> {
        Ok(DecisionSimulator {
            sim: SimCell::build(device, origin, &overrides, workload_json, options_json)?,
        })
    }

    /// Serve requests up to the next decision point: its observation as JSON, or None when the
    /// workload is over.
    fn advance_to_decision(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let mut guard = self.lock();
        let sim: &mut Simulation = &mut guard;
        let obs = py.detach(|| sim.advance_to_decision()).map_err(to_py)?;
        obs.map(|o| api::to_json(&o)).transpose().map_err(to_py)
    }

    /// Run `copies` partial-GC page copies (or a ready victim's erase) for the pending decision.
    fn apply_decision(&self, copies: u32) -> PyResult<()> {
        self.lock().apply_decision(copies).map_err(to_py)
    }

    fn requests_done(&self) -> u64 {
        self.lock().requests_done()
    }

    fn result_json(&self) -> PyResult<String> {
        api::to_json(&self.lock().result()).map_err(to_py)
    }
}
