//! Validation rules: each refusal names its field, and no override a user can type makes the
//! engine panic (a panic is turned into a test failure naming the override).

use std::panic::{catch_unwind, AssertUnwindSafe};

use ssdlab_core::api::build_simulation;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::SimOptions;
use ssdlab_core::trace::WorkloadSpec;

fn strings(overrides: &[&str]) -> Vec<String> {
    overrides.iter().map(|s| s.to_string()).collect()
}

/// The error of `tiny` with `overrides`; fails the test when they are accepted.
fn refusal(overrides: &[&str]) -> String {
    match DeviceConfig::from_preset("tiny", &strings(overrides)) {
        Ok(_) => panic!("{overrides:?} accepted"),
        Err(e) => e.to_string(),
    }
}

/// `overrides` are refused with a message `… <field>: …` that also contains `want`.
fn assert_refused(overrides: &[&str], field: &str, want: &str) {
    let e = refusal(overrides);
    assert!(
        e.contains(&format!("{field}: ")) && e.contains(want),
        "{overrides:?}: expected '{field}: …{want}…', got: {e}"
    );
}

fn assert_accepted(overrides: &[&str]) {
    if let Err(e) = DeviceConfig::from_preset("tiny", &strings(overrides)) {
        panic!("{overrides:?} refused: {e}");
    }
}

#[test]
fn geometry_products_that_overflow_name_the_field_that_tips_them() {
    let max = u32::MAX.to_string();
    assert_refused(
        &[&format!("geometry.channels={max}")],
        "geometry.channels",
        "addresses fewer than 2^32 - 1; got channels = 4294967295",
    );
    // 2 × 1 × 1 × 2 × 2^30 blocks = 2^32: blocks_per_plane takes the product to the limit.
    assert_refused(
        &["geometry.blocks_per_plane=1073741824"],
        "geometry.blocks_per_plane",
        "channels × chips_per_channel × dies_per_chip × planes_per_die × blocks_per_plane",
    );
    // 4 planes × 64 blocks × 65535 pages fits; 2^16 channels × … × 32 pages does not.
    assert_accepted(&["geometry.pages_per_block=65535"]);
    assert_refused(
        &["geometry.channels=65536", "geometry.blocks_per_plane=1024"],
        "geometry.pages_per_block",
        "physical pages",
    );
    for f in [
        "chips_per_channel",
        "dies_per_chip",
        "planes_per_die",
        "blocks_per_plane",
    ] {
        assert_refused(
            &[&format!("geometry.{f}={max}")],
            &format!("geometry.{f}"),
            "physical pages",
        );
    }
    // The derived counts of a refused geometry saturate instead of overflowing.
    let mut g = DeviceConfig::from_preset("tiny", &[]).unwrap().geometry;
    g.channels = u32::MAX;
    g.planes_per_die = u32::MAX;
    assert_eq!(g.planes(), u32::MAX);
    assert_eq!(g.physical_pages(), u64::MAX);
    assert!(g.check(3).is_err());
}

#[test]
fn gc_threshold_must_leave_blocks_to_write() {
    assert_refused(
        &["gc.threshold_blocks=64"],
        "gc.threshold_blocks",
        "fewer free blocks than geometry.blocks_per_plane (64), got 64",
    );
    assert_refused(
        &[&format!("gc.threshold_blocks={}", u32::MAX)],
        "gc.threshold_blocks",
        "blocks_per_plane",
    );
    // Below blocks_per_plane, the spare rule speaks (it names the spare factor).
    assert_refused(
        &["gc.threshold_blocks=63"],
        "geometry.spare_factor",
        "GC reserve",
    );
}

#[test]
fn operation_times_are_bounded() {
    assert_refused(
        &["timing.channel_mb_per_s=0.001"],
        "timing.channel_mb_per_s",
        "at most 1000000 µs",
    );
    assert_refused(
        &["geometry.page_size=2147483648"],
        "timing.channel_mb_per_s",
        "2147483648-byte page",
    );
    assert_refused(
        &["timing.tlc.erase_us=1e300"],
        "timing.tlc.erase_us",
        "from 0 to 1000000 µs",
    );
    assert_refused(&["timing.tlc.read_us=nan"], "timing.tlc.read_us", "NaN");
    assert_refused(
        &["timing.qlc={read_us = 1.0, program_us = -1.0, erase_us = 1.0}"],
        "timing.qlc.program_us",
        "-1",
    );
    assert_refused(
        &["timing.controller_overhead_ns=9223372036854775807"],
        "timing.controller_overhead_ns",
        "at most 1000000000 ns",
    );
    assert_accepted(&[
        "timing.tlc.erase_us=1000000",
        "timing.controller_overhead_ns=1000000000",
    ]);
}

#[test]
fn rain_needs_3_to_64_channels() {
    for channels in [1, 2, 65, 1000] {
        assert_refused(
            &[&format!("geometry.channels={channels}"), "ftl.kind=rain"],
            "ftl.kind",
            &format!("geometry.channels from 3 to 64, got {channels}"),
        );
    }
    assert_accepted(&["geometry.channels=3", "ftl.kind=rain"]);
    assert_accepted(&["geometry.channels=64", "ftl.kind=rain"]);
    // Without RAIN, any channel count that fits is fine.
    assert_accepted(&["geometry.channels=65"]);
}

#[test]
fn rl_bin_lists_are_bounded() {
    let edges: Vec<String> = (1..=257).map(|i| format!("{i}.0")).collect();
    assert_refused(
        &[&format!("gc.rl.interval_bins_us=[{}]", edges.join(","))],
        "gc.rl.interval_bins_us",
        "at most 256 bin edges",
    );
    assert_accepted(&[&format!(
        "gc.rl.prev_interval_bins_us=[{}]",
        edges[..256].join(",")
    )]);
}

/// What a run of `tiny` with hostile overrides must give: refused naming `Some(field)`, or
/// accepted and run to the end (`None`).
#[rustfmt::skip]
const HOSTILE: &[(&[&str], Option<&str>)] = &[
    // geometry
    (&["geometry.channels=0"], Some("geometry.channels")),
    (&["geometry.channels=65"], None),
    (&["geometry.channels=-1"], Some("with --set overrides")),
    (&["geometry.channels=4294967296"], Some("with --set overrides")),
    (&["geometry.channels=4294967295"], Some("geometry.channels")),
    (&["geometry.chips_per_channel=0"], Some("geometry.chips_per_channel")),
    (&["geometry.chips_per_channel=4294967295"], Some("geometry.chips_per_channel")),
    (&["geometry.dies_per_chip=4294967295"], Some("geometry.dies_per_chip")),
    (&["geometry.planes_per_die=4294967295"], Some("geometry.planes_per_die")),
    (&["geometry.blocks_per_plane=0"], Some("geometry.blocks_per_plane")),
    (&["geometry.blocks_per_plane=1"], Some("gc.threshold_blocks")),
    (&["geometry.blocks_per_plane=3"], Some("geometry.spare_factor")),
    (&["geometry.blocks_per_plane=4294967295"], Some("geometry.blocks_per_plane")),
    (&["geometry.pages_per_block=0"], Some("geometry.pages_per_block")),
    (&["geometry.pages_per_block=1"], None),
    (&["geometry.pages_per_block=2"], None),
    (&["geometry.pages_per_block=65536"], Some("geometry.pages_per_block")),
    (&["geometry.pages_per_block=4294967295"], Some("geometry.pages_per_block")),
    (&["geometry.page_size=0"], Some("geometry.page_size")),
    (&["geometry.page_size=4095"], Some("geometry.page_size")),
    (&["geometry.page_size=512"], None),
    (&["geometry.page_size=4294967295"], Some("geometry.page_size")),
    (&["geometry.page_size=2147483648"], Some("timing.channel_mb_per_s")),
    (&["geometry.spare_factor=0"], Some("geometry.spare_factor")),
    (&["geometry.spare_factor=1.0"], Some("geometry.spare_factor")),
    (&["geometry.spare_factor=-0.5"], Some("geometry.spare_factor")),
    (&["geometry.spare_factor=nan"], Some("geometry.spare_factor")),
    (&["geometry.spare_factor=inf"], Some("geometry.spare_factor")),
    (&["geometry.spare_factor=0.99"], None),
    // No logical page left (found by the TOML fuzzer, 2026-11-25: a RAIN device then failed at
    // run time with a spare factor of 1).
    (&["geometry.spare_factor=0.999999"], Some("leaves no logical page")),
    (&["geometry.spare_factor=0.999999", "ftl.kind=rain", "rain.gtr=true"], Some("leaves no logical page")),
    (&["rain.open_parity=\"disk\""], Some("rain.open_parity")),
    (&["geometry.cell_mode=plc"], Some("with --set overrides")),
    // timing
    (&["timing.channel_mb_per_s=0"], Some("timing.channel_mb_per_s")),
    (&["timing.channel_mb_per_s=nan"], Some("timing.channel_mb_per_s")),
    (&["timing.channel_mb_per_s=inf"], Some("timing.channel_mb_per_s")),
    (&["timing.channel_mb_per_s=1e-300"], Some("timing.channel_mb_per_s")),
    (&["timing.channel_mb_per_s=1e300"], None),
    (&["timing.tlc.read_us=nan"], Some("timing.tlc.read_us")),
    (&["timing.tlc.program_us=-inf"], Some("timing.tlc.program_us")),
    (&["timing.tlc.erase_us=1e300"], Some("timing.tlc.erase_us")),
    (&["timing.tlc.read_us=0", "timing.tlc.program_us=0"], None),
    (&["timing.tlc.erase_us=0", "gc.scheduler=lazyrtgc"], None),
    (&["timing.controller_overhead_ns=-1"], Some("with --set overrides")),
    (&["timing.controller_overhead_ns=9223372036854775807"], Some("timing.controller_overhead_ns")),
    (&["timing.multiplane=false", "timing.copyback=false"], None),
    // ftl
    (&["ftl.temperature_streams=0"], Some("ftl.temperature_streams")),
    (&["ftl.temperature_streams=4294967295"], Some("ftl.temperature_streams")),
    (&["ftl.placement=hot-cold", "ftl.temperature_streams=8"], None),
    (&["ftl.placement=eti", "ftl.eti_extent_pages=4294967295"], None),
    (&["ftl.eti_extent_pages=0"], Some("ftl.eti_extent_pages")),
    (&["ftl.placement=oracle"], None),
    (&["ftl.placement=bogus"], Some("with --set overrides")),
    (&["ftl.allocation=static"], None),
    // gc
    (&["gc.threshold_blocks=0"], Some("gc.threshold_blocks")),
    (&["gc.threshold_blocks=64"], Some("gc.threshold_blocks")),
    (&["gc.threshold_blocks=4294967295"], Some("gc.threshold_blocks")),
    (&["gc.threshold_blocks=10"], None),
    (&["gc.victim=d-choices:d=0"], Some("gc.victim")),
    (&["gc.victim=d-choices:d=99999999999"], Some("gc.victim")),
    (&["gc.victim=bogus"], Some("gc.victim")),
    (&["gc.scheduler=bogus"], Some("gc.scheduler")),
    (&["gc.scheduler=rlgc", "gc.rl.actions=[]"], Some("gc.rl.actions")),
    (&["gc.scheduler=rlgc", "gc.rl.actions=[4294967295]"], None),
    (&["gc.scheduler=rlgc-aggressive", "gc.rl.actions=[0, 4294967295]", "gc.rl.t_agc=4294967295", "gc.rl.max_limited_copies=4294967295"], None),
    (&["gc.scheduler=rlgc", "gc.rl.alpha=nan"], Some("gc.rl.alpha")),
    (&["gc.scheduler=rlgc", "gc.rl.interval_bins_us=[nan]"], Some("gc.rl.interval_bins_us")),
    (&["gc.scheduler=rlgc", "gc.rl.interval_bins_us=[]", "gc.rl.prev_interval_bins_us=[]"], None),
    (&["gc.scheduler=rlgc", "gc.rl.reward_percentiles=[50.0]"], Some("gc.rl.reward_levels")),
    (&["gc.scheduler=rlgc", "gc.rl.reward_refresh=0"], Some("gc.rl.reward_refresh")),
    (&["gc.scheduler=rlgc", "gc.rl.q_table=/nonexistent/q.json"], Some("cannot read Q-table")),
    (&["gc.scheduler=rlgc", "gc.partial.intensive_copies=4294967295"], None),
    (&["gc.scheduler=idle-ma", "gc.partial.ma_window=0"], Some("gc.partial.ma_window")),
    (&["gc.scheduler=idle-ma", "gc.partial.ma_window=4294967295"], None),
    (&["gc.scheduler=idle-es", "gc.partial.es_alpha=nan"], Some("gc.partial.es_alpha")),
    (&["gc.scheduler=idle-es", "gc.partial.es_alpha=0"], Some("gc.partial.es_alpha")),
    (&["gc.partial.t_igc=0"], Some("gc.partial.t_igc")),
    (&["gc.scheduler=lazyrtgc", "gc.partial.lazy_trigger_blocks=4294967295"], None),
    (&["gc.scheduler=rlgc", "gc.partial.intensive_start_blocks=4294967295", "gc.partial.t_igc=4294967295"], None),
    // rain
    (&["ftl.kind=rain"], Some("ftl.kind")),
    (&["geometry.channels=65", "ftl.kind=rain"], Some("ftl.kind")),
    (&["geometry.channels=4294967295", "ftl.kind=rain"], Some("geometry.channels")),
    // RAIN parity out of the spare (`parity_space = "spare"`) takes 1/N of the flash: 20 %
    // spare cannot hold it with 3 channels. Not a validation rule (a workload that never fills
    // the device runs), an error once it fills. On top (the default), it runs.
    (&["geometry.channels=3", "ftl.kind=rain", "rain.parity_space=\"spare\""], Some("device full")),
    (&["geometry.channels=3", "ftl.kind=rain"], None),
    (&["geometry.channels=3", "ftl.kind=rain", "geometry.spare_factor=0.6"], None),
    (&["geometry.channels=64", "ftl.kind=rain", "geometry.spare_factor=0.5"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.gtr=true", "write_cache.mode=write-back", "write_cache.flush=gc-aware", "rain.rgc=true"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.rgc=true", "rain.parallel_forced_gc=true"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.7", "geometry.blocks_per_plane=16"], None),
    // One page per block: a stripe per super-block, and group GC cannot gain ground.
    // (With parity on top the extra blocks let it run; out of the spare it fills.)
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "geometry.pages_per_block=1", "rain.parity_space=\"spare\""], Some("device full")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "geometry.pages_per_block=1"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "gc.threshold_blocks=10"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "write_cache.mode=write-back", "write_cache.flush=gc-aware", "write_cache.size_mib=1e300"], Some("write_cache.size_mib")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "flash.nogc=true"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "ftl.placement=hot-cold"], Some("ftl.placement")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "ftl.allocation=static"], Some("ftl.allocation")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "gc.scheduler=rlgc"], Some("gc.scheduler")),
    // Logical stripes (`rain.layout = "logical"`): parity on top runs; out of a small spare the
    // mapped parity pages leave GC no room (refused up front); the super-block chain's
    // extensions are refused.
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.layout=\"logical\"", "rain.gtr=true", "write_cache.mode=write-back", "write_cache.flush=gc-aware", "rain.rgc=true"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.layout=\"logical\"", "rain.parity_space=\"spare\""], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.1", "rain.layout=\"logical\"", "rain.parity_space=\"spare\""], Some("rain.parity_space")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.1", "rain.layout=\"logical\""], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.layout=\"logical\"", "rain.rgc=true", "rain.parallel_forced_gc=true"], Some("rain.parallel_forced_gc")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.layout=\"logical\"", "ftl.allocation=static"], Some("ftl.allocation")),
    (&["rain.layout=\"sideways\""], Some("rain.layout")),
    (&["rain.gtr=true"], Some("rain.gtr")),
    (&["rain.parallel_forced_gc=true"], Some("rain.parallel_forced_gc")),
    (&["rain.rotating_flush=true"], Some("rain.rotating_flush")),
    (&["geometry.channels=4", "ftl.kind=rain", "rain.gtr=true", "rain.rotating_flush=true"], Some("rain.rotating_flush")),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.gtr=true", "write_cache.mode=write-back", "write_cache.flush=gc-aware", "rain.rgc=true", "rain.rotating_flush=true"], None),
    (&["geometry.channels=4", "ftl.kind=rain", "geometry.spare_factor=0.5", "rain.gtr=true", "write_cache.mode=write-back", "write_cache.flush=gc-aware", "rain.rotating_flush=true", "write_cache.size_mib=1e-9"], None),
    (&["write_cache.mode=write-back", "write_cache.size_mib=0"], None),
    (&["write_cache.mode=write-back", "write_cache.size_mib=-1"], Some("write_cache.size_mib")),
    (&["write_cache.mode=write-back", "write_cache.size_mib=nan"], Some("write_cache.size_mib")),
    (&["write_cache.mode=write-back", "write_cache.flush=gc-aware", "write_cache.size_mib=1e300"], Some("write_cache.size_mib")),
    (&["write_cache.mode=write-back", "write_cache.size_mib=1e-9"], None),
    (&["write_cache.mode=write-back", "write_cache.flush_high=0"], Some("write_cache.flush_high")),
    (&["write_cache.mode=write-back", "write_cache.flush_high=nan"], Some("write_cache.flush_high")),
    (&["write_cache.flush_high=0.5", "write_cache.flush_low=0.6"], Some("write_cache.flush_low")),
    (&["write_cache.dram_mb_s=-1"], Some("write_cache.dram_mb_s")),
    (&["write_cache.idle_flush_us=inf"], Some("write_cache.idle_flush_us")),
    (&["rain.rain=true"], Some("ftl.kind = \"rain\"")),
    (&["rain.gtf=true"], Some("write_cache.mode")),
    (&["rain.buffer_mib=2"], Some("write_cache.size_mib")),
    (&["rain.gc_blocking=channel"], Some("flash.gc_blocking")),
    (&["rain.gtr=true"], Some("set ftl.kind = \"rain\"")),
    (&["cache.slc=static"], Some("set ftl.kind = \"hybrid\"")),
    (&["write_cache.mode=write-back", "ftl.placement=oracle"], Some("ftl.placement")),
    (&["flash.nogc=true", "flash.gc_blocking=channel"], None),
    // the override syntax itself
    (&["foo.bar=1"], Some("with --set overrides")),
    (&["geometry=5"], Some("--set geometry=5")),
    (&["gc.threshold_blocks.x=1"], Some("'threshold_blocks' is not a section")),
    (&["gc.victim.x=1"], Some("with --set overrides")),
    (&["gc.threshold_blocks"], Some("expected section.key=value")),
];

/// One hostile case end to end: configuration, simulation build, a short run timed (open loop,
/// Poisson arrivals) and untimed, with FTL invariant checks on.
fn run_case(overrides: &[String], timed: bool) -> ssdlab_core::Result<()> {
    let cfg = DeviceConfig::from_preset("tiny", overrides)?;
    let workload: WorkloadSpec = serde_json::from_value(serde_json::json!({
        "kind": "synthetic", "pattern": "hotcold", "requests": 400, "read_fraction": 0.3,
        "arrival": {"kind": "poisson", "iops": 20000.0}
    }))
    .expect("workload");
    let options: SimOptions = serde_json::from_value(serde_json::json!({
        "seed": 7, "timing": timed, "replay": {"mode": "open-loop"},
        "precondition": {"sequential": true, "random_passes": 0.3}, "check_every": 50
    }))
    .expect("options");
    let mut sim = build_simulation(cfg, &workload, options)?;
    sim.run()?;
    sim.audit_parity()?;
    Ok(())
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn hostile_overrides_are_refused_or_run_never_panic() {
    let mut failures = Vec::new();
    for (overrides, want) in HOSTILE {
        let ov = strings(overrides);
        for timed in [true, false] {
            let outcome = catch_unwind(AssertUnwindSafe(|| run_case(&ov, timed)));
            let problem = match (outcome, want) {
                (Err(p), _) => Some(format!("PANIC: {}", panic_text(p))),
                (Ok(Ok(())), None) => None,
                (Ok(Err(e)), None) => Some(format!("refused, expected to run: {e}")),
                (Ok(Ok(())), Some(f)) => Some(format!("accepted, expected an error naming {f}")),
                (Ok(Err(e)), Some(f)) => {
                    let msg = e.to_string();
                    (!msg.contains(f) || msg.contains('\n'))
                        .then(|| format!("error does not name {f} on one line: {msg}"))
                }
            };
            if let Some(p) = problem {
                failures.push(format!("{overrides:?} (timed: {timed}): {p}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} hostile cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Values per field for random combinations: each alone is legal, together they may not be.
#[rustfmt::skip]
const MIXES: &[(&str, &[&str])] = &[
    ("geometry.channels", &["1", "3", "4", "7", "8"]),
    ("geometry.chips_per_channel", &["1", "2", "3"]),
    ("geometry.planes_per_die", &["1", "2", "4"]),
    ("geometry.blocks_per_plane", &["3", "4", "5", "8", "16", "64"]),
    ("geometry.pages_per_block", &["1", "2", "3", "32", "64"]),
    ("geometry.page_size", &["512", "4096", "65536"]),
    ("geometry.spare_factor", &["0.05", "0.2", "0.5", "0.7", "0.9", "0.99"]),
    ("gc.threshold_blocks", &["1", "2", "3", "7", "20"]),
    ("gc.victim", &["greedy", "fifo", "random", "cost-benefit", "d-choices:d=1", "d-choices:d=1000"]),
    ("gc.scheduler", &["blocking", "lazyrtgc", "rlgc", "rlgc-aggressive", "idle-ma", "idle-es", "external"]),
    ("ftl.placement", &["single", "dual-frontier", "hot-cold", "eti", "oracle"]),
    ("ftl.temperature_streams", &["1", "2", "8"]),
    ("ftl.eti_extent_pages", &["1", "7", "100000"]),
    ("ftl.allocation", &["static", "round-robin"]),
    ("timing.tlc.read_us", &["0", "1000000", "0.001"]),
    ("timing.tlc.erase_us", &["0", "1000000"]),
    ("timing.channel_mb_per_s", &["1e300", "0.01", "409.6"]),
    ("timing.controller_overhead_ns", &["0", "1000000000"]),
    ("timing.multiplane", &["false", "true"]),
    ("timing.copyback", &["false", "true"]),
    ("gc.rl.actions", &["[0]", "[4294967295]", "[0,1,2]", "[1]"]),
    ("gc.rl.t_agc", &["0", "4294967295"]),
    ("gc.partial.intensive_start_blocks", &["0", "1", "100"]),
    ("gc.partial.t_igc", &["100", "4294967295"]),
    ("gc.partial.intensive_copies", &["0", "1", "4294967295"]),
    ("gc.partial.lazy_trigger_blocks", &["0", "4294967295"]),
    ("ftl.kind", &["plain", "rain", "hybrid"]),
    ("rain.gtr", &["true", "false"]),
    ("rain.rgc", &["true", "false"]),
    ("rain.parallel_forced_gc", &["true", "false"]),
    ("rain.rotating_flush", &["true", "false"]),
    ("flash.nogc", &["true", "false"]),
    ("flash.gc_blocking", &["channel", "plane"]),
    ("write_cache.mode", &["off", "write-through", "write-back"]),
    ("write_cache.flush", &["watermark", "gc-aware"]),
    ("write_cache.eviction", &["lru", "fifo", "cflru"]),
    ("write_cache.size_mib", &["1e-9", "0.01", "1048576", "64"]),
    ("write_cache.flush_high", &["0.01", "1.0"]),
    ("write_cache.flush_low", &["0.01", "1.0"]),
    ("write_cache.idle_flush_us", &["0", "100", "1e12"]),
    ("write_cache.read_allocate", &["true", "false"]),
    ("write_cache.volatile", &["true", "false"]),
];

/// Seeded random combinations of [`MIXES`] (each field set with probability 1/4), run like the
/// hostile cases: any outcome but a panic is fine. (2,500 combinations of seed 2 were also run
/// once in a debug build, overflow checks on, without a panic.)
#[test]
fn random_override_combinations_never_panic() {
    use rand::Rng;
    let mut rng = ssdlab_core::rng::stream(1, "config-mixes");
    let mut panics = Vec::new();
    for _ in 0..300 {
        let mut ov = Vec::new();
        for (key, values) in MIXES {
            if rng.gen_bool(0.25) {
                ov.push(format!("{key}={}", values[rng.gen_range(0..values.len())]));
            }
        }
        let timed = rng.gen_bool(0.5);
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| run_case(&ov, timed))) {
            panics.push(format!("{ov:?} (timed: {timed}): {}", panic_text(p)));
        }
    }
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}
