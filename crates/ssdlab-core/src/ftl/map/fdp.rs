//! Flexible Data Placement on the mapping state (`[fdp]`, `config::FdpConfig`): the reclaim
//! groups' planes, which frontier opened each block, and the counters the specification's
//! log pages report. The host's placement identifiers themselves live with the placement
//! state (`placement::Temperature::Host`): a page's identifier chooses its frontier as a
//! temperature would.
//!
//! NVMe 2.0 base specification, "Flexible Data Placement" (TP4146):
//! - a write goes to the reclaim unit its handle references in its reclaim group, here the
//!   handle's frontier on a plane of the group (`Ftl::next_host_plane` stripes over the
//!   group's planes only);
//! - GC of an **initially isolated** handle's data may mix it with other handles' data of the
//!   group (one GC frontier per plane); a **persistently isolated** handle's data stays with
//!   its own handle's data after GC: the copies of a block go to the GC frontier of the handle
//!   whose frontier wrote it ([`FdpState::persistent_gc_stream`]);
//! - the FDP statistics log page counts host bytes with metadata written (HBMW), media bytes
//!   with metadata written (MBMW) and media bytes erased (MBE); the reclaim unit handle usage
//!   log page describes each handle. We report those counts and, per handle, the pages the
//!   host wrote through it and the reclaim units (erase blocks) its frontiers opened.

use std::ops::Range;

use super::Ftl;
use crate::config::{Allocation, DeviceConfig, HandleType, Registry};
use crate::stats::{FdpReport, HandleReport};

/// FDP's state in the FTL.
#[derive(Debug, Clone)]
pub(crate) struct FdpState {
    handles: u32,
    handle_type: HandleType,
    /// Each reclaim group's planes, in the allocator's stripe order, and its round-robin
    /// cursor (one group: the allocator's own order and cursor are used instead).
    group_order: Vec<Vec<u32>>,
    group_cursor: Vec<usize>,
    planes_per_group: u32,
    /// The frontier (stream index within its plane) that opened each block.
    owner: Vec<u8>,
    /// Blocks opened per reclaim group and stream (`group × streams + stream`) since the
    /// counters were reset: reclaim units the handle's (or GC's) frontiers started.
    opened: Vec<u64>,
    streams: usize,
}

impl FdpState {
    /// `None` with FDP off. `stripe_order`: the allocator's plane order.
    pub fn new(cfg: &DeviceConfig, stripe_order: &[u32]) -> Option<Self> {
        let f = &cfg.fdp;
        if !f.on() {
            return None;
        }
        let planes = cfg.geometry.planes();
        let per = planes / f.reclaim_groups;
        let group_order = (0..f.reclaim_groups)
            .map(|g| {
                stripe_order
                    .iter()
                    .copied()
                    .filter(|p| p / per == g)
                    .collect()
            })
            .collect();
        Some(FdpState {
            handles: f.handles,
            handle_type: f.handle_type,
            group_order,
            group_cursor: vec![0; f.reclaim_groups as usize],
            planes_per_group: per,
            owner: vec![0; cfg.geometry.total_blocks() as usize],
            opened: vec![0; cfg.data_streams() * f.reclaim_groups as usize],
            streams: cfg.data_streams(),
        })
    }

    /// Several reclaim groups (the allocator then stripes within a write's group).
    pub fn grouped(&self) -> bool {
        self.group_order.len() > 1
    }

    /// GC keeps each handle's data apart (persistently isolated handles).
    #[inline]
    fn persistent(&self) -> bool {
        self.handle_type == HandleType::PersistentlyIsolated
    }

    /// The reclaim group of placement identifier `pid`.
    fn group_of(&self, pid: u16) -> u32 {
        u32::from(pid) / self.handles
    }

    /// The plane for a host page of placement identifier `pid` under the allocator
    /// (`static_alloc`: plane by logical page within the group).
    pub fn plane(&mut self, lpn: u32, pid: u16, static_alloc: bool) -> u32 {
        let p = self.peek(lpn, pid, static_alloc);
        if !static_alloc {
            let g = self.group_of(pid) as usize;
            let c = &mut self.group_cursor[g];
            *c += 1;
            if *c == self.group_order[g].len() {
                *c = 0;
            }
        }
        p
    }

    /// [`Self::plane`] without moving the group's cursor.
    pub fn peek(&self, lpn: u32, pid: u16, static_alloc: bool) -> u32 {
        let g = self.group_of(pid) as usize;
        if static_alloc {
            return g as u32 * self.planes_per_group + lpn % self.planes_per_group;
        }
        self.group_order[g][self.group_cursor[g]]
    }

    /// Frontier `stream` of `plane` opened `block` (the translation pages' frontier of a
    /// cached map is not counted).
    pub fn on_open(&mut self, block: u32, plane: u32, stream: usize) {
        self.owner[block as usize] = stream as u8;
        if stream < self.streams {
            let g = (plane / self.planes_per_group) as usize;
            self.opened[g * self.streams + stream] += 1;
        }
    }

    /// Persistently isolated: the GC frontier the valid pages of `victim` go to, the one of
    /// the handle that wrote the block (a host frontier's block → that handle's GC stream; a
    /// GC frontier's → the same one). (Initially isolated handles share the FTL's one GC
    /// stream, `Ftl::gc_stream`.)
    #[inline]
    fn persistent_gc_stream(&self, victim: u32) -> usize {
        let h = self.handles as usize;
        let s = self.owner[victim as usize] as usize;
        if s < h {
            h + s
        } else {
            s
        }
    }

    pub fn reset_counters(&mut self) {
        self.opened.iter_mut().for_each(|n| *n = 0);
    }

    /// Reclaim units opened through handle `handle` of group `group`: its host frontiers'
    /// blocks, and (persistently isolated) its GC frontiers'.
    pub fn units_opened(&self, group: usize, handle: usize) -> u64 {
        let (h, o) = (self.handles as usize, &self.opened[group * self.streams..]);
        o[handle] + if self.persistent() { o[h + handle] } else { 0 }
    }

    /// Blocks GC's shared frontiers opened (initially isolated; 0 otherwise).
    pub fn shared_gc_units(&self) -> u64 {
        if self.persistent() {
            return 0;
        }
        let h = self.handles as usize;
        self.opened.chunks(self.streams).map(|o| o[h]).sum()
    }

    pub fn memory_bytes(&self) -> usize {
        self.owner.capacity() + self.opened.capacity() * 8
    }
}

impl Ftl {
    /// FDP: the next host writes of `pages` come through placement identifier `pid` (the
    /// caller checked that the device has it). Nothing without FDP.
    pub fn set_placement(&mut self, pages: Range<u32>, pid: u16) {
        self.place.set_placement(pages, pid);
    }

    /// The stream GC copies of `victim` go to.
    #[inline]
    pub(crate) fn gc_stream_of(&self, victim: u32) -> usize {
        match &self.fdp {
            Some(f) if f.persistent() => f.persistent_gc_stream(victim),
            _ => self.gc_stream,
        }
    }

    /// The planes of the reclaim group of `lpn`'s placement identifier.
    pub(super) fn group_planes(&self, lpn: u32) -> std::ops::Range<u32> {
        let f = self.fdp.as_ref().expect("reclaim groups without FDP");
        let g = f.group_of(self.place.placement_of(lpn));
        g * f.planes_per_group..(g + 1) * f.planes_per_group
    }

    /// [`Self::group_plane`] without moving the cursor.
    #[cold]
    #[inline(never)]
    pub(super) fn peek_group_plane(&self, lpn: u32) -> u32 {
        let pid = self.place.placement_of(lpn);
        let static_alloc = self.allocation == Allocation::Static;
        let f = self.fdp.as_ref().expect("reclaim groups without FDP");
        f.peek(lpn, pid, static_alloc)
    }

    /// The allocator's plane for `lpn` with several reclaim groups: within its group.
    #[cold]
    #[inline(never)]
    pub(super) fn group_plane(&mut self, lpn: u32) -> u32 {
        let pid = self.place.placement_of(lpn);
        let static_alloc = self.allocation == Allocation::Static;
        let f = self.fdp.as_mut().expect("reclaim groups without FDP");
        f.plane(lpn, pid, static_alloc)
    }

    /// FDP's rules hold for every valid page (test mode; only without a write cache above,
    /// whose acknowledged writes already carry their new identifier while flash holds the old
    /// data): it lies on a plane of its identifier's reclaim group, and a block a handle's host
    /// frontier opened (persistently isolated: any block but the translation pages') holds
    /// that handle's data only.
    pub fn check_fdp_isolation(&self) -> std::result::Result<(), String> {
        let Some(f) = self.fdp.as_deref() else {
            return Ok(());
        };
        let h = f.handles as usize;
        let ppb = self.pages_per_block;
        for b in 0..self.valid.len() as u32 {
            if self.valid[b as usize] == 0 {
                continue;
            }
            let s = f.owner[b as usize] as usize;
            let plane = b / self.blocks_per_plane;
            let group = plane / f.planes_per_group;
            let handle = match s {
                _ if s < h => Some(s),
                _ if f.persistent() && s < f.streams => Some(s - h),
                _ => None,
            };
            for p in b * ppb..(b + 1) * ppb {
                let lpn = self.p2l[p as usize];
                if !self.bit(p) || lpn >= self.translation_base {
                    continue;
                }
                let pid = self.place.placement_of(lpn);
                if f.group_of(pid) != group {
                    return Err(format!(
                        "FDP: logical page {lpn} (placement {pid}) lies on plane {plane} of \
                         reclaim group {group}"
                    ));
                }
                if let Some(hd) = handle.filter(|&hd| hd != (u32::from(pid) % f.handles) as usize) {
                    return Err(format!(
                        "FDP: block {b} of handle {hd} holds logical page {lpn} of placement {pid}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The FDP section of the result (`None` with FDP off); `page_bytes` and `block_bytes`:
    /// the flash's.
    pub fn fdp_report(&self, page_bytes: u64, block_bytes: u64) -> Option<FdpReport> {
        let f = self.fdp.as_deref()?;
        let c = &self.counters;
        let groups = self.planes / f.planes_per_group;
        let placements = self
            .place
            .host_pages_by_placement()
            .iter()
            .enumerate()
            .map(|(i, &host_pages)| {
                let (group, handle) = (i as u32 / f.handles, i as u32 % f.handles);
                HandleReport {
                    placement: i as u16,
                    reclaim_group: group,
                    handle,
                    host_pages,
                    units_opened: f.units_opened(group as usize, handle as usize),
                }
            })
            .collect();
        Some(FdpReport {
            handle_type: f.handle_type.name(),
            reclaim_groups: groups,
            handles: f.handles,
            reclaim_unit_bytes: block_bytes * u64::from(f.planes_per_group),
            host_bytes_written: c.host_pages_written * page_bytes,
            media_bytes_written: c.flash_writes() * page_bytes,
            media_bytes_erased: c.erases * block_bytes,
            shared_gc_units_opened: f.shared_gc_units(),
            placements,
        })
    }
}
