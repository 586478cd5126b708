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

/// The hybrid SLC/QLC FTL on `tiny` (QLC, 16-page blocks: 4 pages in SLC mode), the `dwa`
/// cache taking every write first, blocks worn out at `retire_pe`: uniform random page writes
/// over half the logical space (so that the cache has free space to grow into), not
/// preconditioned, timing off, the invariants checked every 7 requests.
fn hybrid(extra: &[&str], seed: u64) -> ssdlab_core::Result<Value> {
    let mut sets = vec![
        "ftl.kind=\"hybrid\"",
        "geometry.cell_mode=\"qlc\"",
        "geometry.pages_per_block=16",
        "cache.slc=\"dwa\"",
        "cache.slc_blocks=8",
        "cache.dwa_max_dynamic_blocks=64",
        "cache.free_trigger=2",
        "endurance.retire_pe=30",
    ];
    sets.extend_from_slice(extra);
    json_run(
        "tiny",
        &sets,
        &json!({"kind": "synthetic", "pattern": "uniform", "requests": 3_000_000,
                "footprint_fraction": 0.5}),
        &json!({"seed": seed, "timing": false, "check_every": 7,
                "precondition": {"sequential": false, "random_passes": 0.0}}),
    )
}

#[test]
fn the_hybrid_ftl_retires_its_blocks_and_weighs_slc_erases() {
    let equal = hybrid(&[], 5).unwrap();
    let e = &equal["endurance"];
    eprintln!(
        "SLC erases worn as native: {e} {} {}",
        equal["erase_per_block"], equal["hybrid"]
    );
    let served = equal["requests"]["total"].as_u64().unwrap();
    assert!(served < 3_000_000, "the run ended at the end of life");
    assert!(e["worn_out_blocks"].as_u64().unwrap() > 0, "{e}");
    let eol = e["end_of_life_host_bytes"].as_u64().unwrap();
    let pre = equal["precondition_pages"].as_u64().unwrap();
    assert!(eol <= (pre + served) * 4096 && eol >= (pre + served - 1) * 4096);
    // Every erase counted a whole cycle: no block past 30 by more than the cycles a block at
    // its plane's last free block serves on.
    let max = equal["erase_per_block"]["max"].as_u64().unwrap();
    assert!((30..=35).contains(&max), "{max}");
    // SLC erases at a tenth of a cycle: blocks outlive 30 erases and the drive takes more.
    let weighed = hybrid(&["endurance.slc_retire_pe=300"], 5).unwrap();
    let w = &weighed["endurance"];
    eprintln!(
        "SLC erases at 1/10: {w} {} {}",
        weighed["erase_per_block"], weighed["hybrid"]
    );
    let later = w["end_of_life_host_bytes"].as_u64().unwrap();
    assert!(later as f64 > 1.3 * eol as f64, "{later} vs {eol}");
    assert!(weighed["erase_per_block"]["max"].as_u64().unwrap() > 35);
    let err = DeviceConfig::from_preset("tiny", &["endurance.slc_retire_pe=300".into()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("endurance.slc_retire_pe"), "{err}");
}

#[test]
fn failed_programs_move_their_blocks_data_and_retire_them() {
    let sets = ["endurance.program_fail_probability=0.00002"];
    let a = writes(&sets, 60_000, 6).unwrap();
    let e = &a["endurance"];
    eprintln!("{e}");
    // 32-page blocks: 0.064 % of the blocks closed fail; retired at their erase.
    let failed = e["program_failed_blocks"].as_u64().unwrap();
    assert!(failed > 0, "{e}");
    assert_eq!(e["good_blocks"].as_u64().unwrap(), 256 - failed);
    assert!(e["program_failed_pages_moved"].as_u64().unwrap() > 0);
    assert_eq!(e["worn_out_blocks"], 0);
    assert_eq!(e["failed_blocks"], 0);
    assert!(e["end_of_life_host_bytes"].is_null(), "{e}");
    assert_eq!(a["requests"]["total"], 60_000);
    // Moves of a failed block's data are not read reclaim's.
    assert!(a.get("read_reclaim").is_none());
    assert_eq!(a, writes(&sets, 60_000, 6).unwrap());
    let off = writes(&[], 60_000, 6).unwrap();
    assert!(a["gc_pages_copied"].as_u64() > off["gc_pages_copied"].as_u64());
    let err = DeviceConfig::from_preset(
        "tiny",
        &[
            "endurance.program_fail_probability=0.01".into(),
            "ftl.kind=\"hybrid\"".into(),
            "geometry.cell_mode=\"qlc\"".into(),
            "cache.slc=\"dwa\"".into(),
            "cache.slc_blocks=8".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("endurance.program_fail_probability"), "{err}");
}
