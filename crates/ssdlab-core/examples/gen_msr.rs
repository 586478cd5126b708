//! A deterministic MSR Cambridge CSV trace for the replay benchmark (`benches/replay.sh`):
//! `cargo run --release -p ssdlab-core --example gen_msr -- OUT N [SEED [IOPS]]` writes N lines
//! to OUT (gzip-compressed when OUT ends in `.gz`). The same arguments always give the same
//! bytes.
//!
//! Why synthetic: the real MSR excerpts are 20 lines, and a speed figure needs millions. The
//! shape follows the real traces closely enough to exercise the same code: `Timestamp,
//! Hostname,DiskNumber,Type,Offset,Size,ResponseTime` with FILETIME timestamps (100 ns ticks,
//! starting in February 2007 as the MSR traces do), Poisson arrivals at 1,000 IOPS on average,
//! disk 0, 30 %
//! reads, sizes of 4–64 KiB, 4 KiB-aligned offsets within the first 7 GiB (inside
//! `mqsim-small`'s 7.44 GiB logical space, so no LBA map is needed), a fifth of the requests
//! continuing where the previous one ended (sequential runs) and 80 % of the others in a hot
//! fifth of the footprint, and a response time. Field widths are those of real MSR lines
//! (18-digit timestamps, 10-digit offsets), so bytes per line are realistic too.
//!
//! Why 1,000 IOPS: this workload keeps `mqsim-small` at a WAF of about 8, where the device
//! serves at most about 1,170 such requests/s (a million in 857 simulated seconds); at 1,250
//! IOPS a timed replay falls behind, latencies grow without bound and the run measures a
//! growing queue (and runs 2–4× slower) rather than the replay.

use std::fs::File;
use std::io::{BufWriter, Write};

use ssdlab_core::rng::{stream, Rng};

/// The first timestamp: 2007-02-22 (FILETIME), near the start of the MSR Cambridge week.
const START_TICKS: u64 = 128_166_372_003_061_629;
/// Mean arrival rate, requests/s.
const IOPS: f64 = 1_000.0;
/// Addresses fall in the first 7 GiB.
const FOOTPRINT: u64 = 7 << 30;
const SLOT: u64 = 4096;

/// Request sizes in 4 KiB slots, and how often each occurs (per mille).
const SIZES: [(u64, u32); 5] = [(1, 350), (2, 200), (4, 200), (8, 150), (16, 100)];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: gen_msr OUT LINES [SEED]");
        std::process::exit(2);
    }
    let out = &args[1];
    let n: u64 = args[2].parse().expect("LINES: a whole number");
    let seed: u64 = args
        .get(3)
        .map_or(1, |s| s.parse().expect("SEED: a whole number"));
    let iops: f64 = args
        .get(4)
        .map_or(IOPS, |s| s.parse().expect("IOPS: a number"));
    let gap = 1e7 / iops;
    let file = File::create(out).unwrap_or_else(|e| panic!("{out}: {e}"));
    let done = if out.ends_with(".gz") {
        let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        write_lines(gz, n, seed, gap).and_then(|gz| gz.finish().map(drop))
    } else {
        write_lines(file, n, seed, gap).map(drop)
    };
    done.unwrap_or_else(|e| panic!("{out}: {e}"));
}

/// Writes the `n` lines of `seed` to `sink` and hands the sink back, flushed.
fn write_lines<W: Write>(sink: W, n: u64, seed: u64, gap: f64) -> std::io::Result<W> {
    let mut w = BufWriter::with_capacity(1 << 20, sink);
    let mut rng = stream(seed, "gen_msr");
    let slots = FOOTPRINT / SLOT;
    let hot = slots / 5;
    let (mut ts, mut next) = (START_TICKS, 0u64);
    for _ in 0..n {
        let u: f64 = rng.gen();
        ts += (-(1.0 - u).ln() * gap) as u64;
        let op = if rng.gen_bool(0.3) { "Read" } else { "Write" };
        let mut pick = rng.gen_range(0..1000u32);
        let mut size = SIZES[SIZES.len() - 1].0;
        for (s, w) in SIZES {
            if pick < w {
                size = s;
                break;
            }
            pick -= w;
        }
        let slot = if rng.gen_bool(0.2) && next + size <= slots {
            next
        } else if rng.gen_bool(0.8) {
            rng.gen_range(0..hot - size)
        } else {
            rng.gen_range(hot..slots - size)
        };
        next = slot + size;
        let u: f64 = rng.gen();
        let response = 200 + (-(1.0 - u).ln() * 8_000.0) as u64;
        writeln!(
            w,
            "{ts},hm,0,{op},{},{},{response}",
            slot * SLOT,
            size * SLOT
        )?;
    }
    w.into_inner().map_err(|e| e.into_error())
}
