//! What `experiment detect` runs: the device, the training and held-out runs, the detector's
//! settings, and the management comparison — with the defaults and why each was chosen.

use serde::Deserialize;

use super::manage::ManageSetup;
use crate::detect::c45::C45Params;
use crate::detect::features::{FeatureSet, DEFAULT_WINDOW};
use crate::error::{Result, SsdError};
use crate::sim::{GcLabel, GC_LABEL_THRESHOLD};
use crate::trace::WorkloadSpec;

/// One labelled run: a workload, closed loop at a queue depth, for a simulated duration, on the
/// setup's device or another preset, with `section.key=value` overrides (GC policy, spare…).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectRun {
    pub name: String,
    pub workload: WorkloadSpec,
    /// Simulated seconds (whole intervals up to this are kept).
    pub seconds: f64,
    /// Outstanding requests (fio's `iodepth`, filebench's threads).
    #[serde(default = "default_qd")]
    pub queue_depth: u32,
    /// Another device (preset name); the setup's overrides then do not apply.
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub overrides: Vec<String>,
    /// Another seed than the setup's (a held-out run of a training workload).
    #[serde(default)]
    pub seed: Option<u64>,
    /// A held-out run of a training workload (another seed): the paper's own test, reported
    /// apart from the runs of other workloads, devices and policies.
    #[serde(default)]
    pub same_workload: bool,
}

/// The whole experiment (JSON from the front end; every field has a default).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectSetup {
    /// Preset name or TOML text, its origin and overrides.
    #[serde(default = "default_device")]
    pub device: String,
    #[serde(default)]
    pub origin: String,
    #[serde(default = "default_overrides")]
    pub overrides: Vec<String>,
    /// Applied after `overrides` (and a run's own device) on every run: the front end's
    /// `--set`, which must not replace the default device's own overrides.
    #[serde(default)]
    pub extra_overrides: Vec<String>,
    #[serde(default = "default_train")]
    pub train: Vec<DetectRun>,
    #[serde(default = "default_eval")]
    pub eval: Vec<DetectRun>,
    /// The detector's attributes: the paper's 23, or the scale-free extension.
    #[serde(default)]
    pub features: FeatureSet,
    /// Samples of each standard deviation (the paper's 50).
    #[serde(default = "default_window")]
    pub window: usize,
    /// Which GC the label stands for: any (the paper's reading) or only GC that moved data.
    #[serde(default)]
    pub label: GcLabel,
    /// An interval is GC when its label's fraction exceeds this (the paper's reading: any GC).
    #[serde(default = "default_threshold")]
    pub label_threshold: f64,
    #[serde(default = "default_interval")]
    pub interval_s: f64,
    #[serde(default)]
    pub c45: C45Params,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Override every training / held-out run's `seconds` (quick looks, tests).
    #[serde(default)]
    pub train_seconds: Option<f64>,
    #[serde(default)]
    pub eval_seconds: Option<f64>,
    /// A trained tree (`Tree::to_json`): no training runs, this tree is evaluated and used.
    #[serde(default)]
    pub model_json: Option<String>,
    /// The §V comparison (none, detector, discard, fstrim); `None` skips it.
    #[serde(default = "default_manage")]
    pub manage: Option<ManageSetup>,
    /// Runs at once on threads (0: one per CPU, fewer when memory is short); no result
    /// depends on it.
    #[serde(default)]
    pub jobs: usize,
    /// How far the run has got (the front end's progress bar; not part of the JSON).
    #[serde(skip)]
    pub progress: std::sync::Arc<crate::experiments::parallel::Progress>,
}

fn default_qd() -> u32 {
    // fio's and filebench's runs keep several I/Os outstanding; 16 keeps every plane of the
    // default device busy (as the paper's saturating runs did) without a queue-made tail.
    16
}
/// `mqsim-small` (16 planes, MLC, MQSim's timings) at 128 blocks per plane: 2 GiB of flash,
/// filled from empty in ~15 simulated s at full speed, so each run has a GC-free start and a
/// long GC phase — the two classes the paper's fresh-then-written SSD gave it — in seconds of
/// machine time. The paper's drive (Samsung 840 Pro 128 GB) is 64× larger; its runs were
/// correspondingly longer.
fn default_device() -> String {
    "mqsim-small".into()
}
fn default_overrides() -> Vec<String> {
    vec!["geometry.blocks_per_plane=128".into()]
}
fn default_window() -> usize {
    DEFAULT_WINDOW
}
fn default_threshold() -> f64 {
    GC_LABEL_THRESHOLD
}
fn default_interval() -> f64 {
    // iostat's 1 s interval, as the paper sampled (§III.A).
    1.0
}
fn default_seed() -> u64 {
    1
}
fn default_manage() -> Option<ManageSetup> {
    Some(ManageSetup::default())
}

/// A workload spec from JSON (the defaults below are written as the user would write them).
fn spec(v: serde_json::Value) -> WorkloadSpec {
    serde_json::from_value(v).expect("default workload specs parse")
}

/// Enough requests for any default duration: the runs stop by simulated time.
const UNBOUNDED: u64 = 1 << 40;

fn run(name: &str, workload: serde_json::Value, seconds: f64) -> DetectRun {
    DetectRun {
        name: name.into(),
        workload: spec(workload),
        seconds,
        queue_depth: default_qd(),
        device: None,
        overrides: Vec::new(),
        seed: None,
        same_workload: false,
    }
}

/// The paper's training workloads (§III.A): fio 512 KiB random writes, filebench `fileserver`
/// and `varmail`, each from an empty device for 600 simulated s (the GC-free start and ~40
/// fills' worth of GC; the paper's 16,118 samples were ~5,400 s per workload on a 64× larger
/// drive).
pub fn default_train() -> Vec<DetectRun> {
    vec![
        run(
            "fio-randwrite",
            serde_json::json!({"kind": "fs", "personality": "fio-randwrite", "requests": UNBOUNDED}),
            600.0,
        ),
        run(
            "fileserver",
            serde_json::json!({"kind": "fs", "personality": "fileserver", "requests": UNBOUNDED}),
            600.0,
        ),
        run(
            "varmail",
            serde_json::json!({"kind": "fs", "personality": "varmail", "requests": UNBOUNDED}),
            600.0,
        ),
    ]
}

/// Held-out runs, 300 s each: the training workloads under another seed (the paper's own test,
/// §III.C: "we collected the data in the same way and applied the tree"), then workloads the
/// tree never saw (4 KiB uniform random writes, a hot/cold mix with 30 % reads, iozone's
/// write/delete churn), another device (20 % spare instead of 7 %), and other GC policies
/// (cost-benefit victims; the partial `lazyrtgc` scheduler).
pub fn default_eval() -> Vec<DetectRun> {
    let mut same: Vec<DetectRun> = default_train()
        .into_iter()
        .map(|mut r| {
            r.name = format!("{} (seed 2)", r.name);
            (r.seconds, r.seed, r.same_workload) = (300.0, Some(2), true);
            r
        })
        .collect();
    let uniform =
        serde_json::json!({"kind": "synthetic", "pattern": "uniform", "requests": UNBOUNDED});
    let mut out = vec![
        run("uniform-4k", uniform.clone(), 300.0),
        run(
            "hotcold-30r",
            serde_json::json!({"kind": "synthetic", "pattern": "hotcold", "requests": UNBOUNDED, "read_fraction": 0.3}),
            300.0,
        ),
        run(
            "iozone",
            serde_json::json!({"kind": "fs", "personality": "iozone", "requests": UNBOUNDED}),
            300.0,
        ),
    ];
    let mut spare = run(
        "fileserver@spare-20%",
        serde_json::json!({"kind": "fs", "personality": "fileserver", "requests": UNBOUNDED}),
        300.0,
    );
    spare.overrides = vec!["geometry.spare_factor=0.2".into()];
    let mut cb = run("uniform-4k@cost-benefit", uniform.clone(), 300.0);
    cb.overrides = vec!["gc.victim=\"cost-benefit\"".into()];
    let mut lazy = run("uniform-4k@lazyrtgc", uniform, 300.0);
    lazy.overrides = vec!["gc.scheduler=\"lazyrtgc\"".into()];
    out.extend([spare, cb, lazy]);
    same.extend(out);
    same
}

impl DetectSetup {
    /// The setup with `train_seconds` / `eval_seconds` applied to the runs.
    pub fn resolved(&self) -> DetectSetup {
        let mut s = self.clone();
        for (runs, secs) in [
            (&mut s.train, self.train_seconds),
            (&mut s.eval, self.eval_seconds),
        ] {
            if let Some(t) = secs {
                runs.iter_mut().for_each(|r| r.seconds = t);
            }
        }
        s
    }

    pub fn validate(&self) -> Result<()> {
        let bad =
            |f: &str, m: String| Err(SsdError::config("experiment detect", format!("{f}: {m}")));
        if self.train.is_empty() && self.model_json.is_none() {
            return bad("train", "expected at least one training run".into());
        }
        if !(self.interval_s > 0.0 && (self.interval_s * 100.0).fract() == 0.0) {
            return bad(
                "interval_s",
                format!(
                    "expected a positive whole number of hundredths of a second, got {}",
                    self.interval_s
                ),
            );
        }
        for (i, r) in self.train.iter().chain(&self.eval).enumerate() {
            if !(r.seconds.is_finite() && r.seconds >= self.interval_s) {
                return bad(
                    &format!("runs[{i}] ({}).seconds", r.name),
                    format!(
                        "expected at least one interval ({} s), got {}",
                        self.interval_s, r.seconds
                    ),
                );
            }
            if r.queue_depth == 0 {
                return bad(
                    &format!("runs[{i}] ({}).queue_depth", r.name),
                    "expected at least 1".into(),
                );
            }
        }
        if self.window == 0 {
            return bad("window", "expected at least 1 sample".into());
        }
        if !(self.label_threshold >= 0.0 && self.label_threshold < 1.0) {
            return bad(
                "label_threshold",
                format!(
                    "expected a fraction in [0, 1), got {}",
                    self.label_threshold
                ),
            );
        }
        self.c45.validate()
    }
}
