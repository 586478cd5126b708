//! Wear levelling (`[wear_leveling]`, issue 63): static levelling (Chang, Hsieh and Kuo's SW
//! Leveler) cuts the erase-count spread on a skewed workload, at a WAF cost it reports; the
//! result's erase distribution is the blocks' counts; off is off; and wear levelling is refused
//! where it does not run yet.

use serde_json::{json, Value};
use ssdlab_core::config::DeviceConfig;

use crate::support::json_run::run as json_run;

/// Every write to 20 % of `tiny`'s space, timing off, after a sequential fill: the
/// cold 80 % of the data sits still unless something moves it.
fn skewed(extra: &[&str]) -> Value {
    json_run(
        "tiny",
        extra,
        &json!({"kind": "synthetic", "pattern": "hotcold", "requests": 150_000,
                "hot_write_fraction": 1.0, "hot_space_fraction": 0.2}),
        &json!({"seed": 5, "timing": false,
                "precondition": {"sequential": true, "random_passes": 0.0}}),
    )
    .unwrap()
}

fn spread(r: &Value) -> (f64, f64, f64) {
    let e = &r["erase_per_block"];
    (
        e["cov"].as_f64().unwrap(),
        e["max_over_mean"].as_f64().unwrap(),
        r["waf"].as_f64().unwrap(),
    )
}

#[test]
fn static_levelling_cuts_the_spread_at_a_stated_waf_cost() {
    let off = skewed(&[]);
    let on = skewed(&[
        "wear_leveling.static=true",
        "wear_leveling.static_threshold=4.0",
    ]);
    let (cov0, mm0, waf0) = spread(&off);
    let (cov1, mm1, waf1) = spread(&on);
    eprintln!("off: CoV {cov0:.3}, max/mean {mm0:.2}, WAF {waf0:.3}");
    eprintln!("static T=4: CoV {cov1:.3}, max/mean {mm1:.2}, WAF {waf1:.3}");
    assert!(off.get("wear_leveling").is_none());
    let w = &on["wear_leveling"];
    assert_eq!(w["static"], true);
    assert!(w["static_victims"].as_u64().unwrap() > 0, "{w}");
    assert!(w["static_pages_copied"].as_u64().unwrap() > 0, "{w}");
    // The cold blocks are erased too: a narrower spread, paid for in copies.
    assert!(
        off["erase_per_block"]["min"] == 0,
        "{}",
        off["erase_per_block"]
    );
    assert!(on["erase_per_block"]["min"].as_u64().unwrap() > 0);
    assert!(cov1 < 0.5 * cov0, "CoV {cov0} -> {cov1}");
    assert!(mm1 < mm0, "max/mean {mm0} -> {mm1}");
    assert!(waf1 > waf0, "WAF {waf0} -> {waf1}");
    // The copies are GC's too.
    assert!(on["gc_pages_copied"].as_u64().unwrap() >= w["static_pages_copied"].as_u64().unwrap());
}

#[test]
fn the_erase_distribution_is_the_blocks_counts() {
    let r = skewed(&[]);
    let e = &r["erase_per_block"];
    let d: Vec<u64> = e["deciles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(d.len(), 11);
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
    assert_eq!(d[0], e["min"].as_u64().unwrap());
    assert_eq!(d[10], e["max"].as_u64().unwrap());
    let blocks = 256.0; // tiny: 4 planes × 64 blocks
    let mean = e["mean"].as_f64().unwrap();
    assert_eq!(mean * blocks, r["erases"].as_f64().unwrap());
    assert_eq!(
        e["max_over_mean"].as_f64().unwrap(),
        e["max"].as_f64().unwrap() / mean
    );
}

#[test]
fn dynamic_levelling_runs_and_off_is_off() {
    let off = skewed(&[]);
    let same = skewed(&["wear_leveling.static_threshold=4.0"]);
    assert_eq!(off, same, "static_threshold alone turns nothing on");
    let dynamic = skewed(&["wear_leveling.dynamic=true"]);
    assert_eq!(dynamic["wear_leveling"]["dynamic"], true);
    assert_eq!(dynamic["wear_leveling"]["static_victims"], 0);
    // Dynamic levelling only chooses among free blocks: the same host pages, the cold blocks
    // still never erased.
    assert_eq!(dynamic["host_pages_written"], off["host_pages_written"]);
    assert_eq!(dynamic["erase_per_block"]["min"], 0);
    assert_eq!(
        skewed(&["wear_leveling.dynamic=true"]),
        dynamic,
        "same seed"
    );
}

#[test]
fn refused_where_it_does_not_run_yet() {
    for (sets, field) in [
        (
            vec!["wear_leveling.static=true", "ftl.kind=\"zoned\""],
            "wear_leveling.static",
        ),
        (
            vec![
                "wear_leveling.dynamic=true",
                "ftl.mapping=\"cached\"",
                "ftl.cmt_entries=64",
            ],
            "wear_leveling.dynamic",
        ),
        (
            vec!["wear_leveling.static_threshold=0.5"],
            "wear_leveling.static_threshold",
        ),
        (
            vec!["wear_leveling.static_set_blocks=3"],
            "wear_leveling.static_set_blocks",
        ),
    ] {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = DeviceConfig::from_preset("tiny", &sets)
            .unwrap_err()
            .to_string();
        assert!(e.contains(field), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
