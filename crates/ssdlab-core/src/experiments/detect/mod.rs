//! Host-side GC detection: Park and Kim, "SSD Garbage Collection Detection and Management with
//! Machine Learning Algorithm" (ICUFN 2017). The paper records `iostat` once a second while fio
//! (512 KiB random writes) and filebench (`fileserver`, `varmail`) write to an SSD whose modified
//! firmware reports when GC runs (§III.A), trains a C4.5 tree on the 1 s attributes and their
//! 50-sample standard deviations (§III.B: std-dev of `svctm` decisive, 99.66 % accuracy), and
//! issues TRIM when the tree detects GC (§IV–V: 137 → 66 s below 400 MB/s over 3,000 s).
//!
//! Here every run is a simulation with the host view on (`SimOptions::iostat_interval_us`), so
//! the label is the device's own GC activity ([`crate::sim::IostatRow::gc_fraction`]); the
//! detector is trained on the paper's three workload kinds and evaluated on held-out runs of
//! other workloads, devices and GC policies ([`train_and_eval`]), then used as the paper's
//! manager against `discard` and periodic `fstrim` (`manage`).

mod manage;
mod setup;

pub use manage::{manage, ManageMode, ManageReport, ManageRun, ManageSetup};
pub use setup::{default_eval, default_train, DetectRun, DetectSetup};

use serde::Serialize;

use crate::config::DeviceConfig;
use crate::detect::c45::{Dataset, Tree};
use crate::detect::features::{FeatureSet, FeatureWindow};
use crate::error::{Result, SsdError};
use crate::sim::{GcLabel, IostatRow, Replay, SimOptions, Simulation};
use crate::trace::open_workload;

/// Counts of a binary detector against the labels (1 = GC).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Confusion {
    pub tp: u64,
    pub fp: u64,
    pub tn: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
}

impl Confusion {
    pub fn of(predicted: &[u32], labels: &[u32]) -> Confusion {
        let mut c = Confusion::default();
        for (&p, &l) in predicted.iter().zip(labels) {
            match (p == 1, l == 1) {
                (true, true) => c.tp += 1,
                (true, false) => c.fp += 1,
                (false, false) => c.tn += 1,
                (false, true) => c.fn_ += 1,
            }
        }
        c
    }
    /// The counts of both.
    pub fn merged(self, o: Confusion) -> Confusion {
        Confusion {
            tp: self.tp + o.tp,
            fp: self.fp + o.fp,
            tn: self.tn + o.tn,
            fn_: self.fn_ + o.fn_,
        }
    }
    fn total(&self) -> u64 {
        self.tp + self.fp + self.tn + self.fn_
    }
    fn ratio(a: u64, b: u64) -> f64 {
        if b == 0 {
            f64::NAN
        } else {
            a as f64 / b as f64
        }
    }
    pub fn accuracy(&self) -> f64 {
        Self::ratio(self.tp + self.tn, self.total())
    }
    /// Of the intervals the detector called GC, the fraction that were (NaN if none called).
    pub fn precision(&self) -> f64 {
        Self::ratio(self.tp, self.tp + self.fp)
    }
    /// Of the GC intervals, the fraction the detector called (NaN if none).
    pub fn recall(&self) -> f64 {
        Self::ratio(self.tp, self.tp + self.fn_)
    }
}

/// Accuracy, precision, recall and the confusion of a group of runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Scores {
    pub accuracy: f64,
    pub precision: f64,
    pub recall: f64,
    pub confusion: Confusion,
}

impl Scores {
    fn of(c: Confusion) -> Scores {
        Scores {
            accuracy: c.accuracy(),
            precision: c.precision(),
            recall: c.recall(),
            confusion: c,
        }
    }
}

/// Scores of the held-out runs of the training workloads and of the others.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct GroupScores {
    pub same_workloads: Option<Scores>,
    pub other_workloads: Option<Scores>,
}

/// One labelled run's summary.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub name: String,
    pub intervals: usize,
    pub gc_intervals: usize,
    /// Host write bandwidth, MB/s (10^6 bytes), mean over the run's intervals.
    pub mean_write_mb_s: f64,
    /// Held-out runs: the detector on this run alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confusion: Option<Confusion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}

/// What `experiment detect` reports (its JSON); the datasets travel separately
/// ([`DetectOutcome`]) for the scikit-learn comparison of the front end.
#[derive(Debug, Clone, Serialize)]
pub struct DetectReport {
    pub device: String,
    pub features: FeatureSet,
    pub window: usize,
    pub label: GcLabel,
    pub label_threshold: f64,
    pub feature_names: Vec<String>,
    pub train_runs: Vec<RunSummary>,
    pub eval_runs: Vec<RunSummary>,
    pub accuracy: f64,
    pub precision: f64,
    pub recall: f64,
    pub confusion: Confusion,
    /// The same over the held-out runs of the training workloads (`same_workload`) and over
    /// the others (other workloads, devices, GC policies).
    pub same_workloads: Option<Scores>,
    pub other_workloads: Option<Scores>,
    /// The same two groups counting only the intervals whose attributes are defined as the
    /// paper defines them — over a full window of `window` samples (from each run's
    /// `window`-th interval on). The first ones of a run see only its start, and a window that
    /// spans a fresh device's fill-up sees a change of regime, not GC (docs/detect.md).
    pub full_window: GroupScores,
    pub features_used: Vec<String>,
    pub leaves: usize,
    pub rules: String,
    pub tree: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub management: Option<ManageReport>,
}

/// The report, the fitted tree and the data it was fitted and evaluated on.
pub struct DetectOutcome {
    pub report: DetectReport,
    pub tree: Tree,
    pub train: Dataset,
    pub eval: Dataset,
    /// The tree's class for each row of `eval`.
    pub eval_predicted: Vec<u32>,
}

/// The mean host write bandwidth of rows, MB/s (sysstat's kB are KiB).
pub(crate) fn write_mb_s(row: &IostatRow) -> f64 {
    row.interval.wkb_s * 1024.0 / 1e6
}

/// Simulate `run` on `base` (with the run's overrides) for its seconds with the host view on;
/// the rows of its whole intervals up to `run.seconds`.
pub fn labelled_rows(run: &DetectRun, setup: &DetectSetup) -> Result<Vec<IostatRow>> {
    let mut sim = start(run, setup)?;
    loop {
        let done = sim.advance(4096)?;
        let rows = sim.iostat_rows();
        if done || rows.last().is_some_and(|r| r.t_s >= run.seconds) {
            break;
        }
    }
    let rows: Vec<IostatRow> = sim
        .iostat_rows()
        .iter()
        .filter(|r| r.t_s <= run.seconds + 1e-9)
        .cloned()
        .collect();
    if rows.is_empty() {
        return Err(SsdError::Invalid(format!(
            "experiment detect: run '{}' ended before its first {} s interval; give its workload more requests",
            run.name, setup.interval_s
        )));
    }
    Ok(rows)
}

/// The device of `run`: its own preset, or the setup's device with the setup's overrides;
/// then the setup's extra overrides and the run's own.
pub(crate) fn device_of(run: &DetectRun, setup: &DetectSetup) -> Result<DeviceConfig> {
    match &run.device {
        Some(name) => {
            let sets = [&setup.extra_overrides[..], &run.overrides].concat();
            DeviceConfig::load(name, name, &sets)
        }
        None => {
            let sets = [&setup.overrides[..], &setup.extra_overrides, &run.overrides].concat();
            DeviceConfig::load(&setup.device, &setup.origin, &sets)
        }
    }
}

/// A simulation of `run` with the host view on, not yet advanced.
pub(crate) fn start(run: &DetectRun, setup: &DetectSetup) -> Result<Simulation> {
    let cfg = device_of(run, setup)?;
    let g = &cfg.geometry;
    let src = open_workload(
        &run.workload,
        g.logical_bytes(),
        u64::from(cfg.unit_bytes()),
        setup.seed,
    )?;
    let opts = SimOptions {
        seed: setup.seed,
        replay: Replay::ClosedLoop {
            queue_depth: run.queue_depth,
        },
        iostat_interval_us: Some(setup.interval_s * 1e6),
        ..SimOptions::default()
    };
    Simulation::new(cfg, opts, src)
}

/// Feature rows and labels of one run's intervals (the window starts empty at each run, as the
/// paper's detector starts with each measurement).
pub fn features_of(rows: &[IostatRow], setup: &DetectSetup) -> Result<(Vec<Vec<f64>>, Vec<u32>)> {
    let mut w = FeatureWindow::with_set(setup.window, setup.features)?;
    let x = rows.iter().map(|r| w.push(&r.interval)).collect();
    let y = rows
        .iter()
        .map(|r| u32::from(setup.label.fraction(r) > setup.label_threshold))
        .collect();
    Ok((x, y))
}

fn summary(name: &str, rows: &[IostatRow], labels: &[u32]) -> RunSummary {
    RunSummary {
        name: name.to_string(),
        intervals: rows.len(),
        gc_intervals: labels.iter().filter(|&&l| l == 1).count(),
        mean_write_mb_s: rows.iter().map(write_mb_s).sum::<f64>() / rows.len().max(1) as f64,
        confusion: None,
        accuracy: None,
    }
}

/// Train on `setup.train`, evaluate on `setup.eval`, then (if asked) run the management
/// comparison with the trained tree.
pub fn train_and_eval(setup: &DetectSetup) -> Result<DetectOutcome> {
    let mut setup = setup.resolved();
    setup.validate()?;
    let given = match &setup.model_json {
        Some(text) => {
            let t = Tree::from_json(text, "model")?;
            setup.features = FeatureSet::of_names(t.feature_names())
                .map_err(|e| SsdError::Invalid(format!("model: {e}")))?;
            Some(t)
        }
        None => None,
    };
    let setup = &setup;
    let sets = [&setup.overrides[..], &setup.extra_overrides].concat();
    let base = DeviceConfig::load(&setup.device, &setup.origin, &sets)?;
    let names = setup.features.names();
    let mut train = Dataset {
        feature_names: names.clone(),
        rows: Vec::new(),
        labels: Vec::new(),
    };
    let mut eval = train.clone();
    // Every training and held-out run is its own simulation: up to `setup.jobs` at once on
    // threads ([`crate::experiments::parallel`]), which changes no result.
    let jobs = |n: usize| {
        crate::experiments::parallel::jobs_for(
            setup.jobs,
            n,
            std::slice::from_ref(&base),
            &SimOptions::default(),
        )
    };
    let sim = |run: &DetectRun| -> Result<(Vec<IostatRow>, Vec<Vec<f64>>, Vec<u32>)> {
        let rows = labelled_rows(run, setup)?;
        let (x, y) = features_of(&rows, setup)?;
        Ok((rows, x, y))
    };
    let training: &[DetectRun] = if given.is_none() { &setup.train } else { &[] };
    let trained =
        crate::experiments::parallel::map(training, jobs(training.len()), &setup.progress, sim)?;
    let mut train_runs = Vec::new();
    for (run, (rows, x, y)) in training.iter().zip(trained) {
        train_runs.push(summary(&run.name, &rows, &y));
        train.rows.extend(x);
        train.labels.extend(y);
    }
    if given.is_none() && train.labels.iter().all(|&l| l == train.labels[0]) {
        return Err(SsdError::Invalid(format!(
            "experiment detect: every training interval is labelled {} — the training runs need both GC and GC-free seconds (run longer, or from an emptier device)",
            if train.labels[0] == 1 { "GC" } else { "no GC" }
        )));
    }
    let tree = match given {
        Some(t) => t,
        None => Tree::fit(&train, &setup.c45)?,
    };
    let mut eval_runs = Vec::new();
    let (mut same, mut other) = (None::<Confusion>, None::<Confusion>);
    let (mut same_full, mut other_full) = (None::<Confusion>, None::<Confusion>);
    let held_out = crate::experiments::parallel::map(
        &setup.eval,
        jobs(setup.eval.len()),
        &setup.progress,
        sim,
    )?;
    for (run, (rows, x, y)) in setup.eval.iter().zip(held_out) {
        let p = tree.predict_rows(&x)?;
        let c = Confusion::of(&p, &y);
        // The paper's attributes are defined over a full window: from the window-th interval on.
        let full = (setup.window - 1).min(y.len());
        let f = Confusion::of(&p[full..], &y[full..]);
        let (all_of, full_of) = if run.same_workload {
            (&mut same, &mut same_full)
        } else {
            (&mut other, &mut other_full)
        };
        *all_of = Some(all_of.unwrap_or_default().merged(c));
        *full_of = Some(full_of.unwrap_or_default().merged(f));
        let mut s = summary(&run.name, &rows, &y);
        (s.confusion, s.accuracy) = (Some(c), Some(c.accuracy()));
        eval_runs.push(s);
        eval.rows.extend(x);
        eval.labels.extend(y);
    }
    let predicted = tree.predict_rows(&eval.rows)?;
    let confusion = Confusion::of(&predicted, &eval.labels);
    let management = match &setup.manage {
        Some(m) => Some(manage(m, setup, &tree, jobs(m.modes.len()))?),
        None => None,
    };
    let report = DetectReport {
        device: base.name.clone(),
        features: setup.features,
        window: setup.window,
        label: setup.label,
        label_threshold: setup.label_threshold,
        feature_names: names,
        train_runs,
        eval_runs,
        accuracy: confusion.accuracy(),
        precision: confusion.precision(),
        recall: confusion.recall(),
        confusion,
        same_workloads: same.map(Scores::of),
        other_workloads: other.map(Scores::of),
        full_window: GroupScores {
            same_workloads: same_full.map(Scores::of),
            other_workloads: other_full.map(Scores::of),
        },
        features_used: tree.features_used(),
        leaves: tree.leaves(),
        rules: tree.to_rules_text(),
        tree: serde_json::from_str(&tree.to_json()?)
            .map_err(|e| SsdError::Invalid(format!("tree JSON: {e}")))?,
        management,
    };
    Ok(DetectOutcome {
        report,
        tree,
        train,
        eval,
        eval_predicted: predicted,
    })
}
