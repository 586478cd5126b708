//! A device too large for the memory available is refused before anything is allocated, with
//! one line naming the geometry, the estimate (and what it is made of) and the memory
//! available — the issue's 8 × 8 × 1 × 2 × 16000 × 2048 device (4.19·10⁹ pages) was killed by
//! the OOM killer without a word, or aborted in the allocator under `ulimit -v`. (The refusal
//! through the real system figures and `SSDLAB_MEMORY_LIMIT` is tested end to end by the CLI
//! tests, in a process of their own.)

use ssdlab_core::api;
use ssdlab_core::sim::{
    available_memory, check_memory_within, memory_estimate, Available, SimOptions,
};

fn huge() -> ssdlab_core::config::DeviceConfig {
    let overrides: Vec<String> = [
        "geometry.channels=8",
        "geometry.chips_per_channel=8",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=2",
        "geometry.blocks_per_plane=16000",
        "geometry.pages_per_block=2048",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    api::load_device("mqsim-small", "mqsim-small", &overrides).expect("passes validation")
}

#[test]
fn the_issue_geometry_is_refused_with_its_estimate() {
    let cfg = huge();
    let opts = SimOptions::default();
    let e = memory_estimate(&cfg, &opts);
    assert_eq!(e.pages, 4_194_304_000);
    // P2L 4 B and the valid bit per page, L2P 4 B per logical page (spare 7 %): ≈ 7.85 B/page.
    let per_page = e.page_bytes as f64 / e.pages as f64;
    assert!((7.8..7.9).contains(&per_page), "{per_page}");
    assert!(e.total() > 30 << 30, "{}", e.total());
    let avail = Available {
        bytes: 21_700 << 20,
        source: "MemAvailable".into(),
    };
    let msg = check_memory_within(&cfg, &opts, &avail)
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with("config mqsim-small: geometry: this device needs ≈ 30.")
            && msg.contains(" GiB of memory (4.19e9 pages × 7.8 B/page + 2.05e6 blocks × "),
        "{msg}"
    );
    assert!(
        msg.contains("21.2 GiB available (MemAvailable)")
            && msg.contains("SSDLAB_MEMORY_LIMIT=off"),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
    // Enough memory: built as before.
    let plenty = Available {
        bytes: e.total(),
        source: "test".into(),
    };
    check_memory_within(&cfg, &opts, &plenty).unwrap();
}

#[test]
fn test_mode_and_models_add_their_tables() {
    let cfg = huge();
    let plain = memory_estimate(&cfg, &SimOptions::default()).total();
    let checked = SimOptions {
        check_every: 1,
        ..SimOptions::default()
    };
    // The double-program marks: one byte per page.
    assert_eq!(
        memory_estimate(&cfg, &checked).total() - plain,
        cfg.geometry.physical_pages()
    );
    let mut rain = cfg.clone();
    rain.ftl.kind = ssdlab_core::config::FtlKind::Rain;
    // Each page's stripe and copy origin (8 B) and ~1/8 of a stripe record per page.
    let extra = memory_estimate(&rain, &SimOptions::default()).total() - plain;
    assert!(extra > 8 * cfg.geometry.physical_pages(), "{extra}");
}

#[test]
fn the_system_says_how_much_memory_is_available() {
    if !std::path::Path::new("/proc/meminfo").exists() {
        eprintln!("SKIPPED: no /proc/meminfo on this system");
        return;
    }
    let a = available_memory().expect("Linux reports MemAvailable");
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let kib: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap();
    // The smallest of the limits: never more than MemAvailable (read a moment apart).
    assert!(a.bytes <= kib * 1024 + (256 << 20), "{a:?} vs {kib} kB");
    assert!(a.bytes > 0);
}
