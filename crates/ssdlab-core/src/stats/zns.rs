//! The zoned device's section of the result (`ftl.kind = "zoned"`).

use serde::Serialize;

/// Zone commands that failed, by the specification's status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ZoneViolations {
    pub off_write_pointer: u64,
    pub past_capacity: u64,
    pub full: u64,
    pub too_many_open: u64,
    pub too_many_active: u64,
    pub invalid_transition: u64,
}

impl ZoneViolations {
    pub fn total(&self) -> u64 {
        self.off_write_pointer
            + self.past_capacity
            + self.full
            + self.too_many_open
            + self.too_many_active
            + self.invalid_transition
    }
}

/// Zone management commands served, and the controller's implicit closes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ZoneCommands {
    pub resets: u64,
    pub opens: u64,
    pub closes: u64,
    pub finishes: u64,
    pub implicit_closes: u64,
}

/// A zoned device's figures: its zones, what its flash did, the host cleaner's share, the zone
/// management commands and the commands that broke the rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ZnsReport {
    /// `zns.host`: `cleaner` or `none`.
    pub host: &'static str,
    pub zones: u32,
    pub blocks_per_zone: u32,
    pub zone_size_pages: u32,
    pub zone_capacity_pages: u32,
    /// Pages the device programmed and read, and blocks it erased (all by the host's commands).
    pub device_pages_written: u64,
    pub device_pages_read: u64,
    pub block_erases: u64,
    /// Pages programmed over pages the host's write and append commands carried.
    pub device_waf: f64,
    /// With the cleaner: the block workload's pages, the cleaner's copies, and (pages + copies)
    /// / pages. `None` without it.
    pub host_pages_written: Option<u64>,
    pub cleaner_pages_copied: Option<u64>,
    pub host_waf: Option<f64>,
    pub commands: ZoneCommands,
    pub violations: ZoneViolations,
    /// Zones open and active at the end.
    pub open_zones: u32,
    pub active_zones: u32,
}
