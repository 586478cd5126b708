//! `experiment fill` (the drive-review write curve): on a hybrid device with a static SLC
//! region, the curve's cliff sits where the configured cache runs out, and the two plateaus are
//! the SLC and the migration-bound rates the timings give.

use ssdlab_core::experiments::fill::{run, FillSetup};

fn setup(extra: &[&str], request_kib: u32, points: u32) -> FillSetup {
    let mut overrides: Vec<String> = [
        "geometry.blocks_per_plane=256",
        "geometry.spare_factor=0.2",
        "cache.slc_blocks=32",
    ]
    .map(String::from)
    .to_vec();
    overrides.extend(extra.iter().map(|s| s.to_string()));
    FillSetup {
        device: "yoo-qlc".into(),
        origin: String::new(),
        overrides,
        request_kib,
        queue_depth: 8,
        points,
        seed: 1,
        progress: Default::default(),
    }
}

#[test]
fn the_cliff_is_at_the_configured_cache_size() {
    let r = run(&setup(&[], 64, 400)).unwrap();
    // 32 SLC blocks × 256 pages × 16 KiB.
    let cache = 32.0 * 256.0 * 16384.0 / 1e9;
    assert!((r.cache_gb - cache).abs() < 1e-9, "{}", r.cache_gb);
    let first = r.points[0].mb_s;
    let cliff = r
        .points
        .iter()
        .find(|p| p.mb_s < first / 2.0)
        .expect("a cliff");
    // Migration starts when the region has 5 free blocks (the paper's trigger; the open block
    // counts as in use), i.e. once 26 of the 32 blocks are full, so the cliff comes after 26
    // blocks' worth and before the whole cache (plus one point's width).
    let width = r.capacity_gb / 400.0;
    let low = cache * 26.0 / 32.0;
    eprintln!(
        "first {first:.1} MB/s, cliff at {:.3} GB ({:.1} MB/s), cache {cache:.3} GB",
        cliff.written_gb, cliff.mb_s
    );
    assert!(
        cliff.written_gb >= low && cliff.written_gb <= cache + width,
        "cliff at {} GB, expected {low}..{} GB",
        cliff.written_gb,
        cache + width
    );
    // Plateaus: in the cache, one SLC program per page (16 KiB / (transfer + 200 µs));
    // after it, each SLC block written needs one migrated first (read SLC + program QLC per
    // page, an SLC erase per block) — below QLC's direct rate.
    let xfer = 16384.0 / 800.0; // µs at 800 MB/s
    let slc = 16384.0 / (xfer + 200.0);
    assert!(
        (first - slc).abs() / slc < 0.02,
        "SLC plateau {first} vs {slc}"
    );
    let tail = r.points[r.points.len() / 2].mb_s;
    let per_block = 256.0 * (xfer + 200.0) + 256.0 * (25.0 + 1860.0) + 2000.0;
    let migrating = 256.0 * 16384.0 / per_block;
    assert!(
        (tail - migrating).abs() / migrating < 0.05,
        "after the cache {tail} vs {migrating}"
    );
}

#[test]
fn requests_above_theta_and_no_cache_write_at_the_qlc_rate_throughout() {
    let xfer = 16384.0 / 800.0;
    let qlc = 16384.0 / (xfer + 1860.0);
    for r in [
        run(&setup(&[], 128, 20)).unwrap(), // 128 KiB > θ = 64 KiB: cold, straight to QLC
        run(&setup(&["cache.slc=none"], 64, 20)).unwrap(),
    ] {
        for p in &r.points {
            assert!(
                (p.mb_s - qlc).abs() / qlc < 0.02,
                "{} MB/s vs {qlc}",
                p.mb_s
            );
        }
    }
}

#[test]
fn bad_options_are_one_line_errors() {
    let mut s = setup(&[], 0, 10);
    assert!(run(&s).unwrap_err().to_string().contains("--request-kib"));
    s.request_kib = 64;
    s.queue_depth = 0;
    assert!(run(&s).unwrap_err().to_string().contains("--queue-depth"));
}

/// The client-QLC preset (870 QVO-shaped: a static plus a capped dynamic SLC part, writes
/// straight to QLC once the cache is full), scaled to 512 blocks per plane: the cache is
/// static + dynamic, the cliff sits at it (less the trigger's 6 blocks per plane), and after it
/// the drive writes at the QLC rate of its 8 planes.
#[test]
fn client_qlc_cache_is_static_plus_dynamic_and_then_qlc_speed() {
    let r = run(&FillSetup {
        device: "client-qlc-1tb".into(),
        origin: String::new(),
        overrides: [
            "geometry.blocks_per_plane=512",
            "cache.slc_blocks=90",
            "cache.dwa_max_dynamic_blocks=540",
        ]
        .map(String::from)
        .to_vec(),
        request_kib: 128,
        queue_depth: 32,
        points: 200,
        seed: 1,
        progress: Default::default(),
    })
    .unwrap();
    let block = 256.0 * 16384.0 / 1e9;
    assert!((r.cache_gb - 630.0 * block).abs() < 1e-9, "{}", r.cache_gb);
    let first = r.points[0].mb_s;
    let cliff = r.points.iter().find(|p| p.mb_s < first / 2.0).unwrap();
    let width = r.capacity_gb / 200.0;
    let low = r.cache_gb - 8.0 * 6.0 * block;
    assert!(
        cliff.written_gb >= low && cliff.written_gb <= r.cache_gb + width,
        "cliff at {} GB, cache {} GB",
        cliff.written_gb,
        r.cache_gb
    );
    let xfer = 16384.0 / 800.0;
    let qlc = 8.0 * 16384.0 / (xfer + 1860.0);
    let mid = r.points[r.points.len() / 2].mb_s;
    assert!(
        (mid - qlc).abs() / qlc < 0.03,
        "after the cache {mid} vs {qlc} MB/s"
    );
}
