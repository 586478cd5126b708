//! `ssdlab experiment fill`: the curve every drive review shows — one sustained sequential write
//! of the whole (empty) drive, write throughput against data written. On a hybrid SLC/QLC
//! device the SLC cache makes a plateau, then a cliff where it runs out (and, for `dwa`, the
//! region shrinks as the drive fills). Reviews of client QLC drives write 128 KiB sequentially
//! at a deep queue; those are the defaults.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use crate::config::DeviceConfig;
use crate::device::{Build, Device};
use crate::error::{Result, SsdError};
use crate::sim::SimOptions;
use crate::stats::HybridReport;

/// What to run (JSON from the front end).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FillSetup {
    /// Preset name or TOML text, its origin (file name) and `section.key=value` overrides.
    pub device: String,
    #[serde(default)]
    pub origin: String,
    #[serde(default)]
    pub overrides: Vec<String>,
    /// Request size, KiB (reviews: 128 KiB).
    #[serde(default = "default_request_kib")]
    pub request_kib: u32,
    /// Requests in flight (closed loop; reviews: QD 32).
    #[serde(default = "default_queue_depth")]
    pub queue_depth: u32,
    /// Points on the curve (equal amounts of data each).
    #[serde(default = "default_points")]
    pub points: u32,
    #[serde(default)]
    pub seed: u64,
    /// How far the run has got (the front end's progress bar; not part of the JSON).
    #[serde(skip)]
    pub progress: std::sync::Arc<crate::experiments::parallel::Progress>,
}

fn default_request_kib() -> u32 {
    128
}
fn default_queue_depth() -> u32 {
    32
}
fn default_points() -> u32 {
    100
}

/// One point: throughput over the data written since the previous point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FillPoint {
    /// Data written at the end of the interval, GB (10^9 bytes).
    pub written_gb: f64,
    /// MB/s (10^6 bytes per second) over the interval.
    pub mb_s: f64,
}

/// The curve (`points`), the SLC cache at the start (`cache_gb`: its region times the data an
/// SLC block holds; 0 on other devices) and the run's totals.
#[derive(Debug, Clone, Serialize)]
pub struct FillResult {
    pub device: String,
    pub slc_policy: String,
    pub capacity_gb: f64,
    pub cache_gb: f64,
    pub request_kib: u32,
    pub queue_depth: u32,
    pub points: Vec<FillPoint>,
    pub mean_mb_s: f64,
    pub waf: f64,
    pub hybrid: Option<HybridReport>,
}

/// Write the whole logical capacity once, sequentially, from an empty device.
pub fn run(setup: &FillSetup) -> Result<FillResult> {
    let origin = if setup.origin.is_empty() {
        "--device"
    } else {
        setup.origin.as_str()
    };
    let cfg = DeviceConfig::load(&setup.device, origin, &setup.overrides)?;
    let bad = |field: &str, msg: &str| Err(SsdError::config(field, msg.to_string()));
    if setup.request_kib == 0 {
        return bad("--request-kib", "expected at least 1 KiB");
    }
    if setup.queue_depth == 0 || setup.queue_depth > 4096 {
        return bad("--queue-depth", "expected 1 to 4096 requests in flight");
    }
    if setup.points == 0 || setup.points > 10_000 {
        return bad("--points", "expected 1 to 10,000 points");
    }
    let opts = SimOptions {
        seed: setup.seed,
        ..SimOptions::default()
    };
    crate::sim::check_memory(&cfg, &opts)?;
    let build = Build {
        seed: opts.seed,
        timed: opts.timing,
        check: false,
        power_cut: None,
    };
    let mut model = Device::new(&cfg, build, None)?;
    let g = &cfg.geometry;
    // Requests in mapping units (pages unless `ftl.mapping_unit_bytes`).
    let unit = u64::from(cfg.unit_bytes());
    let page = u64::from(g.page_size);
    let n = cfg.logical_units();
    let req = (u64::from(setup.request_kib) * 1024).div_ceil(unit).max(1);
    let at_start = model.report().hybrid;
    let slc_block_bytes = u64::from(g.pages_per_block / g.cell_mode.bits_per_cell()) * page;
    let cache_gb = at_start.map_or(0.0, |r| {
        (u64::from(r.slc_target) * slc_block_bytes) as f64 / 1e9
    });
    // Closed loop: a request is issued when one of the queue's completes.
    let mut inflight: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let per_point = n.div_ceil(u64::from(setup.points));
    // The bar counts the curve's points (a point is a slice of the fill).
    setup.progress.add(n.div_ceil(per_point.max(1)));
    let (mut points, mut last_t, mut last_lpn, mut prev_issue) = (Vec::new(), 0u64, 0u64, 0u64);
    let mut latest = 0u64;
    let mut lpn = 0u64;
    while lpn < n {
        let ready = if inflight.len() < setup.queue_depth as usize {
            prev_issue
        } else {
            inflight.pop().map_or(0, |Reverse(t)| t)
        };
        model.background(prev_issue, ready)?;
        prev_issue = ready;
        let end = (lpn + req).min(n);
        let done = model.write(lpn as u32..end as u32, ready, 0)?.done;
        inflight.push(Reverse(done));
        latest = latest.max(done);
        lpn = end;
        if lpn - last_lpn >= per_point || lpn == n {
            let bytes = (lpn - last_lpn) * unit;
            let dt = latest.saturating_sub(last_t).max(1);
            setup.progress.one_done();
            points.push(FillPoint {
                written_gb: (lpn * unit) as f64 / 1e9,
                mb_s: bytes as f64 / dt as f64 * 1e3,
            });
            (last_t, last_lpn) = (latest, lpn);
        }
    }
    let c = model.map().counters;
    let host = c.host_pages_written.max(1);
    Ok(FillResult {
        device: cfg.name.clone(),
        slc_policy: cfg
            .cache
            .slc
            .map_or("-".into(), |p| <&'static str>::from(p).to_string()),
        capacity_gb: (n * unit) as f64 / 1e9,
        cache_gb,
        request_kib: setup.request_kib,
        queue_depth: setup.queue_depth,
        mean_mb_s: (n * unit) as f64 / latest.max(1) as f64 * 1e3,
        waf: c.flash_writes() as f64 / host as f64,
        hybrid: model.report().hybrid,
        points,
    })
}
