//! Flash errors, ECC and read retries (`[reliability]`, issue 63): a retry step costs exactly a
//! read and a transfer on an idle plane, soft tiers their reads and decodes, retries rise with
//! wear, the read breakdown gives them their own part, the run is the same for the same seed,
//! and the model is refused where it does not run yet.

use serde_json::{json, Value};
use ssdlab_core::api;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::stats::SimResult;
use ssdlab_core::trace::OpKind;

use crate::support::json_run::run as json_run;
use crate::support::workloads::page_request as req;
use crate::support::workloads::{open_loop as open, run_requests as run};

/// `tiny` (TLC, read 50 µs, 4 KiB pages, 10 µs transfer) with the error model on and every
/// block's RBER the floor `rber` (no wear, retention or disturb terms), and `extra`.
fn flat(rber: f64, extra: &[&str]) -> DeviceConfig {
    let mut sets = vec![
        "reliability.errors=true".to_string(),
        format!(
            "reliability.tlc={{epsilon={rber:e}, alpha=0.0, k=1.0, beta=0.0, m=1.0, n=1.0, \
             gamma=0.0, p=1.0, q=1.0}}"
        ),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("tiny", &sets).unwrap()
}

/// One page written, then read alone on an idle device.
fn one_read(cfg: DeviceConfig) -> SimResult {
    let reqs = vec![
        req(0, OpKind::Write, 0, 1),
        req(100_000, OpKind::Read, 0, 1),
    ];
    run(cfg, reqs, open())
}

fn errors(r: &SimResult) -> Value {
    serde_json::to_value(r).unwrap()["flash"]["errors"].clone()
}

#[test]
fn one_retry_step_is_a_read_and_a_transfer() {
    // λ = 120 errors a 1 KiB codeword: the first hard decode fails for every draw (t = 40);
    // a tenth of it after one step passes for every draw.
    let r = one_read(flat(
        120.0 / 8192.0,
        &[
            "reliability.retry_factor=0.1",
            "reliability.retry_floor=0.0",
        ],
    ));
    assert_eq!(r.latency_us.read.max, 2.0 * (50.0 + 10.0));
    let e = errors(&r);
    assert_eq!(e["page_reads"], 1);
    assert_eq!(e["retried_reads"], 1);
    assert_eq!(e["retry_steps"], 1);
    assert_eq!(e["retry_time_s"], 60e-6);
    // Clean: one read and its transfer.
    let r = one_read(flat(1e-4, &[]));
    assert_eq!(r.latency_us.read.max, 50.0 + 10.0);
    assert_eq!(errors(&r)["retried_reads"], 0);
}

#[test]
fn soft_tiers_add_their_reads_and_decodes() {
    // No retry steps; λ = 80 fails hard (t = 40) and the first tier (t = 60) for every draw,
    // and the second (t = 200) passes.
    let tiers = "reliability.soft=[{ecc_bits=60, reads=2, decode_us=10.0}, \
                 {ecc_bits=200, reads=4, decode_us=30.0}]";
    let r = one_read(flat(80.0 / 8192.0, &["reliability.retry_steps=0", tiers]));
    assert_eq!(r.latency_us.read.max, 7.0 * (50.0 + 10.0) + 10.0 + 30.0);
    let e = errors(&r);
    assert_eq!(e["soft_reads"], json!([0, 1]));
    assert_eq!(e["uncorrectable_reads"], 0);
    // Past the last tier: uncorrectable, after every attempt.
    let r = one_read(flat(400.0 / 8192.0, &["reliability.retry_steps=0", tiers]));
    let e = errors(&r);
    assert_eq!(e["uncorrectable_reads"], 1);
    assert!(e["uber"].as_f64().unwrap() > 0.0);
    assert_eq!(r.latency_us.read.max, 7.0 * (50.0 + 10.0) + 10.0 + 30.0);
}

#[test]
fn retries_stop_at_the_floor() {
    // λ = 400 a codeword. Without a floor the second step reads at λ/100 = 4 and passes for
    // every draw; with half the errors left at any voltage every step reads at λ ≥ 200, fails
    // hard (t = 40) and both default soft tiers (60, 100): uncorrectable after all 8 steps.
    let steps = |floor: &str| {
        let set = format!("reliability.retry_floor={floor}");
        one_read(flat(
            400.0 / 8192.0,
            &["reliability.retry_factor=0.1", set.as_str()],
        ))
    };
    let r = steps("0.0");
    assert_eq!(r.latency_us.read.max, 3.0 * (50.0 + 10.0));
    assert_eq!(errors(&r)["retry_steps"], 2);
    assert_eq!(errors(&r)["uncorrectable_reads"], 0);
    let r = steps("0.5");
    let e = errors(&r);
    assert_eq!(e["retry_steps"], 8);
    assert_eq!(
        e["soft_reads"],
        json!([0, 1]),
        "the deepest tier a read reached"
    );
    assert_eq!(e["uncorrectable_reads"], 1);
    // The first read, 8 steps, the tiers' 2 + 4 reads, and their decodes.
    assert_eq!(r.latency_us.read.max, 15.0 * (50.0 + 10.0) + 10.0 + 30.0);
}

/// Random single-page reads and writes over `tiny`'s space, open loop, with `extra`.
fn mixed(extra: &[&str], seed: u64) -> Value {
    let workload = mixed_workload();
    let mut sets = vec!["reliability.errors=true", "reliability.age_days=365"];
    sets.extend(extra);
    json_run(
        "tiny",
        &sets,
        &workload,
        &json!({"seed": seed, "precondition": {"sequential": true, "random_passes": 0.5}}),
    )
    .unwrap()
}

#[test]
fn retries_rise_with_wear_and_the_breakdown_shows_them() {
    let mut last_rate = -1.0;
    let mut last_p999 = 0.0;
    let mut rates = Vec::new();
    for pe in [0, 400, 800, 1600] {
        let set = format!("reliability.initial_pe={pe}");
        let r = mixed(&[&set, "reliability.retry_factor=0.5"], 7);
        let e = &r["flash"]["errors"];
        let rate = e["retry_rate"].as_f64().unwrap();
        let p999 = r["latency_us"]["read"]["p99_9"].as_f64().unwrap();
        assert!(
            rate >= last_rate,
            "pe {pe}: retry rate {rate} < {last_rate}"
        );
        assert!(p999 >= last_p999, "pe {pe}: p99.9 {p999} < {last_p999}");
        eprintln!("pe {pe}: retry rate {rate}, read p99.9 {p999} us");
        rates.push(rate);
        (last_rate, last_p999) = (rate, p999);
    }
    assert_eq!(rates[0], 0.0, "{rates:?}");
    assert!(rates[3] > 0.5, "{rates:?}");
    assert!(last_p999 > 50.0 + 10.0 + 2.0 * 60.0, "{last_p999}");
    // The breakdown: the slowest reads' retries are their own part, and the parts add up.
    let device = api::load_device(
        "tiny",
        "tiny",
        &[
            "reliability.errors=true".into(),
            "reliability.age_days=365".into(),
            "reliability.initial_pe=1600".into(),
        ],
    )
    .unwrap();
    let w = api::parse_workload(&mixed_workload().to_string()).unwrap();
    let mut sim = api::build_simulation(
        device,
        &w,
        api::parse_options(r#"{"precondition": {"sequential": true}}"#).unwrap(),
    )
    .unwrap();
    sim.explain_reads();
    let r = sim.run().unwrap();
    let b = sim.read_breakdown().unwrap().to_json();
    let tail = &b["p99_9"]["mean_us"];
    assert!(tail["retry"].as_f64().unwrap() >= 120.0, "{b}");
    let sum: f64 = tail
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum();
    let all = &b["all"]["mean_us"];
    let mean: f64 = all
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum();
    // The latency mean comes from the histogram (3 significant digits), the parts are exact.
    assert!(
        (mean - r.latency_us.read.mean).abs() < 1e-3 * mean,
        "{mean} {b}"
    );
    assert!(sum >= mean, "{sum} {mean}");
}

fn mixed_workload() -> Value {
    json!({
        "kind": "synthetic", "pattern": "uniform", "requests": 6000, "read_fraction": 0.9,
        "request_pages": 1, "arrival": {"kind": "poisson", "iops": 500.0}
    })
}

#[test]
fn same_seed_same_run_and_off_is_off() {
    let a = mixed(&["reliability.initial_pe=800"], 3);
    let b = mixed(&["reliability.initial_pe=800"], 3);
    assert_eq!(a, b);
    let c = mixed(&["reliability.initial_pe=800"], 4);
    assert_ne!(a["flash"]["errors"], c["flash"]["errors"]);
    // Off, the section's other settings change nothing.
    let w = json!({"kind": "synthetic", "pattern": "uniform", "requests": 3000,
                   "read_fraction": 0.5, "request_pages": 1});
    let o = json!({"seed": 1});
    let plain = json_run("tiny", &[], &w, &o).unwrap();
    let off = json_run("tiny", &["reliability.age_days=365"], &w, &o).unwrap();
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("device");
        v
    };
    assert_eq!(strip(plain), strip(off));
}

#[test]
fn refused_where_it_does_not_run_yet() {
    for (sets, want) in [
        (vec!["ftl.kind=\"zoned\""], "plain FTL"),
        (
            vec!["ftl.mapping=\"cached\"", "ftl.cmt_entries=100"],
            "cached map",
        ),
    ] {
        let mut all = vec!["reliability.errors=true".to_string()];
        all.extend(sets.iter().map(|s| s.to_string()));
        let e = DeviceConfig::from_preset("tiny", &all)
            .unwrap_err()
            .to_string();
        assert!(e.contains("reliability.errors") && e.contains(want), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let e = DeviceConfig::from_preset("tiny", &["reliability.retry_factor=2.0".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("reliability.retry_factor"), "{e}");
}
