//! Tenants (issue 61): a latency-sensitive reader beside a GC-inducing writer on one device,
//! under each host arbitration and flash scheduler. Each row runs the flows together, then each
//! flow alone on the same device (its range, replay and settings unchanged), and reports each
//! flow's slowdown (mean latency together over mean latency alone) and the fairness index
//! min/max slowdown, as FLIN (Tavakkol et al., ISCA 2018, section 3) defines them.
//!
//! The default flows are [`default_flows`]; a flows spec of the caller's may replace them.

use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::sim::{SimOptions, Simulation};
use crate::stats::SimResult;
use crate::trace::FlowsSpec;

/// The rows, in the table's order: (name, the device settings that make it). Arbitration is
/// the host's, the scheduler the flash layer's (`flash.scheduler`; `fair` is FLIN's first
/// stage).
pub const ROWS: &[(&str, &[&str])] = &[
    ("rr", &["host.arbitration=\"round-robin\""]),
    ("wrr", &["host.arbitration=\"weighted-round-robin\""]),
    (
        "rr+read-first",
        &[
            "host.arbitration=\"round-robin\"",
            "flash.scheduler=\"read-first\"",
        ],
    ),
    (
        "wrr+read-first",
        &[
            "host.arbitration=\"weighted-round-robin\"",
            "flash.scheduler=\"read-first\"",
        ],
    ),
    (
        "rr+preemptible-gc",
        &[
            "host.arbitration=\"round-robin\"",
            "flash.scheduler=\"preemptible-gc\"",
        ],
    ),
    (
        "wrr+preemptible-gc",
        &[
            "host.arbitration=\"weighted-round-robin\"",
            "flash.scheduler=\"preemptible-gc\"",
        ],
    ),
    (
        "rr+fair",
        &[
            "host.arbitration=\"round-robin\"",
            "flash.scheduler=\"fair\"",
        ],
    ),
    (
        "wrr+fair",
        &[
            "host.arbitration=\"weighted-round-robin\"",
            "flash.scheduler=\"fair\"",
        ],
    ),
];

/// The command slots the experiment's device has unless the caller sets `host.command_slots`:
/// fewer than the flows' 36 outstanding commands, so that arbitration decides who waits.
pub const DEFAULT_SLOTS: u32 = 16;

/// The default tenants: `reader`, Zipf-distributed 90 % reads of one page at queue depth 4,
/// high priority, on the first half of the space; `writer`, uniform 4-page writes at queue
/// depth 32, low priority, on the second half (the GC-inducing bulk writer FLIN's section 3
/// describes). `requests` is the reader's; the writer has twice as many.
pub fn default_flows(requests: u64) -> Result<FlowsSpec> {
    let v = serde_json::json!({"flows": [
        {"name": "reader", "priority": "high",
         "replay": {"mode": "closed-loop", "queue_depth": 4},
         "range": {"start": 0.0, "size": 0.5},
         "workload": {"kind": "synthetic", "pattern": "zipf", "requests": requests, "read_fraction": 0.9}},
        {"name": "writer", "priority": "low",
         "replay": {"mode": "closed-loop", "queue_depth": 32},
         "range": {"start": 0.5, "size": 0.5},
         "workload": {"kind": "synthetic", "pattern": "uniform", "requests": requests * 2,
                      "read_fraction": 0.0, "request_pages": 4}},
    ]});
    let spec: FlowsSpec =
        serde_json::from_value(v).map_err(|e| SsdError::Invalid(e.to_string()))?;
    spec.check()?;
    Ok(spec)
}

/// The settings of row `name`, or an error naming the rows.
pub fn row_settings(name: &str) -> Result<&'static [&'static str]> {
    super::row_settings(ROWS, name)
}

/// Flow `i` of `spec` alone, with its own range kept: the spec with the others left out and
/// this flow's range made explicit.
fn alone(spec: &FlowsSpec, i: usize, logical_pages: u64) -> Result<FlowsSpec> {
    let span = spec.spans(logical_pages)?[i];
    let mut f = spec.flows[i].clone();
    f.name = Some(spec.name(i));
    f.range = crate::trace::LbaRange::Slice(crate::trace::flows::RangeSlice {
        start: span.first as f64 / logical_pages as f64,
        size: span.pages as f64 / logical_pages as f64,
    });
    Ok(FlowsSpec { flows: vec![f] })
}

/// Run every row: the flows together and each alone, up to `jobs` runs at once
/// ([`super::parallel::jobs_for`]; no result depends on it). JSON: `rows`, `flows` (names),
/// and `configs.<row>` with `together` (the run's result), `alone` (each flow's result alone),
/// `slowdown` (per flow), `fairness`, `throughput_iops` (all flows' requests over the
/// simulated time) and `latency_histogram` (each flow's distributions together, for CCDFs).
pub fn compare(
    device: &str,
    rows: &[String],
    devices: &[DeviceConfig],
    spec: &FlowsSpec,
    opts: &SimOptions,
    jobs: usize,
    progress: &super::parallel::Progress,
) -> Result<serde_json::Value> {
    let n = spec.flows.len();
    // Every run: (row, None = together | Some(flow) = that flow alone). A flow alone has one
    // queue and nothing to arbitrate, so rows that differ only in `[host]` arbitration share
    // its alone run (tests/flows.rs checks that arbitration changes nothing for one flow):
    // `alone_of[r]` is the row whose alone runs row `r` uses.
    let alone_of: Vec<usize> = (0..rows.len())
        .map(|r| {
            (0..r)
                .find(|&q| same_but_arbitration(&devices[q], &devices[r]))
                .unwrap_or(r)
        })
        .collect();
    let mut runs: Vec<(usize, Option<usize>)> = Vec::new();
    for r in 0..rows.len() {
        runs.push((r, None));
        if alone_of[r] == r {
            runs.extend((0..n).map(|f| (r, Some(f))));
        }
    }
    let jobs = super::parallel::jobs_for(jobs, runs.len(), devices, opts);
    let results = super::parallel::map(&runs, jobs, progress, |&(r, f)| {
        let cfg = &devices[r];
        let s = match f {
            None => spec.clone(),
            Some(i) => alone(spec, i, cfg.logical_units())?,
        };
        let mut sim = Simulation::with_flows(cfg.clone(), opts.clone(), &s)?;
        let result = sim.run()?;
        // Each flow's distributions of the run together, for the per-flow CCDFs.
        let hist = if f.is_none() {
            sim.flow_distributions()
        } else {
            Vec::new()
        };
        Ok((result, hist))
    })?;
    let json = |e: serde_json::Error| SsdError::Invalid(e.to_string());
    let mut configs = serde_json::Map::new();
    let mut it = results.into_iter();
    let mut alones: Vec<Vec<SimResult>> = Vec::with_capacity(rows.len());
    for (r, row) in rows.iter().enumerate() {
        let (together, hist) = it
            .next()
            .ok_or_else(|| SsdError::Invalid("missing run".into()))?;
        let alone: Vec<SimResult> = if alone_of[r] == r {
            (0..n).filter_map(|_| it.next()).map(|r| r.0).collect()
        } else {
            alones[alone_of[r]].clone()
        };
        alones.push(alone.clone());
        let slowdown: Vec<f64> = (0..n)
            .map(|i| {
                let t = together.flows[i].latency_us.all.mean;
                let a = alone[i].flows[0].latency_us.all.mean;
                if a > 0.0 {
                    t / a
                } else {
                    0.0
                }
            })
            .collect();
        let max = slowdown.iter().copied().fold(0.0, f64::max);
        let min = slowdown.iter().copied().fold(f64::INFINITY, f64::min);
        let fairness = if max > 0.0 { min / max } else { 0.0 };
        let iops = if together.sim_time_s > 0.0 {
            together.requests.total as f64 / together.sim_time_s
        } else {
            0.0
        };
        let strip = |r: &SimResult| -> Result<serde_json::Value> {
            let mut v = serde_json::to_value(r).map_err(json)?;
            if let Some(o) = v.as_object_mut() {
                o.remove("series");
            }
            Ok(v)
        };
        configs.insert(
            row.clone(),
            serde_json::json!({
                "together": strip(&together)?,
                "alone": alone.iter().map(strip).collect::<Result<Vec<_>>>()?,
                "slowdown": slowdown,
                "fairness": fairness,
                "throughput_iops": iops,
                "latency_histogram": serde_json::to_value(&hist).map_err(json)?,
            }),
        );
    }
    let names: Vec<String> = (0..n).map(|i| spec.name(i)).collect();
    Ok(serde_json::json!({ "device": device, "rows": rows, "flows": names, "configs": configs }))
}

/// Whether two rows' devices differ at most in their `[host]` arbitration (a flow alone runs
/// the same under either).
fn same_but_arbitration(a: &DeviceConfig, b: &DeviceConfig) -> bool {
    let mut b = b.clone();
    b.host.arbitration = a.host.arbitration;
    *a == b
}
