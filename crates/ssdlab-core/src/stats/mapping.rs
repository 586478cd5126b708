//! The cached map's section of the result (`mapping`, with `ftl.mapping = "cached"`): the CMT's
//! hit ratios, the translation pages' flash work, and WAF split by what wrote the pages.

use serde::Serialize;

/// Flash page writes per host page written, by what wrote them: they sum to the run's WAF.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WafSplit {
    /// Host pages (1 whenever the host wrote).
    pub host: f64,
    /// GC copies of data pages.
    pub data_gc: f64,
    /// Translation pages programmed (CMT write-backs and GC's batch updates).
    pub translation: f64,
    /// GC copies of translation pages.
    pub translation_gc: f64,
}

/// What the cached mapping table and its translation pages did during the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MappingReport {
    /// The CMT's capacity and its replacement policy.
    pub cmt_entries: u64,
    pub cmt_policy: &'static str,
    /// Translation pages of the device (mappings per translation page).
    pub translation_pages: u64,
    pub mappings_per_translation_page: u64,
    /// Host page lookups by reads and writes, their hits, and the hit ratios (0 without).
    pub read_lookups: u64,
    pub read_hits: u64,
    pub read_hit_ratio: f64,
    pub write_lookups: u64,
    pub write_hits: u64,
    pub write_hit_ratio: f64,
    /// Entries given up clean (free) and dirty (a translation page written back).
    pub clean_evictions: u64,
    pub dirty_evictions: u64,
    /// Translation pages read (misses, and the read of every read-modify-write) …
    pub translation_reads: u64,
    /// … and programmed: for dirty evictions (write-backs) and GC's batch updates.
    pub translation_writes: u64,
    pub write_backs: u64,
    pub gc_updates: u64,
    /// GC copies of data pages and of translation pages (their sum is `gc_pages_copied`).
    pub data_gc_copies: u64,
    pub translation_gc_copies: u64,
    /// Entries cached, and of them dirty, at the end.
    pub cached_entries: u64,
    pub dirty_entries: u64,
    pub waf: WafSplit,
}
