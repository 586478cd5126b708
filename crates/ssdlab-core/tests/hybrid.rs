//! The hybrid SLC/QLC device (`ftl/hybrid/`, Yoo & Shin, HotStorage 2020): exact timing on an idle
//! device, and no data lost across migrations and mode changes (the FTL's invariants plus the
//! device's block accounting, and every logical page's mapping, after seeded random runs).

use std::ops::Range;

use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::flash::OpDone;
use ssdlab_core::ftl::hybrid::{HybridFtl, Mode};
use ssdlab_core::ftl::FtlLayer;
use ssdlab_core::rng::stream;

/// 1 plane, 64 blocks × 16 pages of 16 KiB (4 pages in SLC mode), 30 % spare, an SLC region of
/// 6 blocks, trigger 5, θ = 32 KiB (2 pages), pages mapped whole (the preset's 4 KiB units are
/// `tests/mapping_unit.rs`'s).
fn small(extra: &[&str]) -> DeviceConfig {
    let mut sets: Vec<String> = [
        "ftl.mapping_unit_bytes=16384",
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=16",
        "geometry.spare_factor=0.3",
        "cache.slc_blocks=6",
        "cache.theta_kib=32",
    ]
    .map(String::from)
    .to_vec();
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("yoo-qlc", &sets).unwrap()
}

fn us(v: f64) -> u64 {
    (v * 1000.0).round() as u64
}

#[test]
fn one_slc_write_one_qlc_write_and_one_migration_equal_their_datasheet_sums() {
    let cfg = small(&[]);
    let xfer = (16384.0 / cfg.timing.channel_mb_per_s * 1000.0f64).round() as u64;
    let (slc, qlc) = (cfg.timing.slc, cfg.timing.qlc);
    let mut d = HybridFtl::new(&cfg, 1, true, true).unwrap();
    // One hot page (a 1-page request ≤ θ) on an idle device: transfer + SLC program.
    let t = d.write(0..1, 0).unwrap();
    assert_eq!(t.done, xfer + us(slc.program_us));
    // A cold request (3 pages > θ) after the device is idle: its first page alone would take
    // transfer + QLC program; three pages on one plane queue: 3 × (transfer + program).
    let t0 = 10_000_000;
    let t = d.write(100..103, t0).unwrap();
    assert_eq!(t.done, t0 + 3 * (xfer + us(qlc.program_us)));
    // Reads in each mode: array read of the block's mode + transfer.
    let t1 = 20_000_000;
    assert_eq!(d.read(0..1, t1).unwrap().done, t1 + us(slc.read_us) + xfer);
    let t2 = 30_000_000;
    assert_eq!(
        d.read(100..101, t2).unwrap().done,
        t2 + us(qlc.read_us) + xfer
    );
    // Fill the first SLC block (4 pages: lpns 0..4); it closes with its last page, so the
    // region's free blocks are 6 − 1 = 5 ≤ the trigger (5) and the next hot write first
    // migrates the full block: 4 copies (SLC read + QLC program, copy-back) and an SLC erase.
    let mut t = 40_000_000;
    for lpn in 1..4 {
        t = d.write(lpn..lpn + 1, t).unwrap().done + 1_000_000;
    }
    let r = d.report();
    assert_eq!((r.slc_host_pages, r.migrated_pages), (4, 0));
    let done = d.write(4..5, t).unwrap().done;
    let r = d.report();
    assert_eq!((r.migrated_pages, r.slc_erases), (4, 1));
    let migration = 4 * (us(slc.read_us) + us(qlc.program_us)) + us(slc.erase_us);
    assert_eq!(done, t + migration + xfer + us(slc.program_us));
    assert_eq!(r.migration_wait_ns, migration);
    assert_eq!(r.migration_busy_ns, migration);
    assert_eq!((r.slc_target, r.slc_blocks), (6, 1));
    // The breakdown's parts add up to every page's latency: five SLC pages on an idle device
    // (transfer + program each), the migration one write waited for, and the three QLC pages
    // of one request queued on the plane (1, 2 and 3 × (transfer + program)).
    let slc_page = xfer + us(slc.program_us);
    assert_eq!(r.slc_write_ns, 5 * slc_page);
    assert_eq!(r.qlc_write_ns, 6 * (xfer + us(qlc.program_us)));
    assert_eq!(r.gc_wait_ns, 0);
    d.check().unwrap();
    // The migrated pages now read in QLC mode.
    let ppn = d.map().l2p_of(2).unwrap();
    assert_eq!(d.mode_of_ppn(ppn), Mode::Qlc);
}

/// Seeded random runs: writes of 1–6 pages (hot and cold), overwrites and trims, with the
/// device's and the FTL's invariants checked as it goes, and every logical page's mapping
/// compared with a shadow of what was written.
/// 20,000 seeded requests of 1–6 pages with idle gaps between them, a tenth of them trims:
/// `seen` gets each request's pages and, for a write, its completion. The device's own
/// invariants are checked every 2,000 requests (`label` names the run in a failure).
fn drive(
    d: &mut HybridFtl,
    seed: u64,
    label: &str,
    mut seen: impl FnMut(Range<u32>, Option<OpDone>),
) {
    let n = d.map().logical_pages();
    let mut rng = stream(seed, "hybrid-test");
    let mut t = 0u64;
    for i in 0..20_000u32 {
        let len = rng.gen_range(1..=6u32);
        let lpn = rng.gen_range(0..n - len);
        let prev = t;
        t += rng.gen_range(0..2_000_000u64);
        d.background(prev, t).unwrap();
        if rng.gen_range(0..10) == 0 {
            d.trim(lpn..lpn + len).unwrap();
            seen(lpn..lpn + len, None);
        } else {
            let done = d.write(lpn..lpn + len, t).unwrap();
            seen(lpn..lpn + len, Some(done));
        }
        if i % 2_000 == 0 {
            d.check().unwrap_or_else(|e| panic!("{label} op {i}: {e}"));
        }
    }
}

#[test]
fn no_data_lost_across_migrations_and_mode_changes() {
    for (k, sets) in [
        vec![],
        vec!["cache.slc=none"],
        vec!["gc.victim=fifo"],
        vec!["gc.victim=cost-benefit", "cache.idle_migration=true"],
        vec!["cache.slc_blocks=0"],
        vec!["cache.slc_blocks=1"],
        vec!["cache.slc=dwa"],
        vec!["cache.slc=dwa", "cache.idle_migration=true"],
        vec!["cache.slc=ust"],
        vec!["cache.slc=rl", "cache.rl.epsilon=0.5"],
        vec!["cache.slc=rl", "cache.idle_migration=true"],
        // The paper's 4 KiB mapping unit (four per 16 KiB page).
        vec!["ftl.mapping_unit_bytes=4096"],
        vec![
            "ftl.mapping_unit_bytes=4096",
            "cache.slc=dwa",
            "cache.idle_migration=true",
        ],
        vec![
            "ftl.mapping_unit_bytes=4096",
            "cache.slc=rl",
            "cache.rl.epsilon=0.5",
        ],
    ]
    .into_iter()
    .enumerate()
    {
        let cfg = small(&sets);
        let mut d = HybridFtl::new(&cfg, k as u64, true, true).unwrap();
        let n = d.map().logical_pages();
        let mut shadow = vec![false; n as usize];
        drive(&mut d, k as u64, &format!("{sets:?}"), |pages, done| {
            shadow[pages.start as usize..pages.end as usize].fill(done.is_some());
        });
        d.check().unwrap();
        for lpn in 0..n {
            assert_eq!(
                d.map().l2p_of(lpn).is_some(),
                shadow[lpn as usize],
                "{sets:?}: lpn {lpn}"
            );
        }
        let r = d.report();
        eprintln!("{sets:?}: {r:?}");
        if sets.is_empty() || sets == ["ftl.mapping_unit_bytes=4096"] {
            assert!(r.migrated_pages > 0 && r.slc_erases > 0 && r.qlc_erases > 0);
            assert!(r.migration_wait_ns > 0 && r.gc_wait_ns > 0, "{r:?}");
        }
        if sets.contains(&"cache.slc=none") || sets.contains(&"cache.slc_blocks=0") {
            assert_eq!(r.slc_host_pages, 0);
        }
    }
}

#[test]
fn impossible_settings_are_refused_with_one_line() {
    let err = |sets: &[&str]| {
        DeviceConfig::from_preset(
            "yoo-qlc",
            &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
        .unwrap_err()
        .to_string()
    };
    for (sets, want) in [
        (vec!["cache.slc_blocks=100"], "cache.slc_blocks:"),
        (vec!["cache.free_trigger=0"], "cache.free_trigger:"),
        (vec!["cache.slc=\"dynamic\""], "cache.slc"),
        (vec!["ftl.kind=\"rain\""], "ftl.kind"),
        (vec!["gc.scheduler=lazyrtgc"], "gc.scheduler:"),
    ] {
        let e = err(&sets);
        assert!(e.contains(want) && !e.contains('\n'), "{sets:?}: {e}");
    }
}

/// `dwa` (Micron 2014): on an empty drive the SLC region is nearly all blocks and every write
/// goes to SLC; a full region sends writes straight to QLC; the region shrinks as the drive
/// fills and is gone past `cache.dwa_off_fill`. A sequential fill from empty, with invariants
/// checked.
#[test]
fn dwa_region_shrinks_as_the_drive_fills() {
    // No static part: the region is all dynamic.
    let cfg = small(&["cache.slc=dwa", "cache.slc_blocks=0"]);
    let n = cfg.geometry.logical_pages() as u32;
    let mut d = HybridFtl::new(&cfg, 3, true, true).unwrap();
    let empty = d.report().slc_target;
    // 64 blocks less the reserve (trigger 5 + 2).
    assert_eq!(empty, 64 - 7);
    let mut t = 0;
    let mut seen = Vec::new();
    let mut lpn = 0;
    while lpn + 4 <= n {
        t = d.write(lpn..lpn + 4, t).unwrap().done;
        lpn += 4;
        if lpn % (n / 10 / 4 * 4) == 0 {
            let r = d.report();
            seen.push((
                lpn as f64 / n as f64,
                r.slc_target,
                r.slc_host_pages,
                r.qlc_host_pages,
                r.migration_wait_ns,
            ));
            d.check().unwrap();
        }
    }
    eprintln!("{seen:?}");
    assert!(
        seen.windows(2).all(|w| w[1].1 <= w[0].1),
        "the region only shrinks: {seen:?}"
    );
    // The first tenth fits the SLC region (57 blocks × 4 pages); once the region is full,
    // writes go straight to QLC (dwa does not migrate before a host write).
    let early = seen[0];
    assert!(
        early.1 > 0 && early.3 == 0,
        "early writes all go to SLC: {early:?}"
    );
    let overflow = seen.iter().find(|s| s.3 > 0).unwrap();
    assert!(
        overflow.0 < 0.5 && overflow.4 == 0,
        "a full region writes to QLC without migrating first: {seen:?}"
    );
    let last = seen.last().unwrap();
    assert!(
        last.0 >= 0.9 && last.1 == 0,
        "off past the fill level: {last:?}"
    );
    let before = seen.iter().rev().find(|s| s.0 < 0.9).unwrap();
    assert!(
        last.3 > before.3,
        "QLC takes the writes once the region is off: {seen:?}"
    );
}

#[test]
fn copies_in_runs_match_the_checked_copies() {
    // Without test checks a reclaim job's copies run in one loop on the FTL's tables
    // (`ExternalBlocks::copy_run`), timed as one batch; with program checks on, one `copy` at a
    // time. Same requests, trims and idle gaps: every completion, the report and the mapping
    // must agree, and the unchecked device must keep its invariants.
    for sets in [
        vec![],
        vec!["gc.victim=cost-benefit", "cache.idle_migration=true"],
        vec!["timing.copyback=false", "cache.slc=rl"],
    ] {
        let cfg = small(&sets);
        let mut runs = [true, false].map(|checked| {
            let d = HybridFtl::new(&cfg, 3, true, checked).unwrap();
            (d, Vec::new())
        });
        for (d, log) in &mut runs {
            drive(d, 3, &format!("{sets:?}"), |_, done| {
                log.extend(done.map(|o| (o.done, o.blocked_by_gc)));
            });
        }
        let [(a, la), (b, lb)] = &runs;
        assert_eq!(la, lb, "{sets:?}: completions");
        assert_eq!(a.report(), b.report(), "{sets:?}");
        assert!(b.report().migrated_pages > 0 && b.report().qlc_gc_pages > 0);
        let n = a.map().logical_pages();
        for lpn in 0..n {
            assert_eq!(
                a.map().l2p_of(lpn),
                b.map().l2p_of(lpn),
                "{sets:?}: lpn {lpn}"
            );
        }
        b.check().unwrap();
    }
}

/// Page-aligned small writes on 4 KiB units of 16 KiB pages overwrite some planes' data more
/// than others' (a request's first unit always lands on the same planes); with host pages
/// written to the planes in turn and GC per plane, one plane filled with valid data and the
/// run ended "device full" with spare left on the others (`client-qlc-1tb` at 16-page blocks,
/// after ~0.9 M host pages). The FTL passes over a crowded plane: the run completes.
#[test]
fn page_aligned_small_writes_do_not_fill_one_plane() {
    let r = crate::support::json_run::run(
        "client-qlc-1tb",
        &[
            "geometry.pages_per_block=16",
            "ftl.mapping_unit_bytes=4096",
            "cache.slc_blocks=1431",
            "cache.dwa_max_dynamic_blocks=8583",
        ],
        &serde_json::json!({"kind": "synthetic", "pattern": "hotcold", "requests": 1_500_000,
                            "hot_write_fraction": 0.8, "hot_space_fraction": 0.2,
                            "mean_request_kib": 7.6}),
        &serde_json::json!({"seed": 1, "timing": false,
                            "precondition": {"sequential": true, "random_passes": 0.0}}),
    )
    .unwrap();
    assert_eq!(r["requests"]["total"], 1_500_000);
}
