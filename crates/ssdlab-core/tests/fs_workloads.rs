//! File-system-like workloads (`trace::fs`, issue 13): seeded, aligned and in range; the file
//! model's invariants; fileserver's mix as `fileserver.f` sets it; `discard` and
//! `trim_deleted` TRIM exactly what was deleted; the personality never touches the stale
//! partition; and TRIMming the stale partition lowers the device's WAF — the effect Park &
//! Kim (IJCA 2018, §V) rely on.

use std::collections::BTreeSet;

use ssdlab_core::api;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{
    open_workload, ArrivalSpec, FsPersonality, FsSource, FsSpec, OpKind, Request, RequestSource,
    TrimMode, WorkloadSpec,
};
use strum::IntoEnumIterator;

const MIB: u64 = 1 << 20;

fn drain(s: &mut dyn RequestSource) -> Vec<Request> {
    let mut v = Vec::new();
    while let Some(r) = s.next_request().unwrap() {
        v.push(r);
    }
    v
}

/// A spec small enough for a 64 MiB device (filebench with fewer threads than files).
fn spec(p: FsPersonality, requests: u64) -> FsSpec {
    let mut s = FsSpec::new(p, requests);
    if p == FsPersonality::FioRandwrite {
        s.io_kib = Some(64);
    }
    s
}

fn data(v: &[Request]) -> impl Iterator<Item = &Request> {
    v.iter().filter(|r| r.op != OpKind::Trim)
}

#[test]
fn same_seed_same_requests_another_seed_others() {
    for p in FsPersonality::iter() {
        let s = WorkloadSpec::Fs(spec(p, 3000));
        let run = |seed| drain(open_workload(&s, 64 * MIB, 4096, seed).unwrap().as_mut());
        let a = run(7);
        assert!(data(&a).count() >= 3000, "{p:?}");
        assert_eq!(a, run(7), "{p:?}");
        // iozone makes no random choice (its cycle is fixed); the others do.
        if p != FsPersonality::Iozone {
            assert_ne!(a, run(8), "{p:?}");
        }
    }
    // Random arrivals come from their own stream: the addresses stay the same.
    let mut s = spec(FsPersonality::Fileserver, 2000);
    let plain = drain(&mut FsSource::new(&s, 64 * MIB, 4096, 3).unwrap());
    s.arrival = ArrivalSpec::Poisson { iops: 5000.0 };
    let timed = drain(&mut FsSource::new(&s, 64 * MIB, 4096, 3).unwrap());
    assert_eq!(plain.len(), timed.len());
    assert!(
        plain
            .iter()
            .zip(&timed)
            .all(|(a, b)| (a.op, a.offset_bytes, a.size_bytes)
                == (b.op, b.offset_bytes, b.size_bytes))
    );
    assert!(timed.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
    assert!(timed.last().unwrap().arrival_ns > 0 && plain.iter().all(|r| r.arrival_ns == 0));
}

#[test]
fn requests_are_aligned_and_inside_their_partition() {
    // 4 KiB pages (4 KiB clusters) and 8 KiB pages (8 KiB clusters: TRIMs whole pages).
    for page in [4096u64, 8192] {
        for p in FsPersonality::iter() {
            for (trim, stale) in [(TrimMode::None, 0.0), (TrimMode::Discard, 0.3)] {
                let mut s = spec(p, 4000);
                s.trim = trim;
                s.stale_fraction = stale;
                let logical = 64 * MIB + 3 * 4096;
                let mut src = FsSource::new(&s, logical, page, 11).unwrap();
                let (lo, hi) = src.partition_range();
                assert_eq!(lo % page, 0);
                let v = drain(&mut src);
                let what = format!("{p:?} {trim:?} page {page}");
                for r in &v {
                    assert!(r.size_bytes > 0, "{what}: {r:?}");
                    assert_eq!(r.offset_bytes % 4096, 0, "{what}: {r:?}");
                    assert_eq!(r.size_bytes % 4096, 0, "{what}: {r:?}");
                    assert!(r.offset_bytes + r.size_bytes <= hi, "{what}: {r:?}");
                    if r.op == OpKind::Trim {
                        assert_eq!(r.offset_bytes % page, 0, "{what}: {r:?}");
                        assert_eq!(r.size_bytes % page, 0, "{what}: {r:?}");
                        assert!(r.size_bytes <= 128 * MIB, "{what}: {r:?}");
                    } else {
                        assert!(r.size_bytes <= MIB, "{what}: {r:?}");
                    }
                }
                // After the stale prefill, everything is in the personality's partition.
                let stale_end = src.stale_range().map_or(0, |r| r.1);
                assert_eq!(stale_end, lo);
                let skip = v
                    .iter()
                    .position(|r| r.offset_bytes >= lo)
                    .unwrap_or(v.len());
                assert!(v[skip..].iter().all(|r| r.offset_bytes >= lo), "{what}");
            }
        }
    }
}

#[test]
fn the_file_model_keeps_its_invariants() {
    for p in FsPersonality::iter() {
        for trim in TrimMode::iter() {
            let mut s = spec(p, 20_000);
            s.trim = trim;
            s.stale_fraction = 0.25;
            let mut src = FsSource::new(&s, 32 * MIB, 4096, 5).unwrap();
            let mut n = 0u64;
            while src.next_request().unwrap().is_some() {
                n += 1;
                if n.is_multiple_of(97) {
                    src.check_invariants()
                        .unwrap_or_else(|e| panic!("{p:?} {trim:?} after {n}: {e}"));
                    if n.is_multiple_of(97 * 50) {
                        src.trim_deleted();
                    }
                }
                let f = src.fs_stats();
                assert_eq!(
                    f.deleted_bytes,
                    f.trimmed_bytes + f.pending_bytes + f.reallocated_bytes,
                    "{p:?} {trim:?}"
                );
                if trim == TrimMode::Discard {
                    assert_eq!(f.pending_bytes, 0);
                }
            }
            src.check_invariants().unwrap();
            let f = src.fs_stats();
            assert!(f.live_bytes <= f.capacity_bytes);
            if p != FsPersonality::FioRandwrite {
                assert!(f.deleted_bytes > 32 * MIB / 4, "{p:?}: {f:?}");
            }
        }
    }
}

/// fileserver.f: each thread's loop creates and writes a whole file (mean 128 KiB, gamma 1.5),
/// appends 1 B … 16 KiB − 1 B (mean 8 KiB) to another, reads a third whole and deletes a
/// fourth: two write calls for one read call. Bytes: a write loop moves 128 KiB + ½ block of
/// rounding + an append (8 KiB + ~½ block of its partial first and last blocks ≈ 12 KiB); a
/// read loop reads a file that has had on average one append since its creation (appends and
/// deletions hit a random existing file at the same rate): 128 + 8 + 2 KiB. Ratio ≈ 142/138.
#[test]
fn fileserver_mix_and_fileset_follow_fileserver_f() {
    let s = FsSpec::new(FsPersonality::Fileserver, 150_000);
    let mut src = FsSource::new(&s, 1 << 30, 4096, 21).unwrap();
    // The setup preallocates 80 % of a fileset of 50 % of the partition (4096 files).
    let mut v = Vec::new();
    let setup_live = loop {
        let r = src.next_request().unwrap().unwrap();
        v.push(r);
        let f = src.fs_stats();
        // The setup is over once the fileset's size stops growing without deletions.
        if f.deleted_bytes > 0 {
            break f.live_bytes;
        }
    };
    let live = setup_live as f64 / (1u64 << 30) as f64;
    assert!((live - 0.4).abs() < 0.03, "live after setup {live}");
    v.extend(drain(&mut src));
    let (mut wb, mut rb, mut wn, mut rn) = (0u64, 0u64, 0u64, 0u64);
    // The last 100,000 requests: steady state.
    for r in &v[v.len() - 100_000..] {
        match r.op {
            OpKind::Write => (wb, wn) = (wb + r.size_bytes, wn + 1),
            OpKind::Read => (rb, rn) = (rb + r.size_bytes, rn + 1),
            OpKind::Trim | OpKind::Flush => unreachable!("trim none, flush none"),
        }
    }
    let bytes = wb as f64 / rb as f64;
    assert!(
        (bytes / (142.0 / 138.0) - 1.0).abs() < 0.06,
        "write:read bytes {bytes}"
    );
    // Two write calls per read call, each one request unless it spans extents: creates are
    // contiguous (next-fit), but an append that needs a new cluster rarely finds the one after
    // the file free (the next file was placed there), so whole-file reads split at the extents
    // appends added — fewer than two write requests per read request.
    let calls = wn as f64 / rn as f64;
    assert!((1.5..2.1).contains(&calls), "write:read requests {calls}");
}

/// Replays `v` on a shadow of the device: which 4 KiB blocks hold data (written, not trimmed).
fn shadow(v: &[Request]) -> BTreeSet<u64> {
    let mut valid = BTreeSet::new();
    for r in v {
        let blocks = r.offset_bytes / 4096..(r.offset_bytes + r.size_bytes) / 4096;
        match r.op {
            OpKind::Write => valid.extend(blocks),
            OpKind::Trim => blocks.for_each(|b| {
                valid.remove(&b);
            }),
            OpKind::Read | OpKind::Flush => {}
        }
    }
    valid
}

fn blocks_of(ranges: &[(u64, u64)]) -> BTreeSet<u64> {
    ranges
        .iter()
        .flat_map(|&(o, n)| o / 4096..(o + n) / 4096)
        .collect()
}

#[test]
fn discard_trims_every_deleted_extent() {
    for p in [
        FsPersonality::Fileserver,
        FsPersonality::Varmail,
        FsPersonality::Iozone,
    ] {
        let mut s = spec(p, 8000);
        s.trim = TrimMode::Discard;
        s.stale_fraction = 0.25;
        let mut src = FsSource::new(&s, 32 * MIB, 4096, 2).unwrap();
        let v = drain(&mut src);
        let f = src.fs_stats();
        let trimmed: u64 = v
            .iter()
            .filter(|r| r.op == OpKind::Trim)
            .map(|r| r.size_bytes)
            .sum();
        assert_eq!(trimmed, f.deleted_bytes, "{p:?}");
        assert_eq!(f.pending_bytes, 0);
        // What the device still holds is live data only.
        let live = blocks_of(&src.live_extents());
        let extra: Vec<u64> = shadow(&v).difference(&live).take(3).copied().collect();
        assert!(
            extra.is_empty(),
            "{p:?}: deleted blocks still valid: {extra:?}"
        );
    }
}

#[test]
fn trim_deleted_trims_exactly_the_pending_extents() {
    for p in [FsPersonality::Fileserver, FsPersonality::Iozone] {
        let mut s = spec(p, 6000);
        s.stale_fraction = 0.5;
        let mut src = FsSource::new(&s, 32 * MIB, 4096, 4).unwrap();
        let mut v: Vec<Request> = (0..3000)
            .map(|_| src.next_request().unwrap().unwrap())
            .collect();
        // Without TRIM, the device holds live and pending (deleted) data.
        let live = blocks_of(&src.live_extents());
        let pending = src.pending_extents();
        assert!(!pending.is_empty());
        let stale = src.stale_range().unwrap();
        assert!(
            pending.iter().any(|&(o, _)| o < stale.1),
            "{p:?}: the rm'd partition is pending"
        );
        let pend = blocks_of(&pending);
        assert!(pend.is_disjoint(&live));
        let held = shadow(&v);
        assert!(held.is_subset(&live.union(&pend).copied().collect()));
        assert!(
            held.is_superset(&pend),
            "{p:?}: pending data is on the device"
        );
        let bytes = src.trim_deleted();
        assert_eq!(bytes, pending.iter().map(|e| e.1).sum::<u64>());
        assert_eq!(src.fs_stats().pending_bytes, 0);
        assert!(src.pending_extents().is_empty());
        // The next requests are those TRIMs, in order (split at 128 MiB), then the workload.
        let mut trims = Vec::new();
        loop {
            let r = src.next_request().unwrap().unwrap();
            v.push(r);
            if r.op != OpKind::Trim {
                break;
            }
            trims.push((r.offset_bytes, r.size_bytes));
        }
        assert_eq!(trims, pending);
        assert_eq!(src.trim_deleted(), 0, "nothing more is pending");
        assert!(shadow(&v[..v.len() - 1]).is_subset(&live));
    }
}

#[test]
fn the_personality_never_touches_the_stale_partition() {
    for p in FsPersonality::iter() {
        let mut s = spec(p, 5000);
        s.stale_fraction = 0.5;
        let mut src = FsSource::new(&s, 64 * MIB, 4096, 6).unwrap();
        let (lo, end) = src.stale_range().unwrap();
        assert_eq!((lo, end), (0, 32 * MIB));
        let v = drain(&mut src);
        // The prefill: the stale partition written once, in order, in 1 MiB writes.
        let fill: Vec<&Request> = v.iter().take_while(|r| r.offset_bytes < end).collect();
        assert_eq!(fill.len(), 32, "{p:?}");
        for (i, r) in fill.iter().enumerate() {
            assert_eq!(
                (r.op, r.offset_bytes, r.size_bytes),
                (OpKind::Write, i as u64 * MIB, MIB)
            );
        }
        assert!(v[32..].iter().all(|r| r.offset_bytes >= end), "{p:?}");
        assert!(src.fs_stats().pending_bytes >= 32 * MIB);
    }
}

fn waf(personality: FsPersonality, io_kib: u64, trim_after_prefill: bool) -> f64 {
    // tiny: 4 planes × 64 blocks × 32 pages × 4 KiB = 32 MiB, 20 % spare (25.6 MiB logical).
    let cfg = DeviceConfig::from_preset("tiny", &[]).unwrap();
    let logical = cfg.geometry.logical_bytes();
    let mut s = FsSpec::new(personality, 40_000);
    s.io_kib = Some(io_kib);
    if personality == FsPersonality::Fileserver {
        s.nthreads = Some(4); // 51 files on this partition
    }
    s.stale_fraction = 0.5;
    let src = FsSource::new(&s, logical, 4096, 1).unwrap();
    let opts = SimOptions {
        timing: false,
        ..SimOptions::default()
    };
    let mut sim = Simulation::new(cfg, opts, Box::new(src)).unwrap();
    if trim_after_prefill {
        // Run until the rm'd partition is pending, then TRIM it (the detector's response).
        while sim.host_fs().unwrap().pending_bytes == 0 {
            sim.advance(1).unwrap();
        }
        assert!(sim.trim_deleted() >= logical / 2 - 4096);
    }
    let r = sim.run().unwrap();
    assert_eq!(r.trimmed_pages > 0, trim_after_prefill);
    // The run's result carries the host file system's counters (`--json`'s `host_fs`).
    let fs = r
        .host_fs
        .as_ref()
        .expect("host_fs of a file-system workload");
    assert_eq!(
        fs["trimmed_bytes"].as_u64().unwrap() > 0,
        trim_after_prefill,
        "{fs}"
    );
    r.waf
}

#[test]
fn trimming_the_stale_partition_lowers_waf() {
    // 4 KiB random writes on the other half of a full device: without TRIM the rm'd half is
    // still valid data GC must carry; with it, GC works on a half-empty device.
    let without = waf(FsPersonality::FioRandwrite, 4, false);
    let with = waf(FsPersonality::FioRandwrite, 4, true);
    assert!(without > 1.3, "without TRIM {without}");
    assert!(with < 0.75 * without, "with {with}, without {without}");
    // The same for fileserver's churn.
    let without = waf(FsPersonality::Fileserver, 1024, false);
    let with = waf(FsPersonality::Fileserver, 1024, true);
    assert!(with < without, "fileserver: with {with}, without {without}");
}

#[test]
fn bad_options_are_one_line_errors_naming_the_field() {
    for (json, field) in [
        (
            r#"{"kind": "fs", "personality": "webserver", "requests": 5}"#,
            "fileserver",
        ),
        (
            r#"{"kind": "fs", "personality": "iozone", "requests": 5, "nfiles": 3}"#,
            "nfiles",
        ),
        (
            r#"{"kind": "fs", "personality": "iozone", "requests": 0}"#,
            "requests: expected > 0",
        ),
        (
            r#"{"kind": "fs", "personality": "fio-randwrite", "requests": 5, "io_kib": 3}"#,
            "io_kib: expected",
        ),
        (
            r#"{"kind": "fs", "personality": "fio-randwrite", "requests": 5, "trim": "fstrim"}"#,
            "discard",
        ),
        (
            r#"{"kind": "fs", "personality": "varmail", "requests": 5, "stale_fraction": 1}"#,
            "stale_fraction: expected",
        ),
        (
            r#"{"kind": "fs", "personality": "iozone", "requests": 5, "file_mib": 100}"#,
            "file_mib: expected",
        ),
        (
            r#"{"kind": "fs", "personality": "fio-randwrite", "requests": 5, "nthreads": 4}"#,
            "nthreads: expected no value",
        ),
        (
            r#"{"kind": "fs", "personality": "fileserver", "requests": 5, "stale_fraction": 0.5, "partition_fraction": 0.000001}"#,
            "partition_fraction: expected",
        ),
    ] {
        let e = api::parse_workload(json)
            .and_then(|w| open_workload(&w, 64 * MIB, 4096, 1).map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && !e.contains('\n'), "{json}: {e}");
    }
    // A full partition is an error, not a panic or a loop: one file of mean 16 MiB on a
    // 16 MiB partition does not fit whenever its gamma-drawn size exceeds the mean.
    let mut s = FsSpec::new(FsPersonality::Fileserver, 1000);
    s.fileset_fraction = Some(1.0);
    s.mean_file_kib = Some(16384.0);
    s.nthreads = Some(1);
    let mut full = 0;
    for seed in 1..=12 {
        let mut src = FsSource::new(&s, 16 * MIB, 4096, seed).unwrap();
        let e = loop {
            match src.next_request() {
                Ok(Some(_)) => {}
                Ok(None) => break String::new(),
                Err(e) => break e.to_string(),
            }
        };
        if e.contains("full") {
            assert!(
                e.contains("fileserver: the 16.0 MiB partition is full")
                    && e.contains("fileset_fraction"),
                "{e}"
            );
            full += 1;
        }
    }
    assert!(full > 0);
}

#[test]
fn fs_workloads_run_closed_loop_through_the_api() {
    let w = api::parse_workload(
        r#"{"kind": "fs", "personality": "varmail", "requests": 3000, "trim": "discard", "stale_fraction": 0.2}"#,
    )
    .unwrap();
    let cfg = DeviceConfig::from_preset("tiny", &["geometry.blocks_per_plane=256".into()]).unwrap();
    let opts = SimOptions {
        replay: Replay::ClosedLoop { queue_depth: 16 },
        ..SimOptions::default()
    };
    let mut sim = api::build_simulation(cfg, &w, opts).unwrap();
    let r = sim.run().unwrap();
    assert!(r.requests.read > 0 && r.requests.write > 3000 - r.requests.read);
    assert!(r.requests.trim > 0 && r.trimmed_pages > 0);
    assert!(r.workload.starts_with("fs varmail"), "{}", r.workload);
}
