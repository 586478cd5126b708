//! One run through the API as the front ends make it: a device (preset or file) with `--set`
//! overrides, a workload and run options as JSON, and the result as JSON.

use serde_json::Value;
use ssdlab_core::api;

pub fn run(
    device: &str,
    overrides: &[&str],
    workload: &Value,
    options: &Value,
) -> ssdlab_core::Result<Value> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let device = api::load_device(device, device, &overrides)?;
    let workload = api::parse_workload(&workload.to_string())?;
    let options = api::parse_options(&options.to_string())?;
    let mut sim = api::build_simulation(device, &workload, options)?;
    let r = sim.run()?;
    Ok(serde_json::to_value(&r).expect("result JSON"))
}
