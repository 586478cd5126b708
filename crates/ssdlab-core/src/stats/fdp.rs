//! The FDP section of the result (`[fdp]`, `ftl::map`'s FDP state fills it): the NVMe FDP
//! statistics log page's byte counts and each placement identifier's figures.

use serde::Serialize;

/// One placement identifier's figures in the result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HandleReport {
    /// The placement identifier (reclaim group × handles + handle).
    pub placement: u16,
    pub reclaim_group: u32,
    pub handle: u32,
    /// Host pages written through it (since the counters were reset).
    pub host_pages: u64,
    /// Reclaim units (erase blocks) its frontiers opened: its host writes', and its GC
    /// copies' when persistently isolated.
    pub units_opened: u64,
}

/// The FDP section of the result (`fdp`): the statistics log page's counts and each
/// placement identifier's.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FdpReport {
    pub handle_type: &'static str,
    pub reclaim_groups: u32,
    pub handles: u32,
    /// A reclaim unit's size: one erase block on each plane of its group.
    pub reclaim_unit_bytes: u64,
    /// Host bytes written (the log page's HBMW, without metadata).
    pub host_bytes_written: u64,
    /// Media bytes written: host and GC programs (MBMW).
    pub media_bytes_written: u64,
    /// Media bytes erased (MBE).
    pub media_bytes_erased: u64,
    /// Blocks the shared GC frontier opened (initially isolated).
    pub shared_gc_units_opened: u64,
    pub placements: Vec<HandleReport>,
}
