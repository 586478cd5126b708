//! The cached map (`ftl.mapping = "cached"`, DFTL): a CMT that holds every mapping runs as the
//! full map does, bit for bit; the bookkeeping holds after every GC step; and on an idle
//! device a miss, a dirty eviction and a translation block's GC cost exactly their flash
//! operations. Preset `tiny`: read 50 µs, program 500 µs, erase 2 ms, 4 KiB pages over
//! 409.6 MB/s = 10 µs a transfer, 1,024 mappings a translation page.

use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::flash::Resources;
use ssdlab_core::ftl::gc::GcContext;
use ssdlab_core::ftl::map::{Ftl, GcStep};
use ssdlab_core::rng::stream;
use ssdlab_core::sim::{SimOptions, Simulation};
use ssdlab_core::stats::SimResult;
use ssdlab_core::trace::{OpKind, Request, VecSource};

use crate::support::workloads::{page_request as req, preconditioned};

const READ: f64 = 50.0 + 10.0;
const PROG: f64 = 10.0 + 500.0;

fn tiny(sets: &[&str]) -> DeviceConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    DeviceConfig::from_preset("tiny", &sets).unwrap()
}

fn run(cfg: DeviceConfig, opts: SimOptions, reqs: Vec<Request>) -> SimResult {
    Simulation::new(cfg, opts, Box::new(VecSource::new(reqs)))
        .unwrap()
        .run()
        .unwrap()
}

/// A random mix of reads, writes and trims of 1–4 pages, every `gap_us` on average.
fn mixed(seed: u64, n: usize, pages: u64, gap_us: u64) -> Vec<Request> {
    let mut rng = stream(seed, "mapping-cache-test");
    let mut t = 0;
    (0..n)
        .map(|_| {
            t += rng.gen_range(0..2 * gap_us);
            let op = match rng.gen_range(0..10) {
                0..=4 => OpKind::Write,
                5..=8 => OpKind::Read,
                _ => OpKind::Trim,
            };
            let len = rng.gen_range(1..=4);
            req(t, op, rng.gen_range(0..pages - len), len)
        })
        .collect()
}

/// The result as JSON without the cached map's own section.
fn without_mapping(r: &SimResult) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    let had = v.as_object_mut().unwrap().remove("mapping").is_some();
    assert!(had || r.layers.mapping.is_none());
    v
}

#[test]
fn a_cmt_holding_every_mapping_runs_as_the_full_map() {
    let logical = tiny(&[]).logical_units();
    let entries = format!("ftl.cmt_entries={logical}");
    for (extra, timing) in [
        (vec![], true),
        (vec!["gc.scheduler=\"lazyrtgc\""], true),
        (
            vec![
                "gc.victim=\"cost-benefit\"",
                "ftl.placement=\"dual-frontier\"",
            ],
            true,
        ),
        (
            vec![
                "write_cache.mode=\"write-back\"",
                "write_cache.size_mib=0.25",
            ],
            true,
        ),
        (vec![], false),
    ] {
        let reqs = mixed(7, 6_000, logical, 300);
        let opts = SimOptions {
            timing,
            ..preconditioned(false)
        };
        let full = run(tiny(&extra), opts.clone(), reqs.clone());
        let mut sets = extra.clone();
        sets.extend(["ftl.mapping=\"cached\"", &entries]);
        let cached = run(tiny(&sets), opts, reqs);
        assert!(full.erases > 0, "GC must run");
        let m = cached.layers.mapping.expect("a cached map reports");
        assert_eq!(m.translation_writes, 0, "{extra:?}");
        assert_eq!(
            (m.read_hits, m.write_hits),
            (m.read_lookups, m.write_lookups)
        );
        assert_eq!(
            without_mapping(&full),
            without_mapping(&cached),
            "{extra:?} timing {timing}"
        );
    }
}

/// A host page write on the FTL alone, through the CMT, timing off, every GC step checked.
fn write_checked(ftl: &mut Ftl, lpn: u32, rng: &mut ssdlab_core::rng::SimRng) -> u64 {
    let mut steps = 0;
    let mut gc = |ftl: &mut Ftl, plane: u32, rng: &mut ssdlab_core::rng::SimRng, host: bool| {
        while if host {
            !ftl.host_can_write(plane)
        } else {
            ftl.needs_gc(plane)
        } {
            if ftl.gc_step(plane, rng).unwrap() == GcStep::Idle {
                break;
            }
            steps += 1;
            ftl.check_invariants().unwrap();
        }
    };
    if let Some(t) = ftl.cmt_lookup(lpn, true).write_back {
        let plane = ftl.next_host_plane(ftl.translation_lpn(t));
        gc(ftl, plane, rng, true);
        ftl.write_translation(t, plane, false).unwrap();
        gc(ftl, plane, rng, false);
    }
    let plane = ftl.next_host_plane(lpn);
    gc(ftl, plane, rng, true);
    ftl.write_host(lpn, plane).unwrap();
    ftl.cmt_dirty(lpn);
    gc(ftl, plane, rng, false);
    steps
}

#[test]
fn the_bookkeeping_holds_after_every_gc_step() {
    for (policy, entries, page) in [("lru", 40, 512), ("clock", 7, 512), ("lru", 300, 4096)] {
        let p = format!("ftl.cmt_policy=\"{policy}\"");
        let e = format!("ftl.cmt_entries={entries}");
        let g = format!("geometry.page_size={page}");
        let cfg = tiny(&[
            "ftl.mapping=\"cached\"",
            &p,
            &e,
            &g,
            "geometry.blocks_per_plane=32",
            "geometry.pages_per_block=16",
        ]);
        let mut ftl = Ftl::new(&cfg).unwrap();
        ftl.enable_program_checks();
        let mut rng = stream(5, "gc");
        let mut wl = stream(5, "wl");
        let n = ftl.logical_pages();
        let mut steps = 0;
        for i in 0..6 * n {
            // Half the writes in a hot tenth: the CMT hits, and GC finds cold pages uncached.
            let lpn = if i < n {
                i
            } else if wl.gen_bool(0.5) {
                wl.gen_range(0..n / 10)
            } else {
                wl.gen_range(0..n)
            };
            steps += write_checked(&mut ftl, lpn, &mut rng);
        }
        ftl.check_invariants().unwrap();
        let c = ftl.mapping_cache().unwrap().counters;
        let k = ftl.counters;
        assert!(steps > 1_000, "{policy}: {steps} GC steps");
        assert!(c.gc_updates > 0, "{policy}: GC moved no uncached mapping");
        assert!(
            k.translation_gc_copies > 0,
            "{policy}: no translation block collected"
        );
        assert!(c.dirty_evictions > 0 && c.write_hits > 0, "{policy}: {c:?}");
    }
}

#[test]
fn lean_gc_copies_of_a_cached_map_take_the_checked_steps() {
    // Without test checks a cached map's GC copies run through `copy_rest_lean::<true>`; with
    // them, through the general `copy_one` loop. Same steps, mappings, CMT and counters, for
    // whole victims (`gc_while`) and partial runs (`gc_copy_up_to`), data and translation
    // victims alike.
    for (policy, victim) in [("lru", "greedy"), ("clock", "cost-benefit")] {
        let p = format!("ftl.cmt_policy=\"{policy}\"");
        let v = format!("gc.victim=\"{victim}\"");
        let cfg = tiny(&[
            "ftl.mapping=\"cached\"",
            "ftl.cmt_entries=40",
            "geometry.page_size=512",
            "geometry.blocks_per_plane=32",
            "geometry.pages_per_block=16",
            &p,
            &v,
        ]);
        let run = |checked: bool| {
            let mut ftl = Ftl::new(&cfg).unwrap();
            if checked {
                ftl.enable_program_checks();
            }
            let (mut rng, mut wl) = (stream(9, "gc"), stream(9, "wl"));
            let n = ftl.logical_pages();
            let mut steps = Vec::new();
            let mut write = |ftl: &mut Ftl, lpn: u32, steps: &mut Vec<GcStep>, host: bool| {
                let plane = ftl.next_host_plane(lpn);
                let full = move |f: &Ftl| !f.host_can_write(plane);
                ftl.gc_while(plane, &mut rng, full, |s| steps.push(s))
                    .unwrap();
                if host {
                    ftl.write_host(lpn, plane).unwrap();
                } else {
                    let t = lpn - ftl.translation_lpn(0);
                    ftl.write_translation(t, plane, false).unwrap();
                }
                if lpn % 7 == 0 && ftl.gc_begin(plane, &mut rng) {
                    ftl.gc_copy_up_to(plane, 3, |s| steps.push(s)).unwrap();
                }
                if ftl.needs_gc(plane) {
                    ftl.gc_until_threshold(plane, &mut rng, |s| steps.push(s))
                        .unwrap();
                }
            };
            for i in 0..6 * n {
                let lpn = if i < n { i } else { wl.gen_range(0..n) };
                if let Some(t) = ftl.cmt_lookup(lpn, true).write_back {
                    let tl = ftl.translation_lpn(t);
                    write(&mut ftl, tl, &mut steps, false);
                }
                write(&mut ftl, lpn, &mut steps, true);
                ftl.cmt_dirty(lpn);
            }
            ftl.check_invariants().unwrap();
            let map: Vec<_> = (0..n).map(|l| ftl.read(l)).collect();
            let c = ftl.mapping_cache().unwrap().counters;
            (steps, map, c, ftl.counters)
        };
        let (lean, checked) = (run(false), run(true));
        assert!(
            lean.3.translation_gc_copies > 0,
            "{policy}: no translation victim"
        );
        assert!(lean.2.gc_updates > 0, "{policy}: no batch update");
        assert_eq!(lean.0.len(), checked.0.len(), "{policy}");
        assert!(lean.0 == checked.0, "{policy}: steps differ");
        assert!(lean.1 == checked.1, "{policy}: mappings differ");
        assert_eq!(lean.2, checked.2, "{policy}: CMT counters");
        assert_eq!(lean.3, checked.3, "{policy}: FTL counters");
    }
}

/// Each request's latency, µs: request k's is what prefix k adds to prefix k − 1's total (the
/// requests are far apart, so none waits for another).
fn latencies(sets: &[&str], reqs: &[Request]) -> Vec<f64> {
    let total = |r: &SimResult| {
        let l = &r.latency_us;
        l.read.mean * l.read.count as f64 + l.write.mean * l.write.count as f64
    };
    let mut out = Vec::new();
    let mut before = 0.0;
    for k in 1..=reqs.len() {
        let r = run(tiny(sets), SimOptions::default(), reqs[..k].to_vec());
        let now = total(&r);
        out.push(((now - before) * 1e3).round() / 1e3);
        before = now;
    }
    out
}

#[test]
fn a_miss_reads_a_translation_page_and_a_dirty_eviction_programs_one() {
    use OpKind::{Read, Write};
    // One entry; logical pages 0 and 2,000 are on translation pages 0 and 1.
    let reqs = [
        req(0, Write, 0, 1),         // cached (dirty); nothing on flash to read
        req(10_000, Write, 2000, 1), // evicts 0, dirty: page 0 programmed (never written: no read)
        req(20_000, Write, 0, 1),    // evicts 2000, dirty: page 1 programmed; miss reads page 0
        req(30_000, Read, 2000, 1), // evicts 0, dirty: read-modify-write of page 0; miss reads page 1
        req(40_000, Read, 0, 1),    // evicts 2000, clean: free; miss reads page 0
        req(50_000, Read, 0, 1),    // hit
    ];
    let lat = latencies(&["ftl.mapping=\"cached\"", "ftl.cmt_entries=1"], &reqs);
    assert_eq!(
        lat,
        vec![
            PROG,
            PROG + PROG,
            PROG + READ + PROG,
            READ + PROG + READ + READ,
            READ + READ,
            READ,
        ]
    );
    let full = latencies(&[], &reqs);
    assert_eq!(full, vec![PROG, PROG, PROG, READ, READ, READ]);
}

#[test]
fn gc_of_a_translation_block_costs_its_copies() {
    // Translation pages alone on plane 0: seven blocks of 16, each with one page written once
    // (0 to 6) and 15 rewrites of pages 7 to 9, whose last copies a partial eighth block
    // holds: each full block has one valid translation page, and GC's victim is one of them.
    let cfg = tiny(&[
        "ftl.mapping=\"cached\"",
        "ftl.cmt_entries=8",
        "geometry.page_size=512",
        "geometry.blocks_per_plane=32",
        "geometry.pages_per_block=16",
    ]);
    let mut ftl = Ftl::new(&cfg).unwrap();
    let pages = ftl.mapping_cache().unwrap().pages();
    assert!(pages >= 10, "{pages}");
    for b in 0..7 {
        ftl.write_translation(b, 0, false).unwrap();
        for i in 0..15 {
            ftl.write_translation(7 + i % 3, 0, false).unwrap();
        }
    }
    for t in 7..10 {
        ftl.write_translation(t, 0, false).unwrap();
    }
    ftl.check_invariants().unwrap();
    let mut res = Resources::new(&cfg);
    let mut rng = stream(1, "gc");
    let mut ctx = GcContext {
        ftl: &mut ftl,
        res: Some(&mut res),
        rng: &mut rng,
    };
    let before = ctx.ftl.counters;
    let mut t = 0;
    let mut copies = 0;
    loop {
        let (step, done) = ctx.step(0, t).unwrap();
        t = done;
        match step {
            GcStep::Copy { .. } => copies += 1,
            GcStep::Erase { .. } => break,
            s => panic!("unexpected {s:?}"),
        }
    }
    let k = ctx.ftl.counters;
    assert_eq!(copies, 1);
    assert_eq!(
        k.translation_gc_copies - before.translation_gc_copies,
        copies
    );
    assert_eq!(
        k.translation_pages_written,
        before.translation_pages_written
    );
    // A copy is the read and the program, inside the plane (copy-back, `tiny`'s default).
    let copy_ns = 50_000 + 500_000;
    assert_eq!(t, copies * copy_ns + 2_000_000);
    ctx.ftl.check_invariants().unwrap();
}

#[test]
fn settings_that_do_not_apply_are_refused() {
    for (sets, field) in [
        (vec!["ftl.cmt_entries=10"], "ftl.cmt_entries"),
        (vec!["ftl.cmt_policy=\"clock\""], "ftl.cmt_policy"),
        (vec!["ftl.mapping=\"cached\""], "ftl.mapping"),
        (
            vec![
                "ftl.mapping=\"cached\"",
                "ftl.cmt_entries=1",
                "ftl.cmt_bytes=8",
            ],
            "ftl.cmt_bytes",
        ),
        (
            vec!["ftl.mapping=\"cached\"", "ftl.cmt_bytes=7"],
            "ftl.cmt_bytes",
        ),
        (
            vec![
                "ftl.mapping=\"cached\"",
                "ftl.cmt_entries=9",
                "ftl.mapping_unit_bytes=1024",
            ],
            "ftl.mapping_unit_bytes",
        ),
        (
            vec![
                "ftl.mapping=\"cached\"",
                "ftl.cmt_entries=9",
                "ftl.kind=\"rain\"",
            ],
            "ftl.mapping",
        ),
    ] {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = DeviceConfig::from_preset("tiny", &sets)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("{field}:")), "{sets:?}: {e}");
    }
}

#[test]
fn the_dram_less_preset_caches_an_hmb_s_worth_of_mappings() {
    // client-hmb-1tb: 32 MiB of host memory at 8 bytes an entry, 64 GiB of the drive's 16 KiB
    // pages mapped at once (the preset file cites the size).
    let cfg = DeviceConfig::from_preset("client-hmb-1tb", &[]).unwrap();
    assert!(cfg.ftl.cached_mapping());
    assert_eq!(cfg.ftl.cmt_capacity(), Some(4 << 20));
    assert_eq!((4u64 << 20) * u64::from(cfg.geometry.page_size), 64 << 30);
}
