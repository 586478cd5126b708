//! Offline-cleaning benchmark: Greedy replay time, MCTS playouts per second and the time for N
//! playouts on a synthetic hot/cold trace the size of the CloudPhysics excerpt (~650k page writes
//! over ~200k pages), on a device with 128-page blocks and ~7% spare where GC is active.
//!
//! `cargo run --release -p ssdlab-core --example offline_bench -- [playouts] [writes] [pages] [spare%]`
//! or, on a VSCSI binary trace (4 KiB pages, distinct pages renumbered densely in first-touch
//! order, prefilled):
//! `cargo run --release -p ssdlab-core --example offline_bench -- vscsi PATH [playouts] [spare%]`

use std::time::Instant;

use ssdlab_core::offline::{run_offline, OfflineConfig, OfflineMethod};
use ssdlab_core::rng::{self, Rng};

fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Page writes of a VSCSI binary trace: 32-byte little-endian records `u32 serial, u32 length
/// (bytes), u32 n_sg, u16 opcode, u16 version, u64 lbn (512 B), u64 ts_us`; opcode 0x2a is a
/// write. A bench-only reader (the library's is `crate::trace`, on another branch); pages are
/// renumbered densely. Returns (page writes, distinct pages).
fn vscsi_page_writes(path: &str) -> std::io::Result<(Vec<u32>, u32)> {
    let bytes = std::fs::read(path)?;
    let mut ids = std::collections::HashMap::new();
    let mut out = Vec::new();
    for rec in bytes.chunks_exact(32) {
        let u32_at = |o: usize| u32::from_le_bytes([rec[o], rec[o + 1], rec[o + 2], rec[o + 3]]);
        let opcode = u16::from_le_bytes([rec[12], rec[13]]);
        let len = u64::from(u32_at(4));
        let mut lbn = [0u8; 8];
        lbn.copy_from_slice(&rec[16..24]);
        let start = u64::from_le_bytes(lbn) * 512;
        if opcode != 0x2a || len == 0 {
            continue;
        }
        for page in start / 4096..=(start + len - 1) / 4096 {
            let next = ids.len() as u32;
            out.push(*ids.entry(page).or_insert(next));
        }
    }
    Ok((out, ids.len() as u32))
}

fn main() {
    let vscsi = std::env::args().nth(1).is_some_and(|a| a == "vscsi");
    let (trace, pages, playouts, spare_pct) = if vscsi {
        let path: String = arg(2, String::new());
        let (trace, pages) = match vscsi_page_writes(&path) {
            Ok(x) => x,
            Err(e) => return eprintln!("{path}: {e}"),
        };
        (trace, pages, arg(3, 256u64), arg(4, 7.0f64))
    } else {
        let playouts: u64 = arg(1, 256);
        let writes: usize = arg(2, 650_000);
        let pages: u32 = arg(3, 200_000);
        // Hot/cold: 80% of writes to 20% of the pages.
        let mut r = rng::stream(42, "bench.hotcold");
        let hot = pages / 5;
        let trace: Vec<u32> = (0..writes)
            .map(|_| {
                if r.gen_bool(0.8) {
                    r.gen_range(0..hot)
                } else {
                    r.gen_range(hot..pages)
                }
            })
            .collect();
        (trace, pages, playouts, arg(4, 7.0f64))
    };
    let writes = trace.len();
    let np = 128u32;
    let blocks = ((f64::from(pages) * (1.0 + spare_pct / 100.0)) / f64::from(np)).ceil() as u32 + 1;
    let cfg = OfflineConfig {
        blocks,
        pages_per_block: np,
        logical_pages: pages,
        prefill: true,
    };
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
