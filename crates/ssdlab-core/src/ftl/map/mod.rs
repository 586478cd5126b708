//! The page-mapped FTL: L2P and P2L maps, per-block valid bitmaps and counts, per-plane free
//! pools and write frontiers (one per stream), TRIM, and the mechanics of GC unit steps
//! (`gc_ops`). It knows nothing of time, traces or scheduling.
//!
//! Memory per physical page: 4 B of P2L, 4 B of L2P per logical page (< 4 B per physical page)
//! and 1 bit of valid bitmap; per block ~33 B of metadata and victim index ([`memory`] estimates
//! it from a configuration before anything is allocated).
//!
//! With a mapping unit below the page size (`ftl.mapping_unit_bytes`) the FTL's "pages" are
//! mapping units: a block holds `pages_per_block × units_per_page` of them, the logical space
//! as many times more, and everything here (maps, valid counts, victims, GC copies) counts
//! units. Which unit writes program a flash page and which GC copies read one is for the
//! device model to time ([`Ftl::completes_page`], [`Ftl::is_buffered`], [`GcStep::Copy`]).

mod address;
mod allocation;
mod bits;
pub mod cmt;
mod endurance;
mod erase;
mod external;
mod fdp;
mod gc_ops;
mod huge;
mod invariants;
pub mod memory;
mod placement;
mod reclaim;
mod translation;
mod victim_index;
mod wear;
mod wear_level;

pub(crate) use bits::prefetch;
pub use external::{ExternalBlocks, UnitLayout};
pub use gc_ops::{GcJob, GcStep};
pub use invariants::erase_stats;
pub use placement::NEVER;

use placement::PlacementState;

use std::collections::VecDeque;

use crate::config::{Allocation, DeviceConfig, Placement};
use crate::error::{Result, SsdError};
pub(crate) use address::pow2_shift;
use address::stripe_order;
use victim_index::VictimIndex;

/// Marks an unmapped logical page or an invalid physical page.
pub const UNMAPPED: u32 = u32::MAX;

/// Where a block is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    Free,
    /// A write frontier is programming it.
    Open,
    /// Fully programmed, indexed as a GC candidate.
    Full,
    /// Chosen by GC, being collected.
    Victim,
    /// Retired: factory-bad or grown-bad (`[endurance]`), never used again.
    Bad,
}

/// Counters the FTL keeps (all since the last `reset_counters`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FtlCounters {
    pub host_pages_written: u64,
    pub gc_pages_copied: u64,
    pub erases: u64,
    pub gc_victims: u64,
    pub trimmed_pages: u64,
    pub host_pages_read: u64,
    pub unmapped_reads: u64,
    /// RAIN parity pages programmed (not host pages; GC copies of parity count as copies).
    pub parity_pages_written: u64,
    /// Translation pages programmed (`ftl.mapping = "cached"`: CMT write-backs and GC's batch
    /// updates), and GC copies of translation pages (counted in `gc_pages_copied` too).
    pub translation_pages_written: u64,
    pub translation_gc_copies: u64,
}

/// Result of placing one host page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub plane: u32,
    pub ppn: u32,
}

/// The FTL state. A value: several can live side by side.
#[derive(Debug, Clone)]
pub struct Ftl {
    pub(crate) planes: u32,
    pub(crate) blocks_per_plane: u32,
    pub(crate) pages_per_block: u32,
    /// log2 of `pages_per_block` and of pages per plane when they are powers of two (32 when
    /// not): a page's block and plane by shift. A 32-bit division per overwrite and per copy
    /// was ~2 % of a timed run on the slow dividers of server cores.
    ppb_shift: u32,
    ppp_shift: u32,
    /// Mapping units per flash page (1: units are pages).
    units_per_page: u32,
    logical_pages: u32,
    gc_threshold: u32,
    allocation: Allocation,
    placement: Placement,
    place: PlacementState,
    /// Flexible Data Placement (`[fdp]`), if on, and whether it has several reclaim groups
    /// (the allocator then stripes a page over its group's planes).
    fdp: Option<Box<fdp::FdpState>>,
    grouped: bool,
    /// The GC frontier (stream) of every victim, unless FDP's persistently isolated handles
    /// choose it per victim ([`Ftl::gc_stream_of`]).
    gc_stream: usize,
    pub(crate) l2p: huge::Table<u32>,
    pub(crate) p2l: huge::Table<u32>,
    pub(crate) valid_bits: huge::Table<u64>,
    pub(crate) valid: Vec<u32>,
    pub(crate) next_page: Vec<u32>,
    pub(crate) state: Vec<BlockState>,
    pub(crate) erase_count: Vec<u32>,
    /// Device page-write counter value when the block was closed (the age clock).
    pub(crate) closed_at: Vec<u64>,
    /// Blocks opened since the device last took them ([`Ftl::log_opens`]).
    opened: Option<Vec<u32>>,
    /// Wear levelling (`[wear_leveling]`), if on.
    leveler: Option<Box<wear_level::Leveler>>,
    /// Bad blocks and end of life (`[endurance]`), if on ([`Ftl::enable_endurance`]).
    endurance: Option<Box<endurance::Endurance>>,
    /// Read reclaim's queued blocks, if on ([`Ftl::enable_reclaim`]).
    reclaim: Option<Box<reclaim::Reclaim>>,
    pub(crate) free: Vec<VecDeque<u32>>,
    /// Moves on whenever a plane's free pool changes size, so that a caller's per-request look
    /// at every plane's count can be skipped while it stands ([`Ftl::free_epoch`]).
    free_epoch: u64,
    /// frontier[plane * streams + stream] = open block or UNMAPPED.
    pub(crate) frontier: Vec<u32>,
    streams: usize,
    /// Frontiers of data (host and GC streams): `streams` less the translation pages' own.
    data_streams: usize,
    /// Frontiers a host write must find room in ([`Ftl::host_can_write`]): the data streams,
    /// and the translation pages' when the CMT cannot hold every mapping; `room_free`: those
    /// and the blocks kept for GC (one, or two with the translation pages').
    room_streams: usize,
    room_free: usize,
    /// The cached mapping table (`ftl.mapping = "cached"`), and the first logical page of the
    /// translation pages (`u32::MAX` without one: no logical page is a translation page).
    pub(crate) cmt: Option<Box<cmt::MappingCache>>,
    pub(crate) translation_base: u32,
    pub(crate) victims: VictimIndex,
    pub(crate) jobs: Vec<Option<GcJob>>,
    stripe_order: Vec<u32>,
    rr_cursor: usize,
    /// Page writes (host + GC) so far: the clock of block ages.
    pub(crate) write_clock: u64,
    pub counters: FtlCounters,
    /// When enabled (tests), marks programmed pages to prove none is programmed twice.
    program_marks: Option<Vec<bool>>,
    /// Allocation handed over ([`Ftl::hand_over_allocation`]): a layer above allocates and
    /// erases blocks itself, in units (RAIN super-blocks) chosen for GC through this index.
    pub(crate) units: Option<Box<external::Units>>,
    /// Test mode: a checksum of what each physical page holds (0 = erased). Host and parity
    /// writes set it, GC copies carry it, erases clear it.
    pub(crate) content: Option<Vec<u64>>,
}

impl Ftl {
    pub fn new(cfg: &DeviceConfig) -> Result<Self> {
        cfg.validate(&cfg.name)?;
        let g = &cfg.geometry;
        let planes = g.planes();
        let total_blocks = g.total_blocks() as usize;
        let k = cfg.units_per_page();
        let phys = (g.physical_pages() * u64::from(k)) as usize;
        let logical = cfg.logical_units();
        let ppb = g.pages_per_block * k;
        let policy = cfg.gc.victim;
        let data_streams = cfg.data_streams();
        let streams = cfg.frontiers();
        let cmt = cmt::MappingCache::new(cfg, logical as u32, logical as u32, planes);
        let translation_pages = cmt.as_ref().map_or(0, |c| c.pages());
        let room_streams = match &cmt {
            Some(c) if u64::from(c.capacity()) < logical => streams,
            _ => data_streams,
        };
        let stripe_order = stripe_order(
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
        );
        let fdp = fdp::FdpState::new(cfg, &stripe_order).map(Box::new);
        let gc_stream = match cfg.ftl.placement {
            // FDP: GC's shared frontier follows the handles' (persistently isolated handles
            // choose theirs per victim: `Ftl::gc_stream_of`).
            _ if cfg.fdp.on() => cfg.fdp.handles as usize,
            Placement::Single => 0,
            _ => data_streams - 1,
        };
        let mut free = Vec::with_capacity(planes as usize);
        for p in 0..planes {
            free.push(
                (p * g.blocks_per_plane..(p + 1) * g.blocks_per_plane).collect::<VecDeque<u32>>(),
            );
        }
        Ok(Ftl {
            planes,
            blocks_per_plane: g.blocks_per_plane,
            pages_per_block: ppb,
            ppb_shift: pow2_shift(u64::from(ppb)),
            ppp_shift: pow2_shift(u64::from(ppb) * u64::from(g.blocks_per_plane)),
            units_per_page: k,
            logical_pages: logical as u32,
            gc_threshold: cfg.gc.threshold_blocks,
            allocation: cfg.ftl.allocation,
            placement: cfg.ftl.placement,
            place: PlacementState::new(&cfg.ftl, &cfg.fdp, logical),
            grouped: fdp.as_ref().is_some_and(|f| f.grouped()),
            fdp,
            gc_stream,
            l2p: huge::table(logical as usize + translation_pages as usize, UNMAPPED),
            p2l: huge::table(phys, UNMAPPED),
            valid_bits: huge::table(phys.div_ceil(64), 0),
            valid: vec![0; total_blocks],
            next_page: vec![0; total_blocks],
            state: vec![BlockState::Free; total_blocks],
            erase_count: vec![0; total_blocks],
            closed_at: vec![0; total_blocks],
            opened: None,
            leveler: wear_level::Leveler::new(&cfg.wear_leveling, total_blocks, planes),
            endurance: None,
            reclaim: None,
            free,
            free_epoch: 0,
            frontier: vec![UNMAPPED; planes as usize * streams],
            streams,
            data_streams,
            room_streams,
            room_free: room_streams + 1 + usize::from(room_streams > data_streams),
            translation_base: if cmt.is_some() {
                logical as u32
            } else {
                u32::MAX
            },
            cmt: cmt.map(Box::new),
            victims: VictimIndex::new(policy, planes, g.blocks_per_plane, ppb),
            jobs: vec![None; planes as usize],
            stripe_order,
            rr_cursor: 0,
            write_clock: 0,
            counters: FtlCounters::default(),
            program_marks: None,
            units: None,
            content: None,
        })
    }

    /// Hand block allocation over to a layer that allocates blocks itself in units (RAIN
    /// super-blocks): the per-plane free pools are emptied for good, and the layer programs and
    /// erases blocks and picks its victims among the units it closed through
    /// [`Ftl::external`]; the frontiers and per-plane victim index stay unused. Victims follow
    /// `gc.victim` over units as they do over blocks.
    pub fn hand_over_allocation(&mut self, layout: UnitLayout) {
        for f in &mut self.free {
            f.clear();
        }
        self.free_epoch += 1;
        let policy = self.victims.policy();
        self.units = Some(Box::new(external::Units::new(
            layout,
            policy,
            self.pages_per_block,
        )));
    }

    /// The narrow handle of a layer that allocates blocks itself (after
    /// [`Ftl::hand_over_allocation`]).
    pub fn external(&mut self) -> ExternalBlocks<'_> {
        debug_assert!(self.units.is_some(), "allocation not handed over");
        ExternalBlocks { ftl: self }
    }

    /// Pages programmed so far in `blk`.
    pub fn written_pages(&self, blk: u32) -> u32 {
        self.next_page[blk as usize]
    }

    /// Record that freshly programmed page `ppn` (of block `blk`) holds `lpn`, both ways.
    #[inline]
    pub(super) fn map(&mut self, lpn: u32, ppn: u32, blk: u32) {
        self.p2l[ppn as usize] = lpn;
        self.valid_bits[ppn as usize >> 6] |= 1u64 << (ppn & 63);
        self.valid[blk as usize] += 1;
        self.l2p[lpn as usize] = ppn;
        self.write_clock += 1;
    }

    /// The double-program detector (tests): a page may be programmed once per erase.
    #[inline]
    pub(super) fn mark_programmed(&mut self, ppn: u32) -> Result<()> {
        if let Some(marks) = &mut self.program_marks {
            if marks[ppn as usize] {
                return Err(SsdError::Invalid(format!(
                    "FTL bug: page {ppn} programmed twice without an erase"
                )));
            }
            marks[ppn as usize] = true;
        }
        Ok(())
    }

    /// Valid pages of `blk`, in page order.
    pub fn valid_pages_of(&self, blk: u32, out: &mut Vec<u32>) {
        out.clear();
        let base = blk * self.pages_per_block;
        let mut i = base;
        while let Some(p) = self.next_valid(i, base + self.pages_per_block) {
            out.push(p);
            i = p + 1;
        }
    }

    /// The logical page a physical page holds, if valid.
    pub fn owner(&self, ppn: u32) -> Option<u32> {
        self.is_valid(ppn).then(|| self.p2l[ppn as usize])
    }

    /// Is the physical page valid (its valid bit set)?
    #[inline]
    pub fn is_valid(&self, ppn: u32) -> bool {
        self.valid_bits[ppn as usize >> 6] >> (ppn & 63) & 1 == 1
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }
    /// Mapping units per flash page (1 unless `ftl.mapping_unit_bytes` is below the page size).
    #[inline]
    pub fn units_per_page(&self) -> u32 {
        self.units_per_page
    }
    /// Does unit `ppn`, just programmed, fill its flash page (so the page is programmed now)?
    /// Always with one unit per page.
    #[inline]
    pub fn completes_page(&self, ppn: u32) -> bool {
        self.units_per_page == 1 || (ppn + 1) % self.units_per_page == 0
    }
    /// Does a host read of unit `ppn` need a flash page read? Not when it sits in the write
    /// buffer, nor when the previous unit of the same request was in the same page
    /// (`last_page`, updated here; start each request with `u32::MAX`).
    #[inline]
    pub fn read_needs_page(&self, ppn: u32, last_page: &mut u32) -> bool {
        let k = self.units_per_page;
        if k == 1 {
            return true;
        }
        if ppn / k == *last_page || self.is_buffered(ppn) {
            return false;
        }
        *last_page = ppn / k;
        true
    }
    /// Does a GC copy of the unit at `offset` in its victim need the victim's page read, when
    /// the job's previous copy was at `cursor − 1` (`cursor` 0: none yet)? Units of one page
    /// come out of one read. Always with one unit per page.
    #[inline]
    pub fn copy_reads_page(&self, offset: u32, cursor: u32) -> bool {
        let k = self.units_per_page;
        // k = 1 first: copies go forward, so offset ≥ cursor, and the divisions (two per GC
        // copy) are skipped.
        k == 1 || cursor == 0 || offset / k != (cursor - 1) / k
    }
    /// Is unit `ppn` still in the write buffer: written into a flash page whose last unit is not
    /// (so the page is not programmed yet, and a read is served from the buffer)? Never with
    /// one unit per page.
    #[inline]
    pub fn is_buffered(&self, ppn: u32) -> bool {
        let k = self.units_per_page;
        if k == 1 {
            return false;
        }
        let blk = ppn / self.pages_per_block;
        let next = self.next_page[blk as usize];
        next % k != 0 && (ppn % self.pages_per_block) / k == next / k
    }
    pub fn gc_threshold(&self) -> u32 {
        self.gc_threshold
    }
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.free[plane as usize].len() as u32
    }
    /// Changes whenever any plane's [`Ftl::free_blocks`] may have changed; while it stands,
    /// every plane's count is what it was.
    #[inline]
    pub fn free_epoch(&self) -> u64 {
        self.free_epoch
    }
    pub fn total_free_blocks(&self) -> u64 {
        self.free.iter().map(|f| f.len() as u64).sum()
    }
    pub fn lookup(&self, lpn: u32) -> Option<u32> {
        let p = self.l2p[lpn as usize];
        (p != UNMAPPED).then_some(p)
    }
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_count
    }
    pub fn block_valid(&self, block: u32) -> u32 {
        self.valid[block as usize]
    }
    /// A plane needs GC when its free pool is below the threshold.
    #[inline]
    pub fn needs_gc(&self, plane: u32) -> bool {
        (self.free[plane as usize].len() as u32) < self.gc_threshold
    }
    /// Live logical pages.
    pub fn live_pages(&self) -> u64 {
        self.valid.iter().map(|v| u64::from(*v)).sum()
    }

    pub fn reset_counters(&mut self) {
        self.carry_host_pages();
        self.counters = FtlCounters::default();
        self.place.reset_counters();
        if let Some(f) = &mut self.fdp {
            f.reset_counters();
        }
        if let Some(c) = &mut self.cmt {
            c.counters = cmt::CmtCounters::default();
        }
        self.reset_wear_leveling_counts();
        self.reset_reclaim_counts();
    }

    /// Program host page `lpn` on `plane` (the caller made sure `host_can_write(plane)`).
    /// Forced in line: FDP's second allocation path (issue 62) moved it out of line from
    /// preconditioning's loops, +6 % instructions there (docs/speed.md,
    /// "FDP off: the plain path kept; FDP on: 0.83–0.88×").
    #[inline(always)]
    pub fn write_host(&mut self, lpn: u32, plane: u32) -> Result<u32> {
        self.write_host_hinted(lpn, plane, NEVER)
    }

    /// `write_host` with the host-write clock of this page's next write (`NEVER` if none or
    /// unknown), which the `oracle` placement uses. Forced in line: with `#[inline]` the
    /// compiler kept one shared copy for preconditioning and the timed path (24 % of the bench
    /// example's samples); in line, 3 % fewer instructions on the timed preset (`docs/speed.md`
    /// docs/speed.md, "The PGO build's inlining decisions on the page path, by hand").
    #[inline(always)]
    pub fn write_host_hinted(&mut self, lpn: u32, plane: u32, next_write: u64) -> Result<u32> {
        let stream = self.place.host_stream(lpn, next_write);
        let ppn = self.program(lpn, plane, stream)?;
        self.counters.host_pages_written += 1;
        Ok(ppn)
    }

    /// Program the parity page `lpn` (a logical page beyond the user's: RAIN's logical stripes,
    /// `rain.layout = "logical"`) on `plane`, holding `checksum` in test mode. Counted as parity,
    /// not host data; GC moves it like any mapped page.
    pub fn write_parity_lpn(&mut self, lpn: u32, plane: u32, checksum: u64) -> Result<u32> {
        let stream = self.place.host_stream(lpn, NEVER);
        let ppn = self.program(lpn, plane, stream)?;
        self.counters.parity_pages_written += 1;
        self.set_content(ppn, checksum);
        Ok(ppn)
    }

    /// Invalidate whatever `lpn` maps to, map it to a freshly programmed page of `plane`'s
    /// frontier for `stream`, and return that page.
    #[inline]
    pub(crate) fn program(&mut self, lpn: u32, plane: u32, stream: usize) -> Result<u32> {
        let old = self.l2p[lpn as usize];
        self.program_from(lpn, old, plane, stream)
    }

    /// `program` when the caller already knows the page `lpn` currently maps to (`old`, or
    /// UNMAPPED): GC copies know it is the victim page, which saves a random L2P read — the
    /// dominant cost of GC on large devices.
    #[inline(always)]
    pub(crate) fn program_from(
        &mut self,
        lpn: u32,
        old: u32,
        plane: u32,
        stream: usize,
    ) -> Result<u32> {
        let fi = plane as usize * self.streams + stream;
        let mut blk = self.frontier[fi];
        if blk == UNMAPPED || self.next_page[blk as usize] == self.pages_per_block {
            blk = self.open_frontier(plane, fi)?;
        }
        if old != UNMAPPED {
            self.invalidate(old);
        }
        let page = self.next_page[blk as usize];
        let ppn = blk * self.pages_per_block + page;
        self.mark_programmed(ppn)?;
        self.next_page[blk as usize] = page + 1;
        self.map(lpn, ppn, blk);
        Ok(ppn)
    }

    /// Close frontier `fi` of `plane` if it is full and open a free block in its place (once
    /// per block: out of the page path, so that `program_from` stays small enough to inline).
    #[cold]
    #[inline(never)]
    fn open_frontier(&mut self, plane: u32, fi: usize) -> Result<u32> {
        let old = self.frontier[fi];
        if old != UNMAPPED {
            self.close_block(old);
        }
        let blk = self.take_free(plane).ok_or_else(|| {
            SsdError::DeviceFull(format!(
                "plane {plane} has no free block for its write frontier"
            ))
        })?;
        self.free_epoch += 1;
        self.state[blk as usize] = BlockState::Open;
        self.frontier[fi] = blk;
        if let Some(o) = &mut self.opened {
            o.push(blk);
        }
        if let Some(f) = &mut self.fdp {
            f.on_open(blk, plane, fi % self.streams);
        }
        Ok(blk)
    }

    fn close_block(&mut self, blk: u32) {
        self.state[blk as usize] = BlockState::Full;
        self.closed_at[blk as usize] = self.write_clock;
        self.victims.insert(blk, self.valid[blk as usize]);
        if self.endurance.is_some() {
            self.program_check(blk);
        }
    }

    #[inline(always)]
    pub(super) fn invalidate(&mut self, ppn: u32) {
        let blk = self.block_of_ppn(ppn);
        // P2L entries of invalid pages are stale and never read (the valid bit rules), which
        // saves a random write per overwrite.
        self.valid_bits[ppn as usize >> 6] &= !(1u64 << (ppn & 63));
        let v = self.valid[blk as usize];
        self.valid[blk as usize] = v - 1;
        if self.state[blk as usize] == BlockState::Full {
            self.victims.on_invalidate(blk, v);
        } else if let Some(u) = &mut self.units {
            u.on_invalidate(blk);
        }
    }

    /// Hint the CPU to bring `lpn`'s L2P entry into cache (no effect on results).
    #[inline]
    pub fn prefetch_lpn(&self, lpn: u32) {
        bits::prefetch(&self.l2p, lpn as usize);
        if let Some(c) = self.cmt.as_deref() {
            c.prefetch(lpn);
        }
    }

    /// TRIM one logical page. Returns whether it was mapped.
    pub fn trim(&mut self, lpn: u32) -> bool {
        let old = self.l2p[lpn as usize];
        if old == UNMAPPED {
            return false;
        }
        self.invalidate(old);
        self.l2p[lpn as usize] = UNMAPPED;
        self.counters.trimmed_pages += 1;
        true
    }

    /// Host read of one page: its physical page if mapped.
    #[inline]
    pub fn read(&mut self, lpn: u32) -> Option<u32> {
        self.counters.host_pages_read += 1;
        let p = self.l2p[lpn as usize];
        if p == UNMAPPED {
            self.counters.unmapped_reads += 1;
            None
        } else {
            Some(p)
        }
    }

    /// Host page writes ever made (preconditioning included): the clock of placement hints.
    pub fn host_clock(&self) -> u64 {
        self.place.clock()
    }

    /// The placement in force.
    pub fn placement(&self) -> Placement {
        self.placement
    }
}
