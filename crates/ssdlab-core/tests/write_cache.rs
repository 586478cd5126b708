//! The write cache (`cache/`, `[write_cache]`): exact timing on an idle device, coalescing, the
//! LRU inclusion property (hit ratios never fall as the cache grows), no acknowledged write
//! lost under any layer combination, and power cuts that lose exactly what no completed flush
//! covered. Preset `tiny`: program 500 µs, 4 KiB pages over 409.6 MB/s = 10 µs transfer.

use rand::Rng;
use ssdlab_core::cache::CacheEvent;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::rng::stream;
use ssdlab_core::sim::{Precondition, Replay, SimOptions, Simulation};
use ssdlab_core::stats::{SimResult, WriteCacheReport};
use ssdlab_core::trace::{OpKind, Request, VecSource};

const OPEN: Replay = Replay::OpenLoop { time_scale: 1.0 };
/// DRAM of these tests: 30 ns latency, 4,096 MB/s (a 4 KiB page in 1,000 ns).
const DRAM: [&str; 2] = [
    "write_cache.dram_latency_ns=30",
    "write_cache.dram_mb_s=4096",
];

use crate::support::workloads::page_request as req;

fn device(preset: &str, sets: &[&str]) -> DeviceConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    DeviceConfig::from_preset(preset, &sets).unwrap()
}

fn sim(cfg: DeviceConfig, reqs: Vec<Request>, opts: SimOptions) -> Simulation {
    Simulation::new(cfg, opts, Box::new(VecSource::new(reqs))).unwrap()
}

fn run(sets: &[&str], reqs: Vec<Request>) -> SimResult {
    let mut all: Vec<&str> = DRAM.to_vec();
    all.extend(sets);
    let opts = SimOptions {
        replay: OPEN,
        ..SimOptions::default()
    };
    sim(device("tiny", &all), reqs, opts).run().unwrap()
}

fn cache_report(r: &SimResult) -> WriteCacheReport {
    r.layers.write_cache.expect("a write cache ran")
}

#[test]
fn a_buffered_write_costs_the_dram_and_a_read_hit_the_dram() {
    let wb = "write_cache.mode=\"write-back\"";
    // One page: 1,000 ns of transfer into DRAM and 30 ns latency; four pages: 4,000 + 30.
    let r = run(&[wb], vec![req(0, OpKind::Write, 3, 1)]);
    assert_eq!(r.latency_us.write.max, 1.030);
    let r = run(&[wb], vec![req(0, OpKind::Write, 3, 4)]);
    assert_eq!(r.latency_us.write.max, 4.030);
    // A read of a cached page: the DRAM again, and no flash read.
    let r = run(
        &[wb, "timing.controller_overhead_ns=2000"],
        vec![req(0, OpKind::Write, 7, 1), req(10_000, OpKind::Read, 7, 1)],
    );
    assert!((r.latency_us.read.max - 3.030).abs() < 1e-9);
    let c = cache_report(&r);
    assert_eq!(
        (c.read_hits, c.host_pages_read, r.host_pages_read),
        (1, 1, 0)
    );
    assert_eq!(r.host_pages_written, 0, "nothing reached flash yet");
    // Write-through: on flash before it completes (transfer + program), still a read hit.
    let r = run(
        &["write_cache.mode=\"write-through\""],
        vec![req(0, OpKind::Write, 7, 1), req(10_000, OpKind::Read, 7, 1)],
    );
    assert_eq!(r.latency_us.write.max, 10.0 + 500.0);
    assert_eq!(r.latency_us.read.max, 1.030);
    assert_eq!(r.host_pages_written, 1);
}

#[test]
fn a_flush_of_n_pages_costs_what_n_plain_page_writes_cost() {
    for n in [1u64, 3, 8, 20] {
        // N pages written into the cache, then a flush command long after.
        let mut reqs: Vec<Request> = (0..n).map(|p| req(0, OpKind::Write, 2 * p, 1)).collect();
        reqs.push(req(100_000, OpKind::Flush, 0, 0));
        let r = run(&["write_cache.mode=\"write-back\""], reqs);
        let flush = r.latency_us.flush.max;
        // The same pages as one plain write on an idle device.
        let plain: Vec<Request> = (0..n)
            .map(|p| req(100_000, OpKind::Write, 2 * p, 1))
            .collect();
        let p = run(&[], plain);
        assert_eq!(flush, p.latency_us.write.max, "{n} pages");
        assert_eq!(r.host_pages_written, n);
        let c = cache_report(&r);
        assert_eq!((c.flush_commands, c.dirty_pages), (1, 0), "{n} pages");
    }
}

#[test]
fn fua_writes_and_flushes_are_durable_unless_the_cache_is_capacitor_backed() {
    let mut fua = req(0, OpKind::Write, 5, 1);
    fua.fua = true;
    let r = run(&["write_cache.mode=\"write-back\""], vec![fua]);
    assert_eq!(r.latency_us.write.max, 10.0 + 500.0, "FUA: on flash first");
    assert_eq!(cache_report(&r).fua_writes, 1);
    let r = run(
        &[
            "write_cache.mode=\"write-back\"",
            "write_cache.volatile=false",
        ],
        vec![fua, req(50, OpKind::Flush, 0, 0)],
    );
    assert_eq!(r.latency_us.write.max, 1.030, "capacitor-backed: DRAM only");
    assert_eq!(r.latency_us.flush.max, 0.001, "and a flush is free");
    assert_eq!(r.host_pages_written, 0);
    // A preflush flushes what is dirty before its request is served.
    let mut pre = req(1_000, OpKind::Write, 9, 1);
    pre.preflush = true;
    let r = run(
        &["write_cache.mode=\"write-back\""],
        vec![req(0, OpKind::Write, 1, 1), pre],
    );
    assert_eq!(r.host_pages_written, 1, "page 1 flushed, page 9 buffered");
    assert_eq!(r.latency_us.write.max, 10.0 + 500.0 + 1.030);
}

#[test]
fn overwrites_coalesce_so_flash_sees_fewer_writes_than_the_host() {
    // 1 MiB cache (256 pages; the flush from 205 dirty down to 180); a hot set of 64 pages
    // takes half the writes, the rest sweep 4,000 cold pages.
    let mut g = stream(11, "coalesce");
    let reqs: Vec<Request> = (0..20_000u64)
        .map(|i| {
            let page = if g.gen_bool(0.5) {
                g.gen_range(0..64)
            } else {
                64 + i % 4000
            };
            req(i * 50, OpKind::Write, page, 1)
        })
        .collect();
    let r = run(
        &["write_cache.mode=\"write-back\"", "write_cache.size_mib=1"],
        reqs,
    );
    let c = cache_report(&r);
    assert!(c.write_hit_ratio > 0.45, "{c:?}");
    assert!(
        c.flash_writes_per_host_write > 0.3 && c.flash_writes_per_host_write < 0.6,
        "{c:?}"
    );
    assert!(r.waf >= 1.0);
    assert!(c.flushes > 0 && c.evictions > 0);
}

/// Random reads and writes over `pages` with a skew (page = pages · u³).
fn skewed(seed: u64, n: u64, pages: u64, gap_us: u64) -> Vec<Request> {
    let mut g = stream(seed, "skewed");
    (0..n)
        .map(|i| {
            let u: f64 = g.gen();
            let page = ((pages as f64) * u * u * u) as u64;
            let op = if g.gen_bool(0.4) {
                OpKind::Read
            } else {
                OpKind::Write
            };
            req(i * gap_us, op, page.min(pages - 1), 1)
        })
        .collect()
}

#[test]
fn lru_hit_ratios_never_fall_as_the_cache_grows() {
    // LRU is a stack algorithm: a larger cache holds every page a smaller one does.
    let reqs = skewed(3, 30_000, 6_000, 40);
    let mut last = (0.0, 0.0);
    for mib in [0.25, 1.0, 4.0, 16.0, 64.0] {
        let size = format!("write_cache.size_mib={mib}");
        let r = run(&["write_cache.mode=\"write-back\"", &size], reqs.clone());
        let c = cache_report(&r);
        let now = (c.read_hit_ratio, c.write_hit_ratio);
        assert!(
            now.0 >= last.0 && now.1 >= last.1,
            "{mib} MiB: {now:?} after {last:?}"
        );
        last = now;
    }
    assert!(last.0 > 0.3, "{last:?}");
}

#[test]
fn cflru_keeps_dirty_pages_longer_than_lru() {
    // Reads cached too, no background flush (flush_high = 1): LRU flushes each dirty victim;
    // CFLRU evicts a clean (read) page of its window first, so dirty pages absorb more
    // overwrites and fewer pages are flushed.
    let reqs = skewed(5, 30_000, 3_000, 40);
    let on = |e: &str| {
        let ev = format!("write_cache.eviction=\"{e}\"");
        let r = run(
            &[
                "write_cache.mode=\"write-back\"",
                "write_cache.read_allocate=true",
                "write_cache.size_mib=2",
                "write_cache.flush_high=1",
                "write_cache.flush_low=1",
                &ev,
            ],
            reqs.clone(),
        );
        cache_report(&r)
    };
    let (lru, cflru) = (on("lru"), on("cflru"));
    assert!(
        cflru.flushed_pages < lru.flushed_pages,
        "CFLRU {} flushed pages, LRU {}",
        cflru.flushed_pages,
        lru.flushed_pages
    );
}

/// Every layer combination the cache composes with, under test mode (each request's
/// invariants: the FTL's, the cache's, every acknowledged page in the cache or on flash).
#[test]
fn no_acknowledged_write_is_lost_in_any_layer_combination() {
    let ftls: [(&str, &[&str]); 3] = [
        ("tiny", &[]),
        (
            "yoo-qlc",
            &[
                "ftl.mapping_unit_bytes=16384",
                "geometry.blocks_per_plane=64",
                "geometry.pages_per_block=16",
                "geometry.spare_factor=0.3",
                "cache.slc_blocks=6",
                "cache.theta_kib=32",
            ],
        ),
        (
            "ttflash",
            &[
                "geometry.chips_per_channel=4",
                "geometry.blocks_per_plane=64",
                "geometry.pages_per_block=32",
                "geometry.spare_factor=0.4",
                "ftl.kind=\"rain\"",
                "rain.gtr=true",
                "rain.rgc=true",
            ],
        ),
    ];
    let mut runs = 0;
    for (preset, base) in ftls {
        for mode in ["write-through", "write-back"] {
            for eviction in ["lru", "fifo", "cflru"] {
                for flush in ["watermark", "gc-aware"] {
                    let sets: Vec<String> = base
                        .iter()
                        .map(|s| s.to_string())
                        .chain([
                            format!("write_cache.mode=\"{mode}\""),
                            format!("write_cache.eviction=\"{eviction}\""),
                            format!("write_cache.flush=\"{flush}\""),
                            "write_cache.size_mib=0.5".into(),
                            "write_cache.idle_flush_us=3000".into(),
                        ])
                        .collect();
                    let cfg = DeviceConfig::from_preset(preset, &sets).unwrap();
                    let unit = u64::from(cfg.unit_bytes());
                    let pages = cfg.logical_units();
                    let reqs = mixed(7 + runs, 3_000, pages, unit);
                    let opts = SimOptions {
                        seed: 3,
                        replay: Replay::ClosedLoop { queue_depth: 8 },
                        precondition: Some(Precondition {
                            random_passes: 0.5,
                            ..Precondition::default()
                        }),
                        check_every: 1,
                        ..SimOptions::default()
                    };
                    let what = format!("{preset} {mode} {eviction} {flush}");
                    let mut s = sim(cfg, reqs, opts);
                    let r = s.run().unwrap_or_else(|e| panic!("{what}: {e}"));
                    s.stack()
                        .check_invariants()
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let c = cache_report(&r);
                    assert!(c.host_pages_written > 0 && c.read_hits > 0, "{what}: {c:?}");
                    if mode == "write-back" {
                        assert!(c.flushes > 0, "{what}: {c:?}");
                    }
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 36);
}

/// Reads, writes (some FUA), trims and flush commands over `pages` units of `unit` bytes:
/// 1–4 units a request, a hot tenth taking half the accesses.
fn mixed(seed: u64, n: u64, pages: u64, unit: u64) -> Vec<Request> {
    let mut g = stream(seed, "mixed-cache");
    (0..n)
        .map(|i| {
            let hot = g.gen_bool(0.5);
            let len = g.gen_range(1..=4u64);
            let span = if hot { pages / 10 } else { pages } - len;
            let first = g.gen_range(0..span);
            let x: f64 = g.gen();
            let op = match x {
                x if x < 0.35 => OpKind::Read,
                x if x < 0.93 => OpKind::Write,
                x if x < 0.98 => OpKind::Trim,
                _ => OpKind::Flush,
            };
            let mut r = Request {
                arrival_ns: i * 20_000,
                op,
                offset_bytes: first * unit,
                size_bytes: len * unit,
                fragment_follows: false,
                fua: op == OpKind::Write && g.gen_bool(0.05),
                preflush: false,
                placement: 0,
            };
            if op == OpKind::Flush {
                (r.offset_bytes, r.size_bytes) = (0, 0);
            }
            r
        })
        .collect()
}

/// What a power cut at `at` loses, from the record of acknowledgements and flushes alone: a
/// page whose last write acknowledged by `at` (and not trimmed since) no flush completed by
/// `at` covers.
fn lost_by_the_record(events: &[CacheEvent], at: u64) -> u64 {
    use std::collections::BTreeMap;
    let mut acked: BTreeMap<u32, (u32, u64)> = BTreeMap::new();
    let mut durable: BTreeMap<u32, u32> = BTreeMap::new();
    for e in events {
        match *e {
            CacheEvent::Ack {
                lpn,
                version,
                at: t,
            } if t <= at => {
                acked.insert(lpn, (version, t));
            }
            CacheEvent::Trim { lpn, at: t } if t <= at => {
                acked.remove(&lpn);
            }
            CacheEvent::Flushed { lpn, version, done } if done <= at => {
                let d = durable.entry(lpn).or_insert(0);
                *d = (*d).max(version);
            }
            _ => {}
        }
    }
    acked
        .iter()
        .filter(|(lpn, (v, _))| durable.get(lpn).copied().unwrap_or(0) < *v)
        .count() as u64
}

#[test]
fn a_power_cut_loses_exactly_the_dirty_pages_no_completed_flush_covered() {
    let reqs: Vec<Request> = skewed(9, 6_000, 4_000, 30)
        .into_iter()
        .map(|mut r| {
            // Bursts and gaps, so that the flush is caught both idle and busy.
            let i = r.arrival_ns / 30_000;
            r.arrival_ns += (i / 500) * 20_000_000;
            r
        })
        .collect();
    for cut_us in [5_000.0, 62_345.0, 150_000.0, 1e9] {
        for flush in ["watermark", "gc-aware"] {
            let cut = |volatile: bool| {
                let sets = [
                    DRAM[0].to_string(),
                    DRAM[1].to_string(),
                    "write_cache.mode=\"write-back\"".into(),
                    "write_cache.size_mib=2".into(),
                    format!("write_cache.flush=\"{flush}\""),
                    format!("write_cache.volatile={volatile}"),
                ];
                let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
                let opts = SimOptions {
                    replay: OPEN,
                    check_every: 1_000,
                    power_cut_us: Some(cut_us),
                    ..SimOptions::default()
                };
                let mut s = sim(cfg, reqs.clone(), opts);
                let r = s.run().unwrap();
                let want = lost_by_the_record(s.stack().cache_events(), (cut_us * 1e3) as u64);
                (
                    cache_report(&r).power_cut.expect("cut"),
                    want,
                    r.requests.total,
                )
            };
            let (v, want, served) = cut(true);
            assert_eq!(v.lost_pages, want, "cut at {cut_us} µs, {flush}: {v:?}");
            assert_eq!(v.rescued_pages, 0);
            if cut_us < 1e8 {
                assert!(served < 6_000, "requests after the cut are not served");
                assert!(want > 0, "cut at {cut_us} µs: something was at risk");
            }
            let (c, _, _) = cut(false);
            assert_eq!(
                (c.lost_pages, c.rescued_pages),
                (0, want),
                "capacitor-backed, cut at {cut_us} µs"
            );
        }
    }
}

#[test]
fn trims_drop_cached_pages_and_idle_time_flushes() {
    let r = run(
        &[
            "write_cache.mode=\"write-back\"",
            "write_cache.idle_flush_us=1000",
        ],
        vec![
            req(0, OpKind::Write, 0, 4),
            req(10, OpKind::Trim, 2, 2),
            req(20_000, OpKind::Read, 0, 4),
        ],
    );
    let c = cache_report(&r);
    // Pages 2 and 3 were trimmed before any flush: only 0 and 1 reach flash, in the idle time.
    assert_eq!(r.host_pages_written, 2);
    assert_eq!((c.read_hits, r.unmapped_reads), (2, 2));
    assert_eq!(c.dirty_pages, 0);
}
