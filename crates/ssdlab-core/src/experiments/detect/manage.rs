//! GC management by TRIM (Park and Kim §IV–V): the host deletes files the device still holds
//! as valid until a TRIM says otherwise; the paper TRIMs when its detector sees GC, and counts
//! the seconds host bandwidth spends below a floor (400 MB/s on its drive: 137 s without the
//! detector, 66 s with it, over 3,000 s). Here the same workload runs under four host policies
//! that users actually choose between:
//! - `none`: deleted extents are never trimmed (the paper's first experiment: its idle-time
//!   auto-TRIM never found idle time);
//! - `detector`: the trained tree is applied to each interval's features; an interval it calls
//!   GC makes the host TRIM everything deleted so far (the paper's manager);
//! - `discard`: every delete is followed by its TRIM (ext4's `discard` mount option);
//! - `fstrim`: everything deleted is trimmed every `fstrim_period_s` (a `fstrim` timer).
//!
//! TRIM costs no device time in this model (the FTL only unmaps), so `discard` is the ideal
//! the others approach; real drives pay for non-queued TRIM, which is why users choose
//! between these at all — say so when comparing.

use serde::{Deserialize, Serialize};

use super::{start, write_mb_s, DetectRun, DetectSetup};
use crate::detect::c45::Tree;
use crate::detect::features::FeatureWindow;
use crate::error::{Result, SsdError};
use crate::trace::{TrimMode, WorkloadSpec};

/// A host TRIM policy of the comparison.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter, strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ManageMode {
    None,
    Detector,
    Discard,
    Fstrim,
}

/// The §V setting.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ManageSetup {
    /// A workload with a file system (`kind = "fs"`): its deletes are what TRIM can tell the
    /// device. `discard` mode sets its `trim` to `discard`.
    pub workload: WorkloadSpec,
    pub seconds: f64,
    pub queue_depth: u32,
    pub fstrim_period_s: f64,
    /// Bandwidth floor, MB/s; `None`: `floor_fraction` of the `discard` run's median write
    /// bandwidth per interval — what the drive gives this workload when the host trims every
    /// delete at once, free of charge in this model, so with no stale data to carry. The
    /// paper's 400 MB/s was 0.89 of its drive's 449 MB/s average.
    pub floor_mb_s: Option<f64>,
    pub floor_fraction: f64,
    pub modes: Vec<ManageMode>,
}

impl Default for ManageSetup {
    /// Write/delete churn with no idle time next to a partition of 53 % of the drive that was
    /// filled and deleted (the paper's 68 GB of 128 GB), 3,000 s as the paper measured. The
    /// churn is filebench `fileserver`, not the paper's iozone: iozone's write/rewrite/delete
    /// cycle under a next-fit allocator is a circular log, which a page-mapped FTL with greedy
    /// GC collects without copying (WAF 1.000 with or without TRIM, docs/detect.md), so it
    /// cannot show what TRIM changes; fileserver's random appends and deletes can.
    /// `fstrim` every 600 s — systemd's weekly `fstrim.timer` would never fire in 3,000 s and
    /// equal `none`, so a short period shows what periodic TRIM can do at best; floor 0.9.
    fn default() -> Self {
        ManageSetup {
            workload: serde_json::from_value(serde_json::json!({
                "kind": "fs", "personality": "fileserver", "requests": 1u64 << 40, "stale_fraction": 0.53
            }))
            .expect("the default management workload parses"),
            seconds: 3000.0,
            queue_depth: crate::sim::DEFAULT_QUEUE_DEPTH,
            fstrim_period_s: 600.0,
            floor_mb_s: None,
            floor_fraction: 0.9,
            modes: vec![ManageMode::None, ManageMode::Detector, ManageMode::Discard, ManageMode::Fstrim],
        }
    }
}

/// One mode's run.
#[derive(Debug, Clone, Serialize)]
pub struct ManageRun {
    pub mode: ManageMode,
    pub mean_write_mb_s: f64,
    pub seconds_below_floor: u64,
    /// Times the host trimmed something (a detection or timer tick with deletions pending;
    /// `discard`: deletes).
    pub trims: u64,
    pub trimmed_pages: u64,
    /// Intervals the detector called GC (detector mode), and intervals with GC.
    pub detections: u64,
    pub gc_intervals: u64,
    pub waf: f64,
    pub erases: u64,
    /// Per interval: host write MB/s, GC fraction, 1 when the detector called GC.
    pub write_mb_s: Vec<f64>,
    pub gc_fraction: Vec<f64>,
    pub detected: Vec<u8>,
}

/// The comparison's JSON: `floor_mb_s`, `seconds`, and one run per mode.
#[derive(Debug, Clone, Serialize)]
pub struct ManageReport {
    pub workload: String,
    pub floor_mb_s: f64,
    pub seconds: f64,
    pub fstrim_period_s: f64,
    pub runs: Vec<ManageRun>,
}

impl ManageSetup {
    fn validate(&self) -> Result<()> {
        let bad = |f: &str, m: String| {
            Err(SsdError::config(
                "experiment detect",
                format!("manage.{f}: {m}"),
            ))
        };
        if !matches!(self.workload, WorkloadSpec::Fs(_)) {
            return bad(
                "workload",
                "expected a file-system workload (kind = \"fs\"): only its deletes can be trimmed"
                    .into(),
            );
        }
        if !(self.seconds.is_finite() && self.seconds >= 1.0) {
            return bad(
                "seconds",
                format!("expected at least 1 s, got {}", self.seconds),
            );
        }
        if !(self.fstrim_period_s.is_finite() && self.fstrim_period_s > 0.0) {
            return bad(
                "fstrim_period_s",
                format!("expected a positive period, got {}", self.fstrim_period_s),
            );
        }
        if !(self.floor_fraction > 0.0 && self.floor_fraction <= 1.0) {
            return bad(
                "floor_fraction",
                format!("expected a fraction in (0, 1], got {}", self.floor_fraction),
            );
        }
        if self.floor_mb_s.is_some_and(|f| !(f.is_finite() && f > 0.0)) {
            return bad("floor_mb_s", "expected a positive bandwidth".into());
        }
        if self.queue_depth == 0 {
            return bad("queue_depth", "expected at least 1".into());
        }
        if self.modes.is_empty() {
            return bad(
                "modes",
                "expected at least one of none, detector, discard, fstrim".into(),
            );
        }
        Ok(())
    }

    /// The workload of `mode`: `discard` turns on the file system's TRIM-on-delete.
    fn workload_for(&self, mode: ManageMode) -> WorkloadSpec {
        let mut w = self.workload.clone();
        if let WorkloadSpec::Fs(f) = &mut w {
            f.trim = if mode == ManageMode::Discard {
                TrimMode::Discard
            } else {
                TrimMode::None
            };
        }
        w
    }
}

/// Run every mode of `m` with the detector `tree` (trained by the caller) for the `detector`
/// mode, up to `jobs` modes at once on threads (each is its own simulation; no result depends
/// on it).
pub fn manage(
    m: &ManageSetup,
    setup: &DetectSetup,
    tree: &Tree,
    jobs: usize,
) -> Result<ManageReport> {
    m.validate()?;
    let mut runs = crate::experiments::parallel::map(&m.modes, jobs, &setup.progress, |&mode| {
        run_mode(m, mode, setup, tree)
    })?;
    let floor = match m.floor_mb_s {
        Some(f) => f,
        None => {
            let reference = runs.iter().find(|r| r.mode == ManageMode::Discard).ok_or_else(|| {
                SsdError::config(
                    "experiment detect",
                    "manage.floor_mb_s: expected a floor when the `discard` mode (which sets it) is not run",
                )
            })?;
            let mut b = reference.write_mb_s.clone();
            b.sort_by(f64::total_cmp);
            m.floor_fraction * b[b.len() / 2]
        }
    };
    for r in &mut runs {
        r.seconds_below_floor = r.write_mb_s.iter().filter(|&&b| b < floor).count() as u64;
    }
    Ok(ManageReport {
        workload: format!("{:?}", m.workload),
        floor_mb_s: floor,
        seconds: m.seconds,
        fstrim_period_s: m.fstrim_period_s,
        runs,
    })
}

fn run_mode(
    m: &ManageSetup,
    mode: ManageMode,
    setup: &DetectSetup,
    tree: &Tree,
) -> Result<ManageRun> {
    let run = DetectRun {
        name: <&str>::from(mode).into(),
        workload: m.workload_for(mode),
        seconds: m.seconds,
        queue_depth: m.queue_depth,
        device: None,
        overrides: Vec::new(),
        seed: None,
        same_workload: false,
    };
    let mut sim = start(&run, setup)?;
    let mut window = FeatureWindow::with_set(setup.window, setup.features)?;
    let period = (m.fstrim_period_s / setup.interval_s).round().max(1.0) as usize;
    let (mut seen, mut trims, mut detected) = (0usize, 0u64, Vec::new());
    loop {
        let done = sim.advance(1)?;
        let fresh: Vec<_> = sim.iostat_rows()[seen..]
            .iter()
            .map(|r| r.interval.clone())
            .collect();
        for interval in fresh {
            seen += 1;
            let call = match mode {
                ManageMode::Detector => tree.predict(&window.push(&interval))? == 1,
                ManageMode::Fstrim => seen % period == 0,
                ManageMode::None | ManageMode::Discard => false,
            };
            detected.push(u8::from(call && mode == ManageMode::Detector));
            if call && sim.trim_deleted() > 0 {
                trims += 1;
            }
        }
        if done || seen as f64 * setup.interval_s >= m.seconds {
            break;
        }
    }
    let rows = sim.iostat_rows();
    let rows = &rows[..seen.min(rows.len())];
    if rows.is_empty() {
        return Err(SsdError::Invalid(format!(
            "experiment detect: the {} run ended before its first interval; give the workload more requests",
            <&str>::from(mode)
        )));
    }
    let r = sim.result();
    let write_mb_s: Vec<f64> = rows.iter().map(write_mb_s).collect();
    Ok(ManageRun {
        mode,
        mean_write_mb_s: write_mb_s.iter().sum::<f64>() / write_mb_s.len() as f64,
        seconds_below_floor: 0,
        trims: if mode == ManageMode::Discard {
            r.requests.trim
        } else {
            trims
        },
        trimmed_pages: r.trimmed_pages,
        detections: detected.iter().map(|&d| u64::from(d)).sum(),
        gc_intervals: rows
            .iter()
            .filter(|r| setup.label.fraction(r) > setup.label_threshold)
            .count() as u64,
        waf: r.waf,
        erases: r.erases,
        write_mb_s,
        gc_fraction: rows.iter().map(|r| r.gc_fraction).collect(),
        detected,
    })
}
