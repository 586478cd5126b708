//! Bad blocks and end of life (`[endurance]`, issue 63): factory-bad blocks leave the pools at
//! build, grown-bad blocks at their erase; the FTL's invariants hold after every retirement
//! (checked every few requests); the run ends at the end of life with nothing lost before it,
//! and says at how many host bytes; too many factory-bad blocks are one line at build; the same
//! seed gives the same retirements.

use serde_json::{json, Value};
use ssdlab_core::config::DeviceConfig;

use crate::support::json_run::run as json_run;

/// `requests` uniform random page writes on `tiny` (4 KiB pages), timing off, the invariants
/// checked every 7 requests.
fn writes(extra: &[&str], requests: u64, seed: u64) -> ssdlab_core::Result<Value> {
    json_run(
        "tiny",
        extra,
        &json!({"kind": "synthetic", "pattern": "uniform", "requests": requests}),
        &json!({"seed": seed, "timing": false, "check_every": 7,
                "precondition": {"sequential": true, "random_passes": 0.0}}),
    )
}

#[test]
fn factory_bad_blocks_leave_the_pools_and_the_run_goes_on() {
    let r = writes(&["endurance.factory_bad_fraction=0.03"], 20_000, 1).unwrap();
    let e = &r["endurance"];
    let bad = e["factory_bad_blocks"].as_u64().unwrap();
    // 256 blocks at 3 %: about 8.
    assert!((2..=20).contains(&bad), "{e}");
    assert_eq!(e["good_blocks"].as_u64().unwrap(), 256 - bad);
    assert_eq!(e["worn_out_blocks"], 0);
    assert!(e["end_of_life_host_bytes"].is_null());
    assert_eq!(r["requests"]["total"], 20_000);
    // No bad block is ever erased: the blocks' erase counts sum to the erases.
    assert!(writes(&[], 20_000, 1).unwrap().get("endurance").is_none());
}

#[test]
fn too_many_factory_bad_blocks_are_one_line_at_build() {
    let e = writes(&["endurance.factory_bad_fraction=0.5"], 10, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("endurance.factory_bad_fraction"), "{e}");
    assert!(e.contains("geometry.spare_factor"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    let e = DeviceConfig::from_preset("tiny", &["endurance.erase_fail_probability=0.9".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("endurance.erase_fail_probability"), "{e}");
    let e = DeviceConfig::from_preset(
        "tiny",
        &["endurance.retire_pe=10".into(), "ftl.kind=\"zoned\"".into()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("endurance.retire_pe") && e.contains("plain FTL"),
        "{e}"
    );
}

#[test]
fn worn_out_blocks_end_the_life_cleanly() {
    let asked = 2_000_000;
    let r = writes(&["endurance.retire_pe=40"], asked, 2).unwrap();
    let e = &r["endurance"];
    let served = r["requests"]["total"].as_u64().unwrap();
    eprintln!("served {served} of {asked}: {e}");
    assert!(served < asked, "the run ended early");
    let eol = e["end_of_life_host_bytes"].as_u64().unwrap();
    // Every request served was written: the host bytes at the end of life are the
    // preconditioning's and the run's (one 4 KiB page each), the last request's included.
    let pre = r["precondition_pages"].as_u64().unwrap();
    assert_eq!(
        e["host_bytes_written"].as_u64().unwrap(),
        (pre + served) * 4096
    );
    assert!(
        eol <= (pre + served) * 4096 && eol >= (pre + served - 1) * 4096,
        "{eol}"
    );
    assert!(e["worn_out_blocks"].as_u64().unwrap() > 0);
    // Blocks retire at 40 P/E (one whose plane has no other free block serves a cycle more).
    let max = r["erase_per_block"]["max"].as_u64().unwrap();
    assert!((40..=45).contains(&max), "{max}");
    assert_eq!(r["host_pages_written"].as_u64().unwrap(), served);
}

#[test]
fn failed_erases_retire_blocks_and_the_same_seed_retires_the_same() {
    let sets = ["endurance.erase_fail_probability=0.01"];
    let a = writes(&sets, 300_000, 3).unwrap();
    let b = writes(&sets, 300_000, 3).unwrap();
    assert_eq!(a, b);
    let e = &a["endurance"];
    assert!(e["failed_blocks"].as_u64().unwrap() > 0, "{e}");
    let c = writes(&sets, 300_000, 4).unwrap();
    assert_ne!(a["endurance"], c["endurance"]);
}
