//! The tail levers side by side (issue 60): what four papers and two flash-layer mechanisms do
//! to the read tail under GC, each on the same device and workload, as one device setting:
//! - `blocking`: whole victims on demand, the device's GC as it is (Kang et al.'s page-level
//!   baseline, TECS 2017 §2);
//! - `lazyrtgc` and `rlgc`: partial GC after requests (Zhang et al., TODAES 2015; Kang et
//!   al.'s RL-assisted GC, TECS 2017 §5.2);
//! - `suspend-erase`, `suspend-program-erase`: reads suspend erases, or programs and erases
//!   (Wu & He, FAST 2012);
//! - `read-first`, `preemptible-gc`: host work passes queued GC (MQSim's priority scheduling,
//!   Tavakkol et al., FAST 2018; Lee et al., IEEE TCAD 2013);
//! - `ttflash`: Tiny-Tail Flash's stack (Yan et al., FAST 2017): RAIN parity, plane-blocking
//!   GC, GC-tolerant reads and flush, rotating GC. It alone buffers writes in its
//!   capacitor-backed RAM (the paper's GTF), so its write column is not like for like.
//!
//! Every row is the device with that one lever on and the rest as given; the table's columns
//! and the CCDF are the front end's (`python/ssdlab/experiments/tails.py`).

use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::sim::{SimOptions, Simulation};
use crate::trace::RequestSource;

/// The rows, in the table's order: (name, the device settings that make it; `ttflash` is the
/// Tiny-Tail stack, [`super::ttflash::device_for`]).
pub const ROWS: &[(&str, &[&str])] = &[
    ("blocking", &["gc.scheduler=\"blocking\""]),
    ("lazyrtgc", &["gc.scheduler=\"lazyrtgc\""]),
    ("rlgc", &["gc.scheduler=\"rlgc\""]),
    ("suspend-erase", &["flash.suspend=\"erase\""]),
    (
        "suspend-program-erase",
        &["flash.suspend=\"program-erase\""],
    ),
    ("read-first", &["flash.scheduler=\"read-first\""]),
    ("preemptible-gc", &["flash.scheduler=\"preemptible-gc\""]),
    (TTFLASH, &[]),
];

/// The row run as the Tiny-Tail Flash stack of the same name.
pub const TTFLASH: &str = "ttflash";

/// The settings of row `name`, or an error naming the rows.
pub fn row_settings(name: &str) -> Result<&'static [&'static str]> {
    super::row_settings(ROWS, name)
}

/// The device of each row: `load` with the row's settings after the user's (`ttflash`: the
/// device as given, as that stack).
pub fn devices(
    rows: &[String],
    load: impl Fn(&[&str]) -> Result<DeviceConfig>,
) -> Result<Vec<DeviceConfig>> {
    rows.iter()
        .map(|r| {
            let sets = row_settings(r)?;
            let cfg = load(sets)?;
            if r == TTFLASH {
                super::ttflash::device_for(&cfg, TTFLASH)
            } else {
                Ok(cfg)
            }
        })
        .collect()
}

/// Run every row on a fresh source from `open` (same workload, same seed), up to `jobs` at
/// once ([`super::parallel::jobs_for`]; no result depends on it). JSON: `rows`, and
/// `configs.<row>` with the keys of a run's result plus `latency_histogram` (for the CCDF)
/// and `throughput_iops` (requests over the simulated time).
pub fn compare(
    device: &str,
    rows: &[String],
    devices: &[DeviceConfig],
    opts: &SimOptions,
    jobs: usize,
    progress: &super::parallel::Progress,
    open: impl Fn() -> Result<Box<dyn RequestSource>> + Sync,
) -> Result<serde_json::Value> {
    let jobs = super::parallel::jobs_for(jobs, rows.len(), devices, opts);
    let items: Vec<&DeviceConfig> = devices.iter().collect();
    let runs = super::parallel::map(&items, jobs, progress, |&cfg| {
        let mut sim = Simulation::new(cfg.clone(), opts.clone(), open()?)?;
        let result = sim.run()?;
        Ok((result, sim.latency_distributions()))
    })?;
    let json = |e: serde_json::Error| SsdError::Invalid(e.to_string());
    let mut configs = serde_json::Map::new();
    for (row, (result, hist)) in rows.iter().zip(runs) {
        let mut v = serde_json::to_value(&result).map_err(json)?;
        if let Some(o) = v.as_object_mut() {
            let iops = if result.sim_time_s > 0.0 {
                result.requests.total as f64 / result.sim_time_s
            } else {
                0.0
            };
            o.insert("throughput_iops".into(), iops.into());
            o.insert(
                "latency_histogram".into(),
                serde_json::to_value(hist).map_err(json)?,
            );
            o.remove("series");
        }
        configs.insert(row.clone(), v);
    }
    Ok(serde_json::json!({ "device": device, "rows": rows, "configs": configs }))
}
