//! PyO3 bindings of ssdlab-core: conversions, GIL release and error mapping only — no logic.

mod cell;
mod decision;
mod detect;
mod errors;
mod experiments;
mod offline;
mod simulator;
mod slc_decision;

use pyo3::prelude::*;
use ssdlab_core::{api, config};

use errors::to_py;

/// Names of the shipped device presets.
#[pyfunction]
fn preset_names() -> Vec<&'static str> {
    config::preset_names()
}

/// The TOML text of a preset.
#[pyfunction]
fn preset_toml(name: &str) -> Option<&'static str> {
    config::preset(name)
}

/// A device (preset name or TOML text) with overrides, validated, as JSON with derived sizes
/// and its advisories (`{field, message}`: valid, but rarely what was meant).
#[pyfunction]
#[pyo3(signature = (device, origin, overrides=Vec::new()))]
fn device_json(device: &str, origin: &str, overrides: Vec<String>) -> PyResult<String> {
    let cfg = api::load_device(device, origin, &overrides).map_err(to_py)?;
    let g = &cfg.geometry;
    let derived = serde_json::json!({
        "config": cfg,
        "planes": g.planes(),
        "total_blocks": g.total_blocks(),
        "physical_pages": g.physical_pages(),
        "logical_pages": g.logical_pages(),
        "physical_bytes": g.physical_bytes(),
        "logical_bytes": g.logical_bytes(),
        "toml": cfg.to_toml(),
        "rl_states": api::rl_states(&cfg),
        "slc_agent": api::slc_agent(),
        "memory": api::memory_report(&cfg).map_err(to_py)?,
        "advisories": cfg.advisories(),
    });
    Ok(derived.to_string())
}

/// Statistics of a trace (JSON trace spec) at a page size, as JSON.
#[pyfunction]
fn trace_info_json(py: Python<'_>, spec_json: &str, page_size: u64) -> PyResult<String> {
    let info = py
        .detach(|| api::trace_stats(spec_json, page_size))
        .map_err(to_py)?;
    api::to_json(&info).map_err(to_py)
}

/// A flows file's TOML text (`ssdlab run --flows`) as a workload's JSON; `origin` names the
/// file in errors and is where a trace's relative path starts.
#[pyfunction]
fn flows_json(text: &str, origin: &str) -> PyResult<String> {
    api::parse_flows_toml(text, origin).map_err(to_py)
}

/// Every registry family (name, config key, default, members with summaries), as JSON.
#[pyfunction]
fn registries_json() -> PyResult<String> {
    api::to_json(&api::registries()).map_err(to_py)
}

/// The defaults the front ends use (synthetic workload fields, stacks, toy constants), as JSON.
#[pyfunction]
fn defaults_json() -> String {
    api::defaults().to_string()
}

/// The named synthetic workloads (stand-ins for Kang et al. TECS 2017 Table 1): (name, write
/// ratio, mean inter-request interval µs, mean request size KiB).
#[pyfunction]
fn workload_presets() -> Vec<(&'static str, f64, f64, f64)> {
    ssdlab_core::trace::presets::TABLE1
        .iter()
        .map(|r| (r.name, r.write_ratio, r.mean_interval_us, r.mean_size_kib))
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<simulator::Simulator>()?;
    m.add_class::<decision::DecisionSimulator>()?;
    m.add_class::<slc_decision::SlcDecisionSimulator>()?;
    m.add_function(wrap_pyfunction!(preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(preset_toml, m)?)?;
    m.add_function(wrap_pyfunction!(device_json, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info_json, m)?)?;
    m.add_function(wrap_pyfunction!(flows_json, m)?)?;
    m.add_function(wrap_pyfunction!(registries_json, m)?)?;
    m.add_function(wrap_pyfunction!(defaults_json, m)?)?;
    m.add_function(wrap_pyfunction!(workload_presets, m)?)?;
    m.add_function(wrap_pyfunction!(offline::run_offline_json, m)?)?;
    m.add_function(wrap_pyfunction!(offline::offline_table_one_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::ttflash_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::tails_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::placement_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::lifetime_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::tenants_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::detect_experiment, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::rlgc_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::fill_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::slc_experiment_json, m)?)?;
    m.add_function(wrap_pyfunction!(experiments::tune_ust_json, m)?)?;
    detect::register(m)?;
    m.add("SsdlabError", py.get_type::<errors::SsdlabError>())?;
    m.add("ConfigError", py.get_type::<errors::ConfigError>())?;
    m.add("TraceError", py.get_type::<errors::TraceError>())?;
    m.add("WorkloadError", py.get_type::<errors::WorkloadError>())?;
    m.add("DeviceFullError", py.get_type::<errors::DeviceFullError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__git_commit__", ssdlab_core::GIT_COMMIT)?;
    Ok(())
}
