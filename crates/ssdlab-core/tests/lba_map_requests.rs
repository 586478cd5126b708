//! An LBA map changes where a request's pages go, never the workload: a request that `dense`
//! (or `modulo`) splits into fragments is still one request — one count, one latency from its
//! arrival to its last page's completion — so a run counts as many requests with `dense` as
//! with the identity map (`none`) on the same trace.

use std::path::PathBuf;

use crate::support::traces::{current_test, shared, skipped};
use serde_json::{json, Value};
use ssdlab_core::api;
use ssdlab_core::stats::SimResult;
use ssdlab_core::trace::{open_workload, WorkloadSpec};

fn fixture(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lba-map-requests");
    std::fs::create_dir_all(&dir).expect("fixture dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

fn trace(path: &std::path::Path, lba_map: &str) -> Value {
    json!({"kind": "trace", "path": path, "lba_map": lba_map})
}

fn run(device: &str, workload: &Value, options: Value) -> SimResult {
    let dev = api::load_device(device, device, &[]).expect("device");
    let wl = api::parse_workload(&workload.to_string()).expect("workload");
    let opts = api::parse_options(&options.to_string()).expect("options");
    let mut sim = api::build_simulation(dev, &wl, opts).expect("simulation");
    sim.run().expect("run")
}

fn open_loop() -> Value {
    json!({"seed": 1, "timing": true, "replay": {"mode": "open-loop", "time_scale": 1.0},
           "precondition": null})
}

/// Fragments the LBA map makes of `workload` on `device`, and the host requests they form.
fn fragments(device: &str, workload: &Value) -> (u64, u64) {
    let dev = api::load_device(device, device, &[]).expect("device");
    let wl: WorkloadSpec = api::parse_workload(&workload.to_string()).expect("workload");
    let g = &dev.geometry;
    let mut src = open_workload(&wl, g.logical_bytes(), u64::from(g.page_size), 1).unwrap();
    let (mut pieces, mut requests) = (0, 0);
    while let Some(r) = src.next_request().unwrap() {
        pieces += 1;
        requests += u64::from(!r.fragment_follows);
    }
    (pieces, requests)
}

/// Page-aligned requests of 1–8 pages scattered over a 4 MiB footprint (fits `tiny` as it is):
/// `dense` packs their pages first-come, so most multi-page requests are split.
fn scattered_trace(n: u64) -> String {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let mut out = String::new();
    for i in 0..n {
        let pages = 1 + next() % 8;
        let page = next() % (1024 - pages);
        let op = if next() % 3 == 0 { "R" } else { "W" };
        out.push_str(&format!(
            "{},{op},{},{}\n",
            i * 500,
            page * 4096,
            pages * 4096
        ));
    }
    out
}

#[test]
fn dense_counts_each_host_request_once() {
    let p = fixture("scattered.csv", &scattered_trace(3000));
    let (pieces, requests) = fragments("tiny", &trace(&p, "dense"));
    assert_eq!(requests, 3000);
    assert!(
        pieces > requests + 500,
        "dense split only {pieces} - {requests}"
    );
    let none = run("tiny", &trace(&p, "none"), open_loop());
    for map in ["dense", "modulo"] {
        let r = run("tiny", &trace(&p, map), open_loop());
        assert_eq!(r.requests, none.requests, "{map}");
        assert_eq!(r.requests.total, 3000, "{map}");
        assert_eq!(r.latency_us.all.count, 3000, "{map}");
        assert_eq!(r.latency_us.write.count, none.latency_us.write.count);
        assert_eq!(r.host_pages_written, none.host_pages_written, "{map}");
    }
}

/// On an idle device a request's latency does not depend on which logical pages its pages map
/// to (round-robin allocation places the same pages on the same planes): a 3-page write that
/// `dense` splits into three fragments has exactly the latency it has unsplit.
#[test]
fn a_split_request_has_the_latency_of_its_last_fragment() {
    // Page 1 first (→ logical 0), then pages 0..3 a second later: dense maps them to 1, 0, 2 —
    // three fragments of one request; then a read of the same three pages.
    let p = fixture(
        "split.csv",
        "0,W,4096,4096\n1000000,W,0,12288\n2000000,R,0,12288\n",
    );
    let (pieces, requests) = fragments("tiny", &trace(&p, "dense"));
    assert_eq!((pieces, requests), (7, 3));
    let none = run("tiny", &trace(&p, "none"), open_loop());
    let dense = run("tiny", &trace(&p, "dense"), open_loop());
    assert_eq!(dense.requests.total, 3);
    for (d, n) in [
        (&dense.latency_us.write, &none.latency_us.write),
        (&dense.latency_us.read, &none.latency_us.read),
    ] {
        assert_eq!((d.count, d.mean, d.max), (n.count, n.mean, n.max));
    }
    // The 3-page write waits for all three programs: longer than the 1-page write before it.
    assert!(dense.latency_us.write.max > dense.latency_us.write.mean);
}

/// The real CloudPhysics excerpt: 113,872 requests whatever the LBA map (the report:
/// `dense` counted 134,834). `kang-512gb` holds its 31.3 GiB address range as it is.
#[test]
fn cloudphysics_request_count_does_not_depend_on_the_lba_map() {
    let p = shared("cloudphysics/cloudPhysicsIO.vscsi");
    if !p.exists() {
        skipped(&current_test(), &p);
        return;
    }
    let opts = json!({"seed": 1, "timing": true, "precondition": null,
                      "replay": {"mode": "open-loop", "time_scale": 1.0}});
    let none = run("kang-512gb", &trace(&p, "none"), opts.clone());
    let dense = run("kang-512gb", &trace(&p, "dense"), opts);
    assert_eq!(none.requests.total, 113_872);
    assert_eq!(dense.requests, none.requests);
    assert_eq!(dense.latency_us.all.count, 113_872);
    assert_eq!(dense.host_pages_written, none.host_pages_written);
}
