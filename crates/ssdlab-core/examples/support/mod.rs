//! What the speed examples share (`bench`, `scale`): the benchmark workload on a preset.

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::ftl::Precondition;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{open_workload, ArrivalSpec, Pattern, SyntheticSpec, WorkloadSpec};

/// `requests` uniformly random single-page writes (a `BENCH_READS` share of them reads) in a
/// closed loop at queue depth 16 on `device` with `sets` overrides, preconditioned by `pre`,
/// timed or not.
pub fn closed_uniform(
    device: &str,
    sets: &[String],
    timing: bool,
    requests: u64,
    pre: Precondition,
) -> Simulation {
    let cfg = DeviceConfig::from_preset(device, sets).expect("preset");
    let g = cfg.geometry.clone();
    let mut spec = SyntheticSpec::new(Pattern::Uniform, requests);
    spec.arrival = ArrivalSpec::Closed;
    // `BENCH_READS=0.9` mixes in reads (the error model's cost is on reads; issue 63).
    if let Some(f) = std::env::var("BENCH_READS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        spec.read_fraction = f;
    }
    let wl = WorkloadSpec::Synthetic(spec);
    let src = open_workload(&wl, g.logical_bytes(), u64::from(g.page_size), 1).expect("workload");
    let opts = SimOptions {
        timing,
        replay: Replay::ClosedLoop { queue_depth: 16 },
        precondition: Some(pre),
        ..SimOptions::default()
    };
    Simulation::new(cfg, opts, src).expect("simulation")
}
