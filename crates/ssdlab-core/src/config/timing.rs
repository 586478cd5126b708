//! NAND timing per cell mode (SLC/MLC/TLC/QLC), channel transfer rate and controller overhead.
//! All four rows always exist, so hybrid SLC/QLC devices can switch modes per block.

use serde::{Deserialize, Serialize};

use super::{PageOrder, PageTimes};

/// Cell mode of a block: bits per cell 1–4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellMode {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellMode {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellMode::Slc => 1,
            CellMode::Mlc => 2,
            CellMode::Tlc => 3,
            CellMode::Qlc => 4,
        }
    }

    /// As written in a configuration: `slc`, `mlc`, `tlc`, `qlc`.
    pub fn name(self) -> &'static str {
        match self {
            CellMode::Slc => "slc",
            CellMode::Mlc => "mlc",
            CellMode::Tlc => "tlc",
            CellMode::Qlc => "qlc",
        }
    }
}

/// Array operation latencies of one cell mode, in microseconds (fractions allowed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeTiming {
    /// Page read (array to page register), µs.
    pub read_us: f64,
    /// Page program (page register to array), µs.
    pub program_us: f64,
    /// Block erase, µs.
    pub erase_us: f64,
    /// Suspension times (`flash.suspend`), µs; unset: `config::suspend::default_times`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program_suspend_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erase_suspend_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_us: Option<f64>,
    /// Read time by page type, µs, LSB first (`flash.page_types`; unset: `read_us` for all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_read_us: Option<PageTimes>,
    /// Program time by page type, µs, LSB first (`flash.page_types`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_program_us: Option<PageTimes>,
    /// The order a block's pages take their types in (`flash.page_types`; unset: `word-line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_order: Option<PageOrder>,
}

impl ModeTiming {
    /// A mode's read, program and erase times, µs, with the default suspension times.
    pub fn new(read_us: f64, program_us: f64, erase_us: f64) -> Self {
        ModeTiming {
            read_us,
            program_us,
            erase_us,
            program_suspend_us: None,
            erase_suspend_us: None,
            resume_us: None,
            page_read_us: None,
            page_program_us: None,
            page_order: None,
        }
    }
}

/// `[timing]` section. Defaults are representative datasheet values; presets override the row of
/// the mode they use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Channel (bus) bandwidth in megabytes per second (10^6 B/s). A NAND interface quoted as
    /// "533 Mbps" on an 8-bit bus moves one byte per transfer, i.e. 533 MB/s.
    pub channel_mb_per_s: f64,
    /// Fixed controller/firmware time added to every host request, ns.
    #[serde(default)]
    pub controller_overhead_ns: u64,
    /// Planes of a die run array operations concurrently (multi-plane commands). When false, the
    /// die is one resource and its planes take turns.
    #[serde(default = "yes")]
    pub multiplane: bool,
    /// GC copies use copy-back inside the plane (no channel transfer). When false, each copied
    /// page crosses the channel twice (out and back in).
    #[serde(default = "yes")]
    pub copyback: bool,
    #[serde(default = "default_slc")]
    pub slc: ModeTiming,
    #[serde(default = "default_mlc")]
    pub mlc: ModeTiming,
    #[serde(default = "default_tlc")]
    pub tlc: ModeTiming,
    #[serde(default = "default_qlc")]
    pub qlc: ModeTiming,
}

fn yes() -> bool {
    true
}
fn default_slc() -> ModeTiming {
    ModeTiming::new(25.0, 200.0, 1500.0)
}
fn default_mlc() -> ModeTiming {
    ModeTiming::new(50.0, 600.0, 3000.0)
}
fn default_tlc() -> ModeTiming {
    ModeTiming::new(75.0, 1000.0, 3500.0)
}
fn default_qlc() -> ModeTiming {
    ModeTiming::new(140.0, 2500.0, 5000.0)
}

impl Timing {
    pub fn mode(&self, mode: CellMode) -> &ModeTiming {
        match mode {
            CellMode::Slc => &self.slc,
            CellMode::Mlc => &self.mlc,
            CellMode::Tlc => &self.tlc,
            CellMode::Qlc => &self.qlc,
        }
    }

    /// Field checks; `page_size` (bytes) bounds the transfer time of one page.
    pub fn check(&self, page_size: u32) -> Result<(), (String, String)> {
        if !(self.channel_mb_per_s.is_finite() && self.channel_mb_per_s > 0.0) {
            return Err((
                "timing.channel_mb_per_s".into(),
                format!("expected a positive rate, got {}", self.channel_mb_per_s),
            ));
        }
        // bytes / (MB/s) = µs, as `OpTimes` computes it.
        let transfer_us = f64::from(page_size) / self.channel_mb_per_s;
        if transfer_us > MAX_OP_US {
            return Err((
                "timing.channel_mb_per_s".into(),
                format!(
                    "a {page_size}-byte page would take {transfer_us:.0} µs to transfer at {} MB/s; expected at most {MAX_OP_US} µs (1 s)",
                    self.channel_mb_per_s
                ),
            ));
        }
        if self.controller_overhead_ns > MAX_OVERHEAD_NS {
            return Err((
                "timing.controller_overhead_ns".into(),
                format!(
                    "expected at most {MAX_OVERHEAD_NS} ns (1 s), got {}",
                    self.controller_overhead_ns
                ),
            ));
        }
        for (name, m) in [
            ("slc", &self.slc),
            ("mlc", &self.mlc),
            ("tlc", &self.tlc),
            ("qlc", &self.qlc),
        ] {
            for (field, v) in [
                ("read_us", m.read_us),
                ("program_us", m.program_us),
                ("erase_us", m.erase_us),
            ] {
                if !(v.is_finite() && (0.0..=MAX_OP_US).contains(&v)) {
                    return Err((
                        format!("timing.{name}.{field}"),
                        format!("expected a time from 0 to {MAX_OP_US} µs (1 s), got {v}"),
                    ));
                }
            }
        }
        self.check_suspend()
    }
}

/// The longest array operation or page transfer a device may have, µs. Times are u64
/// nanoseconds added up along the plane and channel time lines; with every operation at most
/// 1 s, the clock (2^64 ns ≈ 584 years) cannot overflow before some 10^10 operations queue on
/// one plane, and derived counts (LazyRTGC's α = t_erase / (t_read + t_program)) fit in u32.
pub const MAX_OP_US: f64 = 1_000_000.0;

/// The largest controller overhead per request, ns (1 s, for the same reason).
pub const MAX_OVERHEAD_NS: u64 = 1_000_000_000;

/// A time in µs (fractions allowed) as the engine's integer nanoseconds, rounded: every
/// configured time goes through here.
pub fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

/// Timing of the modes converted to integer nanoseconds, as the engine uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpTimes {
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// One page over the channel.
    pub transfer_ns: u64,
}

impl OpTimes {
    pub fn new(t: &Timing, mode: CellMode, page_size: u32) -> Self {
        let m = t.mode(mode);
        OpTimes {
            read_ns: us_to_ns(m.read_us),
            program_ns: us_to_ns(m.program_us),
            erase_ns: us_to_ns(m.erase_us),
            // bytes / (MB/s) = µs; ×1000 → ns.
            transfer_ns: us_to_ns(f64::from(page_size) / t.channel_mb_per_s),
        }
    }
}
