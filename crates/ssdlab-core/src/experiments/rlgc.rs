//! The RL-assisted GC comparison: Kang, Shin, Yoo, "Reinforcement Learning-Assisted Garbage
//! Collection to Mitigate Long-Tail Latency in SSD" (TECS 2017), Tables 5–10 — the paper's six
//! schedulers on one workload, each over `repeat` seeds, and (`sensitivity`) `rlgc` under the
//! alternatives for the values the paper leaves open. Returns every run; the normalisation to
//! LazyRTGC and the tables are the front end's (`python/ssdlab/experiments/rlgc.py`).

use serde::{Deserialize, Serialize};

use crate::config::{DeviceConfig, Registry, SchedulerKind};
use crate::error::{Result, SsdError};
use crate::ftl::Precondition;
use crate::sim::{Replay, SimOptions, Simulation};
use crate::stats::{Distributions, LatencyReport, RequestCounts};
use crate::trace::{open_workload, ArrivalSpec, WorkloadSpec};

/// The paper's schedulers, in its tables' order.
pub const SCHEDULERS: [SchedulerKind; 6] = [
    SchedulerKind::Blocking,
    SchedulerKind::LazyRtgc,
    SchedulerKind::Rlgc,
    SchedulerKind::RlgcAggressive,
    SchedulerKind::IdleMa,
    SchedulerKind::IdleEs,
];

/// What the tables are normalised to (the paper's Tables 5–10).
pub const BASELINE: SchedulerKind = SchedulerKind::LazyRtgc;

/// Alternatives for the values the paper leaves open (bin edges, action set, reward levels),
/// each (label, `gc.rl` overrides) applied to `rlgc`. The fine bins are 16 log-spaced edges
/// from 100 µs to 100 ms (10^(2 + 3i/15), rounded to 0.1 µs).
pub const SENSITIVITY: &[(&str, &[&str])] = &[
    ("default (68 states, actions 1-5, rewards 1/0.5/0/-0.5)", &[]),
    (
        "actions 0-7 (the default before 2026-11-24)",
        &["gc.rl.actions=[0, 1, 2, 3, 4, 5, 6, 7]"],
    ),
    ("actions 1-2 (\"typically 1 or 2\")", &["gc.rl.actions=[1, 2]"]),
    (
        "coarse interval bins (6)",
        &["gc.rl.interval_bins_us=[100.0, 1000.0, 5000.0, 20000.0, 100000.0]"],
    ),
    (
        "fine interval bins (17, log-spaced)",
        &["gc.rl.interval_bins_us=[100.0, 158.5, 251.2, 398.1, 631.0, 1000.0, 1584.9, 2511.9, 3981.1, 6309.6, 10000.0, 15848.9, 25118.9, 39810.7, 63095.7, 100000.0]"],
    ),
    ("actions 0-3", &["gc.rl.actions=[0, 1, 2, 3]"]),
    (
        "actions 0-15",
        &["gc.rl.actions=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]"],
    ),
    (
        "rewards 1/0/-0.5/-1",
        &["gc.rl.reward_levels=[1.0, 0.0, -0.5, -1.0]"],
    ),
    (
        "rewards 1/0.8/0.2/-0.5",
        &["gc.rl.reward_levels=[1.0, 0.8, 0.2, -0.5]"],
    ),
];

/// The comparison's inputs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RlgcSetup {
    /// A preset name or TOML text (`origin` names the file), with `--set` overrides for every
    /// scheduler.
    pub device: String,
    pub origin: String,
    #[serde(default)]
    pub overrides: Vec<String>,
    pub workload: WorkloadSpec,
    /// Run `i` of each scheduler uses seed `seed + i`.
    pub seed: u64,
    pub repeat: u32,
    /// Random overwrite passes after the sequential fill.
    pub precondition_passes: f64,
    /// Open loop: multiply inter-arrival times.
    pub time_scale: f64,
    pub schedulers: Vec<SchedulerKind>,
    #[serde(default)]
    pub sensitivity: bool,
    /// Keep the first run's free-block series of each scheduler.
    #[serde(default)]
    pub series: bool,
    /// Start from an empty device, as the paper did ("We started simulations with empty
    /// contents"), instead of the sequential fill plus `precondition_passes`.
    #[serde(default)]
    pub from_empty: bool,
    /// Also run the references (see [`REFERENCES`]) over the same seeds.
    #[serde(default = "yes")]
    pub references: bool,
    /// Runs at once on threads (0: one per CPU, fewer when memory is short); no result
    /// depends on it.
    #[serde(default)]
    pub jobs: usize,
    /// How far the run has got (the front end's progress bar; not part of the JSON).
    #[serde(skip)]
    pub progress: std::sync::Arc<crate::experiments::parallel::Progress>,
}

fn yes() -> bool {
    true
}

/// Reference rows beside the paper's schedulers, each (label, scheduler, overrides), where
/// `{t_igc}` is replaced by `gc.partial.t_igc`:
/// - `nogc`: the paper's Figure 1 "ideal storage without a GC overhead" — page-level GC does
///   the same FTL work, but copies and erases take no time;
/// - `blocking@t_igc`: page-level GC triggered at T_IGC free blocks instead of T_GC, the level
///   the partial schedulers run down to (the paper's Figure 9: LazyRTGC keeps 3–4 free blocks),
///   so that it is compared at the same effective spare space.
pub const REFERENCES: &[(&str, SchedulerKind, &[&str])] = &[
    ("nogc", SchedulerKind::Blocking, &["flash.nogc=true"]),
    (
        "blocking@t_igc",
        SchedulerKind::Blocking,
        &["gc.threshold_blocks={t_igc}"],
    ),
];

/// One run's figures.
#[derive(Debug, Clone, Serialize)]
pub struct RlgcRun {
    pub latency_us: LatencyReport,
    pub erases: u64,
    pub waf: f64,
    pub gc_pages_copied: u64,
    pub blocked_requests: u64,
    pub requests: RequestCounts,
    pub seed: u64,
    /// Latency distributions (logarithmic bins), for the paper's Figure 7 CCDFs.
    pub latency_histogram: Distributions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<FreeBlocks>,
}

/// Free blocks over simulated time.
#[derive(Debug, Clone, Serialize)]
pub struct FreeBlocks {
    pub time_s: Vec<f64>,
    pub free_blocks: Vec<u64>,
}

/// One scheduler's runs.
#[derive(Debug, Clone, Serialize)]
pub struct SchedulerRuns {
    pub scheduler: SchedulerKind,
    pub runs: Vec<RlgcRun>,
}

/// One sensitivity variant of `rlgc` (first seed).
#[derive(Debug, Clone, Serialize)]
pub struct SensitivityRun {
    pub label: &'static str,
    pub overrides: Vec<&'static str>,
    pub run: RlgcRun,
}

/// One reference's runs (see [`REFERENCES`]).
#[derive(Debug, Clone, Serialize)]
pub struct ReferenceRuns {
    pub label: &'static str,
    pub scheduler: SchedulerKind,
    pub overrides: Vec<String>,
    pub runs: Vec<RlgcRun>,
}

/// Every run of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct RlgcComparison {
    pub schedulers: Vec<SchedulerRuns>,
    pub references: Vec<ReferenceRuns>,
    pub sensitivity: Vec<SensitivityRun>,
}

impl RlgcSetup {
    fn validate(&self) -> Result<()> {
        let bad = |f: &str, m: String| Err(SsdError::config(format!("experiment rlgc: {f}"), m));
        if self.repeat < 1 {
            return bad("repeat", "expected at least 1".into());
        }
        let seed_names = SCHEDULERS.map(|s| s.name()).join(", ");
        if let Some(s) = self.schedulers.iter().find(|s| !SCHEDULERS.contains(s)) {
            return bad(
                "schedulers",
                format!("'{}' is not one of the paper's: {seed_names}", s.name()),
            );
        }
        if !self.schedulers.contains(&BASELINE) {
            return bad(
                "schedulers",
                format!(
                    "must include {} (the tables are normalised to it)",
                    BASELINE.name()
                ),
            );
        }
        Ok(())
    }

    /// One run of `scheduler` (plus `extra` overrides) at `seed`.
    fn run_one(
        &self,
        scheduler: SchedulerKind,
        extra: &[&str],
        seed: u64,
        series: bool,
    ) -> Result<RlgcRun> {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        self.run_with(scheduler, &extra, seed, series)
    }

    /// The overrides of a reference: `{t_igc}` is the device's `gc.partial.t_igc`.
    fn reference_overrides(&self, extra: &[&str]) -> Result<Vec<String>> {
        let cfg = DeviceConfig::load(&self.device, &self.origin, &self.overrides)?;
        let t_igc = cfg.gc.partial.t_igc.to_string();
        Ok(extra.iter().map(|s| s.replace("{t_igc}", &t_igc)).collect())
    }

    fn run_with(
        &self,
        scheduler: SchedulerKind,
        extra: &[String],
        seed: u64,
        series: bool,
    ) -> Result<RlgcRun> {
        let mut overrides = self.overrides.clone();
        overrides.push(format!("gc.scheduler=\"{}\"", scheduler.name()));
        overrides.extend(extra.iter().cloned());
        let cfg = DeviceConfig::load(&self.device, &self.origin, &overrides)?;
        // Workloads without arrival times are replayed closed loop (as `ssdlab run` does).
        let closed = matches!(
            &self.workload,
            WorkloadSpec::Synthetic(s) if s.arrival == ArrivalSpec::Closed
        );
        let opts = SimOptions {
            seed,
            replay: if closed {
                Replay::ClosedLoop {
                    queue_depth: crate::sim::DEFAULT_QUEUE_DEPTH,
                }
            } else {
                Replay::OpenLoop {
                    time_scale: self.time_scale,
                }
            },
            precondition: (!self.from_empty).then_some(Precondition {
                sequential: true,
                random_passes: self.precondition_passes,
                fill_fraction: 1.0,
            }),
            ..SimOptions::default()
        };
        let g = &cfg.geometry;
        let source = open_workload(
            &self.workload,
            g.logical_bytes(),
            u64::from(g.page_size),
            seed,
        )?;
        let mut sim = Simulation::new(cfg, opts, source)?;
        let r = sim.run()?;
        Ok(RlgcRun {
            latency_us: r.latency_us,
            erases: r.erases,
            waf: r.waf,
            gc_pages_copied: r.gc_pages_copied,
            blocked_requests: r.blocked_requests,
            requests: r.requests,
            seed,
            latency_histogram: sim.latency_distributions(),
            series: series.then(|| FreeBlocks {
                time_s: r.series.time_s.clone(),
                free_blocks: r.series.free_blocks.clone(),
            }),
        })
    }
}

/// One simulation of the comparison (see [`compare`]).
enum Task {
    /// Scheduler, run number.
    Scheduler(SchedulerKind, u32),
    /// Index into [`REFERENCES`], run number.
    Reference(usize, u32),
    /// Index into [`SENSITIVITY`].
    Sensitivity(usize),
}

/// Run the comparison: every run is its own simulation, so up to `setup.jobs` run at once on
/// threads ([`super::parallel`]), which changes no result.
pub fn compare(setup: &RlgcSetup) -> Result<RlgcComparison> {
    setup.validate()?;
    let refs: Vec<Vec<String>> = if setup.references {
        REFERENCES
            .iter()
            .map(|(_, _, extra)| setup.reference_overrides(extra))
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let mut tasks: Vec<Task> = Vec::new();
    for &s in &setup.schedulers {
        tasks.extend((0..setup.repeat).map(|i| Task::Scheduler(s, i)));
    }
    for k in 0..refs.len() {
        tasks.extend((0..setup.repeat).map(|i| Task::Reference(k, i)));
    }
    if setup.sensitivity {
        tasks.extend((0..SENSITIVITY.len()).map(Task::Sensitivity));
    }
    let device = DeviceConfig::load(&setup.device, &setup.origin, &setup.overrides)?;
    let jobs = super::parallel::jobs_for(
        setup.jobs,
        tasks.len(),
        std::slice::from_ref(&device),
        &SimOptions::default(),
    );
    let seed = |i: u32| setup.seed + u64::from(i);
    let mut done = super::parallel::map(&tasks, jobs, &setup.progress, |t| match *t {
        Task::Scheduler(s, i) => setup.run_one(s, &[], seed(i), setup.series && i == 0),
        Task::Reference(k, i) => setup.run_with(REFERENCES[k].1, &refs[k], seed(i), false),
        Task::Sensitivity(k) => {
            setup.run_one(SchedulerKind::Rlgc, SENSITIVITY[k].1, setup.seed, false)
        }
    })?
    .into_iter();
    let mut take = |n: u32| done.by_ref().take(n as usize).collect::<Vec<_>>();
    let schedulers = setup
        .schedulers
        .iter()
        .map(|&scheduler| SchedulerRuns {
            scheduler,
            runs: take(setup.repeat),
        })
        .collect();
    let references = refs
        .into_iter()
        .enumerate()
        .map(|(k, overrides)| ReferenceRuns {
            label: REFERENCES[k].0,
            scheduler: REFERENCES[k].1,
            overrides,
            runs: take(setup.repeat),
        })
        .collect();
    let sensitivity = SENSITIVITY
        .iter()
        .take(if setup.sensitivity {
            SENSITIVITY.len()
        } else {
            0
        })
        .map(|&(label, extra)| SensitivityRun {
            label,
            overrides: extra.to_vec(),
            run: take(1).remove(0),
        })
        .collect();
    Ok(RlgcComparison {
        schedulers,
        references,
        sensitivity,
    })
}
