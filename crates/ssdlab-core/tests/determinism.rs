//! Same seed, same result, bit for bit; a different seed gives a different run; two simulations
//! in one process do not interfere.

use crate::support::workloads::UniformWrites;
use ssdlab_core::config::{DeviceConfig, Registry, SchedulerKind, VictimPolicy};
use ssdlab_core::sim::{Precondition, Replay, SimOptions, Simulation};
use strum::IntoEnumIterator;

fn run(seed: u64, victim: &str) -> String {
    run_with(seed, &[format!("gc.victim=\"{victim}\"")])
}

fn run_with(seed: u64, sets: &[String]) -> String {
    let cfg = DeviceConfig::from_preset("tiny", sets).unwrap();
    let n = cfg.geometry.logical_pages();
    let opts = SimOptions {
        seed,
        replay: Replay::ClosedLoop { queue_depth: 8 },
        precondition: Some(Precondition::default()),
        ..SimOptions::default()
    };
    let mut sim = Simulation::new(
        cfg,
        opts,
        Box::new(UniformWrites::new(seed, 20_000, n, 4096)),
    )
    .unwrap();
    let r = sim.run().unwrap();
    format!(
        "{:?} {:?} {:?}",
        serde_json::to_string(&r).unwrap(),
        r.series.waf,
        sim.latency_distribution(None)
    )
}

#[test]
fn same_seed_same_result_bit_for_bit() {
    // Every member of the victim-policy and scheduler registries.
    for policy in VictimPolicy::iter() {
        let victim = match policy {
            VictimPolicy::DChoices { .. } => "d-choices:d=2".to_string(),
            p => p.to_string(),
        };
        assert_eq!(run(11, &victim), run(11, &victim), "{victim}");
    }
    for kind in SchedulerKind::iter() {
        let sets = [format!("gc.scheduler=\"{}\"", kind.name())];
        assert_eq!(run_with(11, &sets), run_with(11, &sets), "{}", kind.name());
    }
    assert_ne!(run(11, "random"), run(12, "random"));
}

#[test]
fn interleaved_simulations_do_not_interfere() {
    let alone = run(5, "random");
    let cfg = DeviceConfig::from_preset("tiny", &["gc.victim=\"random\"".into()]).unwrap();
    let n = cfg.geometry.logical_pages();
    let mk = |seed| {
        let opts = SimOptions {
            seed,
            replay: Replay::ClosedLoop { queue_depth: 8 },
            precondition: Some(Precondition::default()),
            ..SimOptions::default()
        };
        Simulation::new(
            cfg.clone(),
            opts,
            Box::new(UniformWrites::new(seed, 20_000, n, 4096)),
        )
        .unwrap()
    };
    let (mut a, mut b) = (mk(5), mk(6));
    while !(a.advance(1000).unwrap() & b.advance(1000).unwrap()) {}
    let r = a.result();
    let together = format!(
        "{:?} {:?} {:?}",
        serde_json::to_string(&r).unwrap(),
        r.series.waf,
        a.latency_distribution(None)
    );
    assert_eq!(alone, together);
}
