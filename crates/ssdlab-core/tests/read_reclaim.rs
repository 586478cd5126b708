//! Read reclaim (`reliability.reclaim_reads`, `reliability.reclaim_retries`) and retention
//! refresh (`reliability.refresh_days`; issue 63): a block read past the threshold has its valid
//! pages moved at once, and those moves are the only GC of a read-only run (so they are counted
//! exactly); a threshold never reached changes nothing; reclaim by retries and refresh bring an
//! aging drive's retries down; refresh's patrol runs on its own clock through idle gaps; bad
//! settings are one line.

use serde_json::{json, Value};
use ssdlab_core::config::DeviceConfig;

use crate::support::json_run::run as json_run;

/// `tiny` with the error model on, filled, then `requests` Zipf reads over 2 % of the space
/// (a few blocks read hard), the invariants checked every 7 requests.
fn reads(extra: &[&str], requests: u64, timing: bool) -> Value {
    let mut sets = vec!["reliability.errors=true"];
    sets.extend_from_slice(extra);
    json_run(
        "tiny",
        &sets,
        &json!({"kind": "synthetic", "pattern": "zipf", "requests": requests,
                "read_fraction": 1.0, "footprint_fraction": 0.02}),
        &json!({"seed": 3, "timing": timing, "check_every": 7,
                "precondition": {"sequential": true, "random_passes": 0.0}}),
    )
    .unwrap()
}

#[test]
fn blocks_read_past_the_threshold_are_moved_and_counted_exactly() {
    for timing in [false, true] {
        let r = reads(&["reliability.reclaim_reads=2000"], 40_000, timing);
        let rr = &r["read_reclaim"];
        eprintln!("timing {timing}: {rr}");
        let blocks = rr["blocks"].as_u64().unwrap();
        assert!(blocks >= 5, "{rr}");
        // A read-only run: reclaim's moves are its only GC.
        assert_eq!(rr["pages_copied"], r["gc_pages_copied"]);
        assert_eq!(r["erases"].as_u64().unwrap(), blocks);
        assert!(rr["pages_copied"].as_u64().unwrap() > 0);
    }
    // The decisions are by count, not time: timed and untimed move the same.
    let a = reads(&["reliability.reclaim_reads=2000"], 40_000, false);
    let b = reads(&["reliability.reclaim_reads=2000"], 40_000, true);
    assert_eq!(a["read_reclaim"], b["read_reclaim"]);
}

#[test]
fn a_threshold_never_reached_changes_nothing() {
    let mut on = reads(&["reliability.reclaim_reads=4000000000"], 20_000, true);
    let off = reads(&[], 20_000, true);
    assert_eq!(on["read_reclaim"]["blocks"], 0);
    assert!(off.get("read_reclaim").is_none());
    on.as_object_mut().unwrap().remove("read_reclaim");
    for k in ["wall_time_s", "requests_per_second"] {
        on.as_object_mut().unwrap().remove(k);
    }
    let mut off = off;
    for k in ["wall_time_s", "requests_per_second"] {
        off.as_object_mut().unwrap().remove(k);
    }
    assert_eq!(on, off);
}

#[test]
fn reclaim_by_retries_brings_an_aging_drives_retries_down() {
    // Retention makes reads retry as the data ages; reclaim at 2 retry steps rewrites what is
    // read, so later reads find younger data.
    let off = aging_reads(&[]);
    let on = aging_reads(&["reliability.reclaim_retries=2"]);
    let rate = |r: &Value| r["flash"]["errors"]["retry_rate"].as_f64().unwrap();
    eprintln!(
        "retry rate off {} on {}; {}",
        rate(&off),
        rate(&on),
        on["read_reclaim"]
    );
    assert!(
        rate(&off) > 0.05,
        "the data ages into retries: {}",
        rate(&off)
    );
    assert!(rate(&on) < 0.5 * rate(&off));
    assert!(on["read_reclaim"]["blocks"].as_u64().unwrap() > 0);
}

#[test]
fn bad_reclaim_settings_are_one_line() {
    for (sets, field) in [
        (
            vec!["reliability.reclaim_reads=10"],
            "reliability.reclaim_reads",
        ),
        (
            vec!["reliability.errors=true", "reliability.reclaim_retries=99"],
            "reliability.reclaim_retries",
        ),
        (
            vec![
                "reliability.errors=true",
                "reliability.age_days=30",
                "reliability.reclaim_retries=2",
            ],
            "reliability.reclaim_retries",
        ),
    ] {
        let sets: Vec<String> = sets.into_iter().map(String::from).collect();
        let e = DeviceConfig::from_preset("tiny", &sets)
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && !e.contains('\n'), "{e}");
    }
}

/// Reads over a year of simulated time (one every 30 minutes), timed, on `tiny` at 2,500 P/E
/// filled at the start, with `extra`.
fn aging_reads(extra: &[&str]) -> Value {
    let mut sets = vec!["reliability.errors=true", "reliability.initial_pe=2500"];
    sets.extend_from_slice(extra);
    json_run(
        "tiny",
        &sets,
        &json!({"kind": "synthetic", "pattern": "uniform", "requests": 17_520,
                "read_fraction": 1.0, "footprint_fraction": 0.5,
                "arrival": {"kind": "poisson", "iops": 1.0 / 1800.0}}),
        &json!({"seed": 5, "timing": true, "check_every": 11,
                "precondition": {"sequential": true, "random_passes": 0.0}}),
    )
    .unwrap()
}

#[test]
fn refresh_moves_old_data_on_its_own_clock() {
    let off = aging_reads(&[]);
    let on = aging_reads(&["reliability.refresh_days=30"]);
    let rr = &on["read_reclaim"];
    let rate = |r: &Value| r["flash"]["errors"]["retry_rate"].as_f64().unwrap();
    eprintln!("retry rate off {} on {}; {rr}", rate(&off), rate(&on));
    // Read-only: refresh's moves are the run's only GC, and read reclaim moved nothing.
    assert!(rr["refresh_blocks"].as_u64().unwrap() > 0);
    assert_eq!(rr["refresh_pages_copied"], on["gc_pages_copied"]);
    assert_eq!(rr["blocks"], 0);
    // Data never older than ~31 days: fewer retries than a year's retention gives.
    assert!(
        rate(&on) < 0.5 * rate(&off),
        "{} vs {}",
        rate(&on),
        rate(&off)
    );
    // Every block holding data is refreshed about every 30 days: ~12 times a year. The filled
    // half of `tiny`'s 256 blocks (the footprint's) and the rest (never read) alike.
    let full_blocks = 205u64;
    let moved = rr["refresh_blocks"].as_u64().unwrap();
    assert!(
        (9 * full_blocks..=13 * full_blocks).contains(&moved),
        "{moved}"
    );
}

#[test]
fn refresh_runs_through_an_idle_gap() {
    // Two writes, a 100-day gap, one read: the patrol ran in the gap (its own clock), not at
    // the rate of requests (one background call).
    let sets: Vec<String> = [
        "reliability.errors=true",
        "reliability.refresh_days=30",
        "reliability.refresh_scan_hours=24",
    ]
    .map(String::from)
    .to_vec();
    let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
    let day = 86_400_000_000u64; // µs
    use crate::support::workloads::page_request as req;
    use crate::support::workloads::{open_loop, run_requests};
    use ssdlab_core::trace::OpKind;
    // 160 pages striped over the four planes: 40 a plane, one full block each (closed when
    // the next opened) and 8 pages in an open one.
    let reqs = vec![
        req(0, OpKind::Write, 0, 80),
        req(1_000, OpKind::Write, 80, 80),
        req(100 * day, OpKind::Read, 0, 1),
    ];
    let r = serde_json::to_value(run_requests(cfg, reqs, open_loop())).unwrap();
    let rr = &r["read_reclaim"];
    eprintln!("{rr}");
    // The gap's last two patrols (days 99 and 100) ran, before the read. Day 99: the four
    // full blocks written at time 0 are moved; their copies fill each plane's open block (one
    // frontier: opened at time 0, 8 host pages) and the next. Day 100: those open blocks, now
    // full and opened 100 days ago, are moved too; the copies' own blocks are a day old.
    assert_eq!(rr["refresh_blocks"], 8, "{rr}");
    assert_eq!(rr["refresh_pages_copied"], 256);
    assert_eq!(r["gc_pages_copied"], 256);
}
