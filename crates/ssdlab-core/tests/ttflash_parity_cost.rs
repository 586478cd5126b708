//! Tiny-Tail Flash's parity cost on the `ttflash` preset at its own 10 % spare, at steady state
//! (issue 16): the extra P/E due to RAIN, counted the paper's way (erases over those of the same
//! device without RAIN, at the same user capacity and utilisation; here `nogc+gtf`, the same
//! buffer without parity), stays within 25 % (the paper: "18 % ... ideally 1/7 ≈ 15 %"), and the
//! lever that takes it there is where open stripes keep their parity (`rain.open_parity`).

use crate::support::devices::{mixed_on as mixed, ttflash_test_device};
use crate::support::workloads::preconditioned as opts;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::experiments::ttflash::run_stack;

/// The preset at 256 blocks × 64 pages per plane (its 64 planes and 10 % spare kept), so that
/// steady state takes seconds. With parity on top the RAIN device has ⌈256 · 8/7⌉ = 293 blocks
/// per plane, a rounding worth 1.7 % of the spare; at 64 blocks per plane the rounding is 13 %
/// of the spare and the extra P/E falls to +2 % (measured), which would flatter the result.
fn device(open_parity: &str) -> DeviceConfig {
    let sets = [
        "geometry.blocks_per_plane=256".to_string(),
        "geometry.pages_per_block=64".to_string(),
        format!("rain.open_parity=\"{open_parity}\""),
    ];
    DeviceConfig::from_preset("ttflash", &sets).unwrap()
}

/// 3M requests, 70 % reads, one every 500 µs (nogc is not saturated), after a sequential fill
/// and one random pass: 900k page writes, about half the user capacity, past the transient of
/// preconditioning (over the `ttflash` experiment's 30k writes the extra P/E ranges from −2 %
/// to +29 % with the seed and the device size; docs/ttflash.md, round 12).
///
/// Measured 2026-11-25: `nogc+gtf` 79,015 erases (its GC copies in a frontier of their own,
/// as RAIN's are in GC super-blocks; 77,335 with one shared frontier); ttflash with open
/// stripes' parity in RAM 94,117 (+19.1 %; GC stripes 7.00 of 7 data pages; at most 701 GC
/// stripes open, 2.7 MiB of RAM); with open GC stripes protected by their victims (rounds
/// 5–11) 117,268 (+48.4 %; 6.20 of 7: a stripe closes short after two rounds so that its victim can be erased, and the
/// victims waiting for that hold free space).
#[test]
fn parity_costs_under_a_quarter_more_erases_at_the_presets_spare() {
    let run = |open_parity: &str, stack: &str| {
        let cfg = device(open_parity);
        run_stack(
            &cfg,
            stack,
            opts(false),
            mixed(&cfg, 3_000_000, 500_000, 70),
        )
        .unwrap()
    };
    let plain = run("ram", "nogc+gtf");
    let ram = run("ram", "ttflash");
    let victim = run("victim", "ttflash");
    let extra = |r: &ssdlab_core::experiments::ttflash::StackRun| {
        r.erases as f64 / plain.erases as f64 - 1.0
    };
    let fill = |r: &ssdlab_core::experiments::ttflash::StackRun| {
        let s = r.report.layer.rain;
        s.gc_stripe_members as f64 / s.gc_stripes as f64
    };
    eprintln!(
        "nogc+gtf {} erases; ttflash (ram) {} ({:+.1} %, GC stripes {:.2}, {} open at most); (victim) {} ({:+.1} %, {:.2})",
        plain.erases,
        ram.erases,
        100.0 * extra(&ram),
        fill(&ram),
        ram.report.layer.rain.open_gc_stripes_max,
        victim.erases,
        100.0 * extra(&victim),
        fill(&victim)
    );
    // Parity alone is 1/7 of the data programmed; what is left over is super-block GC's.
    assert!(
        extra(&ram) > 1.0 / 7.0 && extra(&ram) <= 0.25,
        "{}",
        extra(&ram)
    );
    assert!(fill(&ram) >= 6.9, "GC stripes filled: {}", fill(&ram));
    assert_eq!(ram.report.layer.rain.rebuilds_via_origin, 0);
    // The RAM it costs: a running parity per open GC stripe. Each open stripe has a parity
    // slot reserved in a GC super-block that is open (two per group) or sealed and waiting for
    // its stripes' parity turns (within a round), so a group's open stripes stay within a few
    // blocks' worth of slots: bounded here by 3 × 64 pages per group, 8 groups (measured 701).
    let open = ram.report.layer.rain.open_gc_stripes_max;
    assert!(open > 0 && open < 8 * 3 * 64, "{open}");
    // The lever: the victims' design pays far more, so the bound can fail.
    assert!(extra(&victim) >= 0.4 && fill(&victim) < 6.5);
}

/// The references' GC frontier of their own (`experiments::ttflash::device_for`: `nogc` and
/// `nogc+gtf` collect into `dual-frontier`, as RAIN does into GC super-blocks) changes what they
/// erase, not when anything completes: their GC costs no time, and host pages land on the same
/// planes. (On the goldens only their erase counts moved.)
#[test]
fn the_references_own_gc_frontier_moves_erases_not_latencies() {
    use ssdlab_core::config::Placement;
    use ssdlab_core::experiments::ttflash::device_for;
    use ssdlab_core::sim::Simulation;
    let base = ttflash_test_device(&[]);
    assert_eq!(base.ftl.placement, Placement::Single);
    for stack in ["nogc", "nogc+gtf"] {
        let own = device_for(&base, stack).unwrap();
        assert_eq!(own.ftl.placement, Placement::DualFrontier, "{stack}");
        let shared = DeviceConfig {
            ftl: ssdlab_core::config::FtlConfig {
                placement: Placement::Single,
                ..own.ftl.clone()
            },
            ..own.clone()
        };
        let run = |cfg: &DeviceConfig| {
            let src = mixed(cfg, 60_000, 15_000, 50);
            let res = Simulation::new(cfg.clone(), opts(false), src)
                .unwrap()
                .run()
                .unwrap();
            (serde_json::to_value(&res).unwrap(), res.erases)
        };
        let ((a, ea), (b, eb)) = (run(&own), run(&shared));
        eprintln!("{stack}: erases {ea} (own GC frontier), {eb} (shared)");
        assert_eq!(a["latency_us"], b["latency_us"], "{stack}");
        assert_ne!(ea, eb, "{stack}: the frontier must matter to the erases");
    }
    // A stack whose GC takes time keeps the device's placement (its latencies depend on it).
    assert_eq!(
        device_for(&base, "base").unwrap().ftl.placement,
        Placement::Single
    );
    assert_eq!(
        device_for(&base, "ttflash").unwrap().ftl.placement,
        Placement::Single
    );
}
