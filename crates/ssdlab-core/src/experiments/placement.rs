//! Host-visible placement (issue 62): the same flash, the same over-provisioning and the same
//! workload on
//! - `conventional`: one write frontier, GC copies beside host writes;
//! - `hot-cold`: ssdlab's own temperature placement (Shafaei & Desnoyers's multi-frontier
//!   placement, the device guessing what the host knows);
//! - `fdp`: Flexible Data Placement, each tenant through its own reclaim unit handle
//!   (Allison et al., EuroSys 2025);
//! - `zns`: a Zoned Namespace device with the host's zone cleaner (one open zone);
//! - `zns-hot-cold`: the cleaner segregating hot and cold data into zones of their own.
//!
//! The zoned rows' logical space is the cleaner's, zones × capacity × (1 − spare): with zones
//! that tile the blocks, the conventional device's. A row reports WAF end to end (flash pages
//! over the workload's pages), the device's own (its flash pages over the pages it was sent)
//! and the host's (pages sent over the workload's: the cleaner's copies), erases, tails and
//! throughput.
//!
//! The default workload is [`default_flows`]: tenants that differ in hotness, each tagged with
//! its own placement identifier (honoured by the `fdp` row; the other rows get the same flows
//! untagged).

use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::sim::{SimOptions, Simulation};
use crate::trace::FlowsSpec;

/// The rows, in the table's order: (name, the device settings that make it).
pub const ROWS: &[(&str, &[&str])] = &[
    ("conventional", &[]),
    ("hot-cold", &["ftl.placement=\"hot-cold\""]),
    ("fdp", &["fdp.handles=4"]),
    ("zns", &["ftl.kind=\"zoned\""]),
    (
        "zns-hot-cold",
        &["ftl.kind=\"zoned\"", "ftl.placement=\"hot-cold\""],
    ),
];

/// The default tenants, each at queue depth 8 on its own range and placement identifier:
/// `hot`, uniform single-page writes (20 % reads) over 10 % of the space, three times as many
/// requests as the others — each of its pages is overwritten often; `warm`, uniform 2-page
/// requests, half reads, over 30 %; `log`, sequential 8-page writes over the last 60 %, as a
/// flash cache's log region (Allison et al., section 2). `requests`: the warm and log tenants'
/// requests.
pub fn default_flows(requests: u64) -> Result<FlowsSpec> {
    let v = serde_json::json!({"flows": [
        {"name": "hot", "placement": 0,
         "replay": {"mode": "closed-loop", "queue_depth": 8},
         "range": {"start": 0.0, "size": 0.1},
         "workload": {"kind": "synthetic", "pattern": "uniform", "requests": requests * 3,
                      "read_fraction": 0.2}},
        {"name": "warm", "placement": 1,
         "replay": {"mode": "closed-loop", "queue_depth": 8},
         "range": {"start": 0.1, "size": 0.3},
         "workload": {"kind": "synthetic", "pattern": "uniform", "requests": requests,
                      "read_fraction": 0.5, "request_pages": 2}},
        {"name": "log", "placement": 2,
         "replay": {"mode": "closed-loop", "queue_depth": 8},
         "range": {"start": 0.4, "size": 0.6},
         "workload": {"kind": "synthetic", "pattern": "sequential", "requests": requests,
                      "read_fraction": 0.0, "request_pages": 8}},
    ]});
    let spec: FlowsSpec =
        serde_json::from_value(v).map_err(|e| SsdError::Invalid(e.to_string()))?;
    spec.check()?;
    Ok(spec)
}

/// `spec` as a device without FDP takes it: the flows' placement identifiers dropped.
pub fn untagged(spec: &FlowsSpec) -> FlowsSpec {
    let mut s = spec.clone();
    for f in &mut s.flows {
        f.placement = None;
    }
    s
}

/// The settings of row `name`, or an error naming the rows.
pub fn row_settings(name: &str) -> Result<&'static [&'static str]> {
    super::row_settings(ROWS, name)
}

/// Run every row's device (`build` makes its simulation of the workload), up to `jobs` at
/// once. JSON: `rows`, and `configs.<row>` with a run's result plus `throughput_iops`,
/// `device_waf` and `host_waf`.
pub fn compare(
    device: &str,
    rows: &[String],
    devices: &[DeviceConfig],
    opts: &SimOptions,
    jobs: usize,
    progress: &super::parallel::Progress,
    build: impl Fn(&DeviceConfig) -> Result<Simulation> + Sync,
) -> Result<serde_json::Value> {
    let jobs = super::parallel::jobs_for(jobs, rows.len(), devices, opts);
    let items: Vec<&DeviceConfig> = devices.iter().collect();
    let runs = super::parallel::map(&items, jobs, progress, |&cfg| build(cfg)?.run())?;
    let json = |e: serde_json::Error| SsdError::Invalid(e.to_string());
    let mut configs = serde_json::Map::new();
    for (row, result) in rows.iter().zip(runs) {
        let (device_waf, host_waf) = match &result.layers.zns {
            Some(z) => (z.device_waf, z.host_waf.unwrap_or(1.0)),
            None => (result.waf, 1.0),
        };
        let mut v = serde_json::to_value(&result).map_err(json)?;
        if let Some(o) = v.as_object_mut() {
            let iops = if result.sim_time_s > 0.0 {
                result.requests.total as f64 / result.sim_time_s
            } else {
                0.0
            };
            o.insert("throughput_iops".into(), iops.into());
            o.insert("device_waf".into(), device_waf.into());
            o.insert("host_waf".into(), host_waf.into());
            o.remove("series");
        }
        configs.insert(row.clone(), v);
    }
    Ok(serde_json::json!({ "device": device, "rows": rows, "configs": configs }))
}
