//! How much heap a device's tables take, estimated from its configuration before anything is
//! allocated (so that a device too large for the machine is refused with a message instead of
//! being killed by the kernel). Each table's estimate sits here beside the FTL's own
//! structures; device models above add theirs (RAIN stripes, the hybrid model's block modes).
//!
//! Bytes are what the program asks the allocator for (the allocator's own bookkeeping, a few
//! bytes per allocation, is not counted: the large tables are a handful of allocations).
//! Tables that grow by doubling (queues, sets, stripe lists) are counted at the power of two
//! that holds their largest possible length.

use std::mem::size_of;

use serde::Serialize;

use super::{BlockState, Ftl, GcJob};
use crate::config::{DeviceConfig, Placement, VictimPolicy};
use crate::victim::{self, Rule};

/// The estimate, by what it scales with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MemoryEstimate {
    /// The FTL's pages (mapping units) of the device.
    pub pages: u64,
    /// Bytes of the tables that scale with pages (physical or logical).
    pub page_bytes: u64,
    /// Erase blocks of the device.
    pub blocks: u64,
    /// Bytes of the tables that scale with blocks.
    pub block_bytes: u64,
    /// Everything else (per plane, per channel, fixed).
    pub other_bytes: u64,
}

impl MemoryEstimate {
    pub fn total(&self) -> u64 {
        self.page_bytes
            .saturating_add(self.block_bytes)
            .saturating_add(self.other_bytes)
    }

    /// Adds another part's bytes (same device: pages and blocks are not added twice).
    pub fn add(&mut self, other: MemoryEstimate) {
        self.page_bytes = self.page_bytes.saturating_add(other.page_bytes);
        self.block_bytes = self.block_bytes.saturating_add(other.block_bytes);
        self.other_bytes = self.other_bytes.saturating_add(other.other_bytes);
    }

    /// `4.19e9 pages × 8.6 B/page + 2.05e6 blocks × 53 B/block + 1.2 MiB`.
    pub fn breakdown(&self) -> String {
        let per = |b: u64, n: u64| b as f64 / n.max(1) as f64;
        format!(
            "{} pages × {:.1} B/page + {} blocks × {:.0} B/block + {}",
            count(self.pages),
            per(self.page_bytes, self.pages),
            count(self.blocks),
            per(self.block_bytes, self.blocks),
            bytes(self.other_bytes)
        )
    }
}

/// A count as `4.19e9` (or plainly below 10,000).
pub fn count(n: u64) -> String {
    if n < 10_000 {
        n.to_string()
    } else {
        format!("{:.2e}", n as f64)
    }
}

/// Bytes in binary units with three significant digits: `38.2 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else if v < 10.0 {
        format!("{v:.2} {}", UNITS[u])
    } else if v < 100.0 {
        format!("{v:.1} {}", UNITS[u])
    } else {
        format!("{v:.0} {}", UNITS[u])
    }
}

/// Bytes of a `Vec` or `VecDeque` of `n` elements of `elem` bytes grown by pushes (capacity
/// the power of two that holds `n`, at least 4 — Rust's first allocation).
pub fn grown(n: u64, elem: u64) -> u64 {
    if n == 0 {
        0
    } else {
        n.max(4).next_power_of_two().saturating_mul(elem)
    }
}

/// The victim index over `groups × per_group` units of at most `unit_pages` valid pages each,
/// built for `policy` (see `victim_index`): (bytes per unit, bytes per group).
pub fn victim_index_bytes(policy: VictimPolicy, per_group: u64, unit_pages: u64) -> (u64, u64) {
    match victim::rule(policy) {
        // next + prev per unit; per group a bucket head per valid count, the low-water mark.
        Rule::FewestValid => (8, (unit_pages + 1) * 4 + 4 + 4),
        // A queue per group that can hold every unit of the group.
        Rule::Oldest => (0, grown(per_group, 4) + 32 + 4),
        // Position per unit; a member list per group.
        Rule::Sample { .. } | Rule::MaxScore(_) => (4, grown(per_group, 4) + 24 + 4),
    }
}

/// The FTL of `cfg` ([`super::Ftl::new`]); `check`: test mode (the double-program marks).
pub fn ftl_estimate(cfg: &DeviceConfig, check: bool) -> MemoryEstimate {
    let g = &cfg.geometry;
    let k = u64::from(cfg.units_per_page());
    let phys = g.physical_pages().saturating_mul(k);
    let logical = cfg.logical_units();
    let blocks = g.total_blocks();
    let planes = u64::from(g.planes());
    let ppb = u64::from(g.pages_per_block) * k;
    // P2L and the valid bitmap per physical unit, L2P per logical unit.
    let mut page_bytes = phys * 4 + phys.div_ceil(64) * 8 + logical * 4;
    match cfg.ftl.placement {
        Placement::HotCold => page_bytes += logical * 8,
        Placement::Eti => {
            page_bytes += logical.div_ceil(u64::from(cfg.ftl.eti_extent_pages.max(1))) * 12;
        }
        _ => {}
    }
    if check {
        page_bytes += phys;
    }
    // FDP: each logical page's placement identifier (u16).
    if cfg.fdp.on() {
        page_bytes += logical * 2;
    }
    // A cached map: the translation pages' L2P entries, and the simulator's CMT bookkeeping.
    page_bytes += u64::from(super::cmt::MappingCache::pages_for(cfg, logical as u32)) * 4
        + super::cmt::MappingCache::estimate_bytes(cfg, logical, check);
    // valid, next_page, erase count (u32), state, closed_at (u64), the free pools (u32).
    let (per_block, per_plane) =
        victim_index_bytes(cfg.gc.victim, u64::from(g.blocks_per_plane), ppb);
    // FDP: the frontier that opened each block (u8).
    let owner = u64::from(cfg.fdp.on());
    let block_bytes =
        blocks * (4 + 4 + 4 + size_of::<BlockState>() as u64 + 8 + 4 + per_block + owner);
    let streams = cfg.frontiers() as u64;
    // FDP: the groups' plane orders, blocks opened per group and stream, host pages per
    // identifier.
    let fdp = &cfg.fdp;
    let fdp_bytes = if fdp.on() {
        planes * 4
            + u64::from(fdp.reclaim_groups) * (streams * 8 + 8 + 24)
            + u64::from(fdp.placement_ids()) * 8
    } else {
        0
    };
    let other_bytes = planes
        * (per_plane + 32 + 4 * streams + size_of::<Option<GcJob>>() as u64 + 4 + 4)
        + 4
        + fdp_bytes;
    MemoryEstimate {
        pages: phys,
        page_bytes,
        blocks,
        block_bytes,
        other_bytes,
    }
}

/// The victim index over units of a layer that allocates blocks itself
/// ([`super::Ftl::hand_over_allocation`]): `units` units in `groups` groups, of at most
/// `members` blocks of `ppb` pages each; `blocks` blocks in all, `populated` units with members.
pub fn units_estimate(
    policy: VictimPolicy,
    blocks: u64,
    groups: u64,
    units: u64,
    populated: u64,
    members: u64,
    ppb: u64,
) -> MemoryEstimate {
    let per_group = units / groups.max(1);
    let (per_unit, per_group_bytes) = victim_index_bytes(policy, per_group, members * ppb);
    MemoryEstimate {
        // of_block per block; per unit its member list (24-byte header, and the members),
        // valid, closed_at, indexed and the index.
        block_bytes: blocks * 4 + populated * grown(members, 4),
        other_bytes: units * (24 + 4 + 8 + 1 + per_unit) + groups * per_group_bytes,
        ..MemoryEstimate::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 << 20), "3.00 MiB");
        assert_eq!(bytes(41_000_000_000), "38.2 GiB");
        assert_eq!(count(4_194_304_000), "4.19e9");
        assert_eq!(count(2048), "2048");
        assert_eq!((grown(0, 4), grown(3, 4), grown(5, 4)), (0, 16, 32));
    }
}

impl Ftl {
    /// Heap bytes held by the FTL's tables (L2P, P2L, bitmap, per-block metadata, queues).
    pub fn memory_bytes(&self) -> usize {
        self.l2p.capacity() * 4
            + self.p2l.capacity() * 4
            + self.valid_bits.capacity() * 8
            + self.valid.capacity() * 4
            + self.next_page.capacity() * 4
            + self.state.capacity() * size_of::<BlockState>()
            + self.erase_count.capacity() * 4
            + self.closed_at.capacity() * 8
            + self.free.iter().map(|f| f.capacity() * 4).sum::<usize>()
            + self.victims.memory_bytes()
            + self.units.as_ref().map_or(0, |u| u.memory_bytes())
            + self.place.memory_bytes()
            + self.program_marks.as_ref().map_or(0, |m| m.capacity())
            + self.cmt.as_ref().map_or(0, |c| c.memory_bytes())
            + self.fdp.as_ref().map_or(0, |f| f.memory_bytes())
    }
}
