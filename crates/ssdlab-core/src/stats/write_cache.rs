//! The write cache's section of the result (`cache`): data only, so that the result
//! (`SimResult::write_cache`) is typed without knowing the layer.

use serde::Serialize;

/// A simulated power cut (`SimOptions::power_cut_us`): what the cache held that flash did not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PowerCut {
    /// When, simulated seconds after the first request.
    pub at_s: f64,
    /// Pages whose last acknowledged write no completed flush covered, lost with a volatile
    /// cache (`write_cache.volatile = true`) …
    pub lost_pages: u64,
    /// … and written by the capacitor's flush with a capacitor-backed one.
    pub rescued_pages: u64,
}

/// What the write cache did during the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WriteCacheReport {
    /// Slots (pages, or mapping units when `ftl.mapping_unit_bytes` is below the page size).
    pub capacity_pages: u64,
    /// Pages the host read, and of them those served from DRAM.
    pub host_pages_read: u64,
    pub read_hits: u64,
    /// `read_hits / host_pages_read` (0 without reads).
    pub read_hit_ratio: f64,
    /// Pages the host wrote, and of them those that found their page cached (an overwrite of
    /// a dirty page coalesces: flash sees only the last).
    pub host_pages_written: u64,
    pub write_hits: u64,
    /// `write_hits / host_pages_written` (0 without writes).
    pub write_hit_ratio: f64,
    /// Flash page writes (host pages the FTL programmed, GC copies) per page the host wrote:
    /// below 1 once overwrites coalesce in DRAM. WAF stays flash writes over host writes that
    /// reached flash.
    pub flash_writes_per_host_write: f64,
    /// Pages the cache flushed, in how many flush units, and how many of those units a full
    /// cache forced (the host waited); writes that waited for room.
    pub flushed_pages: u64,
    pub flushes: u64,
    pub forced_flushes: u64,
    pub full_waits: u64,
    /// Clean pages that gave up their slot.
    pub evictions: u64,
    /// Flush commands and FUA writes served (volatile write-back caches honour them).
    pub flush_commands: u64,
    pub fua_writes: u64,
    /// Dirty pages (flash does not have them yet: dirty or being flushed) at the end, and at
    /// most during the run.
    pub dirty_pages: u64,
    pub max_dirty_pages: u64,
    /// The power cut, if the run had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cut: Option<PowerCut>,
}
