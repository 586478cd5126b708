//! Write amplification of the FTL against published analytic models, for uniformly random
//! single-page writes after preconditioning (timing off):
//! - FIFO/LRW: Desnoyers, "Analytic models of SSD write performance" (ACM TOS 2014);
//! - greedy: the mean-field model (Van Houdt, SIGMETRICS 2013), cross-checked against
//!   Desnoyers' closed form in `analytic_models.rs`;
//! - random victim selection: 1/spare factor.
//! References are computed from the formulas in `support/analytic.rs`, never from this simulator.
//!
//! Convention: the models count T blocks that hold data. The simulated plane additionally keeps
//! its open frontier and a free pool of `threshold_blocks` (1 to 2 blocks in steady state) out of
//! circulation, so the effective block count is blocks − threshold − 1/2 — which matters by less
//! than 0.1 % on these 4096-block planes but is accounted for rather than absorbed in the tolerance.

use crate::support::analytic::{waf_fifo, waf_greedy, waf_random};
use crate::support::workloads::UniformWrites;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Precondition, SimOptions, Simulation};

const BLOCKS: u32 = 4096;
const THRESHOLD: u32 = 2;

/// Measured WAF for one plane of BLOCKS blocks; returns (measured, effective α).
fn measured_waf(victim: &str, sf: f64, pages_per_block: u32, passes: f64) -> (f64, f64) {
    let sets = vec![
        "geometry.channels=1".to_string(),
        "geometry.chips_per_channel=1".into(),
        "geometry.dies_per_chip=1".into(),
        "geometry.planes_per_die=1".into(),
        format!("geometry.blocks_per_plane={BLOCKS}"),
        format!("geometry.pages_per_block={pages_per_block}"),
        format!("geometry.spare_factor={sf}"),
        format!("gc.victim=\"{victim}\""),
        format!("gc.threshold_blocks={THRESHOLD}"),
    ];
    let cfg = DeviceConfig::from_preset("tiny", &sets).expect("valid test geometry");
    let logical = cfg.geometry.logical_pages();
    let page = u64::from(cfg.geometry.page_size);
    let opts = SimOptions {
        timing: false,
        seed: 42,
        precondition: Some(Precondition {
            sequential: true,
            random_passes: 3.0,
            fill_fraction: 1.0,
        }),
        ..SimOptions::default()
    };
    let writes = (passes * logical as f64) as u64;
    let mut sim = Simulation::new(
        cfg,
        opts,
        Box::new(UniformWrites::new(7, writes, logical, page)),
    )
    .expect("simulation");
    let r = sim.run().expect("run");
    let effective_blocks = f64::from(BLOCKS) - f64::from(THRESHOLD) - 0.5;
    let alpha = effective_blocks * f64::from(pages_per_block) / logical as f64;
    (r.waf, alpha)
}

fn check(victim: &str, model: impl Fn(f64, u32) -> f64, sfs: &[f64], pages: &[u32], tol: f64) {
    let mut failures = Vec::new();
    for &sf in sfs {
        for &np in pages {
            let (got, alpha) = measured_waf(victim, sf, np, 3.0);
            let want = model(alpha, np);
            let err = (got / want - 1.0).abs();
            eprintln!("{victim:8} sf={sf:.2} Np={np:4}: simulated {got:.4}, model {want:.4}, error {:.3} %", err * 100.0);
            if err > tol {
                failures.push(format!(
                    "sf={sf} Np={np}: simulated {got:.4} vs model {want:.4}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{victim} outside {:.1} %: {failures:?}",
        tol * 100.0
    );
}

#[test]
fn fifo_matches_desnoyers_lrw_model() {
    check(
        "fifo",
        |a, _| waf_fifo(a),
        &[0.07, 0.10, 0.15, 0.25],
        &[32, 64, 128],
        0.01,
    );
}

#[test]
fn greedy_matches_mean_field_model() {
    check(
        "greedy",
        waf_greedy,
        &[0.07, 0.10, 0.15, 0.25],
        &[32, 64, 128],
        0.01,
    );
}

#[test]
fn random_victims_give_one_over_spare_factor() {
    check(
        "random",
        |a, _| waf_random(a),
        &[0.10, 0.25],
        &[32, 64],
        0.01,
    );
}
