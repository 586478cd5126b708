//! `SlcDecisionSimulator`: a hybrid SLC/QLC simulation whose SLC-cache setting (region size and
//! θ) comes from Python (the Gymnasium environment `ssdlab/SlcCache-v1`) through the core's
//! `cache.slc = "external"` policy. Coarse crossings: `first` serves requests up to the first
//! decision point, and `step` applies the agent's action *and* serves requests up to the next
//! decision point in one call — one crossing per environment step, with the GIL released.

use std::sync::MutexGuard;

use pyo3::prelude::*;
use ssdlab_core::api;
use ssdlab_core::experiments::slc::StandIn;
use ssdlab_core::ftl::hybrid::SlcObservation;
use ssdlab_core::sim::Simulation;
use ssdlab_core::SsdError;

use crate::cell::SimCell;
use crate::errors::to_py;

/// An observation as JSON: the binned state (its index and parts) and the raw figures.
/// `theta_pages` is null when θ admits every write (the core's `u64::MAX`).
fn obs_json(o: &SlcObservation) -> String {
    let s = &o.state;
    serde_json::json!({
        "state": s.index(),
        "utilisation_bin": s.utilisation,
        "slc_hits_bin": s.slc_hits,
        "size_level": s.size_level,
        "theta_level": s.theta_level,
        "utilisation": o.utilisation,
        "slc_hit_ratio": o.slc_hit_ratio,
        "reward": o.reward,
        "slc_blocks": o.slc_blocks,
        "slc_target": o.slc_target,
        "theta_pages": (o.theta_pages != u64::MAX).then_some(o.theta_pages),
        "period_host_pages": o.period_host_pages,
    })
    .to_string()
}

#[pyclass(module = "ssdlab._core")]
pub struct SlcDecisionSimulator {
    sim: SimCell,
}

impl SlcDecisionSimulator {
    fn lock(&self) -> MutexGuard<'_, Simulation> {
        self.sim.lock()
    }
}

#[pymethods]
impl SlcDecisionSimulator {
    /// Same arguments as `Simulation`; the device must use `cache.slc = "external"`.
    #[new]
    fn new(
        device: &str,
        origin: &str,
        overrides: Vec<String>,
        workload_json: &str,
        options_json: &str,
    ) -> PyResult<Self> {
        Ok(SlcDecisionSimulator {
            sim: SimCell::build(device, origin, &overrides, workload_json, options_json)?,
        })
    }

    /// Serve requests up to the first decision point (the pending one, if any): its
    /// observation as JSON, or None when the workload is over.
    fn first(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let mut guard = self.lock();
        let sim: &mut Simulation = &mut guard;
        let obs = py.detach(|| sim.advance_to_slc_decision()).map_err(to_py)?;
        Ok(obs.as_ref().map(obs_json))
    }

    /// Apply `action` (0–8, the core's `cache::slc::ACTIONS`) to the pending decision and serve
    /// requests up to the next one: its observation as JSON, or None when the workload is over.
    fn step(&self, py: Python<'_>, action: usize) -> PyResult<Option<String>> {
        let mut guard = self.lock();
        let sim: &mut Simulation = &mut guard;
        let obs = py
            .detach(|| {
                sim.apply_slc_action(action)?;
                sim.advance_to_slc_decision()
            })
            .map_err(to_py)?;
        Ok(obs.as_ref().map(obs_json))
    }

    fn requests_done(&self) -> u64 {
        self.lock().requests_done()
    }

    fn result_json(&self) -> PyResult<String> {
        api::to_json(&self.lock().result()).map_err(to_py)
    }

    /// The seeded stand-in workload `name` (`pc`, `ycsb-a`) of `ssdlab experiment slc`, writing
    /// about `data_gb` GB over the first `utilisation` of the logical space, as a workload spec
    /// (JSON).
    #[staticmethod]
    fn stand_in_json(name: &str, data_gb: f64, utilisation: f64) -> PyResult<String> {
        let s: StandIn = serde_json::from_value(serde_json::Value::from(name))
            .map_err(|e| to_py(SsdError::config("stand-in", e.to_string())))?;
        let spec = ssdlab_core::trace::WorkloadSpec::Synthetic(s.spec(data_gb, utilisation));
        api::to_json(&spec).map_err(to_py)
    }
}
