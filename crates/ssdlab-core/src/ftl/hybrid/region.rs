//! The blocks of one plane of a hybrid device: erased blocks (no mode), the SLC and QLC regions
//! with their open blocks, and the unit steps that reclaim space — migration (an SLC victim's
//! valid pages rewritten into QLC, then the SLC block erased back to the free pool) and QLC GC
//! (a QLC victim's valid pages copied within QLC, then erased). Steps are applied to the FTL
//! through its narrow handle; the caller gives them time.

use std::collections::VecDeque;

use crate::error::{Result, SsdError};
use crate::ftl::map::memory::{units_estimate, MemoryEstimate};
use crate::ftl::map::Ftl;
use crate::rng::SimRng;

pub(super) const NONE: u32 = u32::MAX;

/// A block's cell mode while it is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Slc = 0,
    Qlc = 1,
}

/// What one reclaim step did (the caller times it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// A page (mapping unit) copied from a block in `from` mode into QLC; `read`: the source
    /// flash page had to be read (units of one page come out of one read), `program`: the copy
    /// filled its QLC page, which is programmed now (both always with one unit per page).
    Copy {
        from: Mode,
        read: bool,
        program: bool,
    },
    /// A block in `mode` erased back to the free pool.
    Erase { mode: Mode },
}

/// Wear by mode (`endurance.slc_retire_pe`): an SLC-mode erase wears a block by `native /
/// slc` of a native cycle, so a block's P/E cycles are its native-mode erases plus its SLC-mode
/// erases so weighted.
#[derive(Debug, Clone)]
pub(super) struct SlcWear {
    slc_erases: Vec<u32>,
    native: u32,
    slc: u32,
}

impl SlcWear {
    pub(super) fn new(blocks: u32, native: u32, slc: u32) -> Self {
        SlcWear {
            slc_erases: vec![0; blocks as usize],
            native,
            slc,
        }
    }

    /// Count an erase of `blk` in `mode` (`erases`: all its erases, this one counted); its P/E
    /// cycles now.
    fn on_erase(&mut self, blk: u32, mode: Mode, erases: u32) -> u32 {
        let s = &mut self.slc_erases[blk as usize];
        *s += u32::from(mode == Mode::Slc);
        let weighted = u64::from(*s) * u64::from(self.native) / u64::from(self.slc);
        (erases - *s).saturating_add(weighted.min(u64::from(u32::MAX)) as u32)
    }
}

/// One plane's regions.
#[derive(Debug, Clone)]
pub(super) struct Plane {
    pub(super) free: VecDeque<u32>,
    /// Open block of each mode (NONE when none).
    pub(super) open: [u32; 2],
    /// Blocks in each mode (open, full or being reclaimed).
    pub(super) in_mode: [u32; 2],
    /// The SLC region's size in blocks (the policy's).
    pub(super) slc_target: u32,
    /// The victim being reclaimed in each mode, and the next page to look at.
    pub(super) job: [Option<(u32, u32)>; 2],
    /// Bad blocks (`[endurance]`): factory-bad or retired, in no pool or region.
    pub(super) bad: u32,
}

/// Where the plane's blocks are and how big an SLC block is.
pub(super) struct Layout {
    pub(super) planes: u32,
    pub(super) bpp: u32,
    pub(super) ppb: u32,
    /// Pages of a block in SLC mode (ppb / bits per cell of the native mode). With mapping
    /// units below the page size, `ppb` and `slc_ppb` count units.
    pub(super) slc_ppb: u32,
}

impl Layout {
    /// The FTL victim-index unit of block `blk` in `mode`: unit groups are (mode, plane).
    pub(super) fn unit(&self, blk: u32, mode: Mode) -> u32 {
        mode as u32 * self.planes * self.bpp + blk
    }
    pub(super) fn group(&self, plane: u32, mode: Mode) -> u32 {
        mode as u32 * self.planes + plane
    }
    pub(super) fn capacity(&self, mode: Mode) -> u32 {
        match mode {
            Mode::Slc => self.slc_ppb,
            Mode::Qlc => self.ppb,
        }
    }
}

impl Plane {
    /// The plane of blocks `first..first + bpp`, its factory-bad blocks left out.
    pub(super) fn new(first: u32, bpp: u32, ftl: &Ftl) -> Self {
        let free: VecDeque<u32> = (first..first + bpp).filter(|&b| !ftl.is_bad(b)).collect();
        Plane {
            bad: bpp - free.len() as u32,
            free,
            open: [NONE; 2],
            in_mode: [0; 2],
            slc_target: 0,
            job: [None; 2],
        }
    }

    /// Free blocks of the SLC region: its size less its blocks in use (never above the size:
    /// a hot write opens an SLC block only while this is positive).
    pub(super) fn slc_free(&self) -> u32 {
        self.slc_target
            .saturating_sub(self.in_mode[Mode::Slc as usize])
    }

    /// A block of `mode` with room for one more page, opening one from the free pool (its mode
    /// set) when the open one is full. None when the pool is empty.
    pub(super) fn room(
        &mut self,
        ftl: &mut Ftl,
        lay: &Layout,
        mode: Mode,
        modes: &mut [Mode],
    ) -> Option<u32> {
        let m = mode as usize;
        let cur = self.open[m];
        if cur != NONE && ftl.written_pages(cur) < lay.capacity(mode) {
            return Some(cur);
        }
        if cur != NONE {
            ftl.external().close_unit(lay.unit(cur, mode));
            self.open[m] = NONE;
        }
        let b = self.free.pop_front()?;
        modes[b as usize] = mode;
        ftl.external().assign_unit(b, lay.unit(b, mode));
        self.open[m] = b;
        self.in_mode[m] += 1;
        Some(b)
    }

    /// Close the open block of `mode` once its last page is written, so it is a reclaim
    /// candidate at once (not only when the next page of that mode needs room: a region a
    /// policy shrank may take no more pages, and its last block must still be migratable).
    pub(super) fn close_if_full(&mut self, ftl: &mut Ftl, lay: &Layout, mode: Mode) {
        let cur = self.open[mode as usize];
        if cur != NONE && ftl.written_pages(cur) >= lay.capacity(mode) {
            ftl.external().close_unit(lay.unit(cur, mode));
            self.open[mode as usize] = NONE;
        }
    }

    /// Start reclaiming a victim of `mode` if none is in progress; false when there is no
    /// candidate with an invalid page.
    pub(super) fn begin(
        &mut self,
        ftl: &mut Ftl,
        lay: &Layout,
        plane: u32,
        mode: Mode,
        rng: &mut SimRng,
    ) -> bool {
        let m = mode as usize;
        if self.job[m].is_some() {
            return true;
        }
        let full = lay.capacity(mode);
        // Migration takes any SLC block (its data moves to QLC whatever its valid count); QLC
        // GC only a block with an invalid page, or it would free nothing.
        let max_valid = match mode {
            Mode::Slc => full,
            Mode::Qlc => full - 1,
        };
        match ftl
            .external()
            .select_unit(lay.group(plane, mode), rng, max_valid)
        {
            Some(u) => {
                ftl.counters.gc_victims += 1;
                let blk = u - mode as u32 * lay.planes * lay.bpp;
                self.job[m] = Some((blk, 0));
                true
            }
            None => false,
        }
    }

    /// Under free-pool pressure, start whichever reclaim frees a block for less plane time: QLC
    /// GC of the QLC victim, or migration of the SLC victim (`cost[mode]`: plane time of one copy
    /// out of a block of that mode and of its erase). A job in progress is continued. Returns the
    /// mode begun, None when neither region has a victim that frees space.
    ///
    /// Ours: the paper triggers each region on its own free blocks (slide 12). With a region
    /// sized from the free space (`dwa`, `rl`) the pool can run low while the SLC blocks hold
    /// mostly overwritten data; collecting QLC then copies nearly a whole block to free a page.
    /// A victim with v valid pages frees 1 − v / ppb blocks net (its valid pages fill QLC).
    pub(super) fn begin_for_space(
        &mut self,
        ftl: &mut Ftl,
        lay: &Layout,
        plane: u32,
        rng: &mut SimRng,
        cost: [(u64, u64); 2],
    ) -> Option<Mode> {
        for mode in [Mode::Qlc, Mode::Slc] {
            if self.job[mode as usize].is_some() {
                return Some(mode);
            }
        }
        let mut ext = ftl.external();
        let q = ext.select_unit(lay.group(plane, Mode::Qlc), rng, lay.ppb - 1);
        let s = ext.select_unit(lay.group(plane, Mode::Slc), rng, lay.slc_ppb);
        // The policy refused (a random or FIFO pick of a full block) with no free block left:
        // the fewest-valid QLC block instead, or the run would end here.
        let q = match (q, s) {
            (None, None) if self.free.is_empty() => {
                ext.select_unit_fewest(lay.group(plane, Mode::Qlc), lay.ppb - 1)
            }
            _ => q,
        };
        let take = match (q, s) {
            (None, None) => return None,
            (Some(_), None) => Mode::Qlc,
            (None, Some(_)) => Mode::Slc,
            (Some(q), Some(s)) => {
                let (vq, vs) = (u128::from(ext.unit_valid(q)), u128::from(ext.unit_valid(s)));
                let ppb = u128::from(lay.ppb);
                let c = |m: Mode, v: u128| {
                    let (copy, erase) = cost[m as usize];
                    v * u128::from(copy) + u128::from(erase)
                };
                // cost_q / (1 − vq/ppb) ≤ cost_s / (1 − vs/ppb), without division.
                if c(Mode::Qlc, vq) * (ppb - vs) <= c(Mode::Slc, vs) * (ppb - vq) {
                    ext.return_unit(s);
                    Mode::Qlc
                } else {
                    ext.return_unit(q);
                    Mode::Slc
                }
            }
        };
        let unit = if take == Mode::Qlc { q } else { s };
        let blk = unit.expect("chosen above") - take as u32 * lay.planes * lay.bpp;
        ftl.counters.gc_victims += 1;
        self.job[take as usize] = Some((blk, 0));
        Some(take)
    }

    /// One step of the job of `mode` (after `begin`): copy its next valid page into QLC, or
    /// erase it when none is left. None when no job runs.
    pub(super) fn step(
        &mut self,
        ftl: &mut Ftl,
        lay: &Layout,
        mode: Mode,
        modes: &mut [Mode],
        wear: Option<&mut SlcWear>,
    ) -> Result<Option<Step>> {
        let m = mode as usize;
        let Some((blk, cursor)) = self.job[m] else {
            return Ok(None);
        };
        let base = blk * lay.ppb;
        if let Some(from) = ftl.next_valid(base + cursor, base + lay.ppb) {
            let to = self.room(ftl, lay, Mode::Qlc, modes).ok_or_else(|| {
                SsdError::DeviceFull(format!(
                    "hybrid device: no free block to {} into (QLC region full)",
                    if mode == Mode::Slc {
                        "migrate"
                    } else {
                        "collect"
                    }
                ))
            })?;
            // Warm the L2P entry of the next valid page (its address is random), as the plain
            // device's GC does (`Ftl::gc_step`).
            if let Some(lpn) = ftl
                .next_valid(from + 1, base + lay.ppb)
                .and_then(|next| ftl.owner(next))
            {
                ftl.prefetch_lpn(lpn);
            }
            let to_ppn = ftl.external().copy(from, to)?;
            self.close_if_full(ftl, lay, Mode::Qlc);
            self.job[m] = Some((blk, from - base + 1));
            return Ok(Some(Step::Copy {
                from: mode,
                read: ftl.copy_reads_page(from - base, cursor),
                program: ftl.completes_page(to_ppn),
            }));
        }
        // One P/E cycle per erase in either mode (docs/decisions/reliability.md).
        let mut ext = ftl.external();
        let pe = wear.map(|w| w.on_erase(blk, mode, ext.erase_count(blk) + 1));
        let retired = ext.erase_retiring(blk, self.free.is_empty(), pe);
        self.job[m] = None;
        self.in_mode[m] -= 1;
        if retired {
            self.bad += 1;
        } else {
            self.free.push_back(blk);
        }
        Ok(Some(Step::Erase { mode }))
    }

    /// The copies `step` would make next, as many as the open QLC block has room for, in one
    /// call: with one mapping unit per page (each copy a whole-page copy) only. Returns how
    /// many; 0 when the next step is not a copy (the erase), when the QLC region has no room
    /// (`step` reports it), or with smaller units.
    pub(super) fn copy_run(
        &mut self,
        ftl: &mut Ftl,
        lay: &Layout,
        mode: Mode,
        modes: &mut [Mode],
    ) -> Result<u32> {
        let m = mode as usize;
        let Some((blk, cursor)) = self.job[m] else {
            return Ok(0);
        };
        let (base, end) = (blk * lay.ppb, (blk + 1) * lay.ppb);
        if ftl.units_per_page() != 1 {
            return Ok(0);
        }
        let Some(from) = ftl.next_valid(base + cursor, end) else {
            return Ok(0);
        };
        let Some(to) = self.room(ftl, lay, Mode::Qlc, modes) else {
            return Ok(0);
        };
        let room = lay.capacity(Mode::Qlc) - ftl.written_pages(to);
        let (n, last) = ftl.external().copy_run(from, end, to, room)?;
        self.job[m] = Some((blk, last - base + 1));
        self.close_if_full(ftl, lay, Mode::Qlc);
        Ok(n)
    }
}

impl super::HybridFtl {
    /// Heap this model needs beyond its plain base, from `cfg` before anything is allocated:
    /// each block's mode and its place in its plane's free pool, and the victim index over
    /// (mode, block) units the FTL keeps for it; the SLC policy's tables (at most the `rl`
    /// Q-table) in the fixed part.
    pub fn memory_estimate(cfg: &crate::config::DeviceConfig) -> MemoryEstimate {
        let g = &cfg.geometry;
        let blocks = g.total_blocks();
        let planes = u64::from(g.planes());
        let ppb = u64::from(g.pages_per_block) * u64::from(cfg.units_per_page());
        let mut e = MemoryEstimate {
            block_bytes: blocks * (1 + 4),
            other_bytes: planes * std::mem::size_of::<Plane>() as u64 + (128 << 10),
            ..MemoryEstimate::default()
        };
        e.add(units_estimate(
            cfg.gc.victim,
            blocks,
            2 * planes,
            2 * blocks,
            blocks,
            1,
            ppb,
        ));
        e
    }
}
