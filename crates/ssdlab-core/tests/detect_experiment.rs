//! `experiment detect` (issue 13; Park & Kim): a C4.5 tree over the simulated host's iostat view,
//! trained on labelled runs and evaluated on held-out ones, reloaded from JSON, and bad setups
//! refused with the field named. Small devices and short runs; the full experiment's numbers are
//! in docs/detect.md.

use ssdlab_core::experiments::detect::{train_and_eval, Confusion, DetectSetup};

/// mqsim-small at 128 blocks per plane (fills from empty in ~12 simulated s at QD 16), runs of
/// 40 s, standard deviations over 10 samples.
fn setup(extra: serde_json::Value) -> DetectSetup {
    let mut v = serde_json::json!({
        "device": "mqsim-small",
        "overrides": ["geometry.blocks_per_plane=128"],
        "window": 10,
        "manage": null,
        "train": [
            {"name": "uniform-64", "seconds": 40, "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 100000000u64, "request_pages": 64}},
            {"name": "hotcold-2", "seconds": 40, "workload": {"kind": "synthetic", "pattern": "hotcold", "requests": 100000000u64, "request_pages": 2, "read_fraction": 0.2}}
        ],
        "eval": [
            {"name": "uniform-8", "seconds": 40, "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 100000000u64, "request_pages": 8}},
            {"name": "uniform-8@cost-benefit", "seconds": 40, "overrides": ["gc.victim=\"cost-benefit\""],
             "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 100000000u64, "request_pages": 8}}
        ]
    });
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    serde_json::from_value(v).unwrap()
}

#[test]
fn confusion_ratios() {
    let c = Confusion::of(&[1, 1, 0, 0, 1], &[1, 0, 0, 1, 1]);
    assert_eq!((c.tp, c.fp, c.tn, c.fn_), (2, 1, 1, 1));
    assert_eq!(c.accuracy(), 0.6);
    assert_eq!(c.precision(), 2.0 / 3.0);
    assert_eq!(c.recall(), 2.0 / 3.0);
    assert!(Confusion::of(&[0], &[0]).precision().is_nan());
}

#[test]
fn a_tree_trained_on_simulated_runs_detects_gc_in_held_out_runs() {
    let out = train_and_eval(&setup(serde_json::json!({}))).unwrap();
    let r = &out.report;
    // Both classes in training and in the held-out runs: a GC-free start, then GC.
    for run in r.train_runs.iter().chain(&r.eval_runs) {
        assert_eq!(run.intervals, 40, "{run:?}");
        assert!(run.gc_intervals > 10 && run.gc_intervals < 35, "{run:?}");
    }
    assert_eq!(out.train.rows.len(), 80);
    assert_eq!(out.eval.rows.len(), 80);
    assert!(r.accuracy >= 0.95, "{:?} {}", r.confusion, r.rules);
    assert!(r.recall >= 0.95 && r.precision >= 0.95, "{:?}", r.confusion);
    // The tree keys on a standard deviation over the window (the paper's std-dev of svctm):
    // GC makes the host's view vary; a GC-free saturated device is steady.
    assert!(
        r.features_used.iter().any(|f| f.starts_with("std_")),
        "{:?}",
        r.features_used
    );
    assert_eq!(
        r.eval_runs[0].accuracy,
        Some(r.eval_runs[0].confusion.unwrap().accuracy())
    );

    // The tree travels as JSON and, loaded back, is evaluated without training: same result.
    let model = out.tree.to_json().unwrap();
    let again = train_and_eval(&setup(
        serde_json::json!({"model_json": model, "train": []}),
    ))
    .unwrap();
    assert!(again.report.train_runs.is_empty());
    assert_eq!(again.eval_predicted, out.eval_predicted);
    assert_eq!(again.report.confusion, r.confusion);
}

#[test]
fn bad_setups_name_the_field() {
    for (extra, want) in [
        (serde_json::json!({"window": 0}), "window"),
        (
            serde_json::json!({"label_threshold": 1.5}),
            "label_threshold",
        ),
        (serde_json::json!({"interval_s": 0.005}), "interval_s"),
        (serde_json::json!({"train": []}), "train"),
        (serde_json::json!({"train_seconds": 0.5}), "seconds"),
        (
            serde_json::json!({"model_json": "{\"format\": 3}", "train": []}),
            "model",
        ),
    ] {
        let e = match train_and_eval(&setup(extra.clone())) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{extra} accepted"),
        };
        assert!(e.contains(want), "{extra}: {e}");
    }
}

#[test]
fn trim_on_detection_recovers_the_bandwidth_the_stale_partition_costs() {
    // The paper's §V on a small device: half the drive filled and deleted, 512 KiB random
    // writes on the rest. Without TRIM the deleted half is data GC must carry; the detector
    // TRIMs it at its first detection, discard at the delete, fstrim at its first tick.
    let out = train_and_eval(&setup(serde_json::json!({
        "eval": [],
        "manage": {
            "seconds": 120, "fstrim_period_s": 60,
            "workload": {"kind": "fs", "personality": "fio-randwrite", "requests": 100000000u64, "stale_fraction": 0.5}
        }
    })))
    .unwrap();
    let m = out.report.management.unwrap();
    let run = |mode: &str| {
        m.runs
            .iter()
            .find(|r| serde_json::to_value(r.mode).unwrap() == mode)
            .unwrap()
    };
    let (none, det, discard, fstrim) =
        (run("none"), run("detector"), run("discard"), run("fstrim"));
    for r in &m.runs {
        assert_eq!(r.write_mb_s.len(), 120, "{:?}", r.mode);
    }
    assert_eq!(none.trimmed_pages, 0);
    assert!(det.trims >= 1 && det.detections >= 1, "{det:?}");
    assert!(discard.trimmed_pages > 0 && fstrim.trims >= 1);
    // The floor is 0.9 of discard's median; the stale half costs `none` most of its seconds.
    assert!(none.seconds_below_floor > 60, "{none:?}");
    assert!(
        det.seconds_below_floor < none.seconds_below_floor / 2,
        "{} vs {}",
        det.seconds_below_floor,
        none.seconds_below_floor
    );
    assert!(det.mean_write_mb_s > 1.5 * none.mean_write_mb_s);
    assert!(fstrim.seconds_below_floor < none.seconds_below_floor);
    assert!(
        none.waf > 1.5 && discard.waf < 1.1,
        "{} {}",
        none.waf,
        discard.waf
    );
    assert_eq!(det.detected.len(), 120);
}

#[test]
fn scale_free_attributes_carry_the_detector_across_request_sizes() {
    // Trained on 512 KiB random writes, evaluated on 8 KiB ones: svctm (util / IOPS) is 30x
    // smaller, so the paper's std-dev thresholds call the small writes' GC "no GC"; the
    // coefficients of variation do not depend on the scale.
    let runs = serde_json::json!({
        "train": [{"name": "uniform-512k", "seconds": 40, "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 100000000u64, "request_pages": 64}}],
        "eval": [{"name": "uniform-8k", "seconds": 40, "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 100000000u64, "request_pages": 1}}]
    });
    let with = |features: &str| {
        let mut extra = runs.clone();
        extra["features"] = features.into();
        train_and_eval(&setup(extra)).unwrap()
    };
    let (paper, free) = (with("paper"), with("scale-free"));
    assert!(
        paper.report.accuracy < 0.6,
        "the paper's attributes: {:?}",
        paper.report.confusion
    );
    // The set's former name is still read.
    let old: ssdlab_core::detect::features::FeatureSet = serde_json::from_str("\"seed\"").unwrap();
    assert_eq!(old, ssdlab_core::detect::features::FeatureSet::Paper);
    assert!(
        free.report.accuracy >= 0.95,
        "scale-free: {:?}",
        free.report.confusion
    );
    assert!(free
        .report
        .feature_names
        .iter()
        .all(|f| f.starts_with("cv_")));
    // The scale-free tree is a model the live watcher takes (it picks the set by the names).
    let tree = free.tree.clone();
    assert!(ssdlab_core::detect::watch::Watch::new("vda", tree, 50).is_ok());
    // And `model_json` evaluation picks the set from the tree too.
    let again = train_and_eval(&setup(serde_json::json!({
        "model_json": free.tree.to_json().unwrap(), "train": [], "eval": runs["eval"].clone()
    })))
    .unwrap();
    assert_eq!(again.eval_predicted, free.eval_predicted);
}

#[test]
fn erase_only_gc_is_gc_under_any_label_and_not_under_copy() {
    // iozone's sequential rewrite invalidates whole blocks: once the device is full, GC runs
    // every second but only erases. `any` (the paper's label) calls those seconds GC, `copy`
    // does not; random writes' GC copies, so there both labels agree.
    let eval = serde_json::json!([
        {"name": "iozone", "seconds": 40, "workload": {"kind": "fs", "personality": "iozone", "requests": 100000000u64}},
        {"name": "uniform-8", "seconds": 40, "workload": {"kind": "synthetic", "pattern": "uniform", "requests": 100000000u64, "request_pages": 8}}
    ]);
    let gc_intervals = |label: &str| {
        let out = train_and_eval(&setup(
            serde_json::json!({"label": label, "eval": eval.clone()}),
        ))
        .unwrap();
        let r = out.report;
        assert_eq!(serde_json::to_value(r.label).unwrap(), label);
        // Full-window scores count the intervals from each run's window-th (10th) on.
        let full = r.full_window.other_workloads.unwrap().confusion;
        let all = r.other_workloads.unwrap().confusion;
        assert_eq!(
            full.tp + full.fp + full.tn + full.fn_,
            all.tp + all.fp + all.tn + all.fn_ - 2 * 9
        );
        [r.eval_runs[0].gc_intervals, r.eval_runs[1].gc_intervals]
    };
    let any = gc_intervals("any");
    let copy = gc_intervals("copy");
    assert!(any[0] > 10, "iozone's erase-only GC: {any:?}");
    assert_eq!(copy[0], 0, "iozone's GC moves no data: {copy:?}");
    assert_eq!(
        any[1], copy[1],
        "random writes' GC copies in every GC second"
    );
    assert!(copy[1] > 10);
}
