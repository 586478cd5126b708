//! The integration tests, one binary: each `tests/<name>.rs` is a module of it (run one file's
//! tests with `cargo test -p ssdlab-core --test integration <name>::`). One binary instead of
//! one per file: the ~36 binaries each linked the core again and ran one after another, so a
//! file whose tests are one long test left the second core idle; here the harness spreads
//! every file's tests over the cores (CI's time, issue 19). `memory_estimate.rs` stays a binary
//! of its own: it installs a counting global allocator and measures the process's peak heap.

mod support;

mod analytic_models;
mod bench_bounds;
mod config_validation;
mod detect_c45;
mod detect_experiment;
mod detect_iostat;
mod detect_watch;
mod determinism;
mod empty_traces;
mod endurance;
mod fdp;
mod fill;
mod flash_scheduling;
mod flows;
mod fs_workloads;
mod ftl_invariants;
mod fuzz_config;
mod fuzz_parsers;
mod fuzz_regressions;
mod golden;
mod host_view;
mod hostile_traces;
mod hybrid;
mod layering;
mod lba_map_requests;
mod lifetime;
mod mapping_cache;
mod mapping_unit;
mod memory_check;
mod model_settings;
mod page_types;
mod parse_thread;
mod read_reclaim;
mod registries;
mod reliability;
mod result_conventions;
mod rlgc;
mod slc_policies;
mod suspension;
mod timing_exact;
mod ttflash;
mod ttflash_logical;
mod ttflash_parity_cost;
mod waf_models;
mod wear_leveling;
mod write_cache;
mod zns;

/// Cargo no longer finds `tests/*.rs` by itself (`autotests = false`): a test file that is
/// neither a module above nor a `[[test]]` of its own would never be compiled or run.
#[test]
fn every_test_file_is_compiled() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let modules: Vec<&str> = include_str!("integration.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let manifest = include_str!("../Cargo.toml");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        assert!(
            modules.contains(&stem) || manifest.contains(&format!("path = \"tests/{name}\"")),
            "tests/{name} is neither a module of tests/integration.rs nor a [[test]] in Cargo.toml"
        );
    }
}
