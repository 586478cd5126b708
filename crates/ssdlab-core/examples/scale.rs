//! Scale benchmark (issue 19, docs/speed-targets.md): cost per request as the device grows.
//! `cargo run --release -p ssdlab-core --example scale -- BLOCKS_PER_PLANE [HOST_PAGE_WRITES
//! [RANDOM_PASSES]]` — mqsim-small (16 planes × 128 pages of 8 KiB, 7 % spare) with
//! BLOCKS_PER_PLANE blocks per plane (512 = 1 Mi physical pages, 131072 = 256 Mi), preconditioned
//! by a sequential fill and RANDOM_PASSES (default 1) passes of uniformly random writes, then
//! HOST_PAGE_WRITES (default 4 M) uniformly random single-page writes timing-free and a quarter as
//! many 8 KiB writes timed (closed loop, QD 16), each on its own preconditioned device.
//! Prints one tab-separated line: physical pages, FTL bytes per physical page, the process's peak
//! resident bytes per physical page, precondition seconds, WAF, ns per host page write and per
//! page program (timing-free), timed requests/s. `benches/scale.sh` runs it over the sizes.
//! Wall-clock timing lives here, never in the core or in tests.

use std::time::Instant;

#[path = "support/mod.rs"]
mod support;

use ssdlab_core::ftl::Precondition;
use ssdlab_core::sim::Simulation;

fn sim(timing: bool, requests: u64, sets: &[String], passes: f64) -> Simulation {
    let pre = Precondition {
        random_passes: passes,
        ..Precondition::default()
    };
    support::closed_uniform("mqsim-small", sets, timing, requests, pre)
}

/// Peak resident set of this process, bytes (Linux; 0 elsewhere).
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kib| kib * 1024)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let blocks: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(512);
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    let passes: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let sets = vec![format!("geometry.blocks_per_plane={blocks}")];

    let t = Instant::now();
    let mut s = sim(false, n, &sets, passes);
    let pre = t.elapsed().as_secs_f64();
    let pages = s.device().geometry.physical_pages();
    let ftl_bytes = s.ftl().memory_bytes() as f64 / pages as f64;
    let t = Instant::now();
    let r = s.run().expect("run");
    let dt = t.elapsed().as_secs_f64();
    let programs = r.host_pages_written + r.gc_pages_copied;
    drop(s);

    let mut s = sim(true, n / 4, &sets, passes);
    let t = Instant::now();
    let rt = s.run().expect("run");
    let dtt = t.elapsed().as_secs_f64();
    println!(
        "{pages}\t{ftl_bytes:.2}\t{:.2}\t{pre:.1}\t{:.3}\t{:.1}\t{:.1}\t{:.2}",
        peak_rss() as f64 / pages as f64,
        r.waf,
        dt * 1e9 / r.host_pages_written as f64,
        dt * 1e9 / programs as f64,
        rt.requests.total as f64 / dtt / 1e6,
    );
}
