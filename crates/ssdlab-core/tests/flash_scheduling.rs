//! Flash scheduling (`flash.scheduler`: `fcfs`, `read-first`, `preemptible-gc`), timed exactly
//! on an idle plane of preset `tiny` (read 50 µs, program 500 µs, erase 2 ms, 10 µs page
//! transfer, copy-back: a GC copy is 550 µs of plane time).

use ssdlab_core::config::{DeviceConfig, FlashScheduler, Registry};
use ssdlab_core::flash::Resources;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{OpKind, VecSource};
use strum::IntoEnumIterator;

use crate::support::flash::read;
use crate::support::workloads::page_request as req;

const US: u64 = 1_000;
const READ: u64 = 50 * US;
const XFER: u64 = 10 * US;
const PROG: u64 = 500 * US;
const ERASE: u64 = 2_000 * US;
const COPY: u64 = READ + PROG;

fn device(scheduler: &str, extra: &[&str]) -> DeviceConfig {
    let mut sets = vec![format!("flash.scheduler=\"{scheduler}\"")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("tiny", &sets).unwrap()
}

#[test]
fn fcfs_reads_wait_for_every_queued_copy() {
    let mut res = Resources::new(&device("fcfs", &[]));
    assert_eq!(res.gc_copies(0, 0, 4), 4 * COPY);
    assert_eq!(read(&mut res, 0, 600 * US), 4 * COPY + READ + XFER);
    assert!(res.scheduling_report().is_none());
}

#[test]
fn a_read_first_read_passes_the_copies_not_started() {
    let mut res = Resources::new(&device("read-first", &[]));
    res.gc_copies(0, 0, 4);
    // Ready during the second copy [550, 1100): runs when it ends, the other two wait.
    assert_eq!(read(&mut res, 0, 600 * US), 2 * COPY + READ + XFER);
    assert_eq!(res.plane_free_at(0), 4 * COPY + READ + XFER);
    assert_eq!(res.gc_until(0), 4 * COPY + READ + XFER);
    assert_eq!(res.plane_free_at(1), 0, "the other plane is untouched");
    let rep = res.scheduling_report().unwrap();
    // The two copies passed are two steps, though one entry of the run.
    assert_eq!((rep.reads_passing, rep.ops_passed), (1, 2));
    assert!((rep.gc_delay_s - (READ + XFER) as f64 / 1e9).abs() < 1e-12);
    assert_eq!(rep.host_program_delay_s, 0.0);
}

#[test]
fn a_read_first_read_passes_a_queued_host_program_but_not_the_running_one() {
    let mut res = Resources::new(&device("read-first", &[]));
    assert_eq!(res.write(0, 0).done, XFER + PROG);
    // The second write is answered when issued; the read moves its program later.
    assert_eq!(res.write(0, 0).done, 2 * (XFER + PROG));
    assert_eq!(read(&mut res, 0, 100 * US), XFER + PROG + READ + XFER);
    assert_eq!(res.plane_free_at(0), 2 * (XFER + PROG) + READ + XFER);
    let rep = res.scheduling_report().unwrap();
    assert!((rep.host_program_delay_s - (READ + XFER) as f64 / 1e9).abs() < 1e-12);
}

#[test]
fn preemptible_gc_lets_reads_pass_gc_but_not_host_programs() {
    let mut res = Resources::new(&device("preemptible-gc", &[]));
    res.write(0, 0);
    res.write(0, 0);
    assert_eq!(read(&mut res, 0, 100 * US), 2 * (XFER + PROG) + READ + XFER);
    let mut res = Resources::new(&device("preemptible-gc", &[]));
    res.write(0, 0);
    res.gc_erase(0, 0);
    assert_eq!(read(&mut res, 0, 100 * US), XFER + PROG + READ + XFER);
    assert_eq!(res.gc_until(0), XFER + PROG + READ + XFER + ERASE);
}

#[test]
fn preemptible_gc_lets_a_host_write_pass_queued_gc() {
    let mut res = Resources::new(&device("preemptible-gc", &[]));
    res.gc_copies(0, 0, 2);
    res.gc_erase(0, 0);
    // Ready during the first copy: transfer in when it ends, then program.
    let w = res.write(0, 100 * US);
    assert_eq!(w.done, COPY + XFER + PROG);
    assert!(w.blocked_by_gc);
    assert_eq!(res.gc_until(0), COPY + XFER + PROG + COPY + ERASE);
    let rep = res.scheduling_report().unwrap();
    assert_eq!((rep.writes_passing, rep.ops_passed), (1, 2));
    // read-first does not let writes pass.
    let mut res = Resources::new(&device("read-first", &[]));
    res.gc_copies(0, 0, 2);
    assert_eq!(res.write(0, 100 * US).done, 2 * COPY + XFER + PROG);
}

#[test]
fn the_bound_on_passes_makes_the_next_read_wait() {
    let mut res = Resources::new(&device("read-first", &["flash.max_passes=1"]));
    res.gc_copies(0, 0, 4);
    let first = read(&mut res, 0, 100 * US);
    assert_eq!(first, COPY + READ + XFER);
    // The rest of the run has been passed once: the next read waits for all of it.
    let end = 4 * COPY + READ + XFER;
    assert_eq!(res.plane_free_at(0), end);
    assert_eq!(read(&mut res, 0, 700 * US), end + READ + XFER);
}

#[test]
fn forced_gc_is_never_passed() {
    let mut res = Resources::new(&device("preemptible-gc", &[]));
    res.set_gc_forced(true);
    res.gc_copies(0, 0, 2);
    res.set_gc_forced(false);
    assert_eq!(read(&mut res, 0, 100 * US), 2 * COPY + READ + XFER);
    // GC reserved after the flag is off is passed again.
    res.gc_erase(0, 0);
    let t = 2 * COPY + READ + XFER + 10 * US;
    assert_eq!(
        read(&mut res, 0, t),
        2 * COPY + READ + XFER + ERASE + READ + XFER
    );
}

#[test]
fn without_multiplane_a_read_of_the_other_plane_passes_on_the_die() {
    let mut res = Resources::new(&device("read-first", &["timing.multiplane=false"]));
    res.gc_copies(0, 0, 4);
    assert_eq!(read(&mut res, 1, 600 * US), 2 * COPY + READ + XFER);
    assert_eq!(res.plane_free_at(0), 4 * COPY + READ + XFER);
    assert_eq!(
        res.plane_free_at(1),
        4 * COPY + READ + XFER,
        "one die, one time line"
    );
}

#[test]
fn a_scheduler_is_refused_with_suspension_or_channel_blocking() {
    for extra in ["flash.suspend=\"erase\"", "flash.gc_blocking=\"channel\""] {
        let sets = vec![
            "flash.scheduler=\"read-first\"".to_string(),
            extra.to_string(),
        ];
        let e = DeviceConfig::from_preset("tiny", &sets)
            .unwrap_err()
            .to_string();
        assert!(e.contains("flash.scheduler"), "{e}");
    }
    let sets = vec![
        "flash.scheduler=\"read-first\"".to_string(),
        "flash.max_passes=0".into(),
    ];
    let e = DeviceConfig::from_preset("tiny", &sets)
        .unwrap_err()
        .to_string();
    assert!(e.contains("flash.max_passes"), "{e}");
}

/// GC-heavy random writes with reads, timed open loop on `tiny`.
fn mixed(scheduler: &str) -> ssdlab_core::stats::SimResult {
    let mut reqs = Vec::new();
    let pages = 6_000u64;
    let mut x = 12_345u64;
    for i in 0..40_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let op = if (x >> 60) < 5 {
            OpKind::Read
        } else {
            OpKind::Write
        };
        reqs.push(req(i * 600, op, (x >> 20) % pages, 1));
    }
    let opts = SimOptions {
        replay: Replay::OpenLoop { time_scale: 1.0 },
        seed: 1,
        precondition: Some(ssdlab_core::sim::Precondition {
            sequential: true,
            random_passes: 1.0,
            fill_fraction: 1.0,
        }),
        ..SimOptions::default()
    };
    Simulation::new(device(scheduler, &[]), opts, Box::new(VecSource::new(reqs)))
        .unwrap()
        .run()
        .unwrap()
}

#[test]
fn passing_cuts_the_read_tail_under_gc_and_changes_no_flash_work() {
    let fcfs = mixed("fcfs");
    assert!(fcfs.erases > 100, "the workload must make GC erase");
    assert!(fcfs.layers.flash.is_none());
    for s in FlashScheduler::iter().filter(|&s| s != FlashScheduler::Fcfs) {
        let s = s.name();
        let r = mixed(s);
        assert_eq!(
            (r.erases, r.gc_pages_copied, r.host_pages_written),
            (fcfs.erases, fcfs.gc_pages_copied, fcfs.host_pages_written),
            "{s}: passing moves times, not data"
        );
        let rep = r.layers.flash.clone().unwrap().scheduling.unwrap();
        if s == "fair" {
            // One workload is one flow: nothing passes, first come, first served.
            assert_eq!(r.latency_us, fcfs.latency_us, "{s}");
            assert_eq!((rep.reads_passing, rep.writes_passing), (0, 0), "{s}");
            continue;
        }
        let (p, q) = (r.latency_us.read.p99_9, fcfs.latency_us.read.p99_9);
        assert!(p < q, "{s}: read p99.9 {p} vs fcfs {q}");
        assert!(rep.reads_passing > 0 && rep.ops_passed > 0, "{s}");
    }
    assert_eq!(FlashScheduler::default(), FlashScheduler::Fcfs);
}
