//! Tiny-Tail Flash with the paper's logical stripes (`rain.layout = "logical"`): pages pinned to
//! their planes, per-plane GC, parity by read-modify-write. Parity verified by checksums after
//! GC and trims; rotating GC keeps one collecting plane per group; GTR is a step down.

use crate::support::devices::{mixed_on as mixed, ttflash_test_device};
use crate::support::workloads::{preconditioned as opts, Mixed};
use ssdlab_core::config::{DeviceConfig, RainLayout};
use ssdlab_core::experiments::ttflash::{device_for, run_stack};
use ssdlab_core::ftl::rain::LogicalRain;
use ssdlab_core::sim::Simulation;
use ssdlab_core::trace::{OpKind, Request, RequestSource};
use ssdlab_core::Result;

/// The test device of `tests/ttflash.rs` (8 channels × 4 chips, 64 × 32-page blocks, 40 %
/// spare), with logical stripes.
fn device() -> DeviceConfig {
    ttflash_test_device(&["rain.layout=logical"])
}

#[test]
fn stripes_span_the_channels_of_one_group_and_parity_is_mapped_beyond_the_user() {
    let cfg = device_for(&device(), "ttflash").unwrap();
    let phys = cfg.rain_physical();
    assert_eq!(phys.rain.layout, RainLayout::Logical);
    let user = cfg.geometry.logical_pages();
    // Parity on top: the plain device's blocks × 8/7, and one mapped parity page per stripe.
    assert_eq!(phys.geometry.blocks_per_plane, 74);
    assert_eq!(phys.geometry.logical_pages(), user + user.div_ceil(7));
    let (channels, groups) = (8, 4);
    let l = LogicalRain::new(channels, groups, user as u32, false);
    for s in [0, 1, 3, 4, 5, 31, 32, 1000] {
        let (plpn, pplane) = l.parity(s);
        assert_eq!(plpn, user as u32 + s);
        let mut planes: Vec<u32> = l.members(s).map(|p| l.data_plane(p)).collect();
        planes.push(pplane);
        assert_eq!(planes.len(), channels as usize);
        let mut chans: Vec<u32> = planes.iter().map(|p| p / groups).collect();
        chans.sort_unstable();
        chans.dedup();
        assert_eq!(
            chans.len(),
            channels as usize,
            "stripe {s}: one page per channel"
        );
        assert!(
            planes.iter().all(|p| p % groups == s % groups),
            "stripe {s}"
        );
    }
    // The parity channel rotates over a group's stripes.
    let pch: Vec<u32> = (0..8).map(|k| l.parity(k * groups).1 / groups).collect();
    assert_eq!(pch, (0..8).collect::<Vec<_>>());
}

#[test]
fn rebuilds_and_the_parity_audit_hold_under_per_plane_gc() {
    for stack in ["base+rain", "pb+gtr", "pb+gtr+gtf", "ttflash"] {
        let cfg = device_for(&device(), stack).unwrap();
        let mut sim =
            Simulation::new(cfg.clone(), opts(true), mixed(&cfg, 30_000, 15_000, 50)).unwrap();
        let res = sim.run().unwrap();
        let r = sim.ttflash_report().layer.rain;
        let (verified, open) = sim.audit_parity().unwrap();
        eprintln!(
            "{stack}: erases {} audit {verified}/{open}; {r:?}",
            res.erases
        );
        assert!(res.erases > 0, "{stack}: GC must run");
        assert_eq!(open, 0, "{stack}: no page is ever unprotected");
        assert!(verified as f64 > 0.99 * cfg.geometry.logical_pages() as f64);
        assert_eq!(r.host_parity_writes, r.host_stripes);
        assert_eq!(r.rebuilds_verified, r.rebuilt_reads, "{stack}");
        if stack != "base+rain" {
            assert!(r.rebuilt_reads > 0, "{stack}: GTR must be exercised");
        }
    }
}

#[test]
fn rotating_gc_keeps_one_collecting_plane_per_group() {
    let cfg = device();
    let run = run_stack(
        &cfg,
        "ttflash",
        opts(true),
        mixed(&cfg, 60_000, 200_000, 70),
    )
    .unwrap();
    let r = run.report.layer.rain;
    eprintln!("ttflash (logical): {r:?} erases {}", run.erases);
    assert!(run.erases > 0 && r.rebuilt_reads > 0);
    assert_eq!(r.forced_gc, 0, "the rotation keeps up at this rate");
    assert_eq!(r.rebuild_while_group_collecting, 0);
    assert_eq!(r.rebuilds_verified, r.rebuilt_reads);
    // Without rotation, planes of a group do collect at the same time.
    let pb = run_stack(&cfg, "pb+gtr", opts(true), mixed(&cfg, 60_000, 200_000, 70)).unwrap();
    assert!(pb.report.layer.rain.rebuild_while_group_collecting > 0);
}

fn read_p999(r: &ssdlab_core::experiments::ttflash::StackRun) -> f64 {
    serde_json::to_value(&r.result).unwrap()["latency_us"]["read"]["p99_9"]
        .as_f64()
        .unwrap()
}

/// The point of per-plane GC: without rotation the planes of a group collect at different
/// times, so GTR rebuilds reads that super-block GC (all N planes at once) leaves waiting.
#[test]
fn gtr_is_a_step_down_with_per_plane_gc() {
    let cfg = device();
    let run = |stack: &str, layout: &str| {
        let mut c = cfg.clone();
        c.rain.layout = if layout == "logical" {
            RainLayout::Logical
        } else {
            RainLayout::SuperBlock
        };
        run_stack(&c, stack, opts(false), mixed(&c, 60_000, 200_000, 70)).unwrap()
    };
    let (pb, gtr) = (run("pb+rain", "logical"), run("pb+gtr", "logical"));
    let (pb_sb, gtr_sb) = (run("pb+rain", "super-block"), run("pb+gtr", "super-block"));
    let step = read_p999(&gtr) / read_p999(&pb);
    let step_sb = read_p999(&gtr_sb) / read_p999(&pb_sb);
    eprintln!(
        "read p99.9 pb → pb+gtr: logical {:.0} → {:.0} µs ({step:.2}), super-block {:.0} → {:.0} ({step_sb:.2})",
        read_p999(&pb),
        read_p999(&gtr),
        read_p999(&pb_sb),
        read_p999(&gtr_sb)
    );
    assert!(
        step < 0.9,
        "GTR must cut the p99.9 by 10 % or more: {step:.2}"
    );
    assert!(step < step_sb, "and more than under super-block GC");
    assert!(gtr.report.layer.rain.rebuilt_reads > 0);
}

/// Trims and writes interleaved: a trimmed page leaves its stripe's parity (which is
/// rewritten), so the rest of the stripe still rebuilds.
struct TrimsAndWrites {
    inner: Mixed,
    k: u64,
}

impl RequestSource for TrimsAndWrites {
    fn next_request(&mut self) -> Result<Option<Request>> {
        let Some(mut r) = self.inner.next_request()? else {
            return Ok(None);
        };
        self.k += 1;
        if self.k % 5 == 0 {
            r.op = OpKind::Trim;
            r.size_bytes *= 3;
            r.offset_bytes = r.offset_bytes.min(
                (self.inner.pages - 3) * self.inner.page, // stay inside the device
            );
        }
        Ok(Some(r))
    }
    fn describe(&self) -> String {
        "trims and writes".into()
    }
}

#[test]
fn trims_keep_parity_valid() {
    let cfg = device_for(&device(), "pb+gtr").unwrap();
    let pages = cfg.geometry.logical_pages();
    let src = TrimsAndWrites {
        inner: Mixed::new(20_000, 15_000, 40, pages, u64::from(cfg.geometry.page_size)),
        k: 0,
    };
    let mut sim = Simulation::new(cfg.clone(), opts(true), Box::new(src)).unwrap();
    sim.run().unwrap();
    let (verified, open) = sim.audit_parity().unwrap();
    let r = sim.ttflash_report().layer.rain;
    assert!(sim.ftl().counters.trimmed_pages > 0);
    assert_eq!(open, 0);
    assert!(verified > 0 && verified < pages, "{verified}");
    assert!(
        r.host_parity_writes > r.host_stripes,
        "trims rewrite parity"
    );
}
