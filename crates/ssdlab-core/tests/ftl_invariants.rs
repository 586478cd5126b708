//! FTL invariants after many seeded random runs (property tests): every live LBA maps to exactly
//! one valid page and back; valid counts equal the bitmaps; no page is programmed twice without
//! an erase (the FTL's double-program detector is on); free + open + full + victim blocks = total.
//! Runs cover mapping units below the page size (`ftl.mapping_unit_bytes`) too.

mod support;

use proptest::prelude::*;
use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::ftl::Ftl;
use ssdlab_core::rng::stream;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{OpKind, Request, VecSource};

const POLICIES: [&str; 5] = ["greedy", "cost-benefit", "fifo", "random", "d-choices:d=3"];
const PLACEMENTS: [&str; 5] = ["single", "dual-frontier", "hot-cold", "eti", "oracle"];

fn device(
    policy: &str,
    blocks: u32,
    pages: u32,
    planes: u32,
    sf: f64,
    placement: &str,
    units_per_page: u32,
) -> DeviceConfig {
    let mut sets = vec![
        format!("geometry.planes_per_die={planes}"),
        format!("geometry.blocks_per_plane={blocks}"),
        format!("geometry.pages_per_block={pages}"),
        format!("geometry.spare_factor={sf}"),
        format!("gc.victim=\"{policy}\""),
        format!("ftl.placement=\"{placement}\""),
    ];
    if units_per_page > 1 {
        sets.push(format!("ftl.mapping_unit_bytes={}", 4096 / units_per_page));
    }
    DeviceConfig::from_preset("tiny", &sets).expect("valid geometry")
}

fn random_requests(seed: u64, n: usize, logical_pages: u64, page: u64) -> Vec<Request> {
    let mut rng = stream(seed, "prop-requests");
    let mut t = 0;
    (0..n)
        .map(|_| {
            t += rng.gen_range(0..200_000u64);
            let op = match rng.gen_range(0..10) {
                0..=5 => OpKind::Write,
                6..=8 => OpKind::Read,
                _ => OpKind::Trim,
            };
            let pages = rng.gen_range(1..=4u64).min(logical_pages);
            let first = rng.gen_range(0..=logical_pages - pages);
            Request {
                arrival_ns: t,
                op,
                offset_bytes: first * page,
                size_bytes: pages * page,
                fragment_follows: false,
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn invariants_hold_under_random_workloads(
        seed in 0u64..1_000_000,
        policy in 0usize..POLICIES.len(),
        blocks in 32u32..64,
        pages in prop::sample::select(vec![4u32, 8, 16, 32]),
        planes in 1u32..3,
        sf in 0.2f64..0.4,
        placement in 0usize..PLACEMENTS.len(),
        timing in any::<bool>(),
        units_per_page in prop::sample::select(vec![1u32, 1, 4]),
    ) {
        let cfg = device(POLICIES[policy], blocks, pages, planes, sf, PLACEMENTS[placement], units_per_page);
        let logical = cfg.logical_units();
        let page = u64::from(cfg.unit_bytes());
        let reqs = random_requests(seed, 3_000, logical, page);
        let opts = SimOptions { seed, timing, check_every: 97, replay: Replay::OpenLoop { time_scale: 1.0 }, ..SimOptions::default() };
        let mut sim = Simulation::new(cfg, opts, Box::new(VecSource::new(reqs))).unwrap();
        let r = sim.run().unwrap();
        prop_assert!(sim.ftl().check_invariants().is_ok(), "{:?}", sim.ftl().check_invariants());
        prop_assert!(r.host_pages_written > 0);
        // Conservation: live pages equal mapped logical pages.
        let mapped = (0..logical as u32).filter(|l| sim.ftl().lookup(*l).is_some()).count() as u64;
        prop_assert_eq!(mapped, sim.ftl().live_pages());
    }
}

#[test]
fn gc_steps_keep_invariants_at_every_step() {
    // Drive the FTL directly and check after every single GC unit step.
    let cfg = device("greedy", 32, 8, 1, 0.25, "single", 1);
    let mut ftl = Ftl::new(&cfg).unwrap();
    ftl.enable_program_checks();
    let mut rng = stream(3, "gc");
    let mut wl = stream(3, "wl");
    let n = ftl.logical_pages();
    for i in 0..20_000u32 {
        let lpn = if i < n { i } else { wl.gen_range(0..n) };
        let plane = ftl.next_host_plane(lpn);
        while !ftl.host_can_write(plane) {
            ftl.gc_step(plane, &mut rng).unwrap();
            ftl.check_invariants().unwrap();
        }
        ftl.write_host(lpn, plane).unwrap();
        while ftl.needs_gc(plane) {
            ftl.gc_step(plane, &mut rng).unwrap();
            ftl.check_invariants().unwrap();
        }
    }
    ftl.check_invariants().unwrap();
    assert!(ftl.counters.erases > 0, "GC must have run");
}

#[test]
fn trim_invalidates_and_reduces_gc_work() {
    let cfg = device("greedy", 48, 16, 1, 0.2, "single", 1);
    let logical = cfg.geometry.logical_pages();
    let page = u64::from(cfg.geometry.page_size);
    // Fill, trim half, overwrite the other half repeatedly.
    let mut reqs = vec![Request {
        arrival_ns: 0,
        op: OpKind::Write,
        offset_bytes: 0,
        size_bytes: logical * page,
        fragment_follows: false,
    }];
    reqs.push(Request {
        arrival_ns: 0,
        op: OpKind::Trim,
        offset_bytes: 0,
        size_bytes: logical / 2 * page,
        fragment_follows: false,
    });
    let with_trim = reqs.clone();
    let run = |reqs: Vec<Request>| {
        let mut all = reqs;
        let mut rng = stream(5, "t");
        for _ in 0..20_000 {
            let l = rng.gen_range(logical / 2..logical);
            all.push(Request {
                arrival_ns: 0,
                op: OpKind::Write,
                offset_bytes: l * page,
                size_bytes: page,
                fragment_follows: false,
            });
        }
        let opts = SimOptions {
            timing: false,
            check_every: 1000,
            ..SimOptions::default()
        };
        let mut sim = Simulation::new(cfg.clone(), opts, Box::new(VecSource::new(all))).unwrap();
        let r = sim.run().unwrap();
        sim.ftl().check_invariants().unwrap();
        r
    };
    let a = run(with_trim);
    let b = run(vec![reqs[0]]);
    assert_eq!(a.trimmed_pages, logical / 2);
    assert!(
        a.waf < b.waf,
        "trim should lower WAF: {} vs {}",
        a.waf,
        b.waf
    );
}
