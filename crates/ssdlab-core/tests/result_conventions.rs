//! One convention for every count of a result (issue 18): the measured phase, after
//! preconditioning. `erase_per_block` counts the erases `erases` counts, so their mean over the
//! blocks is `erases` / blocks; before, it included the preconditioning's erases (a tiny run:
//! 102 erases beside a mean of 5.35 per block on 256 blocks).

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Precondition, SimOptions, Simulation};
use ssdlab_core::trace::{open_workload, Pattern, SyntheticSpec, WorkloadSpec};

#[test]
fn erases_per_block_count_the_measured_phase_like_erases() {
    let cfg = DeviceConfig::from_preset("tiny", &[]).unwrap();
    let g = cfg.geometry.clone();
    let blocks = u64::from(g.planes()) * u64::from(g.blocks_per_plane);
    for precondition in [None, Some(Precondition::default())] {
        let src = open_workload(
            &WorkloadSpec::Synthetic(SyntheticSpec::new(Pattern::Uniform, 20_000)),
            g.logical_bytes(),
            u64::from(g.page_size),
            3,
        )
        .unwrap();
        let opts = SimOptions {
            seed: 3,
            precondition,
            ..SimOptions::default()
        };
        let r = Simulation::new(cfg.clone(), opts, src)
            .unwrap()
            .run()
            .unwrap();
        assert!(r.erases > 0, "the run must collect");
        let e = r.erase_per_block;
        assert!(
            (e.mean * blocks as f64 - r.erases as f64).abs() < 1e-6,
            "{precondition:?}: mean {} × {blocks} blocks vs {} erases",
            e.mean,
            r.erases
        );
        assert!(u64::from(e.max) <= r.erases && e.min as f64 <= e.mean);
    }
}
