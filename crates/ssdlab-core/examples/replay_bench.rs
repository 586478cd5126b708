//! Trace replay speed (docs/speed-targets.md, `benches/replay.sh`):
//! `cargo run --release -p ssdlab-core --example replay_bench -- TRACE [WHAT [DEVICE [JSON]]]`.
//!
//! WHAT is `parse` (open the trace and drain its request source: reading, decompressing and
//! parsing only), `untimed` (replay it timing-free: FTL only), `timed` (replay it open loop at
//! its own timestamps, the normal trace mode), `all` (default: the three), or `bound` (both
//! replays from the trace's requests parsed into memory beforehand: the simulation alone, what
//! a replay would reach if parsing cost nothing; `bound-untimed` and `bound-timed` run one of
//! the two, for a profile or an A/B of one). DEVICE defaults to
//! `mqsim-small`; replays are preconditioned as `ssdlab run` does, and the rate counts the
//! replay only (requests served / wall time of `Simulation::run`), so preconditioning and
//! opening are left out. JSON is extra fields of the trace spec, e.g. `{"parse_thread":
//! false}`. Only the public API, so the same file builds against older commits for
//! before/after figures. Wall-clock timing lives here, never in the core or in tests.

use std::time::Instant;

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Precondition, SimOptions, Simulation};
use ssdlab_core::trace::{
    open_trace, open_workload, RequestSource, TraceSpec, VecSource, WorkloadSpec,
};

fn spec(path: &str, extra: &str) -> TraceSpec {
    let mut v = serde_json::json!({ "path": path });
    if !extra.is_empty() {
        let e: serde_json::Value = serde_json::from_str(extra).expect("JSON: an object");
        for (k, x) in e.as_object().expect("JSON: an object") {
            v[k] = x.clone();
        }
    }
    serde_json::from_value(v).expect("trace spec")
}

fn parse_only(spec: &TraceSpec) {
    let t = Instant::now();
    let mut src = open_trace(spec).expect("open");
    let mut n = 0u64;
    let mut bytes = 0u64;
    while let Some(r) = src.next_request().expect("parse") {
        n += 1;
        bytes = bytes.wrapping_add(r.size_bytes);
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "parse      {n} requests ({} GiB), {dt:.2} s, {:.2} M requests/s",
        bytes >> 30,
        n as f64 / dt / 1e6
    );
}

/// Replays `spec`, or with `memory`, the requests in it (read beforehand, untimed).
fn replay(
    spec: &TraceSpec,
    device: &str,
    timing: bool,
    memory: Option<&[ssdlab_core::trace::Request]>,
) {
    let cfg = DeviceConfig::from_preset(device, &[]).expect("preset");
    let g = cfg.geometry.clone();
    let wl = WorkloadSpec::Trace(spec.clone());
    let t = Instant::now();
    let src: Box<dyn RequestSource> = match memory {
        Some(requests) => Box::new(VecSource::new(requests.to_vec())),
        None => open_workload(&wl, g.logical_bytes(), u64::from(g.page_size), 1).expect("open"),
    };
    let opts = SimOptions {
        timing,
        precondition: Some(Precondition::default()),
        ..SimOptions::default()
    };
    let mut s = Simulation::new(cfg, opts, src).expect("simulation");
    let pre = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let r = s.run().expect("run");
    let dt = t.elapsed().as_secs_f64();
    let label = match (timing, memory.is_some()) {
        (true, false) => "timed",
        (false, false) => "untimed",
        (true, true) => "timed-mem",
        (false, true) => "untimed-mem",
    };
    println!(
        "{label:<10} {} requests, WAF {:.3}, mean {:.1} µs, p99 {:.0} µs, simulated {:.0} s for {:.0} s of arrivals, {dt:.2} s (open + precondition {pre:.2} s), {:.2} M requests/s",
        r.requests.total,
        r.waf,
        r.latency_us.all.mean,
        r.latency_us.all.p99,
        r.sim_time_s,
        r.arrival_span_s,
        r.requests.total as f64 / dt / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: replay_bench TRACE [parse|untimed|timed|all|bound[-untimed|-timed] [DEVICE [JSON]]]");
        std::process::exit(2);
    };
    let what = args.get(2).map_or("all", String::as_str);
    let device = args.get(3).map_or("mqsim-small", String::as_str);
    let spec = spec(path, args.get(4).map_or("", String::as_str));
    if matches!(what, "parse" | "all") {
        parse_only(&spec);
    }
    if matches!(what, "untimed" | "all") {
        replay(&spec, device, false, None);
    }
    if matches!(what, "timed" | "all") {
        replay(&spec, device, true, None);
    }
    if matches!(what, "bound" | "bound-untimed" | "bound-timed") {
        let mut src = open_trace(&spec).expect("open");
        let mut requests = Vec::new();
        while let Some(r) = src.next_request().expect("parse") {
            requests.push(r);
        }
        if what != "bound-timed" {
            replay(&spec, device, false, Some(&requests));
        }
        if what != "bound-untimed" {
            replay(&spec, device, true, Some(&requests));
        }
    }
}
