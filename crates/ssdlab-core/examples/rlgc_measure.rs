//! Tail latency and erase counts of the GC schedulers on `kang-128gb` (Kang, Shin, Yoo, TECS
//! 2017, Table 2) under a Table-1 stand-in workload, preconditioned (sequential fill + random
//! passes). Usage: `cargo run --release -p ssdlab-core --example rlgc_measure -- [WORKLOAD]
//! [REQUESTS] [RANDOM_PASSES] [DEVICE]` (defaults: rbesql 200000 1 kang-128gb).

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{Precondition, Replay, SimOptions, Simulation};
use ssdlab_core::trace::{open_workload, WorkloadSpec};

fn main() -> ssdlab_core::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let workload = args.first().cloned().unwrap_or_else(|| "rbesql".into());
    let requests: u64 = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(200_000);
    let passes: f64 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(1.0);
    let device = args.get(3).cloned().unwrap_or_else(|| "kang-128gb".into());
    println!("device {device}, workload {workload} stand-in, {requests} requests, precondition sequential + {passes} random passes, seed 1");
    println!(
        "{:<16} {:>9} {:>9} {:>9} {:>10} {:>11} {:>9} {:>8} {:>9} {:>8} {:>6}",
        "scheduler",
        "mean",
        "p99",
        "p99.9",
        "p99.99",
        "p99.9999",
        "max",
        "erases",
        "copies",
        "blocked",
        "wall"
    );
    for name in [
        "blocking",
        "lazyrtgc",
        "rlgc",
        "rlgc-aggressive",
        "idle-ma",
        "idle-es",
    ] {
        let cfg = DeviceConfig::from_preset(&device, &[format!("gc.scheduler=\"{name}\"")])?;
        let opts = SimOptions {
            seed: 1,
            replay: Replay::OpenLoop { time_scale: 1.0 },
            precondition: Some(Precondition {
                sequential: true,
                random_passes: passes,
                fill_fraction: 1.0,
            }),
            ..SimOptions::default()
        };
        let spec = WorkloadSpec::Preset {
            name: workload.clone(),
            requests,
        };
        let src = open_workload(
            &spec,
            cfg.geometry.logical_bytes(),
            u64::from(cfg.geometry.page_size),
            opts.seed,
        )?;
        let t0 = std::time::Instant::now();
        let mut sim = Simulation::new(cfg, opts, src)?;
        let r = sim.run()?;
        let w = r.latency_us.write;
        println!(
            "{:<16} {:>9.0} {:>9.0} {:>9.0} {:>10.0} {:>11.0} {:>9.0} {:>8} {:>9} {:>8} {:>5.1}s",
            name,
            w.mean,
            w.p99,
            w.p99_9,
            w.p99_99,
            w.p99_9999,
            w.max,
            r.erases,
            r.gc_pages_copied,
            r.blocked_requests,
            t0.elapsed().as_secs_f64()
        );
    }
    println!("(write latencies in µs; erases and copies during the measured requests only)");
    Ok(())
}
