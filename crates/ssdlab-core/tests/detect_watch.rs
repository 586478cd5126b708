//! The streaming GC detector (issue 13; Park and Kim §4) and its attribute rows (§3.1): a
//! tree fitted here on the real recording of tests/data/detect with labels from a threshold
//! (so the tree and its verdicts are known), live snapshots equal to the replay, episodes,
//! the standard deviations of a long synthetic sequence against a direct computation, sysstat's
//! JSON names, and one-line errors for every bad input.

use ssdlab_core::detect::c45::{C45Params, Dataset, Tree};
use ssdlab_core::detect::diskstats::Recording;
use ssdlab_core::detect::features::{self, feature_names, DEFAULT_WINDOW};
use ssdlab_core::detect::iostat::series;
use ssdlab_core::detect::watch::{Watch, GC, NO_GC};

fn data_path(name: &str) -> String {
    format!("{}/tests/data/detect/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn recording() -> Recording {
    Recording::read(std::path::Path::new(&data_path("vda_dd.diskstats"))).unwrap()
}

fn col(name: &str) -> usize {
    feature_names().iter().position(|n| n == name).unwrap()
}

/// The recording's rows labelled GC where `w/s > 20`: intervals 1, 2 and 4 of 6 (w/s 1013.86,
/// 95, 0, 33, 0, 0), so two episodes. `w/s` is the first attribute that separates them, so
/// C4.5 tests it (ties go to the first attribute) at the largest training value below the
/// cut: 0.
fn fitted() -> (Tree, Vec<u32>) {
    let rows = features::rows(&series(&recording(), "vda").unwrap(), DEFAULT_WINDOW).unwrap();
    let labels: Vec<u32> = rows
        .iter()
        .map(|r| if r[col("w/s")] > 20.0 { GC } else { NO_GC })
        .collect();
    assert_eq!(labels, [1, 1, 0, 1, 0, 0]);
    let data = Dataset {
        feature_names: feature_names(),
        rows,
        labels: labels.clone(),
    };
    let tree = Tree::fit(&data, &C45Params::default()).unwrap();
    assert_eq!(tree.features_used(), ["w/s"]);
    assert!(
        tree.to_rules_text().starts_with("if w/s <= 0:\n"),
        "{}",
        tree.to_rules_text()
    );
    (tree, labels)
}

#[test]
fn replaying_the_recording_gives_the_trees_verdicts_and_episodes() {
    let (tree, labels) = fitted();
    let rec = recording();
    let mut w = Watch::new("vda", tree, DEFAULT_WINDOW).unwrap();
    let steps = w.replay(&rec).unwrap();
    assert_eq!(steps.len(), 6);
    let classes: Vec<u32> = steps.iter().map(|s| s.class).collect();
    assert_eq!(classes, labels);
    let episodes: Vec<Option<u64>> = steps.iter().map(|s| s.episode).collect();
    assert_eq!(episodes, [Some(1), Some(1), None, Some(2), None, None]);
    let starts: Vec<bool> = steps.iter().map(|s| s.episode_start).collect();
    assert_eq!(starts, [true, false, false, true, false, false]);
    // The intervals are iostat's and the rows the feature window's.
    let ivs = series(&rec, "vda").unwrap();
    let rows = features::rows(&ivs, DEFAULT_WINDOW).unwrap();
    for ((s, iv), row) in steps.iter().zip(&ivs).zip(&rows) {
        assert_eq!(&s.interval, iv);
        assert_eq!(&s.features, row);
    }
    // After a reset the next snapshot only primes, and episodes count from 1 again.
    w.reset();
    let again = w.replay(&rec).unwrap();
    assert_eq!(again, steps);
}

/// The recording cut back into the texts of `/proc/uptime` and `/proc/diskstats`.
fn proc_texts(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in text.lines() {
        if let Some(up) = l.strip_prefix("# uptime ") {
            out.push((format!("{up} 123.45\n"), String::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push_str(l);
            last.1.push('\n');
        }
    }
    out
}

#[test]
fn live_snapshots_give_what_the_replay_gives() {
    let (tree, _) = fitted();
    let mut replay = Watch::new("vda", tree.clone(), DEFAULT_WINDOW).unwrap();
    let want = replay.replay(&recording()).unwrap();
    let mut live = Watch::new("vda", tree, DEFAULT_WINDOW).unwrap();
    let text = std::fs::read_to_string(data_path("vda_dd.diskstats")).unwrap();
    let mut got = Vec::new();
    for (k, (up, ds)) in proc_texts(&text).iter().enumerate() {
        let step = live.push(up, ds).unwrap();
        assert_eq!(step.is_none(), k == 0, "only the first snapshot primes");
        got.extend(step);
    }
    assert_eq!(got, want);
}

/// A synthetic device line: `k` reads and writes a second and `io_ms` busy milliseconds.
fn line(reads: u64, writes: u64, io_ms: u64) -> String {
    format!(
        "   8       0 sda {reads} 0 {} {reads} {writes} 0 {} {writes} 0 {io_ms} {io_ms}\n",
        reads * 8,
        writes * 8
    )
}

#[test]
fn std_features_of_a_long_stream_equal_a_direct_computation() {
    // 200 one-second intervals of 100 reads and 100 writes; from interval 80 to 139 the busy
    // time swings (a GC-like phase), so svctm = busy ms / 200 I/Os varies.
    let busy = |k: u64| {
        if (80..140).contains(&k) {
            100 + (k * 37) % 400
        } else {
            100
        }
    };
    let mut snaps = Vec::new();
    let (mut r, mut t) = (0, 0);
    for k in 0..=200u64 {
        snaps.push((format!("{}.00 0.00", 1000 + k), line(r, r, t)));
        r += 100;
        t += busy(k);
    }
    let tree = fitted().0;
    let mut w = Watch::new("sda", tree, DEFAULT_WINDOW).unwrap();
    let steps: Vec<_> = snaps
        .iter()
        .filter_map(|(u, d)| w.push(u, d).unwrap())
        .collect();
    assert_eq!(steps.len(), 200);
    let svctm: Vec<f64> = (0..200).map(|k| busy(k) as f64 / 200.0).collect();
    for (k, s) in steps.iter().enumerate() {
        assert!((s.features[col("svctm")] - svctm[k]).abs() < 1e-12);
        let win = &svctm[k.saturating_sub(DEFAULT_WINDOW - 1)..=k];
        let mean = win.iter().sum::<f64>() / win.len() as f64;
        let var = win.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / win.len() as f64;
        let got = s.features[col("std_svctm")];
        assert!(
            (got - var.sqrt()).abs() < 1e-12,
            "interval {k}: {got} vs {}",
            var.sqrt()
        );
    }
    // Constant before the phase and 50 intervals after it.
    assert_eq!(steps[79].features[col("std_svctm")], 0.0);
    assert_eq!(steps[190].features[col("std_svctm")], 0.0);
    assert!(steps[100].features[col("std_svctm")] > 0.1);
}

#[test]
fn json_fields_use_sysstats_json_names_for_its_columns() {
    let rec = recording();
    for iv in series(&rec, "vda").unwrap() {
        let json = iv.json_fields();
        for (name, v) in iv.columns().into_iter().chain(iv.short_columns()) {
            let key = name.trim_start_matches('%');
            let got = json.iter().find(|(k, _)| *k == key);
            assert_eq!(got, Some(&(key, v)), "{name}");
        }
        for (name, v) in iv.legacy_columns() {
            assert!(json.contains(&(name, v)), "{name}");
        }
    }
}

#[test]
fn a_model_of_the_wrong_shape_is_one_clear_error() {
    let rows = vec![
        vec![1.0, 2.0],
        vec![3.0, 4.0],
        vec![5.0, 6.0],
        vec![7.0, 8.0],
    ];
    let names = vec!["svctm".to_string(), "std_svctm".to_string()];
    let fit = |labels: Vec<u32>, names: Vec<String>, rows: Vec<Vec<f64>>| {
        let data = Dataset {
            feature_names: names,
            rows,
            labels,
        };
        Tree::fit(&data, &C45Params::default()).unwrap()
    };
    let e = Watch::new("vda", fit(vec![0, 0, 1, 1], names, rows), 50)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("c45 model: expected the attributes of a detector feature set (paper: ")
            && e.contains("scale-free: 12 names, cv_rrqm/s")
            && e.ends_with("found 2 names: svctm std_svctm")
            && e.len() < 300,
        "{e}"
    );
    assert!(!e.contains('\n'));
    let n = feature_names().len();
    let rows: Vec<Vec<f64>> = (0..6).map(|k| vec![k as f64; n]).collect();
    let e = Watch::new(
        "vda",
        fit(vec![0, 0, 2, 2, 1, 1], feature_names(), rows),
        50,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "c45 model: expected the classes 0 (no GC) and 1 (GC), found class 2"
    );
    let e = Watch::new("vda", fitted().0, 0).unwrap_err().to_string();
    assert!(e.starts_with("window: expected at least 1"), "{e}");
}

#[test]
fn bad_snapshots_are_one_line_naming_the_line_or_the_devices() {
    let mut w = Watch::new("sdb", fitted().0, DEFAULT_WINDOW).unwrap();
    let ds = format!("{}{}", line(1, 1, 1), "   8      16 sdc 1 2 3\n");
    let e = w.push("10.00 1.00", &ds).unwrap_err().to_string();
    assert_eq!(
        e,
        "/proc/diskstats:2: expected a /proc/diskstats line of 14, 18 or 20 fields (kernels \
         before 4.18, 4.18+, 5.5+), found 6 fields"
    );
    let e = w
        .push("10.00 1.00", &line(1, 1, 1))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "/proc/diskstats: expected device `sdb`, found only: sda");
    let e = w.push("10.00 1.00", "").unwrap_err().to_string();
    assert_eq!(e, "/proc/diskstats: expected device `sdb`, found no device");
    let e = w.push("ten", &line(1, 1, 1)).unwrap_err().to_string();
    assert!(e.starts_with("/proc/uptime: expected an uptime"), "{e}");
    // In a recording: the file and the snapshot's line.
    let mut w = Watch::new("sdb", fitted().0, DEFAULT_WINDOW).unwrap();
    let e = w.replay(&recording()).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "vda_dd.diskstats:1: expected device `sdb` in this snapshot, found only: \
             loop0, loop1, loop2, loop3, loop4, loop5, loop6, loop7, vda, zram0"
        ),
        "{e}"
    );
    // An uptime that goes back between live snapshots.
    let mut w = Watch::new("sda", fitted().0, DEFAULT_WINDOW).unwrap();
    w.push("10.00 1.00", &line(1, 1, 1)).unwrap();
    let e = w.push("9.00 1.00", &line(2, 2, 2)).unwrap_err().to_string();
    assert!(e.contains("expected the later sample's uptime"), "{e}");
}
