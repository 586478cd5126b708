//! Exact timing on simple cases: idle-device latencies equal the datasheet sums, and N reads
//! queued on one plane give the expected staircase. Preset `tiny`: read 50 µs, program 500 µs,
//! erase 2 ms, 4 KiB pages over 409.6 MB/s = 10 µs transfer.

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{OpKind, Request, VecSource};

const READ: f64 = 50.0;
const PROG: f64 = 500.0;
const XFER: f64 = 10.0;

fn run(sets: &[&str], reqs: Vec<Request>, replay: Replay) -> ssdlab_core::stats::SimResult {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
    let opts = SimOptions {
        replay,
        ..SimOptions::default()
    };
    Simulation::new(cfg, opts, Box::new(VecSource::new(reqs)))
        .unwrap()
        .run()
        .unwrap()
}

use crate::support::workloads::page_request as req;

const OPEN: Replay = Replay::OpenLoop { time_scale: 1.0 };

#[test]
fn idle_write_is_transfer_plus_program() {
    let r = run(&[], vec![req(0, OpKind::Write, 0, 1)], OPEN);
    assert_eq!(r.latency_us.write.max, XFER + PROG);
}

#[test]
fn idle_read_is_read_plus_transfer() {
    // Write, then read long after the write completed.
    let r = run(
        &[],
        vec![req(0, OpKind::Write, 7, 1), req(10_000, OpKind::Read, 7, 1)],
        OPEN,
    );
    assert_eq!(r.latency_us.read.max, READ + XFER);
    assert_eq!(r.latency_us.read.count, 1);
}

#[test]
fn controller_overhead_adds_once() {
    let r = run(
        &["timing.controller_overhead_ns=3000"],
        vec![req(0, OpKind::Write, 0, 1), req(10_000, OpKind::Read, 0, 1)],
        OPEN,
    );
    assert_eq!(r.latency_us.write.max, 3.0 + XFER + PROG);
    assert_eq!(r.latency_us.read.max, 3.0 + READ + XFER);
}

#[test]
fn reads_to_one_plane_form_a_staircase() {
    // Static allocation: lpn mod 4 = plane; pages 0, 4, 8, ... all on plane 0.
    let n = 6u64;
    let mut reqs: Vec<Request> = (0..n).map(|i| req(0, OpKind::Write, 4 * i, 1)).collect();
    reqs.extend((0..n).map(|i| req(100_000, OpKind::Read, 4 * i, 1)));
    let r = run(&["ftl.allocation=\"static\""], reqs, OPEN);
    // All arrive together; the plane serves them one after another (register held through the
    // transfer): the k-th completes at k·(READ + XFER). Mean = (n+1)/2 · 60 µs, max = n · 60 µs.
    let step = READ + XFER;
    assert_eq!(r.latency_us.read.max, n as f64 * step);
    assert!(
        (r.latency_us.read.mean - (n as f64 + 1.0) / 2.0 * step).abs() < 0.1,
        "{}",
        r.latency_us.read.mean
    );
    // The writes: each waits for the previous program on the same plane.
    assert_eq!(r.latency_us.write.max, n as f64 * (XFER + PROG));
}

#[test]
fn reads_on_different_channels_overlap() {
    // Pages 0..4 land on the four planes (static); planes 0,1 on channel 0 and 2,3 on channel 1.
    let mut reqs: Vec<Request> = (0..4).map(|i| req(0, OpKind::Write, i, 1)).collect();
    reqs.push(req(100_000, OpKind::Read, 0, 4));
    let r = run(&["ftl.allocation=\"static\""], reqs, OPEN);
    // Array reads run in parallel on four planes; two transfers share each channel.
    assert_eq!(r.latency_us.read.max, READ + 2.0 * XFER);
}

#[test]
fn closed_loop_queue_depth_one_serialises() {
    let reqs: Vec<Request> = (0..10).map(|i| req(0, OpKind::Write, i, 1)).collect();
    let r = run(&[], reqs, Replay::ClosedLoop { queue_depth: 1 });
    assert_eq!(r.latency_us.write.max, XFER + PROG);
    assert!(
        (r.sim_time_s - 10.0 * (XFER + PROG) / 1e6).abs() < 1e-9,
        "{}",
        r.sim_time_s
    );
}

#[test]
fn gc_blocks_requests_behind_it() {
    // Tiny device, static allocation, fill plane 0's logical share repeatedly: GC erases (2 ms)
    // and copies must show up as blocked requests and a tail far above the idle write time.
    let mut reqs = Vec::new();
    let mut t = 0;
    for round in 0..40u64 {
        for i in 0..300u64 {
            t += 700;
            reqs.push(req(t, OpKind::Write, 4 * ((i * 7 + round) % 300), 1));
        }
    }
    let r = run(&["ftl.allocation=\"static\""], reqs, OPEN);
    assert!(r.erases > 0 && r.blocked_requests > 0, "{r:?}");
    assert!(
        r.latency_us.write.max >= 2000.0,
        "an erase must have delayed some write: {}",
        r.latency_us.write.max
    );
}

/// A run of GC copies timed at once (`Resources::gc_copies`) gives the same plane times, busy
/// time and GC run as one `gc_copy` per page, with and without multi-plane operation, behind
/// host work and after an idle gap; where it cannot batch (copy-back off) it makes those calls.
#[test]
fn gc_copies_in_a_row_equal_one_call_each() {
    use ssdlab_core::flash::Resources;
    for sets in [
        vec![],
        vec!["timing.multiplane=false".to_string()],
        vec!["timing.copyback=false".to_string()],
    ] {
        let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
        let mut a = Resources::new(&cfg);
        a.write(1, 0);
        a.write(0, 10_000);
        let mut b = a.clone();
        for (plane, not_before, n) in [(0u32, 5_000u64, 7u32), (1, 90_000_000, 3), (0, 0, 1)] {
            let mut done = 0;
            for _ in 0..n {
                done = a.gc_copy(plane, not_before);
            }
            assert_eq!(b.gc_copies(plane, not_before, n), done, "{sets:?}");
            assert_eq!(b.plane_free_at(plane), a.plane_free_at(plane));
            assert_eq!(b.plane_free_at(plane ^ 1), a.plane_free_at(plane ^ 1));
            assert_eq!(b.gc_busy_ns, a.gc_busy_ns);
            assert_eq!(b.gc_until(plane), a.gc_until(plane));
            for t in [0, done / 2, done - 1, done] {
                assert_eq!(b.gc_collecting_at(plane, t), a.gc_collecting_at(plane, t));
            }
        }
    }
}

/// Partial GC's actions (`GcContext::copy_up_to`, what `partial::run_action` runs) time whole-page
/// copies in a row together: the same copies, finish time, plane time, GC run and busy time as
/// one `GcContext::step` each from the previous end — with copy-back on (batched), off (one
/// call each) and with mapping units smaller than a page (copies that neither read nor program).
#[test]
fn partial_gc_copies_up_to_k_equal_one_step_each() {
    use rand::Rng;
    use ssdlab_core::flash::Resources;
    use ssdlab_core::ftl::gc::GcContext;
    use ssdlab_core::ftl::map::{Ftl, GcStep};
    use ssdlab_core::rng::stream;
    for sets in [
        vec![],
        vec!["timing.copyback=false".to_string()],
        vec!["ftl.mapping_unit_bytes=1024".to_string()],
    ] {
        let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
        let mut ftl = Ftl::new(&cfg).unwrap();
        let mut rng = stream(5, "gc");
        let mut wl = stream(5, "wl");
        // Fill and overwrite, timing-free, so that closed blocks hold valid pages.
        let n = ftl.logical_pages();
        for i in 0..3 * n {
            let lpn = if i < n { i } else { wl.gen_range(0..n) };
            let plane = ftl.next_host_plane(lpn);
            while !ftl.host_can_write(plane) {
                ftl.gc_step(plane, &mut rng).unwrap();
            }
            ftl.write_host(lpn, plane).unwrap();
        }
        let mut res = Resources::new(&cfg);
        res.write(0, 0);
        let mut total = 0;
        for (k, now) in [
            (5u32, 1_000u64),
            (1_000, 2_000_000),
            (1, 0),
            (3, 90_000_000),
        ] {
            if ftl.gc_victim_ready(0) {
                let mut gc = GcContext {
                    ftl: &mut ftl,
                    res: Some(&mut res),
                    rng: &mut rng,
                };
                gc.step(0, now).unwrap();
            }
            assert!(ftl.gc_begin(0, &mut rng), "{sets:?}: a victim on plane 0");
            let (mut fa, mut ra, mut ga) = (ftl.clone(), res.clone(), rng.clone());
            let (copies, t) = GcContext {
                ftl: &mut ftl,
                res: Some(&mut res),
                rng: &mut rng,
            }
            .copy_up_to(0, k, now)
            .unwrap();
            let mut one = GcContext {
                ftl: &mut fa,
                res: Some(&mut ra),
                rng: &mut ga,
            };
            let (mut copies_a, mut t_a) = (0, now);
            while copies_a < k && one.ftl.gc_remaining_copies(0) > 0 {
                let (s, done) = one.step(0, t_a).unwrap();
                t_a = done;
                assert!(matches!(s, GcStep::Copy { .. }));
                copies_a += 1;
            }
            assert_eq!((copies, t), (copies_a, t_a), "{sets:?} k {k}");
            assert_eq!(ftl.counters.gc_pages_copied, fa.counters.gc_pages_copied);
            assert_eq!(ftl.gc_job(0), fa.gc_job(0));
            assert_eq!(res.plane_free_at(0), ra.plane_free_at(0));
            assert_eq!(res.gc_until(0), ra.gc_until(0));
            assert_eq!(res.gc_busy_ns, ra.gc_busy_ns);
            for t in [0, t / 2, t.saturating_sub(1), t] {
                assert_eq!(res.gc_collecting_at(0, t), ra.gc_collecting_at(0, t));
            }
            total += copies;
        }
        assert!(total > 6, "{sets:?}: copies were made ({total})");
    }
}

/// `Resources::group_free_at` (RAIN's flush: when a parity group is free, leaving out its
/// planes busy with GC) answers as the chain over `group_of` it replaced, for every plane and
/// several moments, with planes busy with host writes and GC runs, multi-plane on and off.
#[test]
fn a_groups_free_time_skips_its_planes_under_gc() {
    use ssdlab_core::flash::Resources;
    for sets in [vec![], vec!["timing.multiplane=false".to_string()]] {
        let cfg = DeviceConfig::from_preset("mqsim-small", &sets).unwrap();
        let mut res = Resources::new(&cfg);
        let planes = cfg.geometry.planes();
        for p in 0..planes {
            res.write(p, u64::from(p) * 7_000);
        }
        for (p, at, n) in [
            (1u32, 0u64, 3u32),
            (5, 400_000, 2),
            (10, 0, 1),
            (14, 2_000_000, 4),
        ] {
            res.gc_copies(p, at, n);
        }
        let mut under_gc = 0;
        for now in [0, 500_000, 1_000_000, 3_000_000, 9_000_000] {
            for p in 0..planes {
                under_gc += u32::from(res.gc_busy_at(p, now));
                let chain = res
                    .group_of(p)
                    .filter(|&q| !res.gc_busy_at(q, now))
                    .map(|q| res.plane_free_at(q))
                    .max()
                    .unwrap_or(0);
                assert_eq!(
                    res.group_free_at(p, now),
                    chain,
                    "{sets:?} plane {p} at {now}"
                );
            }
        }
        assert!(under_gc > 0, "some plane must be under GC at some moment");
    }
}
