//! Partial-GC schedulers (LazyRTGC; RL-assisted GC of Kang, Shin, Yoo, TECS 2017; idle
//! predictors; external decision stepping): data safety under every scheduler, LazyRTGC's
//! quantum, the RL schedulers against blocking GC with no idle time, Q-table reuse, determinism.

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::config::{Registry, SchedulerKind};
use ssdlab_core::ftl::gc::{lazyrtgc_quantum, partial::PartialGc, RlGc};
use ssdlab_core::sim::{Precondition, Replay, SimOptions, Simulation};
use ssdlab_core::stats::SimResult;
use ssdlab_core::trace::{
    open_workload, ArrivalSpec, IdleDist, Pattern, SyntheticSpec, WorkloadSpec,
};
use strum::IntoEnumIterator;

fn workload(requests: u64, reads: f64, arrival: ArrivalSpec) -> WorkloadSpec {
    let mut s = SyntheticSpec::new(Pattern::Hotcold, requests);
    s.read_fraction = reads;
    s.mean_request_kib = Some(10.0);
    s.arrival = arrival;
    WorkloadSpec::Synthetic(s)
}

fn bursty() -> ArrivalSpec {
    ArrivalSpec::OnOff {
        burst_requests: 8.0,
        burst_interval_us: 100.0,
        idle_mean_us: 30_000.0,
        idle: IdleDist::Lognormal { sigma: 1.0 },
    }
}

fn sim(cfg: &DeviceConfig, w: &WorkloadSpec, opts: SimOptions) -> Simulation {
    let src = open_workload(
        w,
        cfg.geometry.logical_bytes(),
        u64::from(cfg.geometry.page_size),
        opts.seed,
    )
    .unwrap();
    Simulation::new(cfg.clone(), opts, src).unwrap()
}

fn preconditioned(seed: u64, replay: Replay) -> SimOptions {
    SimOptions {
        seed,
        replay,
        precondition: Some(Precondition {
            sequential: true,
            random_passes: 1.0,
            fill_fraction: 1.0,
        }),
        ..SimOptions::default()
    }
}

#[test]
fn every_scheduler_keeps_the_ftl_invariants() {
    for kind in SchedulerKind::iter() {
        let name = kind.name();
        for seed in [1, 2] {
            let cfg = DeviceConfig::from_preset(
                "tiny",
                &[format!("gc.scheduler=\"{name}\""), "gc.rl.t_agc=6".into()],
            )
            .unwrap();
            let mut opts = preconditioned(seed, Replay::OpenLoop { time_scale: 1.0 });
            opts.check_every = 97;
            let mut s = sim(&cfg, &workload(15_000, 0.3, bursty()), opts);
            let r = s.run().unwrap_or_else(|e| panic!("{name}: {e}"));
            s.ftl().check_invariants().unwrap();
            assert!(r.erases > 0 && r.requests.total == 15_000, "{name}: {r:?}");
        }
    }
}

#[test]
fn lazyrtgc_quantum_and_intensive_copies_follow_the_formula() {
    // α = ⌊t_erase / (t_read + t_program)⌋; intensive GC defaults to α + 1.
    for (preset, alpha) in [
        ("kang-128gb", 6),
        ("kang-512gb", 4),
        ("ttflash", 2),
        ("mqsim-small", 4),
    ] {
        let cfg = DeviceConfig::from_preset(preset, &[]).unwrap();
        let t = cfg.op_times();
        assert_eq!(lazyrtgc_quantum(&t), alpha, "{preset}");
        assert_eq!(
            u64::from(alpha),
            t.erase_ns / (t.read_ns + t.program_ns),
            "{preset}"
        );
        assert_eq!(PartialGc::new(&cfg).intensive_copies, alpha + 1, "{preset}");
    }
}

/// One plane (mqsim-small cut to 1 channel × 1 chip × 1 plane: 512 blocks of 128 pages, 7 %
/// spare), so that no plane is idle while another serves the host.
fn closed_loop(name: &str) -> SimResult {
    let o = [
        format!("gc.scheduler=\"{name}\""),
        "gc.threshold_blocks=10".into(),
        "gc.rl.t_agc=20".into(),
        "geometry.channels=1".into(),
        "geometry.chips_per_channel=1".into(),
        "geometry.planes_per_die=1".into(),
    ];
    let cfg = DeviceConfig::from_preset("mqsim-small", &o).unwrap();
    let mut s = sim(
        &cfg,
        &workload(60_000, 0.0, ArrivalSpec::Closed),
        preconditioned(3, Replay::ClosedLoop { queue_depth: 1 }),
    );
    s.run().unwrap()
}

/// With no idle time (closed loop, queue depth 1, back-to-back writes, one plane) partial GC
/// cannot hide anything; the RL schedulers must still not be much worse than blocking GC.
/// Margin: mean write latency and total time within 15 % of blocking's.
#[test]
fn rl_schedulers_without_idle_time_are_not_much_worse_than_blocking() {
    let base = closed_loop("blocking");
    for name in ["rlgc", "rlgc-aggressive", "lazyrtgc", "idle-ma", "idle-es"] {
        let r = closed_loop(name);
        let (m0, m1) = (base.latency_us.write.mean, r.latency_us.write.mean);
        let (t0, t1) = (base.sim_time_s, r.sim_time_s);
        eprintln!(
            "{name}: mean {m1:.0} µs vs blocking {m0:.0}; time {t1:.2} s vs {t0:.2}; p99 {:.0} vs {:.0}; p99.99 {:.0} vs {:.0}; erases {} vs {}",
            r.latency_us.write.p99, base.latency_us.write.p99, r.latency_us.write.p99_99, base.latency_us.write.p99_99, r.erases, base.erases
        );
        assert!(
            m1 <= 1.15 * m0,
            "{name}: mean write latency {m1} vs blocking {m0}"
        );
        assert!(t1 <= 1.15 * t0, "{name}: total time {t1} vs blocking {t0}");
    }
}

fn rl_run(
    cfg: &DeviceConfig,
    seed: u64,
    table: Option<ssdlab_core::rl::QTable>,
) -> (SimResult, ssdlab_core::rl::QTable) {
    let w = workload(20_000, 0.1, bursty());
    let mut s = sim(
        cfg,
        &w,
        preconditioned(seed, Replay::OpenLoop { time_scale: 1.0 }),
    );
    if table.is_some() {
        s.set_scheduler(Box::new(RlGc::with_table(cfg, seed, false, table).unwrap()))
            .unwrap();
    }
    let r = s.run().unwrap();
    (r, s.q_table().unwrap().clone())
}

fn key(r: &SimResult) -> String {
    format!(
        "{:?} {} {} {}",
        r.latency_us, r.erases, r.gc_pages_copied, r.blocked_requests
    )
}

#[test]
fn same_seed_same_result_and_q_table() {
    let cfg = DeviceConfig::from_preset("tiny", &["gc.scheduler=\"rlgc\"".into()]).unwrap();
    let (a, qa) = rl_run(&cfg, 4, None);
    let (b, qb) = rl_run(&cfg, 4, None);
    assert_eq!(key(&a), key(&b));
    assert_eq!(qa, qb);
    assert!(qa.nonzero() > 0, "the agent learned nothing");
    let (c, _) = rl_run(&cfg, 5, None);
    assert_ne!(key(&a), key(&c));
}

#[test]
fn saved_and_loaded_q_table_gives_identical_decisions() {
    let cfg = DeviceConfig::from_preset("tiny", &["gc.scheduler=\"rlgc\"".into()]).unwrap();
    let (_, trained) = rl_run(&cfg, 6, None);
    let path = std::env::temp_dir().join(format!("ssdlab-rlgc-{}.json", std::process::id()));
    trained.save(&path).unwrap();
    // Greedy reuse (ε = 0): the in-memory table and the file give the same run.
    let frozen = [
        "gc.rl.epsilon_initial=0.0".to_string(),
        "gc.rl.epsilon=0.0".into(),
    ];
    let mut o = vec!["gc.scheduler=\"rlgc\"".to_string()];
    o.extend(frozen.iter().cloned());
    let cfg_mem = DeviceConfig::from_preset("tiny", &o).unwrap();
    o.push(format!("gc.rl.q_table=\"{}\"", path.display()));
    let cfg_file = DeviceConfig::from_preset("tiny", &o).unwrap();
    let (m, qm) = rl_run(&cfg_mem, 7, Some(trained.clone()));
    let (f, qf) = rl_run(&cfg_file, 7, None);
    assert_eq!(key(&m), key(&f));
    assert_eq!(qm, qf);
    // A table of the wrong shape is an error naming the field.
    let bad = [
        "gc.scheduler=\"rlgc\"".to_string(),
        "gc.rl.actions=[0,1]".into(),
        format!("gc.rl.q_table=\"{}\"", path.display()),
    ];
    let cfg_bad = DeviceConfig::from_preset("tiny", &bad).unwrap();
    let src = open_workload(
        &workload(10, 0.0, ArrivalSpec::Closed),
        cfg_bad.geometry.logical_bytes(),
        4096,
        1,
    )
    .unwrap();
    let e = Simulation::new(cfg_bad, SimOptions::default(), src)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("gc.rl.q_table") && e.contains("68 × 2"), "{e}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn external_decisions_step_through_the_run() {
    let cfg = DeviceConfig::from_preset("tiny", &["gc.scheduler=\"external\"".into()]).unwrap();
    let mut opts = preconditioned(8, Replay::OpenLoop { time_scale: 1.0 });
    opts.check_every = 101;
    let mut s = sim(&cfg, &workload(10_000, 0.2, bursty()), opts);
    let (mut n, mut reward) = (0u64, 0.0);
    while let Some(o) = s.advance_to_decision().unwrap() {
        assert_eq!(
            s.advance_to_decision().unwrap(),
            Some(o),
            "re-asking returns the same decision"
        );
        assert!(
            o.free_blocks <= cfg.gc.threshold_blocks
                && o.state < 68
                && (-0.5..=1.0).contains(&o.reward)
        );
        reward += o.reward;
        s.apply_decision(if o.interval_us > 2000.0 { 4 } else { 1 })
            .unwrap();
        n += 1;
    }
    s.ftl().check_invariants().unwrap();
    assert!(s.is_finished() && n > 100, "{n} decisions");
    eprintln!(
        "external: {n} decisions, mean reward {:.3}",
        reward / n as f64
    );
    // Not available under another scheduler.
    let cfg = DeviceConfig::from_preset("tiny", &[]).unwrap();
    let mut s = sim(
        &cfg,
        &workload(10, 0.0, ArrivalSpec::Closed),
        SimOptions::default(),
    );
    assert!(s
        .advance_to_decision()
        .unwrap_err()
        .to_string()
        .contains("external"));
}

#[test]
fn sensitivity_options_reshape_the_agent_and_bad_values_name_the_field() {
    let o = [
        "gc.scheduler=\"rlgc\"".to_string(),
        "gc.rl.interval_bins_us=[100.0, 1000.0, 10000.0]".into(),
        "gc.rl.actions=[0, 2, 4]".into(),
    ];
    let cfg = DeviceConfig::from_preset("tiny", &o).unwrap();
    let (_, q) = rl_run(&cfg, 2, None);
    assert_eq!((q.states(), q.actions()), (2 * 4 * 2, 3));
    for (bad, field) in [
        (
            "gc.rl.interval_bins_us=[500.0, 100.0]",
            "gc.rl.interval_bins_us",
        ),
        ("gc.rl.reward_levels=[1.0, 0.0]", "gc.rl.reward_levels"),
        (
            "gc.rl.reward_percentiles=[90.0, 70.0, 99.0]",
            "gc.rl.reward_percentiles",
        ),
        ("gc.rl.alpha=1.5", "gc.rl.alpha"),
        ("gc.rl.actions=[]", "gc.rl.actions"),
        ("gc.partial.es_alpha=0.0", "gc.partial.es_alpha"),
        ("gc.rl.colour=1", "colour"),
    ] {
        let e = DeviceConfig::from_preset("tiny", &[bad.to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains(field), "{bad}: {e}");
    }
}

/// The idle predictors' idle-time steps: a started victim's copies run and are timed together when
/// a copy's duration is fixed (copy-back; docs/speed.md, "The idle predictors' idle-time copies in
/// runs"), one step at a time when each is logged (the host view's iostat records every GC step).
/// The two must agree on everything: how many copies fit before the predicted idle end, each
/// request's latency, every count.
#[test]
fn idle_time_copies_in_runs_match_the_steps_one_at_a_time() {
    for name in ["idle-ma", "idle-es"] {
        for copyback in [true, false] {
            let cfg = DeviceConfig::from_preset(
                "tiny",
                &[
                    format!("gc.scheduler=\"{name}\""),
                    format!("timing.copyback={copyback}"),
                ],
            )
            .unwrap();
            let run = |iostat: bool| {
                let mut opts = preconditioned(4, Replay::OpenLoop { time_scale: 1.0 });
                opts.iostat_interval_us = iostat.then_some(1_000_000.0);
                let r = sim(&cfg, &workload(20_000, 0.3, bursty()), opts)
                    .run()
                    .unwrap();
                serde_json::to_value(&r).unwrap()
            };
            let (runs, steps) = (run(false), run(true));
            assert!(
                runs["gc_pages_copied"].as_u64().unwrap() > 10_000,
                "{name}: {runs}"
            );
            assert_eq!(runs, steps, "{name}, copyback {copyback}");
        }
    }
}

/// A scheduler set after construction replaces the blocking one's "on demand only" shortcut (the
/// device skips the per-page and per-request calls only for a scheduler that says it acts only on
/// demand, docs/speed.md, "Calls that do nothing, skipped; the open-loop time computed once"):
/// `rlgc` set on a blocking configuration must run as `rlgc` configured — including its decisions
/// at every request's end.
#[test]
fn a_scheduler_set_on_a_blocking_device_is_asked_at_every_decision_point() {
    let rl = DeviceConfig::from_preset("tiny", &["gc.scheduler=\"rlgc\"".into()]).unwrap();
    let blocking = DeviceConfig::from_preset("tiny", &[]).unwrap();
    assert_eq!(blocking.gc.scheduler, SchedulerKind::Blocking);
    let w = workload(20_000, 0.1, bursty());
    let opts = || preconditioned(4, Replay::OpenLoop { time_scale: 1.0 });
    let configured = sim(&rl, &w, opts()).run().unwrap();
    let mut s = sim(&blocking, &w, opts());
    s.set_scheduler(Box::new(RlGc::new(&rl, 4, false).unwrap()))
        .unwrap();
    let set = s.run().unwrap();
    let plain = sim(&blocking, &w, opts()).run().unwrap();
    assert_eq!(key(&set), key(&configured));
    assert_ne!(key(&set), key(&plain), "rlgc ran as blocking GC");
}
