//! Keys that moved when the device became a stack of named layers (2026-12-01): an old key is
//! refused with one line naming its new place, before the configuration is read, so that no
//! old file is silently read differently.

use crate::error::{Result, SsdError};

/// (old key, what replaces it).
const MOVED: [(&str, &str); 6] = [
    (
        "rain.rain",
        "RAIN is an FTL of its own now: set ftl.kind = \"rain\"",
    ),
    (
        "rain.gtf",
        "the GC-tolerant flush is the write cache now: set write_cache.mode = \"write-back\" and \
         write_cache.flush = \"gc-aware\" (Tiny-Tail's buffer: also eviction = \"fifo\", \
         volatile = false, flush_low = flush_high), or use a stack (ssdlab experiment ttflash \
         --stacks, e.g. pb+gtr+gtf)",
    ),
    ("rain.buffer_mib", "moved to write_cache.size_mib"),
    (
        "rain.flush_at",
        "moved to write_cache.flush_high (and write_cache.flush_low)",
    ),
    ("rain.gc_blocking", "moved to flash.gc_blocking"),
    ("rain.nogc", "moved to flash.nogc"),
];

/// Refuse the first moved key `root` (a parsed configuration, overrides applied) has.
pub(crate) fn check_moved(root: &toml::Value, origin: &str) -> Result<()> {
    for (old, new) in MOVED {
        let (section, key) = old.split_once('.').expect("section.key");
        if root.get(section).and_then(|s| s.get(key)).is_some() {
            return Err(SsdError::config(origin, format!("{old}: {new}")));
        }
    }
    Ok(())
}
