//! The RAIN FTL's section of the result (`ftl::rain`; Yan et al., "Tiny-Tail Flash", FAST
//! 2017): its counters, data only, so that the result (`SimResult::rain`) is typed without
//! knowing the layer.

use serde::Serialize;

/// Counters of the RAIN layer (since the simulation started, preconditioning excluded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RainStats {
    /// Host stripes closed with their parity (always N − 1 data pages).
    pub host_stripes: u64,
    /// GC stripes closed with their parity, and how many of them had fewer than N − 1 members
    /// (closed early so that their victim could be erased), and their data members in total.
    pub gc_stripes: u64,
    pub gc_short_stripes: u64,
    /// … of which closed because their super-block was sealed (the rest: a round old).
    pub gc_short_sealed: u64,
    pub gc_stripe_members: u64,
    /// Times GC found no free super-block for a copy and drained its pipeline instead:
    /// closed its open stripes short and erased its pending victims (the host's floor kept
    /// too few super-blocks for the victims it was copying).
    pub gc_drains: u64,
    /// Parity pages programmed by host stripes and by GC stripes.
    pub host_parity_writes: u64,
    pub gc_parity_writes: u64,
    /// Victim super-blocks collected (copied) and erased.
    pub superblocks_collected: u64,
    pub superblocks_erased: u64,
    /// Times a host write found no group with room and GC ran without yielding (forced).
    pub forced_gc: u64,
    /// Reads served by XOR-rebuilding from the rest of the stripe (GTR).
    pub rebuilt_reads: u64,
    /// … of which through the pre-GC copy's stripe (the page's new stripe still open;
    /// `rain.open_parity = "victim"`).
    pub rebuilds_via_origin: u64,
    /// … of which from an open stripe's running parity in RAM and its other pages
    /// (`rain.open_parity = "ram"`).
    pub rebuilds_via_ram_parity: u64,
    /// … of which on a plane busy with a host program, not GC (`rain.rotating_flush`).
    pub rebuilt_program_blocked: u64,
    /// Reads on a GC-busy plane (or program-busy, with the rotating flush) whose stripe could
    /// not rebuild them (an open host stripe, with `rain.open_parity = "victim"`).
    pub rebuild_unavailable: u64,
    /// Reads on a GC-busy plane (or program-busy, with the rotating flush) where rebuilding
    /// would not have been sooner than waiting.
    pub rebuild_not_sooner: u64,
    /// Rebuilt reads while two planes of the read's group were executing GC (0 under RGC).
    pub rebuild_while_group_collecting: u64,
    /// Reads on a GC-busy plane not rebuilt because another plane of their group was collecting
    /// too (parallel forced GC).
    pub rebuild_refused_group_collecting: u64,
    /// Rebuilt pages whose content was verified against the written checksum (test mode).
    pub rebuilds_verified: u64,
    /// Most GC stripes open at once, over all groups (with `rain.open_parity = "ram"`, the
    /// controller's RAM holds one parity page for each).
    pub open_gc_stripes_max: u64,
}

/// What the RAIN FTL did during the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RainReport {
    pub rain: RainStats,
    pub parity_pages_written: u64,
    /// Mean data members of the GC stripes closed (N − 1 when none is short).
    pub mean_gc_stripe_members: f64,
    /// The deepest reserve of free super-blocks any group keeps from the host at the end:
    /// 2, plus one per drain of that group up to 4 (0 without super-block RAIN).
    pub superblock_reserve_max: u64,
}

/// What the Tiny-Tail Flash comparison shows of a run (`experiments::ttflash`, `Simulation::
/// ttflash_report`): the RAIN FTL's report (zeros but the parity count on another FTL) and the
/// fraction of requests that waited for GC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TtflashReport {
    #[serde(flatten)]
    pub layer: RainReport,
    /// Reads served from the buffer (the write cache), and writes that waited for its room.
    pub buffer_read_hits: u64,
    pub buffer_full_waits: u64,
    /// Requests that waited for GC, over all requests.
    pub blocked_fraction: f64,
}
