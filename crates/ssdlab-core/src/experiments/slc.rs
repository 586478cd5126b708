//! `ssdlab experiment slc`: the SLC-cache policies of Yoo & Shin (HotStorage 2020, slides
//! 13–17) side by side — write throughput, WAF, write latency and its breakdown (SLC program,
//! QLC program, waiting for migration, waiting for QLC GC) per policy, normalised to `none`,
//! at several space utilisations; the SLC size and θ over time (slide 15); `rl`'s sensitivity
//! to its open values and the effect of pre-training (slide 17); and the offline tuning that
//! gives `ust` its table (slide 6: "investigated at offline with representative workloads").
//!
//! A run at utilisation u: the first u of the logical space is written sequentially (timing
//! off), then the workload runs closed loop (as fast as the device goes: the paper reports
//! throughput) over that same footprint — a synthetic workload addresses it, a trace is folded
//! into it modulo its size.
//!
//! Workloads. The paper's PC trace ("a larger number of hot data", small writes) and YCSB-A
//! ("most of the write requests are large and most of data are cold") are not available; the
//! stand-ins ([`StandIn`]) are seeded synthetic write streams of those two kinds, chosen by us,
//! and are not the traces. Real excerpts run with `trace`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{DeviceConfig, SlcPolicyKind, UstRow};
use crate::error::{Result, SsdError};
use crate::ftl::hybrid::{DecisionPoint, HybridReport};
use crate::ftl::Precondition;
use crate::rl::QTable;
use crate::sim::{Replay, SimOptions, Simulation};
use crate::trace::{open_workload, ArrivalSpec, LbaMapMode, Pattern, SyntheticSpec, WorkloadSpec};

/// The seeded stand-ins for the paper's two traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StandIn {
    /// PC-like: small writes (4 KiB × (1 + Geometric), mean 12 KiB), 90 % of them to a hot 5 %
    /// of the footprint.
    Pc,
    /// YCSB-A-like: large writes (mean 256 KiB), uniformly over the footprint (cold).
    YcsbA,
}

impl StandIn {
    /// Mean request size, KiB.
    pub fn mean_kib(self) -> f64 {
        match self {
            StandIn::Pc => 12.0,
            StandIn::YcsbA => 256.0,
        }
    }

    /// The stand-in writing about `data_gb` GB (10^9 bytes) over the first `utilisation` of
    /// the logical space.
    pub fn spec(self, data_gb: f64, utilisation: f64) -> SyntheticSpec {
        let requests = (data_gb * 1e9 / (self.mean_kib() * 1024.0)).ceil().max(1.0) as u64;
        let mut s = SyntheticSpec::new(Pattern::Hotcold, requests);
        s.footprint_fraction = utilisation;
        s.arrival = ArrivalSpec::Closed;
        match self {
            StandIn::Pc => {
                s.hot_write_fraction = 0.9;
                s.hot_space_fraction = 0.05;
                s.mean_request_kib = Some(self.mean_kib());
            }
            StandIn::YcsbA => {
                s.pattern = Pattern::Uniform;
                s.request_pages = 1;
                s.mean_request_kib = Some(self.mean_kib());
            }
        }
        s
    }
    fn name(self) -> &'static str {
        match self {
            StandIn::Pc => "pc",
            StandIn::YcsbA => "ycsb-a",
        }
    }
}

/// What to run (JSON from the front end).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcSetup {
    /// Preset name or TOML text, its origin and `section.key=value` overrides.
    pub device: String,
    #[serde(default)]
    pub origin: String,
    #[serde(default)]
    pub overrides: Vec<String>,
    /// A stand-in (`pc`, `ycsb-a`) or any workload (a trace is folded into the footprint).
    #[serde(default)]
    pub stand_in: Option<StandIn>,
    #[serde(default)]
    pub workload: Option<WorkloadSpec>,
    /// Data a stand-in run writes, GB (its requests: this over the mean request size).
    #[serde(default = "default_data_gb")]
    pub data_gb: f64,
    #[serde(default = "default_utilisations")]
    pub utilisations: Vec<f64>,
    #[serde(default = "default_policies")]
    pub policies: Vec<SlcPolicyKind>,
    #[serde(default = "default_qd")]
    pub queue_depth: u32,
    #[serde(default)]
    pub seed: u64,
    /// Also run `rl` under other values of what the paper leaves open.
    #[serde(default)]
    pub sensitivity: bool,
    /// Also run `rl` from a Q-table trained on the other stand-in (slide 17).
    #[serde(default)]
    pub pretrain: bool,
    /// Points kept of each SLC size/θ series.
    #[serde(default = "default_series_points")]
    pub series_points: usize,
    /// Runs at once on threads (0: one per CPU, fewer when memory is short); no result
    /// depends on it.
    #[serde(default)]
    pub jobs: usize,
    #[serde(skip)] // how far the run has got (the front end's progress bar)
    pub progress: std::sync::Arc<crate::experiments::parallel::Progress>,
}

fn default_data_gb() -> f64 {
    12.0
}
fn default_utilisations() -> Vec<f64> {
    vec![0.3, 0.5, 0.7, 0.9]
}
fn default_policies() -> Vec<SlcPolicyKind> {
    vec![
        SlcPolicyKind::None,
        SlcPolicyKind::Static,
        SlcPolicyKind::Dwa,
        SlcPolicyKind::Ust,
        SlcPolicyKind::Rl,
    ]
}
fn default_qd() -> u32 {
    8
}
fn default_series_points() -> usize {
    200
}

/// Write latency percentiles, µs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WriteLatency {
    pub p50: f64,
    pub p99: f64,
    pub p99_99: f64,
}

/// Mean write time per host page, µs, in parts that add up (the paper's Figure 16).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Breakdown {
    pub slc: f64,
    pub qlc: f64,
    pub migration: f64,
    pub gc: f64,
}

/// One policy at one utilisation.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyRun {
    pub write_mb_s: f64,
    pub waf: f64,
    pub latency_us: BTreeMap<&'static str, WriteLatency>,
    pub breakdown_us: Breakdown,
    /// write_mb_s and waf over `none`'s at the same utilisation (when `none` ran).
    pub normalised: Option<Normalised>,
    pub hybrid: HybridReport,
    /// SLC size and θ over the run (dynamic policies).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<DecisionPoint>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Normalised {
    pub write_mb_s: f64,
    pub waf: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct UtilisationRuns {
    pub policies: BTreeMap<&'static str, PolicyRun>,
}

/// `rl` under one changed open value.
#[derive(Debug, Clone, Serialize)]
pub struct SensitivityRun {
    pub label: &'static str,
    pub overrides: Vec<&'static str>,
    pub utilisation: f64,
    pub write_mb_s: f64,
    pub waf: f64,
}

/// `rl` from zeros and from a table trained on another workload (slide 17).
#[derive(Debug, Clone, Serialize)]
pub struct Pretraining {
    pub trained_on: &'static str,
    pub utilisation: f64,
    pub untrained_mb_s: f64,
    pub pretrained_mb_s: f64,
    pub gain: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SlcResult {
    pub device: String,
    pub workload: String,
    pub stand_in: bool,
    pub utilisations: BTreeMap<String, UtilisationRuns>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sensitivity: Vec<SensitivityRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pretraining: Option<Pretraining>,
}

/// `rl`'s sensitivity variants: the values the paper leaves open, and ε around its 0.07.
const SENSITIVITY: &[(&str, &[&str])] = &[
    ("alpha 0.3", &["cache.rl.alpha=0.3"]),
    ("gamma 0.5", &["cache.rl.gamma=0.5"]),
    ("epsilon 0.01", &["cache.rl.epsilon=0.01"]),
    ("epsilon 0.2", &["cache.rl.epsilon=0.2"]),
    ("start at level 0", &["cache.rl.start_size_level=0"]),
];

/// One run's measured figures and, for `rl`, its final Q-table.
struct Outcome {
    run: PolicyRun,
    table: Option<QTable>,
}

impl SlcSetup {
    fn validate(&self) -> Result<()> {
        let bad = |f: &str, m: String| Err(SsdError::config(f, m));
        if self.stand_in.is_some() == self.workload.is_some() {
            return bad(
                "experiment slc",
                "expected either a stand-in (--workload pc|ycsb-a) or a trace (--trace PATH)"
                    .into(),
            );
        }
        if !(self.data_gb.is_finite() && self.data_gb > 0.0 && self.data_gb <= 1e4) {
            return bad(
                "--data-gb",
                format!(
                    "expected a positive amount up to 10,000 GB, got {}",
                    self.data_gb
                ),
            );
        }
        if self.utilisations.is_empty() {
            return bad("--utilisation", "expected at least one utilisation".into());
        }
        if let Some(u) = self
            .utilisations
            .iter()
            .find(|u| !(**u > 0.0 && **u <= 1.0))
        {
            return bad(
                "--utilisation",
                format!("expected fractions in (0, 1], got {u}"),
            );
        }
        if self.policies.is_empty() {
            return bad("--policies", "expected at least one policy".into());
        }
        if self.policies.contains(&SlcPolicyKind::External) {
            return bad(
                "--policies",
                "'external' needs an outside agent (the Gymnasium environment)".into(),
            );
        }
        if self.queue_depth == 0 || self.queue_depth > 4096 {
            return bad("--queue-depth", "expected 1 to 4096".into());
        }
        Ok(())
    }

    /// What config errors name the device by.
    fn origin(&self) -> &str {
        if self.origin.is_empty() {
            "--device"
        } else {
            &self.origin
        }
    }

    fn workload(&self, u: f64, stand_in: Option<StandIn>) -> WorkloadSpec {
        match (stand_in.or(self.stand_in), &self.workload) {
            (Some(s), _) => WorkloadSpec::Synthetic(s.spec(self.data_gb, u)),
            (None, Some(WorkloadSpec::Trace(t))) => {
                let mut t = t.clone();
                if t.lba_map == LbaMapMode::None {
                    t.lba_map = LbaMapMode::Modulo;
                }
                WorkloadSpec::Trace(t)
            }
            (None, Some(w)) => w.clone(),
            (None, None) => unreachable!("validated"),
        }
    }

    /// One run of `policy` at utilisation `u` (plus `extra` overrides), optionally from a
    /// Q-table and on another stand-in.
    fn run_one(
        &self,
        policy: SlcPolicyKind,
        u: f64,
        extra: &[&str],
        table: Option<&QTable>,
        stand_in: Option<StandIn>,
    ) -> Result<Outcome> {
        let mut overrides = self.overrides.clone();
        overrides.push(format!("cache.slc=\"{}\"", <&'static str>::from(policy)));
        overrides.extend(extra.iter().map(|s| s.to_string()));
        let cfg = DeviceConfig::load(&self.device, self.origin(), &overrides)?;
        let opts = SimOptions {
            seed: self.seed,
            replay: Replay::ClosedLoop {
                queue_depth: self.queue_depth,
            },
            precondition: Some(Precondition {
                sequential: true,
                random_passes: 0.0,
                fill_fraction: u,
            }),
            ..SimOptions::default()
        };
        let g = &cfg.geometry;
        let page = u64::from(g.page_size);
        // Host "pages" are mapping units (`ftl.mapping_unit_bytes`).
        let unit = u64::from(cfg.unit_bytes());
        // The workload addresses the filled part only.
        let footprint = match stand_in.or(self.stand_in) {
            Some(_) => g.logical_bytes(),
            None => ((g.logical_bytes() as f64 * u) as u64 / page).max(1) * page,
        };
        let source = open_workload(&self.workload(u, stand_in), footprint, page, self.seed)?;
        let mut sim = Simulation::new(cfg, opts, source)?;
        if let Some(t) = table {
            sim.set_slc_q_table(t.clone())?;
        }
        let r = sim.run()?;
        let h = r.layers.hybrid.unwrap_or_default();
        let pages = (h.slc_host_pages + h.qlc_host_pages).max(1) as f64;
        let us = |ns: u64| ns as f64 / pages / 1e3;
        let w = r.latency_us.write;
        let decisions = sim.slc_decisions();
        let dynamic = !matches!(policy, SlcPolicyKind::None | SlcPolicyKind::Static);
        let step = decisions.len().div_ceil(self.series_points.max(1)).max(1);
        let run = PolicyRun {
            write_mb_s: if r.sim_time_s > 0.0 {
                (r.host_pages_written * unit) as f64 / r.sim_time_s / 1e6
            } else {
                0.0
            },
            waf: r.waf,
            latency_us: BTreeMap::from([(
                "write",
                WriteLatency {
                    p50: w.p50,
                    p99: w.p99,
                    p99_99: w.p99_99,
                },
            )]),
            breakdown_us: Breakdown {
                slc: us(h.slc_write_ns),
                qlc: us(h.qlc_write_ns),
                migration: us(h.migration_wait_ns),
                gc: us(h.gc_wait_ns),
            },
            normalised: None,
            hybrid: h,
            series: if dynamic {
                decisions.iter().step_by(step).copied().collect()
            } else {
                Vec::new()
            },
        };
        Ok(Outcome {
            run,
            table: sim.q_table().cloned(),
        })
    }

    fn describe(&self) -> String {
        match (&self.stand_in, &self.workload) {
            (Some(s), _) => format!(
                "{}-like stand-in, {} GB written (seeded synthetic, not the trace)",
                s.name(),
                self.data_gb
            ),
            (None, Some(WorkloadSpec::Trace(t))) => t.path.display().to_string(),
            (None, Some(w)) => format!("{w:?}"),
            (None, None) => String::new(),
        }
    }
}

fn key(u: f64) -> String {
    format!("{u}")
}

/// One run of the comparison (see [`compare`]).
enum Task {
    /// Policy at a utilisation.
    Grid(SlcPolicyKind, f64),
    /// Index into [`SENSITIVITY`].
    Sensitivity(usize),
    /// `rl` at the middle utilisation, on another stand-in (its Q-table pre-trains) or untrained.
    Trained(StandIn),
    Untrained,
}

/// How many of `tasks` to run at once ([`super::parallel::jobs_for`]) on `setup`'s device.
fn jobs(setup: &SlcSetup, tasks: usize) -> Result<usize> {
    let device = DeviceConfig::load(&setup.device, setup.origin(), &setup.overrides)?;
    Ok(super::parallel::jobs_for(
        setup.jobs,
        tasks,
        std::slice::from_ref(&device),
        &SimOptions::default(),
    ))
}

/// Run the comparison: every run but the pre-trained one (which needs another's Q-table) is
/// its own simulation, so up to `setup.jobs` run at once on threads ([`super::parallel`]),
/// which changes no result.
pub fn compare(setup: &SlcSetup) -> Result<SlcResult> {
    setup.validate()?;
    let device = DeviceConfig::load(&setup.device, setup.origin(), &setup.overrides)?.name;
    // Sensitivity and pre-training at the middle utilisation.
    let mid = setup.utilisations[setup.utilisations.len() / 2];
    let other = match setup.stand_in {
        Some(StandIn::Pc) => StandIn::YcsbA,
        _ => StandIn::Pc,
    };
    let mut tasks = Vec::new();
    for &u in &setup.utilisations {
        tasks.extend(setup.policies.iter().map(|&p| Task::Grid(p, u)));
    }
    if setup.sensitivity {
        tasks.extend((0..SENSITIVITY.len()).map(Task::Sensitivity));
    }
    if setup.pretrain {
        tasks.extend([Task::Trained(other), Task::Untrained]);
    }
    let (n, progress) = (jobs(setup, tasks.len())?, &setup.progress);
    let done = super::parallel::map(&tasks, n, progress, |t| match *t {
        Task::Grid(p, u) => setup.run_one(p, u, &[], None, None),
        Task::Sensitivity(k) => setup.run_one(SlcPolicyKind::Rl, mid, SENSITIVITY[k].1, None, None),
        Task::Trained(s) => setup.run_one(SlcPolicyKind::Rl, mid, &[], None, Some(s)),
        Task::Untrained => setup.run_one(SlcPolicyKind::Rl, mid, &[], None, None),
    })?;
    let mut done = done.into_iter();
    let mut utilisations = BTreeMap::new();
    for &u in &setup.utilisations {
        let mut policies = BTreeMap::new();
        for (&p, o) in setup.policies.iter().zip(done.by_ref()) {
            policies.insert(<&'static str>::from(p), o.run);
        }
        if let Some(base) = policies.get("none").map(|r| (r.write_mb_s, r.waf)) {
            for r in policies.values_mut() {
                r.normalised = Some(Normalised {
                    write_mb_s: r.write_mb_s / base.0.max(f64::MIN_POSITIVE),
                    waf: r.waf / base.1.max(f64::MIN_POSITIVE),
                });
            }
        }
        utilisations.insert(key(u), UtilisationRuns { policies });
    }
    let mut sensitivity = Vec::new();
    if setup.sensitivity {
        for ((label, extra), o) in SENSITIVITY.iter().zip(done.by_ref()) {
            sensitivity.push(SensitivityRun {
                label,
                overrides: extra.to_vec(),
                utilisation: mid,
                write_mb_s: o.run.write_mb_s,
                waf: o.run.waf,
            });
        }
    }
    let pretraining = if setup.pretrain {
        let (trained, untrained) = match (done.next(), done.next()) {
            (Some(t), Some(u)) => (t, u),
            _ => unreachable!("the pre-training runs were queued"),
        };
        let pre = setup.run_one(SlcPolicyKind::Rl, mid, &[], trained.table.as_ref(), None)?;
        Some(Pretraining {
            trained_on: other.name(),
            utilisation: mid,
            untrained_mb_s: untrained.run.write_mb_s,
            pretrained_mb_s: pre.run.write_mb_s,
            gain: pre.run.write_mb_s / untrained.run.write_mb_s.max(f64::MIN_POSITIVE) - 1.0,
        })
    } else {
        None
    };
    Ok(SlcResult {
        device,
        workload: setup.describe(),
        stand_in: setup.stand_in.is_some(),
        utilisations,
        sensitivity,
        pretraining,
    })
}

/// One candidate of the `ust` tuning and its mean throughput over the stand-ins.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UstCandidate {
    pub utilisation: f64,
    pub slc_fraction: f64,
    pub theta_kib: u32,
    pub mean_write_mb_s: f64,
}

/// The tuning's table and every candidate it measured.
#[derive(Debug, Clone, Serialize)]
pub struct UstTuning {
    pub table: Vec<UstRow>,
    pub candidates: Vec<UstCandidate>,
}

/// Tune `ust`'s table offline (slide 6): at each utilisation run a static setting of every size level
/// and θ ∈ {16, 64} KiB (slide 7's two settings) on both stand-ins, and keep the setting with
/// the best mean write throughput. Row `i` applies up to the midpoint between utilisation `i`
/// and `i + 1` (the last up to 1).
pub fn tune_ust(setup: &SlcSetup) -> Result<UstTuning> {
    let mut probe = setup.clone();
    probe.stand_in = Some(StandIn::Pc);
    probe.workload = None;
    probe.validate()?;
    let us = &setup.utilisations;
    const THETAS_KIB: [u32; 2] = [16, 64];
    // Every (utilisation, size, θ, stand-in) run at once on threads ([`super::parallel`]).
    let mut tasks = Vec::new();
    for &u in us {
        for f in crate::ftl::hybrid::SIZE_LEVELS {
            for theta in THETAS_KIB {
                tasks.extend([StandIn::Pc, StandIn::YcsbA].map(|s| (u, f, theta, s)));
            }
        }
    }
    let (n, progress) = (jobs(setup, tasks.len())?, &setup.progress);
    let mb_s = super::parallel::map(&tasks, n, progress, |&(u, f, theta, s)| {
        // `ust` with one row is `static` at a size relative to the free space (a block count
        // would be refused at low utilisation: `static` is validated against the worst case,
        // every logical page in QLC).
        let extra = [format!(
            "cache.ust_table=[{{up_to=1.0, slc_fraction={f}, theta_kib={theta}}}]"
        )];
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        Ok(probe
            .run_one(SlcPolicyKind::Ust, u, &extra, None, Some(s))?
            .run
            .write_mb_s)
    })?;
    // A candidate is a (utilisation, size, θ) over both stand-ins, in the tasks' order.
    let candidates: Vec<UstCandidate> = tasks
        .chunks(2)
        .zip(mb_s.chunks(2))
        .map(|(t, v)| UstCandidate {
            utilisation: t[0].0,
            slc_fraction: t[0].1,
            theta_kib: t[0].2,
            mean_write_mb_s: v.iter().fold(0.0, |sum, x| sum + x) / 2.0,
        })
        .collect();
    // Per utilisation, the fastest candidate (the first of equals).
    let per_u = crate::ftl::hybrid::SIZE_LEVELS.len() * THETAS_KIB.len();
    let table = us
        .iter()
        .enumerate()
        .zip(candidates.chunks(per_u))
        .map(|((i, &u), cs)| {
            let best = cs[1..].iter().fold(cs[0], |b, &c| {
                if c.mean_write_mb_s > b.mean_write_mb_s {
                    c
                } else {
                    b
                }
            });
            UstRow {
                up_to: us.get(i + 1).map_or(1.0, |n| (u + n) / 2.0),
                slc_fraction: best.slc_fraction,
                theta_kib: best.theta_kib,
            }
        })
        .collect();
    Ok(UstTuning { table, candidates })
}
