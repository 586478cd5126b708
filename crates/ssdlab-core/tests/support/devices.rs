//! Devices the integration tests share.

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::trace::RequestSource;

use super::workloads::Mixed;

/// The Tiny-Tail Flash tests' device: the `ttflash` preset at 8 channels × 4 chips (4 parity
/// groups), 64 blocks × 32 pages per plane, so tests run in about a second. Spare 40 %: data +
/// parity (1/7) + room for the super-block reserves (a group keeps a few super-blocks out of
/// use: GC reserve, open host and GC super-blocks, victims pending erase), which is a large
/// part of a 64-super-block group; with 25 % the group's GC livelocked (round 3). A 2 MiB
/// write cache for the stacks with GTF.
pub const TTFLASH_TEST_SETS: [&str; 5] = [
    "geometry.chips_per_channel=4",
    "geometry.blocks_per_plane=64",
    "geometry.pages_per_block=32",
    "geometry.spare_factor=0.4",
    "write_cache.size_mib=2",
];

/// [`TTFLASH_TEST_SETS`] and then `extra` (`section.key=value` overrides).
pub fn ttflash_test_device(extra: &[&str]) -> DeviceConfig {
    let sets: Vec<String> = TTFLASH_TEST_SETS
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    DeviceConfig::from_preset("ttflash", &sets).unwrap()
}

/// `n` single-page requests over `cfg`'s logical pages, `read_pct` % reads, one every `gap_ns`
/// ([`Mixed`], stream "mixed" of seed 7).
pub fn mixed_on(cfg: &DeviceConfig, n: u64, gap_ns: u64, read_pct: u32) -> Box<dyn RequestSource> {
    let pages = cfg.geometry.logical_pages();
    Box::new(Mixed::new(
        n,
        gap_ns,
        read_pct,
        pages,
        u64::from(cfg.geometry.page_size),
    ))
}
