//! `ssdlab experiment lifetime` (issue 63) on a small hybrid device: both workloads run to the
//! end of life, the TBW is the end of life's host bytes times the scale, the friendly workload
//! outlives the harsh one, the same seed gives the same result, and a scale that does not
//! divide the blocks is one line naming `--scale`.

use ssdlab_core::experiments::lifetime::{self, LifetimeSetup};

/// `tiny` as a hybrid QLC device (32-page blocks, 8 in SLC mode), retiring blocks at 25 P/E.
fn setup(scale: u32, seed: u64) -> LifetimeSetup {
    LifetimeSetup {
        device: "tiny".into(),
        origin: "tiny".into(),
        overrides: [
            "ftl.kind=\"hybrid\"",
            "geometry.cell_mode=\"qlc\"",
            "cache.slc=\"dwa\"",
            "cache.slc_blocks=8",
            "cache.free_trigger=2",
        ]
        .map(String::from)
        .to_vec(),
        rows: vec![],
        scale,
        retire_pe: Some(25),
        slc_retire_pe: None,
        rated_tbw: Some(1e-3),
        seed,
        jobs: 1,
        progress: Default::default(),
    }
}

#[test]
fn both_workloads_reach_the_end_of_life_and_scale_back() {
    let v = lifetime::compare(&setup(2, 1)).unwrap();
    eprintln!("{v}");
    assert_eq!(v["rows"], serde_json::json!(lifetime::ROWS));
    assert_eq!(v["pages_per_block"], 16);
    assert_eq!(v["slc_retire_pe"], 30_000);
    let row = |r: &str| v["configs"][r].clone();
    for r in lifetime::ROWS {
        let c = row(r);
        assert_eq!(c["end_of_life"], true, "{r}: {c}");
        let eol = c["endurance"]["end_of_life_host_bytes"].as_f64().unwrap();
        let tbw = c["tbw"].as_f64().unwrap();
        assert!((tbw - eol * 2.0 / 1e12).abs() < 1e-12, "{r}");
        assert!((c["tbw_over_rated"].as_f64().unwrap() - tbw / 1e-3).abs() < 1e-9);
        assert!(
            c["endurance"]["worn_out_blocks"].as_u64().unwrap() > 0,
            "{r}"
        );
    }
    // Random small writes amplify; sequential ones hardly: the friendly end lives longer.
    assert!(row("sequential")["tbw"].as_f64() > row("jesd219")["tbw"].as_f64());
    assert!(row("jesd219")["waf"].as_f64().unwrap() > 1.5);
    assert_eq!(lifetime::compare(&setup(2, 1)).unwrap(), v);
}

#[test]
fn a_scale_that_does_not_divide_the_blocks_is_one_line() {
    let e = lifetime::compare(&setup(3, 1)).unwrap_err().to_string();
    assert!(e.contains("--scale") && e.contains("32"), "{e}");
    assert!(!e.contains('\n'));
    assert_eq!(lifetime::rated_tbw("client-qlc-1tb"), Some(360.0));
    assert_eq!(lifetime::rated_tbw("tiny"), None);
}
