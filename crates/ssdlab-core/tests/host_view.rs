//! The host's view of a simulated device (issue 13): `/proc/diskstats` counters kept as the
//! kernel keeps them, `iostat -x` fields once per simulated interval, and the GC ground truth.
//! The counters' definitions are checked against brute force in `sim::host`'s unit tests; here,
//! on whole simulations: the view does not perturb the run, accounts for every request, and its
//! GC label follows the device's GC.

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::{open_workload, Pattern, SyntheticSpec, WorkloadSpec};

/// mqsim-small at 128 blocks per plane: 16 planes, 2 GiB physical, 7 % spare.
fn device() -> DeviceConfig {
    DeviceConfig::from_preset("mqsim-small", &["geometry.blocks_per_plane=128".into()]).unwrap()
}

fn sim(requests: u64, read_fraction: f64, iostat: Option<f64>) -> Simulation {
    let cfg = device();
    let mut w = SyntheticSpec::new(Pattern::Uniform, requests);
    w.read_fraction = read_fraction;
    w.request_pages = 2;
    let g = &cfg.geometry;
    let src = open_workload(
        &WorkloadSpec::Synthetic(w),
        g.logical_bytes(),
        u64::from(g.page_size),
        7,
    )
    .unwrap();
    let opts = SimOptions {
        seed: 7,
        replay: Replay::ClosedLoop { queue_depth: 8 },
        iostat_interval_us: iostat,
        ..SimOptions::default()
    };
    Simulation::new(cfg, opts, src).unwrap()
}

#[test]
fn the_host_view_does_not_change_the_run() {
    let plain = sim(40_000, 0.3, None).run().unwrap();
    let mut s = sim(40_000, 0.3, Some(1e6));
    let viewed = s.run().unwrap();
    assert_eq!(
        serde_json::to_string(&plain).unwrap(),
        serde_json::to_string(&viewed).unwrap()
    );
    assert!(!s.iostat_rows().is_empty());
}

#[test]
fn intervals_account_for_every_completed_request() {
    let mut s = sim(60_000, 0.3, Some(0.5e6));
    let r = s.run().unwrap();
    let rows = s.iostat_rows();
    // Whole half-seconds of the run, each ending at its boundary.
    assert_eq!(rows.len() as f64, (r.sim_time_s / 0.5).floor());
    for (i, row) in rows.iter().enumerate() {
        assert!((row.t_s - 0.5 * (i + 1) as f64).abs() < 1e-12);
        assert_eq!(row.interval.itv_cs, 50);
        assert!(row.interval.util_pct <= 100.0 + 1e-9, "{row:?}");
    }
    let count = |f: &dyn Fn(&ssdlab_core::sim::IostatRow) -> f64| {
        rows.iter().map(|r| f(r) * 0.5).sum::<f64>().round() as u64
    };
    let (reads, writes) = (count(&|r| r.interval.r_s), count(&|r| r.interval.w_s));
    // Only the requests completing in the last partial interval are not in a row.
    let tail = (r.requests.total as f64 * 0.5 / r.sim_time_s).ceil() as u64 * 2;
    assert!(
        reads <= r.requests.read && reads + tail >= r.requests.read,
        "{reads} vs {:?}",
        r.requests
    );
    assert!(writes <= r.requests.write && writes + tail >= r.requests.write);
    // Eight requests are always outstanding: the device is never idle, the queue ~8 deep.
    for row in &rows[1..] {
        assert!(row.interval.util_pct > 99.0, "{row:?}");
        assert!((row.interval.aqu_sz - 8.0).abs() < 0.1, "{row:?}");
    }
    // Little's law: mean queue = throughput × mean latency.
    let mid = &rows[rows.len() / 2].interval;
    assert!(
        (mid.aqu_sz - mid.tps * mid.await_ms / 1000.0).abs() / mid.aqu_sz < 0.05,
        "{mid:?}"
    );
}

#[test]
fn the_gc_label_follows_the_devices_gc() {
    // Writes only, from an empty device: no GC until the free blocks run down, then GC always.
    let mut s = sim(400_000, 0.0, Some(1e6));
    let r = s.run().unwrap();
    let rows = s.iostat_rows();
    assert!(r.gc_busy_s > 0.0);
    assert_eq!(rows[0].gc_fraction, 0.0, "an empty device collects nothing");
    let last = rows.last().unwrap();
    assert!(last.gc_fraction > 0.5, "{last:?}");
    // Random writes' victims hold valid pages: their GC copies. Copies are a part of all GC.
    assert!(last.gc_copy_fraction > 0.0, "{last:?}");
    assert!(rows.iter().all(|r| r.gc_copy_fraction <= r.gc_fraction));
    // The label is the union over planes: at most the GC busy time, at least its share of one plane.
    let union: f64 = rows.iter().map(|r| r.gc_fraction).sum();
    assert!(union <= r.gc_busy_s + 1e-9);
    assert!(
        union >= r.gc_busy_s / 16.0 * 0.99,
        "{union} vs {}",
        r.gc_busy_s
    );
    // GC shows in the host's view: writes slow down once it starts.
    let first = rows.iter().position(|r| r.gc_fraction > 0.0).unwrap();
    assert!(first > 0);
    assert!(
        rows[first - 1].interval.w_s > last.interval.w_s * 1.5,
        "{:?} {:?}",
        rows[first - 1],
        last
    );
}

#[test]
fn the_host_view_needs_time_and_whole_hundredths() {
    let cfg = device();
    let src = || {
        open_workload(
            &WorkloadSpec::Synthetic(SyntheticSpec::new(Pattern::Uniform, 10)),
            cfg.geometry.logical_bytes(),
            8192,
            1,
        )
        .unwrap()
    };
    for (timing, us, want) in [
        (false, 1e6, "timing off"),
        (true, 12_345.0, "multiple of 10000"),
        (true, 0.0, "multiple of 10000"),
    ] {
        let opts = SimOptions {
            timing,
            iostat_interval_us: Some(us),
            ..SimOptions::default()
        };
        let e = Simulation::new(cfg.clone(), opts, src())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("iostat_interval_us") && e.contains(want), "{e}");
    }
}
