//! Offline-cleaning benchmark: Greedy replay time, MCTS playouts per second and the time for N
//! playouts, on a synthetic hot/cold workload the size of the CloudPhysics excerpt (~650k page
//! writes over ~200k pages) or on a trace file, on a device with 128-page blocks scaled to the
//! write footprint with a spare factor so GC is active (`offline::input`: T = ⌈N / (128 · (1 −
//! spare))⌉ + 1, prefilled).
//!
//! `cargo run --release -p ssdlab-core --example offline_bench -- [playouts] [writes] [pages] [spare%]`
//! or, on any trace the library reads (4 KiB pages, `dense` LBA map, prefilled):
//! `cargo run --release -p ssdlab-core --example offline_bench -- trace PATH [playouts] [spare%]`

use std::time::Instant;

use ssdlab_core::offline::{
    load_problem, run_offline, OfflineMethod, OfflineSetup, OfflineWorkload, Playout,
};
use ssdlab_core::trace::{LbaMapMode, Pattern, SyntheticSpec, TraceSpec};

fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let on_trace = std::env::args()
        .nth(1)
        .is_some_and(|a| a == "trace" || a == "vscsi");
    let (workload, logical, playouts, spare_pct) = if on_trace {
        let mut t = TraceSpec::new(arg(2, String::new()));
        t.lba_map = LbaMapMode::Dense;
        (
            OfflineWorkload::Trace(t),
            None,
            arg(3, 256u64),
            arg(4, 7.0f64),
        )
    } else {
        // Hot/cold: 80% of writes to 20% of the pages (the generator's defaults).
        let s = SyntheticSpec::new(Pattern::Hotcold, arg(2, 650_000u64));
        (
            OfflineWorkload::Synthetic(s),
            Some(arg(3, 200_000u64)),
            arg(1, 256u64),
            arg(4, 7.0f64),
        )
    };
    let setup = OfflineSetup {
        spare: spare_pct / 100.0,
        logical_pages: logical,
        ..OfflineSetup::default()
    };
    let t0 = Instant::now();
    let prob = match load_problem(&workload, &setup, 42) {
        Ok(p) => p,
        Err(e) => return eprintln!("{e}"),
    };
    println!(
        "input: {} ({:.2} s)",
        prob.source,
        t0.elapsed().as_secs_f64()
    );
    let (trace, cfg) = (prob.writes, prob.config);
    let (blocks, np, pages) = (cfg.blocks, cfg.pages_per_block, cfg.logical_pages);
    let writes = trace.len();
    println!(
        "device: {blocks} blocks x {np} pages, {pages} logical pages (+prefill), trace {writes} writes, threads {}",
        rayon::current_num_threads()
    );

    let t0 = Instant::now();
    let g = match run_offline(&trace, &cfg, &OfflineMethod::Greedy, 1) {
        Ok(g) => g,
        Err(e) => return eprintln!("greedy: {e}"),
    };
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "greedy: {} internal writes, WAF {:.3}, {} cleanings; run + replay-check {:.3} s",
        g.internal_writes, g.waf, g.cleanings, dt
    );

    let method = OfflineMethod::Mcts {
        playouts,
        playout: Playout::BestOnline,
        psi: None,
        exploration: 1.0,
        workers: None,
    };
    let t0 = Instant::now();
    let m = match run_offline(&trace, &cfg, &method, 1) {
        Ok(m) => m,
        Err(e) => return eprintln!("mcts: {e}"),
    };
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "mcts: {} playouts in {:.1} s = {:.1} playouts/s; best {} internal writes ({:.3}% better than greedy), {} better-than-greedy schedules",
        m.playouts,
        dt,
        m.playouts as f64 / dt,
        m.internal_writes,
        m.improvement_pct,
        m.better_than_greedy
    );
    println!(
        "projected time for 16384 playouts: {:.0} s",
        16384.0 * dt / m.playouts.max(1) as f64
    );
    for c in &m.convergence {
        println!(
            "  {:>6} playouts: {:>8} internal writes, {:+.3}%",
            c.playouts, c.internal_writes, c.improvement_pct
        );
    }
}
