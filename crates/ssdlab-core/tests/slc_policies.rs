//! The dynamic SLC-cache policies (`ust`, `rl`, `external`; Yoo & Shin, HotStorage 2020) and
//! `ssdlab experiment slc`: each policy does what its file says on small devices, the agent is
//! seeded and its Q-table moves between runs, and bad setups are one-line errors.

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::experiments::slc::{compare, tune_ust, SlcSetup};
use ssdlab_core::ftl::hybrid::HybridFtl;
use ssdlab_core::ftl::Precondition;
use ssdlab_core::rl::QTable;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{open_workload, Pattern, SyntheticSpec, WorkloadSpec};

/// 1 plane, 256 blocks × 64 pages of 16 KiB (16 in SLC mode), 20 % spare.
fn small(extra: &[&str]) -> DeviceConfig {
    let mut sets: Vec<String> = [
        "geometry.blocks_per_plane=256",
        "geometry.pages_per_block=64",
        "geometry.spare_factor=0.2",
        // Pages mapped whole: the expectations below count pages (units: tests/mapping_unit.rs).
        "ftl.mapping_unit_bytes=16384",
    ]
    .map(String::from)
    .to_vec();
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("yoo-qlc", &sets).unwrap()
}

fn sim(cfg: DeviceConfig, fill: f64, requests: u64, seed: u64) -> Simulation {
    let mut w = SyntheticSpec::new(Pattern::Hotcold, requests);
    w.footprint_fraction = fill;
    w.mean_request_kib = Some(12.0);
    let g = &cfg.geometry;
    let src = open_workload(
        &WorkloadSpec::Synthetic(w),
        g.logical_bytes(),
        u64::from(g.page_size),
        seed,
    )
    .unwrap();
    let opts = SimOptions {
        seed,
        replay: Replay::ClosedLoop { queue_depth: 4 },
        precondition: Some(Precondition {
            sequential: true,
            random_passes: 0.0,
            fill_fraction: fill,
        }),
        check_every: 500,
        ..SimOptions::default()
    };
    Simulation::new(cfg, opts, src).unwrap()
}

/// Blocks the policies' free space counts at `mapped` pages: blocks − ⌈mapped / ppb⌉ − reserve.
fn free_for_slc(cfg: &DeviceConfig, mapped: u64) -> u64 {
    let g = &cfg.geometry;
    u64::from(g.blocks_per_plane)
        - mapped.div_ceil(u64::from(g.pages_per_block))
        - u64::from(cfg.cache.free_trigger + 2)
}

#[test]
fn precondition_fill_fraction_sets_the_utilisation() {
    let cfg = small(&["cache.slc=none"]);
    let n = cfg.geometry.logical_pages();
    let s = sim(cfg, 0.4, 1, 1);
    let mapped = (0..n as u32)
        .filter(|l| s.ftl().l2p_of(*l).is_some())
        .count() as f64;
    assert!((mapped / n as f64 - 0.4).abs() < 1e-3, "{mapped} of {n}");
}

#[test]
fn ust_sizes_the_region_from_its_table_row() {
    let table = "cache.ust_table=[{up_to=0.5, slc_fraction=0.5, theta_kib=64}, \
                 {up_to=1.0, slc_fraction=0.125, theta_kib=16}]";
    for (fill, frac) in [(0.3, 0.5), (0.8, 0.125)] {
        let cfg = small(&["cache.slc=ust", table]);
        let n = cfg.geometry.logical_pages();
        let mut s = sim(cfg.clone(), fill, 2_000, 3);
        s.run().unwrap();
        // Overwrites inside the footprint keep the mapped pages where the fill left them.
        let mapped = (n as f64 * fill).round() as u64;
        let want = (free_for_slc(&cfg, mapped) as f64 * frac).floor() as u32;
        let h = s.layer_reports().hybrid.unwrap();
        assert_eq!(h.slc_target, want, "fill {fill}");
        assert!(h.slc_host_pages > 0);
        let d = s.slc_decisions();
        assert!(!d.is_empty());
        let theta = if fill < 0.5 { 64 } else { 16 };
        assert!(d.iter().all(|p| p.theta_kib == theta), "{:?}", d[0]);
    }
}

#[test]
fn rl_is_seeded_learns_and_starts_from_a_saved_table() {
    let run = |seed: u64, table: Option<QTable>| {
        let mut s = sim(small(&["cache.slc=rl"]), 0.5, 6_000, seed);
        if let Some(t) = table {
            s.set_slc_q_table(t).unwrap();
        }
        let r = s.run().unwrap();
        let levels: Vec<(u32, u64)> = s
            .slc_decisions()
            .iter()
            .map(|d| (d.slc_blocks, d.theta_kib))
            .collect();
        (
            r.host_pages_written,
            r.sim_time_s,
            levels,
            s.q_table().cloned().unwrap(),
        )
    };
    let a = run(5, None);
    let b = run(5, None);
    assert_eq!((a.0, a.1, &a.2), (b.0, b.1, &b.2), "same seed, same run");
    assert_eq!(a.3, b.3);
    assert!(a.3.nonzero() > 0, "the agent updated its table");
    assert_eq!((a.3.states(), a.3.actions()), (1296, 9));
    // The decisions change the region: more than one size is visited (ε = 0.07 over the run's
    // periods).
    let sizes: std::collections::BTreeSet<u32> = a.2.iter().map(|d| d.0).collect();
    assert!(sizes.len() > 1, "{sizes:?}");
    // Starting from the learned table changes the run (pre-training), deterministically.
    let c = run(5, Some(a.3.clone()));
    let d = run(5, Some(a.3.clone()));
    assert_eq!(c.2, d.2);
    assert_ne!(c.3, a.3);
    // A table of the wrong shape is refused.
    let mut s = sim(small(&["cache.slc=rl"]), 0.5, 10, 1);
    let e = s
        .set_slc_q_table(QTable::new(10, 9))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 1296 states x 9 actions"), "{e}");
    // Through the config too: a saved table loads, a missing file is one error line.
    let dir = std::env::temp_dir().join(format!("ssdlab-slc-q-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("q.json");
    a.3.save(&p).unwrap();
    let set = format!("cache.rl.q_table=\"{}\"", p.display());
    let cfg = small(&["cache.slc=rl", &set]);
    assert!(HybridFtl::new(&cfg, 1, true, false).unwrap().q_table() == Some(&a.3));
    let cfg = small(&["cache.slc=rl", "cache.rl.q_table=\"/nonexistent/q.json\""]);
    let e = HybridFtl::new(&cfg, 1, true, false)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("cannot read Q-table") && !e.contains('\n'),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn external_agent_steps_at_decision_points_and_its_actions_apply() {
    let cfg = small(&["cache.slc=external"]);
    let mut s = sim(cfg.clone(), 0.5, 3_000, 2);
    let o = s
        .advance_to_slc_decision()
        .unwrap()
        .expect("a decision is due");
    assert_eq!((o.state.size_level, o.state.theta_level), (2, 2));
    assert!(o.period_host_pages > 0);
    // Action 2 = size one level up: 1/8 → 1/4 of the free space.
    s.apply_slc_action(2).unwrap();
    let mapped = (cfg.geometry.logical_pages() as f64 * 0.5).round() as u64;
    let want = (free_for_slc(&cfg, mapped) as f64 * 0.25).floor() as u32;
    assert_eq!(s.layer_reports().hybrid.unwrap().slc_target, want);
    let o2 = s.advance_to_slc_decision().unwrap().unwrap();
    assert_eq!(o2.state.size_level, 3);
    let e = s.apply_slc_action(9).unwrap_err().to_string();
    assert!(e.contains("expected 0 to 8"), "{e}");
    let mut steps = 0;
    while s.advance_to_slc_decision().unwrap().is_some() {
        s.apply_slc_action(0).unwrap();
        steps += 1;
    }
    assert!(steps > 0);
    // Another policy cannot be stepped.
    let mut p = sim(small(&["cache.slc=rl"]), 0.5, 10, 1);
    let e = p.advance_to_slc_decision().unwrap_err().to_string();
    assert!(e.contains("cache.slc = \"external\""), "{e}");
}

fn setup(extra: serde_json::Value) -> SlcSetup {
    let mut v = serde_json::json!({
        "device": "yoo-qlc",
        "overrides": ["geometry.blocks_per_plane=256", "geometry.pages_per_block=64",
                      "geometry.spare_factor=0.2", "cache.slc_blocks=8"],
        "stand_in": "pc",
        "data_gb": 0.05,
        "utilisations": [0.3, 0.7],
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

#[test]
fn experiment_slc_reports_every_policy_by_utilisation() {
    let r = compare(&setup(serde_json::json!({"pretrain": true, "jobs": 1}))).unwrap();
    let j = serde_json::to_value(&r).unwrap();
    for u in ["0.3", "0.7"] {
        let ps = &j["utilisations"][u]["policies"];
        for p in ["none", "static", "dwa", "ust", "rl"] {
            let x = &ps[p];
            assert!(x["write_mb_s"].as_f64().unwrap() > 0.0, "{u} {p}");
            assert!(x["waf"].as_f64().unwrap() >= 1.0);
            for k in ["p50", "p99", "p99_99"] {
                assert!(x["latency_us"]["write"][k].as_f64().unwrap() > 0.0);
            }
            // The breakdown's parts add up to the mean write latency per page (≥ the program).
            let b = &x["breakdown_us"];
            let sum: f64 = ["slc", "qlc", "migration", "gc"]
                .iter()
                .map(|k| b[k].as_f64().unwrap())
                .sum();
            assert!(sum > 0.0);
        }
        assert_eq!(ps["none"]["normalised"]["write_mb_s"], 1.0);
        // `none` never writes in SLC; ust and rl keep a series, static none.
        assert_eq!(ps["none"]["hybrid"]["slc_host_pages"], 0);
        assert!(ps["rl"]["series"].as_array().is_some_and(|s| !s.is_empty()));
        assert!(ps["static"].get("series").is_none());
    }
    let p = &j["pretraining"];
    assert_eq!(p["trained_on"], "ycsb-a");
    assert!(p["pretrained_mb_s"].as_f64().unwrap() > 0.0);
    // Deterministic, and the same whether the runs go one after another or on threads.
    let again = compare(&setup(serde_json::json!({"pretrain": true, "jobs": 3}))).unwrap();
    assert_eq!(j, serde_json::to_value(again).unwrap());
}

#[test]
fn ust_tuning_is_the_same_on_threads() {
    let one = tune_ust(&setup(serde_json::json!({"jobs": 1}))).unwrap();
    let two = tune_ust(&setup(serde_json::json!({"jobs": 2}))).unwrap();
    let (one, two) = (
        serde_json::to_value(one).unwrap(),
        serde_json::to_value(two).unwrap(),
    );
    assert_eq!(one, two);
    // 2 utilisations × 6 sizes × 2 θ, each the mean of the two stand-ins.
    assert_eq!(one["candidates"].as_array().unwrap().len(), 24);
    assert_eq!(one["table"].as_array().unwrap().len(), 2);
}

#[test]
fn experiment_slc_bad_setups_are_one_line_errors() {
    for (extra, want) in [
        (serde_json::json!({"utilisations": [1.5]}), "--utilisation"),
        (serde_json::json!({"utilisations": []}), "--utilisation"),
        (serde_json::json!({"data_gb": 0.0}), "--data-gb"),
        (serde_json::json!({"policies": ["external"]}), "--policies"),
        (serde_json::json!({"queue_depth": 0}), "--queue-depth"),
        (serde_json::json!({"stand_in": null}), "experiment slc"),
        (
            serde_json::json!({"overrides": ["cache.rl.epsilon=2"]}),
            "cache.rl.epsilon",
        ),
        (
            serde_json::json!({"overrides": ["cache.ust_table=[{up_to=0.5, slc_fraction=0.1, theta_kib=64}, {up_to=0.4, slc_fraction=0.1, theta_kib=64}]"]}),
            "cache.ust_table[1]",
        ),
    ] {
        let e = compare(&setup(extra.clone())).unwrap_err().to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{extra}: {e}");
    }
}

#[test]
fn a_shrunk_region_comes_down_one_block_per_request_and_the_series_has_one_point_per_period() {
    use ssdlab_core::ftl::hybrid::HybridFtl;
    use ssdlab_core::ftl::FtlLayer;
    let cfg = small(&["cache.slc=external"]);
    let mut d = HybridFtl::new(&cfg, 1, true, true).unwrap();
    let slc = |d: &HybridFtl| d.report().slc_blocks;
    // Grow to the top level with θ = every write (actions 8 = size up and θ up), writing hot pages.
    let (mut t, mut lpn, mut acted) = (0u64, 0u32, 0usize);
    let n = cfg.geometry.logical_pages() as u32 / 2;
    while acted < 6 {
        t = d.write(lpn..lpn + 1, t).unwrap().done;
        lpn = (lpn + 1) % n;
        if d.slc_pending().is_some() {
            d.slc_act(8).unwrap();
            acted += 1;
        }
    }
    // Fill the region.
    for _ in 0..3_000 {
        t = d.write(lpn..lpn + 1, t).unwrap().done;
        lpn = (lpn + 1) % n;
        if d.slc_pending().is_some() {
            d.slc_act(0).unwrap();
            acted += 1;
        }
    }
    let before = slc(&d);
    assert!(before > 20, "{before} SLC blocks");
    // Shrink to size 0 at the next decision point (five times "size down").
    let mut downs = 0;
    while downs < 5 {
        t = d.write(lpn..lpn + 1, t).unwrap().done;
        lpn = (lpn + 1) % n;
        if d.slc_pending().is_some() {
            d.slc_act(1).unwrap();
            acted += 1;
            downs += 1;
        }
    }
    assert_eq!(d.report().slc_target, 0);
    // From here every host request (8 pages: cold) migrates at most one SLC block until the
    // region is gone — not one per page, which made a request wait for many migrations.
    let mut prev = slc(&d);
    let mut writes = 0;
    while slc(&d) > 0 {
        t = d.write(lpn..lpn + 8, t).unwrap().done;
        lpn = (lpn + 8) % (n - 8);
        if d.slc_pending().is_some() {
            d.slc_act(0).unwrap();
            acted += 1;
        }
        let now = slc(&d);
        assert!(
            prev - now.min(prev) <= 1,
            "{prev} -> {now} SLC blocks in one request"
        );
        prev = now;
        writes += 1;
        assert!(
            writes < 100_000,
            "the region never came down ({now} SLC blocks left)"
        );
    }
    assert!(writes >= 2, "came down over {writes} writes");
    d.check().unwrap();
    // One series point per decision (the device's first, at construction, is the first one
    // the agent answers), holding the agent's setting.
    assert_eq!(d.decisions().len(), acted);
    assert_eq!(d.decisions().last().unwrap().slc_blocks, 0);
}

#[test]
fn dwa_under_pool_pressure_migrates_overwritten_slc_blocks_instead_of_collecting_full_qlc_ones() {
    // dwa's region takes the whole free space; with hot overwrites the free pool runs low while
    // SLC blocks hold mostly stale data. Collecting QLC blocks first copied nearly whole blocks
    // to free a page (WAF ~100 on yoo-qlc); reclaiming what frees a block cheapest keeps it low.
    let mut s = sim(
        small(&["cache.slc=dwa", "cache.slc_blocks=0"]),
        0.5,
        20_000,
        4,
    );
    let r = s.run().unwrap();
    let h = s.layer_reports().hybrid.unwrap();
    assert!(h.slc_host_pages > 0 && h.migrated_pages > 0, "{h:?}");
    assert!(r.waf < 2.5, "WAF {}", r.waf);
}

/// `experiment slc` counts write MB/s in host bytes: large cold writes on QLC run at the same
/// rate whether the device maps 4 KiB units or whole 16 KiB pages (it once multiplied units by
/// the page size, reporting 4× the rate with units).
#[test]
fn write_rate_counts_host_bytes_whatever_the_mapping_unit() {
    let rate = |unit: u32| {
        let setup = format!(
            r#"{{"device":"yoo-qlc","overrides":["ftl.mapping_unit_bytes={unit}"],"stand_in":"ycsb-a","data_gb":0.2,"utilisations":[0.5],"policies":["none"],"seed":1}}"#
        );
        let v: serde_json::Value = serde_json::from_str(
            &ssdlab_core::api::slc_experiment(&setup, Default::default()).unwrap(),
        )
        .unwrap();
        v["utilisations"]["0.5"]["policies"]["none"]["write_mb_s"]
            .as_f64()
            .unwrap()
    };
    let (units, pages) = (rate(4096), rate(16384));
    assert!(
        (units / pages - 1.0).abs() < 0.1,
        "4 KiB units {units:.2} MB/s, whole pages {pages:.2} MB/s"
    );
}
