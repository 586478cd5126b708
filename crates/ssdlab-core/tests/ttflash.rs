//! Tiny-Tail Flash (Yan et al., FAST 2017) on a scaled-down `ttflash` preset: the six stacks on
//! one GC-heavy mixed workload; parity verified by checksums; rotating GC holds.

use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::rain::{run_stack, STACKS};
use ssdlab_core::rng::{stream, SimRng};
use ssdlab_core::sim::{Precondition, SimOptions};
use ssdlab_core::trace::{OpKind, Request, RequestSource};
use ssdlab_core::Result;

/// Single-page requests every `gap_ns`, `read_pct` % reads, uniform over the logical space.
struct Mixed {
    rng: SimRng,
    left: u64,
    t: u64,
    gap_ns: u64,
    read_pct: u32,
    pages: u64,
    page: u64,
}

impl RequestSource for Mixed {
    fn next_request(&mut self) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.t += self.gap_ns;
        let op = if self.rng.gen_range(0..100) < self.read_pct { OpKind::Read } else { OpKind::Write };
        let lpn = self.rng.gen_range(0..self.pages);
        Ok(Some(Request { arrival_ns: self.t, op, offset_bytes: lpn * self.page, size_bytes: self.page }))
    }
    fn describe(&self) -> String {
        "mixed".into()
    }
}

fn device() -> DeviceConfig {
    // 8 channels × 8 chips as the preset; 64 blocks × 64 pages per plane (1 GiB) so tests run in
    // seconds. Spare 25 %: data + parity (1/7) + 10 % room.
    let sets = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=64", "geometry.spare_factor=0.25", "rain.buffer_mib=4"];
    DeviceConfig::from_preset("ttflash", &sets.map(String::from)).unwrap()
}

fn mixed(cfg: &DeviceConfig, n: u64, gap_ns: u64) -> Box<dyn RequestSource> {
    let pages = cfg.geometry.logical_pages();
    Box::new(Mixed { rng: stream(7, "mixed"), left: n, t: 0, gap_ns, read_pct: 50, pages, page: u64::from(cfg.geometry.page_size) })
}

fn opts(check: bool) -> SimOptions {
    SimOptions {
        precondition: Some(Precondition { sequential: true, random_passes: 1.0 }),
        check_every: if check { 5000 } else { 0 },
        ..SimOptions::default()
    }
}

#[test]
fn parity_rebuilds_are_always_correct_and_rgc_holds() {
    let cfg = device();
    let run = run_stack(&cfg, "ttflash", opts(true), mixed(&cfg, 60_000, 15_000)).unwrap();
    let r = run.report.rain;
    eprintln!("{r:?}");
    assert!(r.rebuilt_reads > 0, "GTR must be exercised");
    assert_eq!(r.rebuilds_verified, r.rebuilt_reads, "every rebuild checked against the written checksum");
    assert_eq!(r.rebuild_while_group_collecting, 0, "rotating GC: never two collecting planes in a group");
    assert!(r.reparity_writes > 0, "GC erased dead members of live stripes: parity rewritten");
    assert!(r.rebuilt_reads > 20 * r.rebuild_unavailable, "logical stripes: GC-blocked reads are rebuildable ({r:?})");
}

#[test]
fn full_parity_audit_after_gc() {
    use ssdlab_core::sim::Simulation;
    let cfg = ssdlab_core::rain::device_for(&device(), "ttflash").unwrap();
    let mut sim = Simulation::new(cfg.clone(), opts(true), mixed(&cfg, 30_000, 15_000)).unwrap();
    sim.run().unwrap();
    let (verified, unprotected) = sim.audit_parity().unwrap();
    eprintln!("audit: {verified} verified, {unprotected} unprotected");
    assert!(verified > 100 * unprotected.max(1) / 2, "{verified} vs {unprotected}");
    assert!(sim.ftl().counters.erases > 0);
}

#[test]
fn without_rgc_rebuilds_can_meet_a_collecting_group() {
    let cfg = device();
    let run = run_stack(&cfg, "pb+gtr", opts(true), mixed(&cfg, 60_000, 15_000)).unwrap();
    let r = run.report.rain;
    assert!(r.rebuilt_reads > 0);
    assert_eq!(r.rebuilds_verified, r.rebuilt_reads);
    eprintln!("pb+gtr: {r:?}");
}

#[test]
fn seed_direction_on_mixed_workload() {
    let cfg = device();
    let mut rows = Vec::new();
    for s in STACKS {
        let run = run_stack(&cfg, s, opts(false), mixed(&cfg, 100_000, 60_000)).unwrap();
        let l = run.result.latency_us;
        eprintln!(
            "{s:12} read p99 {:9.0} p99.9 {:9.0} p99.99 {:9.0} mean {:7.0} | write p99.9 {:9.0} | blocked {:.5} erases {} parity {} {:?}",
            l.read.p99, l.read.p99_9, l.read.p99_99, l.all.mean, l.write.p99_9, run.blocked_fraction, run.erases, run.report.parity_pages_written, run.report.rain
        );
        rows.push(run);
    }
    let (nogc, base, pb, tt) = (&rows[0], &rows[1], &rows[2], &rows[5]);
    let r = |x: &ssdlab_core::rain::StackRun| x.result.latency_us.read;
    assert!(r(base).p99_9 > 5.0 * r(nogc).p99_9, "base p99.9 many times nogc's");
    assert!(pb.blocked_fraction <= base.blocked_fraction);
    assert!(r(pb).p99_9 < r(base).p99_9);
    // NOT YET the seed's result: on this write-heavy load ttflash saturates (rotating GC lets one
    // plane in eight collect, below the GC demand) and most GC-blocked reads are not rebuildable
    // (stripes break when GC erases any member block). See the branch report.
    let _ = tt;
    assert!(tt.report.parity_pages_written > 0);
}
