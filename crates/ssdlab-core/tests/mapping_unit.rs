//! Mapping units smaller than the flash page (`ftl.mapping_unit_bytes`): the FTL maps units
//! exactly as a device whose pages are that small (untimed equivalence), a page is programmed
//! with its last unit and read once for all its units (exact timing), GC reads a victim page
//! once and programs a destination page when it fills, the hybrid device does the same in SLC
//! mode, and impossible settings are refused. (Random hybrid runs with units: `tests/hybrid.rs`.)

use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::ftl::hybrid::HybridFtl;
use ssdlab_core::ftl::map::{Ftl, GcStep};
use ssdlab_core::ftl::plain::PlainFtl;
use ssdlab_core::ftl::FtlLayer;
use ssdlab_core::rng::stream;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{OpKind, Request, VecSource};

fn tiny(extra: &[&str]) -> DeviceConfig {
    let mut sets: Vec<String> = [
        "geometry.channels=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=64",
        "geometry.spare_factor=0.25",
        "gc.victim=greedy",
    ]
    .map(String::from)
    .to_vec();
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("tiny", &sets).unwrap()
}

fn us(v: f64) -> u64 {
    (v * 1000.0).round() as u64
}

/// 4 KiB units on 16 KiB pages of 16 pages per block map exactly like 4 KiB pages, 64 per
/// block: the same logical space, victims, copies and erases, untimed, on the same requests.
#[test]
fn units_map_like_pages_of_the_unit_size() {
    let units = tiny(&[
        "geometry.page_size=16384",
        "geometry.pages_per_block=16",
        "ftl.mapping_unit_bytes=4096",
    ]);
    let pages = tiny(&["geometry.page_size=4096", "geometry.pages_per_block=64"]);
    assert_eq!(units.logical_units(), pages.logical_units());
    assert_eq!(units.units_per_page(), 4);
    let n = units.logical_units();
    let mut rng = stream(7, "unit-equivalence");
    let reqs: Vec<Request> = (0..30_000)
        .map(|i| {
            let len = rng.gen_range(1..=6u64);
            let first = rng.gen_range(0..=n - len);
            Request {
                arrival_ns: i * 1000,
                op: if rng.gen_range(0..10) == 0 {
                    OpKind::Trim
                } else {
                    OpKind::Write
                },
                offset_bytes: first * 4096,
                size_bytes: len * 4096,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        })
        .collect();
    let run = |cfg: DeviceConfig| {
        let opts = SimOptions {
            seed: 3,
            timing: false,
            check_every: 1_000,
            replay: Replay::OpenLoop { time_scale: 1.0 },
            ..SimOptions::default()
        };
        let mut sim = Simulation::new(cfg, opts, Box::new(VecSource::new(reqs.clone()))).unwrap();
        let r = sim.run().unwrap();
        sim.ftl().check_invariants().unwrap();
        (
            sim.ftl().counters,
            sim.ftl().erase_counts().to_vec(),
            r.requests,
        )
    };
    let (a, b) = (run(units), run(pages));
    assert!(
        a.0.erases > 0 && a.0.gc_pages_copied > 0,
        "GC must run: {:?}",
        a.0
    );
    assert_eq!(a, b);
}

/// One plane, 16 KiB pages of four 4 KiB units, on an idle device: a unit that does not fill
/// its page is acknowledged at once; the unit that fills it waits for transfer + program; a
/// read of the page's four units is one page read; a unit still in the buffer reads at once.
#[test]
fn a_page_is_programmed_with_its_last_unit_and_read_once() {
    let cfg = tiny(&[
        "geometry.page_size=16384",
        "geometry.pages_per_block=16",
        "ftl.mapping_unit_bytes=4096",
    ]);
    let t = cfg.op_times();
    let mut d = PlainFtl::new(&cfg, 1, true, true, None).unwrap();
    assert_eq!(d.write(0..1, 0).unwrap().done, 0);
    let t0 = 1_000_000;
    assert_eq!(
        d.write(1..4, t0).unwrap().done,
        t0 + t.transfer_ns + t.program_ns
    );
    let t1 = 10_000_000;
    assert_eq!(
        d.read(0..4, t1).unwrap().done,
        t1 + t.read_ns + t.transfer_ns
    );
    // A unit of the next page, alone in the buffer: written and read back without flash time.
    let t2 = 20_000_000;
    assert_eq!(d.write(4..5, t2).unwrap().done, t2);
    assert_eq!(d.read(4..5, t2 + 1).unwrap().done, t2 + 1);
    // Units in two programmed pages: two page reads, queued on the plane.
    let t3 = 30_000_000;
    d.write(5..8, t3).unwrap();
    let t4 = 40_000_000;
    assert_eq!(
        d.read(3..5, t4).unwrap().done,
        t4 + 2 * (t.read_ns + t.transfer_ns)
    );
    d.check_invariants().unwrap();
}

/// GC reads each victim page holding valid units once (the first unit copied from it) and
/// programs a destination page when a copy fills it.
#[test]
fn gc_reads_a_victim_page_once_and_programs_full_pages() {
    let cfg = tiny(&[
        "geometry.page_size=16384",
        "geometry.pages_per_block=4",
        "geometry.blocks_per_plane=16",
        "ftl.mapping_unit_bytes=4096",
    ]);
    let mut ftl = Ftl::new(&cfg).unwrap();
    ftl.enable_program_checks();
    let mut rng = stream(1, "gc");
    // Block 0: units 0..16 in pages [0-3] [4-7] [8-11] [12-15].
    for lpn in 0..16 {
        ftl.write_host(lpn, 0).unwrap();
    }
    // Leave 0, 2 (page 0), 8 (page 2), 13, 14, 15 (page 3) valid; page 1 holds none.
    for lpn in [1, 3, 4, 5, 6, 7, 9, 10, 11, 12] {
        ftl.trim(lpn);
    }
    // Unit 16 opens block 1 (slot 0) and closes block 0.
    ftl.write_host(16, 0).unwrap();
    let mut steps = Vec::new();
    loop {
        match ftl.gc_step(0, &mut rng).unwrap() {
            GcStep::Copy {
                from,
                to,
                read,
                program,
            } => steps.push((from, to, read, program)),
            GcStep::Erase { block } => {
                assert_eq!(block, 0);
                break;
            }
            GcStep::Idle => panic!("no victim"),
            GcStep::Translation { .. } => panic!("a translation page with the full map"),
        }
    }
    // Copies land on block 1's slots 1..=6 (16..=22 in units); slot 3 fills its page.
    let want = vec![
        (0, 17, true, false),
        (2, 18, false, false),
        (8, 19, true, true),
        (13, 20, true, false),
        (14, 21, false, false),
        (15, 22, false, false),
    ];
    assert_eq!(steps, want);
    ftl.check_invariants().unwrap();
    // Units 21 and 22's page (block 1, page 1) is not programmed yet: in the buffer.
    assert!(ftl.is_buffered(22) && ftl.is_buffered(20) && !ftl.is_buffered(19));
}

/// The hybrid device with the paper's 4 KiB units: a hot unit is acknowledged from the buffer,
/// the unit that fills an SLC page waits for transfer + SLC program, and the page reads once.
#[test]
fn hybrid_programs_an_slc_page_with_its_last_unit() {
    let cfg = DeviceConfig::from_preset(
        "yoo-qlc",
        &[
            "geometry.blocks_per_plane=64",
            "geometry.pages_per_block=16",
            "geometry.spare_factor=0.3",
            "cache.slc_blocks=6",
            "cache.theta_kib=32",
            "ftl.mapping_unit_bytes=4096",
        ]
        .map(String::from),
    )
    .unwrap();
    let xfer = (16384.0 / cfg.timing.channel_mb_per_s * 1000.0f64).round() as u64;
    let slc = cfg.timing.slc;
    let mut d = HybridFtl::new(&cfg, 1, true, true).unwrap();
    assert_eq!(d.write(0..1, 0).unwrap().done, 0);
    let t0 = 1_000_000;
    assert_eq!(
        d.write(1..4, t0).unwrap().done,
        t0 + xfer + us(slc.program_us)
    );
    let t1 = 10_000_000;
    assert_eq!(d.read(0..4, t1).unwrap().done, t1 + us(slc.read_us) + xfer);
    let r = d.report();
    assert_eq!((r.slc_host_pages, r.qlc_host_pages), (4, 0));
    // A 9-unit (36 KiB) request is above θ (32 KiB = 8 units): QLC.
    d.write(100..109, 20_000_000).unwrap();
    assert_eq!(d.report().qlc_host_pages, 9);
    d.check().unwrap();
}

#[test]
fn impossible_mapping_units_are_refused_with_one_line() {
    for (preset, sets, want) in [
        ("tiny", vec!["ftl.mapping_unit_bytes=3000"], "power of two"),
        ("tiny", vec!["ftl.mapping_unit_bytes=256"], "power of two"),
        (
            "tiny",
            vec!["ftl.mapping_unit_bytes=8192"],
            "up to geometry.page_size",
        ),
        (
            "ttflash-small",
            vec!["ftl.kind=\"rain\"", "ftl.mapping_unit_bytes=1024"],
            "whole pages",
        ),
        (
            "tiny",
            vec![
                "geometry.blocks_per_plane=16000",
                "geometry.pages_per_block=2048",
                "geometry.channels=8",
                "geometry.planes_per_die=8",
                "ftl.mapping_unit_bytes=512",
            ],
            "32 bits",
        ),
    ] {
        let e = DeviceConfig::from_preset(
            preset,
            &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("ftl.mapping_unit_bytes") && e.contains(want) && !e.contains('\n'),
            "{sets:?}: {e}"
        );
    }
    // The page size itself is one unit per page, as if unset.
    let cfg = DeviceConfig::from_preset("tiny", &["ftl.mapping_unit_bytes=4096".into()]).unwrap();
    assert_eq!(cfg.units_per_page(), 1);
}

/// A GC copy of a unit costs only what it needs on an idle plane: the victim page's read (and,
/// without copy-back, its transfer out) when it reads, the destination page's transfer in and
/// program when it fills the page, nothing when neither; both is the whole-page copy.
#[test]
fn a_unit_copy_costs_the_read_and_program_it_needs() {
    use ssdlab_core::flash::Resources;
    for copyback in [false, true] {
        let cfg = tiny(&[&format!("timing.copyback={copyback}")]);
        let t = cfg.op_times();
        let x = if copyback { 0 } else { t.transfer_ns };
        let t0 = 1_000_000;
        for (read, program, want) in [
            (true, false, t.read_ns + x),
            (false, true, x + t.program_ns),
            (true, true, t.read_ns + 2 * x + t.program_ns),
            (false, false, 0),
        ] {
            let mut r = Resources::new(&cfg);
            let done = r.gc_move(
                0,
                t0,
                read.then_some(t.read_ns),
                program.then_some(t.program_ns),
            );
            assert_eq!(
                done,
                t0 + want,
                "copyback {copyback}, read {read}, program {program}"
            );
            if read && program {
                assert_eq!(Resources::new(&cfg).gc_copy(0, t0), done);
            }
        }
    }
}
