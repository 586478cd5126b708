//! Program/erase suspension (`flash.suspend`, Wu & He, FAST 2012), timed exactly on an idle
//! plane of preset `tiny` (read 50 µs, program 500 µs, erase 2 ms, 10 µs page transfer) with
//! round suspension times: erase suspend 20 µs, program suspend 15 µs, resume 7 µs.

use ssdlab_core::config::{DeviceConfig, SuspendMode};
use ssdlab_core::flash::Resources;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{OpKind, VecSource};

use crate::support::flash::read;
use crate::support::workloads::page_request as req;

const US: u64 = 1_000;
const READ: u64 = 50 * US;
const XFER: u64 = 10 * US;
const PROG: u64 = 500 * US;
const ERASE: u64 = 2_000 * US;
const ESUSP: u64 = 20 * US;
const PSUSP: u64 = 15 * US;
const RESUME: u64 = 7 * US;

fn device(mode: &str, extra: &[&str]) -> DeviceConfig {
    let mut sets = vec![
        format!("flash.suspend=\"{mode}\""),
        "timing.tlc.erase_suspend_us=20".into(),
        "timing.tlc.program_suspend_us=15".into(),
        "timing.tlc.resume_us=7".into(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("tiny", &sets).unwrap()
}

#[test]
fn a_read_behind_an_erase_waits_for_all_of_it_without_suspension() {
    let mut res = Resources::new(&device("none", &[]));
    assert_eq!(res.gc_erase(0, 0), ERASE);
    assert_eq!(read(&mut res, 0, 500 * US), ERASE + READ + XFER);
    assert!(res.suspend_report().is_none());
}

#[test]
fn a_read_suspends_an_erase_which_ends_later_by_exactly_the_time_taken() {
    let mut res = Resources::new(&device("erase", &[]));
    res.gc_erase(0, 0);
    let r = 500 * US;
    // Suspend latency, then the read and its transfer.
    assert_eq!(read(&mut res, 0, r), r + ESUSP + READ + XFER);
    // The erase: suspend latency + read + its remaining time + resume overhead.
    let erase_done = r + ESUSP + READ + XFER + (ERASE - r) + RESUME;
    assert_eq!(res.plane_free_at(0), erase_done);
    assert_eq!(res.gc_until(0), erase_done);
    // The other plane of the die (multi-plane operation on) is untouched.
    assert_eq!(res.plane_free_at(1), 0);
    let rep = res.suspend_report().unwrap();
    assert_eq!((rep.busy_reads, rep.erase_suspensions), (1, 1));
    assert_eq!(rep.program_suspensions, 0);
    let moved = (erase_done - ERASE) as f64 / 1e9;
    assert!((rep.time_suspended_s - moved).abs() < 1e-12);
    assert!((rep.gc_time_suspended_s - moved).abs() < 1e-12);
    assert_eq!(rep.host_program_delay_s, 0.0);
}

#[test]
fn the_cap_makes_the_next_read_wait() {
    let mut res = Resources::new(&device("erase", &["flash.max_suspensions=2"]));
    res.gc_erase(0, 0);
    let one = ESUSP + READ + XFER + RESUME;
    assert_eq!(read(&mut res, 0, 500 * US), 500 * US + ESUSP + READ + XFER);
    assert_eq!(
        read(&mut res, 0, 1_000 * US),
        1_000 * US + ESUSP + READ + XFER
    );
    assert_eq!(res.plane_free_at(0), ERASE + 2 * one);
    // The third finds the erase at its cap: it waits for the rest of it.
    assert_eq!(read(&mut res, 0, 1_500 * US), ERASE + 2 * one + READ + XFER);
    let rep = res.suspend_report().unwrap();
    assert_eq!(
        (rep.erase_suspensions, rep.cap_reached, rep.busy_reads),
        (2, 1, 3)
    );
}

#[test]
fn a_read_arriving_during_a_suspension_joins_it() {
    let mut res = Resources::new(&device("erase", &[]));
    res.gc_erase(0, 0);
    let first = read(&mut res, 0, 500 * US);
    assert_eq!(first, 500 * US + ESUSP + READ + XFER);
    // Arrives while the first is read: runs after it, with no second suspend latency.
    assert_eq!(read(&mut res, 0, 510 * US), first + READ + XFER);
    let erase_done = ERASE + (ESUSP + READ + XFER + RESUME) + (READ + XFER);
    assert_eq!(res.plane_free_at(0), erase_done);
    let rep = res.suspend_report().unwrap();
    assert_eq!((rep.erase_suspensions, rep.joined_reads), (1, 1));
}

#[test]
fn erase_mode_leaves_programs_alone_and_program_erase_suspends_them() {
    // A host write at 0: transfer in [0, 10), program [10, 510) µs.
    for (mode, expect) in [
        ("erase", XFER + PROG + READ + XFER),
        ("program-erase", 100 * US + PSUSP + READ + XFER),
    ] {
        let mut res = Resources::new(&device(mode, &[]));
        assert_eq!(res.write(0, 0).done, XFER + PROG);
        assert_eq!(read(&mut res, 0, 100 * US), expect, "{mode}");
    }
    let mut res = Resources::new(&device("program-erase", &[]));
    res.write(0, 0);
    read(&mut res, 0, 100 * US);
    assert_eq!(
        res.plane_free_at(0),
        XFER + PROG + (PSUSP + READ + XFER) + RESUME
    );
    let rep = res.suspend_report().unwrap();
    assert_eq!(rep.program_suspensions, 1);
    assert!(rep.host_program_delay_s > 0.0 && rep.gc_time_suspended_s == 0.0);
}

#[test]
fn a_program_is_suspended_no_earlier_than_its_program_phase() {
    let mut res = Resources::new(&device("program-erase", &[]));
    res.write(0, 0);
    // Ready during the write's data transfer: suspends when the program starts (10 µs).
    assert_eq!(read(&mut res, 0, 5 * US), XFER + PSUSP + READ + XFER);
}

#[test]
fn a_read_waits_when_the_operation_ends_within_the_suspend_latency() {
    let mut res = Resources::new(&device("erase", &[]));
    res.gc_erase(0, 0);
    assert_eq!(read(&mut res, 0, ERASE - 15 * US), ERASE + READ + XFER);
    let rep = res.suspend_report().unwrap();
    assert_eq!((rep.busy_reads, rep.erase_suspensions), (1, 0));
}

#[test]
fn without_multiplane_a_read_of_the_other_plane_suspends_the_die() {
    let mut res = Resources::new(&device("erase", &["timing.multiplane=false"]));
    res.gc_erase(0, 0);
    let r = 500 * US;
    assert_eq!(read(&mut res, 1, r), r + ESUSP + READ + XFER);
    let erase_done = ERASE + ESUSP + READ + XFER + RESUME;
    assert_eq!(res.plane_free_at(0), erase_done);
    assert_eq!(res.plane_free_at(1), erase_done, "the die is one time line");
}

#[test]
fn an_operation_queued_after_the_erase_is_the_one_a_read_finds() {
    let mut res = Resources::new(&device("erase", &[]));
    res.gc_erase(0, 0);
    // A GC copy queued behind the erase: the read waits FCFS and suspends nothing (programs
    // are not suspended in erase mode).
    let copy_done = res.gc_copy(0, 0);
    assert_eq!(copy_done, ERASE + READ + PROG);
    assert_eq!(read(&mut res, 0, 500 * US), copy_done + READ + XFER);
}

/// GC-heavy random writes with reads, timed open loop on `tiny`.
fn mixed(suspend: &str) -> ssdlab_core::stats::SimResult {
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
    let cfg = device(suspend, &[]);
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
    Simulation::new(cfg, opts, Box::new(VecSource::new(reqs)))
        .unwrap()
        .run()
        .unwrap()
}

#[test]
fn suspension_cuts_the_read_tail_under_gc_and_changes_no_flash_work() {
    let off = mixed("none");
    let erase = mixed("erase");
    let both = mixed("program-erase");
    assert!(off.erases > 100, "the workload must make GC erase");
    for r in [&erase, &both] {
        // The FTL does the same work: suspension moves times, not data.
        assert_eq!(
            (r.erases, r.gc_pages_copied, r.host_pages_written),
            (off.erases, off.gc_pages_copied, off.host_pages_written)
        );
    }
    let p = |r: &ssdlab_core::stats::SimResult| r.latency_us.read.p99_9;
    assert!(p(&erase) < p(&off), "{} vs {}", p(&erase), p(&off));
    assert!(p(&both) < p(&off), "{} vs {}", p(&both), p(&off));
    let rep = erase.layers.flash.unwrap().suspension.unwrap();
    assert!(rep.erase_suspensions > 0 && rep.program_suspensions == 0);
    assert!(
        both.layers
            .flash
            .unwrap()
            .suspension
            .unwrap()
            .program_suspensions
            > 0
    );
    assert!(off.layers.flash.is_none());
    assert_eq!(SuspendMode::default(), SuspendMode::None);
}
