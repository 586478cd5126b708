//! The host file system's counters, kept apart from the file system (`trace::fs`) so that the
//! request-source trait can report them without depending on the file system itself.

use serde::Serialize;

/// What the host file system did, in bytes (all partitions, prefill included). At any time
/// `deleted = trimmed + pending + reallocated`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FsStats {
    /// Size of the partitions (stale and personality).
    pub capacity_bytes: u64,
    /// Allocated to live files now.
    pub live_bytes: u64,
    /// Freed by deletions so far.
    pub deleted_bytes: u64,
    /// Queued as TRIM requests (at deletion under `discard`, or by `trim_deleted`).
    pub trimmed_bytes: u64,
    /// Deleted and neither trimmed nor reallocated: still valid on the device.
    pub pending_bytes: u64,
    /// Deleted and reallocated to a new file before any TRIM (the device saw an overwrite).
    pub reallocated_bytes: u64,
}
