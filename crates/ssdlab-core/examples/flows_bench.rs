//! Speed of several flows (issue 61's budget: four flows at least 0.7× the single-flow
//! requests/s): `cargo run --release -p ssdlab-core --example flows_bench [PRESET [REQUESTS]]`.
//!
//! The same work three ways on one device, preconditioned, timed: REQUESTS uniformly random
//! single-page writes in one closed loop at queue depth 16 (the plain path); the same as one
//! flow (the flows path); and four flows of REQUESTS/4 each at queue depth 4 over the shared
//! space. Each is run three times, alternated; the best requests/s of each is printed with its
//! ratio to the plain path (`FLOWS_BENCH_ONLY=0|1|2`: one of them once, e.g. under callgrind).
//! Wall-clock timing lives here, never in the core or in tests.

use std::time::Instant;

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::ftl::Precondition;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{open_workload, FlowsSpec, WorkloadSpec};

fn uniform(requests: u64) -> serde_json::Value {
    serde_json::json!({"kind": "synthetic", "pattern": "uniform", "requests": requests})
}

fn flows(n: u64, requests: u64, qd: u32) -> FlowsSpec {
    let each: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({"name": format!("f{i}"), "range": "shared",
                "replay": {"mode": "closed-loop", "queue_depth": qd},
                "workload": uniform(requests / n)})
        })
        .collect();
    serde_json::from_value(serde_json::json!({ "flows": each })).expect("flows spec")
}

/// Build (preconditioning included), then time the measured run alone: requests/s.
fn rate(device: &str, requests: u64, how: u32) -> f64 {
    let cfg = DeviceConfig::from_preset(device, &[]).expect("preset");
    let opts = SimOptions {
        replay: Replay::ClosedLoop { queue_depth: 16 },
        precondition: Some(Precondition::default()),
        ..SimOptions::default()
    };
    let mut sim = match how {
        0 => {
            let g = &cfg.geometry;
            let wl: WorkloadSpec = serde_json::from_value(uniform(requests)).expect("spec");
            let src =
                open_workload(&wl, g.logical_bytes(), u64::from(g.page_size), 1).expect("workload");
            Simulation::new(cfg, opts, src).expect("simulation")
        }
        1 => Simulation::with_flows(cfg, opts, &flows(1, requests, 16)).expect("one flow"),
        _ => Simulation::with_flows(cfg, opts, &flows(4, requests, 4)).expect("four flows"),
    };
    let t = Instant::now();
    let r = sim.run().expect("run");
    assert_eq!(r.requests.total, requests);
    requests as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let device = args.get(1).map(String::as_str).unwrap_or("mqsim-small");
    let requests: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    // FLOWS_BENCH_ONLY=0|1|2 runs one of the three once (e.g. under callgrind).
    if let Some(how) = std::env::var("FLOWS_BENCH_ONLY")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        println!("{:.2} M requests/s", rate(device, requests, how) / 1e6);
        return;
    }
    let mut best = [0f64; 3];
    for _ in 0..3 {
        for (how, b) in best.iter_mut().enumerate() {
            *b = b.max(rate(device, requests, how as u32));
        }
    }
    let names = [
        "plain path, QD 16",
        "one flow, QD 16",
        "four flows, QD 4 each",
    ];
    for (n, b) in names.iter().zip(best) {
        println!(
            "{device} {n:<24} {:>6.2} M requests/s  {:.3}x",
            b / 1e6,
            b / best[0]
        );
    }
}
