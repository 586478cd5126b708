//! `[write_cache]`: the DRAM write cache between the host interface and the FTL (the cache
//! layer, `cache/`). MQSim's data cache manager, SimpleSSD's internal cache layer, FEMU's write
//! buffer and SSDsim's buffer are the peers' versions; Tiny-Tail Flash's GC-tolerant flush
//! (Yan et al., FAST 2017, §4) is this cache with the `gc-aware` flush. Off by default: a device
//! without the section writes straight to its FTL, as before.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

/// How writes use the cache (`write_cache.mode`).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum CacheMode {
    /// No cache: every request goes to the FTL (the default).
    #[default]
    Off,
    /// A write completes when it is on flash; its pages stay in DRAM, clean, for reads.
    WriteThrough,
    /// A write completes once it is in DRAM; dirty pages are flushed in the background (at the
    /// watermarks, when idle, when the cache is full, on a flush command or a FUA write).
    WriteBack,
}

crate::config::impl_registry!(CacheMode, "write-cache mode", "write_cache.mode", default);

crate::config::impl_try_from_name!(CacheMode);

/// Which cached page gives up its slot, and in which order dirty pages are flushed
/// (`write_cache.eviction`). One file each in `cache/eviction/`.
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum EvictionKind {
    /// Least recently used (a read hit or an overwrite makes a page recent): MQSim's and
    /// SimpleSSD's default.
    #[default]
    Lru,
    /// First in, first out: the oldest page written goes first, whatever its use since.
    Fifo,
    /// Clean-first LRU (Park, Jung, Kang, Kim, Lee, CASES 2006): within the LRU end's window
    /// (`write_cache.cflru_window`) a clean page goes before a dirty one, which costs a flash
    /// write; dirty pages stay longer and absorb more overwrites.
    Cflru,
}

crate::config::impl_registry!(
    EvictionKind,
    "eviction policy",
    "write_cache.eviction",
    default
);

crate::config::impl_try_from_name!(EvictionKind);

/// When dirty pages go to flash (`write_cache.flush`).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum FlushPolicy {
    /// From `flush_high` dirty down to `flush_low`, a flush unit at a time when its planes are
    /// free, so that the flush never queues programs ahead of the host's reads.
    #[default]
    Watermark,
    /// As `watermark`, and never onto a plane that is collecting: such a page (a RAIN stripe's
    /// parity too) waits in DRAM until that plane's GC ends, behind the reads that waited for
    /// it (Tiny-Tail Flash's GC-tolerant flush, Yan et al. FAST 2017 §4, "GTF").
    GcAware,
}

crate::config::impl_registry!(FlushPolicy, "flush policy", "write_cache.flush", default);

crate::config::impl_try_from_name!(FlushPolicy);

/// The `[write_cache]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteCacheConfig {
    #[serde(default)]
    pub mode: CacheMode,
    /// DRAM given to cached pages, MiB (MQSim's default 256 MiB; the Tiny-Tail authors'
    /// simulator 64 MiB). Ours: 64 MiB, the Tiny-Tail setting, a client drive's order. 0: no
    /// cache, whatever `mode` says (so that a sweep over sizes can start at none).
    #[serde(default = "size_mib")]
    pub size_mib: f64,
    #[serde(default)]
    pub eviction: EvictionKind,
    #[serde(default)]
    pub flush: FlushPolicy,
    /// Cache read misses too, clean (MQSim's `WRITE_READ_CACHE`); off by default: a write
    /// cache (MQSim's `WRITE_CACHE`), whose read hits are the pages written.
    #[serde(default)]
    pub read_allocate: bool,
    /// Keep a flushed page in DRAM, clean, until its slot is needed (a cache: later reads of
    /// it hit); false: its slot is free once its flush completes (a pure write buffer: FEMU's,
    /// Tiny-Tail's, which serves reads only of pages not yet on flash).
    #[serde(default = "yes")]
    pub keep_clean: bool,
    /// The background flush starts when this fraction of the cache is dirty … (Tiny-Tail's and
    /// SSDsim's 80 %).
    #[serde(default = "flush_high")]
    pub flush_high: f64,
    /// … and stops at this fraction. Ours: 10 points under `flush_high`, so that a flush
    /// episode is a tenth of the cache (equal to `flush_high`: flush while above it, GTF's rule).
    #[serde(default = "flush_low")]
    pub flush_low: f64,
    /// Flush every dirty page once no request has arrived for this long, µs (`None`: never).
    #[serde(default)]
    pub idle_flush_us: Option<f64>,
    /// Volatile DRAM (true, the default): a power cut loses the dirty pages, so flush commands
    /// and FUA writes are honoured. False: capacitor-backed (power-loss protected) — the
    /// capacitor flushes the dirty pages, flush and FUA cost nothing (Tiny-Tail's buffer).
    #[serde(default = "yes")]
    pub volatile: bool,
    /// DRAM access latency, ns (activation and CAS: DDR4-1600's tRCD + tCL, 2 × 13.75 ns).
    #[serde(default = "dram_latency_ns")]
    pub dram_latency_ns: f64,
    /// DRAM bandwidth, MB/s (10^6 bytes; DDR4-1600 on a 32-bit bus: 6,400 MB/s). A page
    /// transfer occupies the DRAM for bytes / bandwidth; transfers queue. 0: transfers take no
    /// time (the Tiny-Tail authors' simulator charges a flat service time instead).
    #[serde(default = "dram_mb_s")]
    pub dram_mb_s: f64,
    /// CFLRU's clean-first window, a fraction of the cache at its LRU end (Park et al. 2006
    /// tune it per workload; ours: a quarter, the middle of the paper's range).
    #[serde(default = "cflru_window")]
    pub cflru_window: f64,
}

fn size_mib() -> f64 {
    64.0
}
fn flush_high() -> f64 {
    0.8
}
fn flush_low() -> f64 {
    0.7
}
fn yes() -> bool {
    true
}
fn dram_latency_ns() -> f64 {
    27.5
}
fn dram_mb_s() -> f64 {
    6400.0
}
fn cflru_window() -> f64 {
    0.25
}

impl Default for WriteCacheConfig {
    fn default() -> Self {
        WriteCacheConfig {
            mode: CacheMode::Off,
            size_mib: size_mib(),
            eviction: EvictionKind::Lru,
            flush: FlushPolicy::Watermark,
            read_allocate: false,
            keep_clean: true,
            flush_high: flush_high(),
            flush_low: flush_low(),
            idle_flush_us: None,
            volatile: true,
            dram_latency_ns: dram_latency_ns(),
            dram_mb_s: dram_mb_s(),
            cflru_window: cflru_window(),
        }
    }
}

/// The largest cache, MiB (1 TiB: a slot per page, numbered in 32 bits).
pub const MAX_CACHE_MIB: f64 = 1024.0 * 1024.0;

impl WriteCacheConfig {
    pub fn is_default(&self) -> bool {
        *self == WriteCacheConfig::default()
    }

    /// Is the cache on (a mode, and some DRAM)?
    pub fn on(&self) -> bool {
        self.mode != CacheMode::Off && self.size_mib > 0.0
    }

    /// Slots for `unit_bytes` units (at least one).
    pub fn slots(&self, unit_bytes: u32) -> u64 {
        ((self.size_mib * 1048576.0 / f64::from(unit_bytes.max(1))) as u64).max(1)
    }

    /// Field checks (each naming its field).
    pub fn check(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, m: String| Err((format!("write_cache.{f}"), m));
        if !(self.size_mib.is_finite() && self.size_mib >= 0.0 && self.size_mib <= MAX_CACHE_MIB) {
            return bad(
                "size_mib",
                format!(
                    "expected a size in MiB from 0 (no cache) to {MAX_CACHE_MIB}, got {}",
                    self.size_mib
                ),
            );
        }
        for (f, v) in [
            ("flush_high", self.flush_high),
            ("flush_low", self.flush_low),
        ] {
            if !(v > 0.0 && v <= 1.0) {
                return bad(f, format!("expected a fraction in (0, 1], got {v}"));
            }
        }
        if self.flush_low > self.flush_high {
            return bad(
                "flush_low",
                format!(
                    "expected at most flush_high ({}), got {}",
                    self.flush_high, self.flush_low
                ),
            );
        }
        if let Some(us) = self.idle_flush_us {
            if !(us.is_finite() && us >= 0.0 && us <= 1e12) {
                return bad(
                    "idle_flush_us",
                    format!("expected a time in µs from 0 to 1e12, got {us}"),
                );
            }
        }
        if !(self.dram_latency_ns.is_finite() && (0.0..=1e9).contains(&self.dram_latency_ns)) {
            return bad(
                "dram_latency_ns",
                format!(
                    "expected a time in ns from 0 to 1e9, got {}",
                    self.dram_latency_ns
                ),
            );
        }
        if !(self.dram_mb_s.is_finite() && (self.dram_mb_s == 0.0 || self.dram_mb_s >= 1e-3)) {
            return bad(
                "dram_mb_s",
                format!(
                    "expected 0 (no transfer time) or a bandwidth of at least 0.001 MB/s, got {}",
                    self.dram_mb_s
                ),
            );
        }
        if !(self.cflru_window > 0.0 && self.cflru_window <= 1.0) {
            return bad(
                "cflru_window",
                format!("expected a fraction in (0, 1], got {}", self.cflru_window),
            );
        }
        Ok(())
    }
}
