//! Speed benchmark (docs/speed-targets.md): `cargo run --release -p ssdlab-core --example bench`.
//!
//! 1. Timing-free FTL: uniformly random single-page writes on `mqsim-small` (7 % spare,
//!    preconditioned, so GC is active: WAF ≈ 7.5) — host page writes per second, and all page
//!    programs (host + GC copies) per second.
//! 2. Timed: `mqsim-small`, 8 KiB random writes, closed loop at queue depth 16, preconditioned —
//!    requests per second.
//! 3. Memory: FTL bytes per physical page.
//! Single-threaded. Wall-clock timing lives here, never in the core or in tests.
//! Arguments: `[PRESET [HOST_PAGE_WRITES [section.key=value ...]]]`. `BENCH_ONLY=free` or
//! `BENCH_ONLY=timed` runs one of the two phases (e.g. under `perf record`); `BENCH_READS=0.9`
//! makes that share of the requests reads.

use std::time::Instant;

#[path = "support/mod.rs"]
mod support;

use ssdlab_core::ftl::Precondition;
use ssdlab_core::sim::Simulation;

fn sim(timing: bool, requests: u64, device: &str, sets: &[String]) -> Simulation {
    support::closed_uniform(device, sets, timing, requests, Precondition::default())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let device = args.get(1).map(String::as_str).unwrap_or("mqsim-small");
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000_000);
    // Optional `section.key=value` overrides, e.g. geometry.spare_factor=0.25.
    let sets: Vec<String> = args.iter().skip(3).cloned().collect();
    // BENCH_ONLY=timed (or =free) runs one phase alone, e.g. under `perf record`.
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    if only != "timed" {
        timing_free(device, n, &sets);
    }
    if only != "free" {
        timed(device, n / 4, &sets);
    }
}

fn timing_free(device: &str, n: u64, sets: &[String]) {
    let t = Instant::now();
    let mut s = sim(false, n, device, sets);
    let pre = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let r = s.run().expect("run");
    let dt = t.elapsed().as_secs_f64();
    let programs = r.host_pages_written + r.gc_pages_copied;
    println!(
        "timing-free  {device}: {} host page writes, WAF {:.3}, {:.2} s (precondition {:.2} s)",
        r.host_pages_written, r.waf, dt, pre
    );
    println!(
        "  GC page copies {}, erases {}",
        r.gc_pages_copied, r.erases
    );
    println!(
        "  host page writes/s  {:>8.2} M",
        r.host_pages_written as f64 / dt / 1e6
    );
    println!(
        "  page programs/s     {:>8.2} M  (host + GC copies)",
        programs as f64 / dt / 1e6
    );
}

fn timed(device: &str, m: u64, sets: &[String]) {
    let mut s = sim(true, m, device, sets);
    let t = Instant::now();
    let r = s.run().expect("run");
    let dt = t.elapsed().as_secs_f64();
    println!(
        "timed        {device}: {} requests QD16, WAF {:.3}, {:.2} s",
        r.requests.total, r.waf, dt
    );
    println!(
        "  requests/s          {:>8.2} M",
        r.requests.total as f64 / dt / 1e6
    );
    // Exact (shortest round-trip) figures, for comparing two builds' results (scripts/pgo check).
    let l = &r.latency_us.all;
    println!(
        "  latency us: mean {}, p99 {}, max {} (simulated time {} s, {} GC page copies)",
        l.mean, l.p99, l.max, r.sim_time_s, r.gc_pages_copied
    );

    let g = s.device().geometry.clone();
    let bytes = s.ftl().memory_bytes();
    println!(
        "memory: {} bytes of FTL state for {} physical pages = {:.2} B/page",
        bytes,
        g.physical_pages(),
        bytes as f64 / g.physical_pages() as f64
    );
}
