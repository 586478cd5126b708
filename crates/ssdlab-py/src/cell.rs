//! What `Simulator` and `DecisionSimulator` share: building a simulation from the coarse
//! JSON/TOML arguments, and holding it shareable (PyO3 classes must be `Sync`).

use std::sync::{Mutex, MutexGuard};

use pyo3::PyResult;
use ssdlab_core::api;
use ssdlab_core::sim::Simulation;

use crate::errors::to_py;

/// A simulation behind a mutex; Python holds the only handle, so the lock never contends.
pub struct SimCell(Mutex<Simulation>);

impl SimCell {
    /// Build from a device (preset name or TOML text with its origin), `--set` overrides, a
    /// workload spec (JSON) and run options (JSON).
    pub fn build(
        device: &str,
        origin: &str,
        overrides: &[String],
        workload_json: &str,
        options_json: &str,
    ) -> PyResult<Self> {
        let cfg = api::load_device(device, origin, overrides).map_err(to_py)?;
        let wl = api::parse_workload(workload_json).map_err(to_py)?;
        let opts = api::parse_options(options_json).map_err(to_py)?;
        let sim = api::build_simulation(cfg, &wl, opts).map_err(to_py)?;
        Ok(SimCell(Mutex::new(sim)))
    }

    pub fn lock(&self) -> MutexGuard<'_, Simulation> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
