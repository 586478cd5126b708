//! The narrow handle of a layer that allocates blocks itself (RAIN super-blocks): it programs
//! host, parity and GC-copy pages into blocks it chooses and erases them, and chooses its GC
//! victims among the *units* (super-blocks) it closed, through the same [`VictimIndex`] the
//! plain FTL uses (so `gc.victim` means the same thing on both, and greedy is O(1)). The mapping
//! (L2P, P2L, valid bits and counts), counters and test-mode checks stay the FTL's.

use super::bits::Ones;
use super::victim_index::VictimIndex;
use super::{BlockState, Ftl, UNMAPPED};
use crate::config::VictimPolicy;
use crate::error::{Result, SsdError};
use crate::rng::SimRng;

/// How the blocks of a device group into the units a layer above allocates and cleans as one
/// (RAIN: a super-block = one block per channel). Units are numbered group by group:
/// unit `u` belongs to group `u / units_per_group`, and victims are chosen per group.
#[derive(Debug, Clone)]
pub struct UnitLayout {
    pub groups: u32,
    pub units_per_group: u32,
    /// The unit of every block.
    pub unit_of_block: Vec<u32>,
}

/// The victim index over closed units, kept current by the FTL's page invalidations.
#[derive(Debug, Clone)]
pub(crate) struct Units {
    of_block: Vec<u32>,
    /// The blocks of each unit.
    members: Vec<Vec<u32>>,
    /// Valid pages of each indexed unit (stale for units not indexed).
    valid: Vec<u32>,
    closed_at: Vec<u64>,
    indexed: Vec<bool>,
    index: VictimIndex,
}

impl Units {
    pub(super) fn new(layout: UnitLayout, policy: VictimPolicy, pages_per_block: u32) -> Self {
        let n = (layout.groups * layout.units_per_group) as usize;
        // A unit holds at most (blocks per unit) × pages per block valid pages.
        let mut per_unit = vec![0u32; n];
        for &u in &layout.unit_of_block {
            per_unit[u as usize] += 1;
        }
        let max_blocks = per_unit.iter().copied().max().unwrap_or(1).max(1);
        let mut members = vec![Vec::new(); n];
        for (b, &u) in layout.unit_of_block.iter().enumerate() {
            members[u as usize].push(b as u32);
        }
        Units {
            of_block: layout.unit_of_block,
            members,
            valid: vec![0; n],
            closed_at: vec![0; n],
            indexed: vec![false; n],
            index: VictimIndex::new(
                policy,
                layout.groups,
                layout.units_per_group,
                max_blocks * pages_per_block,
            ),
        }
    }

    /// A page of `blk` was invalidated.
    #[inline]
    pub(super) fn on_invalidate(&mut self, blk: u32) {
        let u = self.of_block[blk as usize] as usize;
        if self.indexed[u] {
            let v = self.valid[u];
            self.index.on_invalidate(u as u32, v);
            self.valid[u] = v - 1;
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        (self.of_block.capacity() + self.members.iter().map(Vec::capacity).sum::<usize>()) * 4
            + self.valid.capacity() * 4
            + self.closed_at.capacity() * 8
            + self.indexed.capacity()
            + self.index.memory_bytes()
    }

    /// Invariant check: every indexed unit's count equals its blocks' valid pages.
    pub(super) fn check(&self, block_valid: &[u32]) -> std::result::Result<(), String> {
        let mut sum = vec![0u32; self.valid.len()];
        for (b, &u) in self.of_block.iter().enumerate() {
            sum[u as usize] += block_valid[b];
        }
        for (u, &on) in self.indexed.iter().enumerate() {
            if on && sum[u] != self.valid[u] {
                return Err(format!(
                    "unit {u}: victim index has {} valid pages, its blocks {}",
                    self.valid[u], sum[u]
                ));
            }
        }
        Ok(())
    }
}

/// See [`Ftl::external`].
pub struct ExternalBlocks<'a> {
    pub(super) ftl: &'a mut Ftl,
}

impl ExternalBlocks<'_> {
    /// Unit `unit` is closed (takes no more pages): it becomes a GC candidate with its blocks'
    /// valid pages, aged from now (cost-benefit).
    pub fn close_unit(&mut self, unit: u32) {
        let f = &mut *self.ftl;
        let units = f.units.as_mut().expect("allocation handed over");
        let u = unit as usize;
        debug_assert!(!units.indexed[u], "unit {unit} closed twice");
        let valid = units.members[u].iter().map(|&k| f.valid[k as usize]).sum();
        units.valid[u] = valid;
        units.closed_at[u] = f.write_clock;
        units.indexed[u] = true;
        units.index.insert(unit, valid);
    }

    /// Block `blk` now belongs to unit `unit` (a block reused in another role, e.g. a hybrid
    /// device's block erased and reopened in another cell mode). Neither its old nor its new
    /// unit may be a GC candidate.
    pub fn assign_unit(&mut self, blk: u32, unit: u32) {
        let units = self.ftl.units.as_mut().expect("allocation handed over");
        let old = units.of_block[blk as usize] as usize;
        debug_assert!(!units.indexed[old] && !units.indexed[unit as usize]);
        if old != unit as usize {
            units.members[old].retain(|&b| b != blk);
            units.members[unit as usize].push(blk);
            units.of_block[blk as usize] = unit;
        }
    }

    /// The victim `gc.victim` picks among the closed units of `group`, removed from the index,
    /// or None when there is none or it has more than `max_valid` valid pages (cleaning it
    /// would free nothing; it stays a candidate).
    pub fn select_unit(&mut self, group: u32, rng: &mut SimRng, max_valid: u32) -> Option<u32> {
        let f = &mut *self.ftl;
        let units = f.units.as_mut().expect("allocation handed over");
        let u = units
            .index
            .select(group, &units.valid, &units.closed_at, f.write_clock, rng)?;
        if units.valid[u as usize] > max_valid {
            units.index.insert(u, units.valid[u as usize]);
            return None;
        }
        units.indexed[u as usize] = false;
        Some(u)
    }

    /// The candidate of `group` with the fewest valid pages (the lowest unit on ties), if it
    /// has at most `max_valid`, taken out of the index whatever the policy: the way out when the
    /// policy's own pick ([`Self::select_unit`]) refuses and its plane has no free block left
    /// (a random or FIFO pick of a full unit, which would otherwise end the run).
    pub fn select_unit_fewest(&mut self, group: u32, max_valid: u32) -> Option<u32> {
        let units = self.ftl.units.as_mut().expect("allocation handed over");
        let u = units
            .index
            .members(group)
            .into_iter()
            .min_by_key(|&u| (units.valid[u as usize], u))
            .filter(|&u| units.valid[u as usize] <= max_valid)?;
        units.index.remove(u, units.valid[u as usize]);
        units.indexed[u as usize] = false;
        Some(u)
    }

    /// The victim policy [`Self::select_unit`] picks by (`gc.victim`).
    pub fn victim_policy(&self) -> crate::config::VictimPolicy {
        let units = self.ftl.units.as_ref().expect("allocation handed over");
        units.index.policy()
    }

    /// Put back a unit [`Self::select_unit`] took (not cleaned after all): a candidate again,
    /// with its valid count and age as they are.
    pub fn return_unit(&mut self, unit: u32) {
        let units = self.ftl.units.as_mut().expect("allocation handed over");
        let u = unit as usize;
        debug_assert!(!units.indexed[u], "unit {unit} is a candidate already");
        units.indexed[u] = true;
        units.index.insert(unit, units.valid[u]);
    }

    /// Valid pages of a unit.
    pub fn unit_valid(&self, unit: u32) -> u32 {
        self.ftl
            .units
            .as_ref()
            .expect("allocation handed over")
            .valid[unit as usize]
    }

    /// Program the next page of `blk` with host data of `lpn` (its old copy invalidated).
    pub fn write_host(&mut self, lpn: u32, blk: u32) -> Result<u32> {
        let old = self.ftl.l2p[lpn as usize];
        let ppn = self.program(lpn, old, blk)?;
        self.ftl.counters.host_pages_written += 1;
        Ok(ppn)
    }

    /// Program the next page of `blk` with a parity page (not mapped, never valid) holding
    /// `checksum` (test mode).
    pub fn write_parity(&mut self, blk: u32, checksum: u64) -> Result<u32> {
        let ppn = self.next_page(blk)?;
        self.ftl.write_clock += 1;
        self.ftl.counters.parity_pages_written += 1;
        self.ftl.set_content(ppn, checksum);
        Ok(ppn)
    }

    /// GC: copy the valid page `from` to the next page of `blk` (same plane: copy-back).
    pub fn copy(&mut self, from: u32, blk: u32) -> Result<u32> {
        let lpn = self.ftl.p2l[from as usize];
        let to = self.program(lpn, from, blk)?;
        if let Some(c) = &mut self.ftl.content {
            c[to as usize] = c[from as usize];
        }
        self.ftl.counters.gc_pages_copied += 1;
        Ok(to)
    }

    /// GC: copy the valid pages of one block from its valid page `from` on, up to (not including)
    /// page `end` of that block, into `blk`, at most `room` of them: what that many [`Self::copy`]
    /// calls would do, each warming the L2P entry of the page after it. Returns how many and the
    /// last page copied. When a copy is only the move of a mapping (no content or program-mark
    /// checks, one unit per page, the source block a candidate of neither victim index — a victim
    /// being cleaned — and `blk` with the room), in one loop on the FTL's tables as local slices
    /// (`program`'s page order here, the moves in `LeanTables::move_run`, shared with the plain
    /// FTL's lean loop); else by `copy`. Why: per copy, `copy`'s checks and `Result`s cost twice
    /// the move (docs/speed.md, "The hybrid device's copies on the FTL's tables").
    pub fn copy_run(&mut self, from: u32, end: u32, blk: u32, room: u32) -> Result<(u32, u32)> {
        let f = &mut *self.ftl;
        let ppb = f.pages_per_block;
        let victim = from / ppb;
        let lean = f.content.is_none()
            && f.program_marks.is_none()
            && f.units_per_page == 1
            && f.state[victim as usize] != BlockState::Full
            && f.units
                .as_ref()
                .is_some_and(|u| !u.indexed[u.of_block[victim as usize] as usize])
            && f.next_page[blk as usize] + room <= ppb;
        if !lean {
            let (mut n, mut from) = (0, from);
            loop {
                let next = self.ftl.next_valid(from + 1, end);
                if let Some(lpn) = next.and_then(|p| self.ftl.owner(p)) {
                    self.ftl.prefetch_lpn(lpn);
                }
                self.copy(from, blk)?;
                n += 1;
                match next {
                    Some(p) if n < room => from = p,
                    _ => return Ok((n, from)),
                }
            }
        }
        // `program`'s page order (the next pages of `blk`), then the moves.
        let valid = Ones::new(&self.ftl.valid_bits, from + 1, end);
        let (mut t, next_page, _) = self.ftl.lean_tables();
        let page = next_page[blk as usize];
        let run = t.move_run(from, valid, victim, blk * ppb + page, room, |_, _, _, _| {});
        next_page[blk as usize] = page + run.moved;
        self.ftl.state[blk as usize] = BlockState::Open;
        self.ftl.counters.gc_pages_copied += u64::from(run.moved);
        Ok((run.moved, run.last))
    }

    /// GC: erase `blk` (it must hold no valid page); it goes to no free pool.
    pub fn erase(&mut self, blk: u32) {
        self.ftl.erase_block(blk, false);
    }

    /// GC: erase `blk` as [`Self::erase`] does, with bad blocks (`[endurance]`): whether the
    /// erase retired it (then the caller keeps it out of its pool for good). `pool_empty`: the
    /// caller's pool on the block's plane holds no other free block; `wear`: the block's P/E
    /// cycles counting this erase, when its modes wear it unequally (None: its erases).
    pub fn erase_retiring(&mut self, blk: u32, pool_empty: bool, wear: Option<u32>) -> bool {
        self.ftl.erase_block_in(blk, false, Some(pool_empty), wear)
    }

    /// Erases of `blk` so far.
    pub fn erase_count(&self, blk: u32) -> u32 {
        self.ftl.erase_count[blk as usize]
    }

    /// Test mode: the checksum a host write left in `ppn`.
    pub fn set_content(&mut self, ppn: u32, v: u64) {
        self.ftl.set_content(ppn, v);
    }

    fn next_page(&mut self, blk: u32) -> Result<u32> {
        let f = &mut *self.ftl;
        let page = f.next_page[blk as usize];
        if page >= f.pages_per_block {
            return Err(SsdError::Invalid(format!(
                "external allocation bug: block {blk} is full"
            )));
        }
        f.state[blk as usize] = BlockState::Open;
        let ppn = blk * f.pages_per_block + page;
        f.mark_programmed(ppn)?;
        f.next_page[blk as usize] = page + 1;
        Ok(ppn)
    }

    fn program(&mut self, lpn: u32, old: u32, blk: u32) -> Result<u32> {
        let ppn = self.next_page(blk)?;
        if old != UNMAPPED {
            self.ftl.invalidate(old);
        }
        self.ftl.map(lpn, ppn, blk);
        Ok(ppn)
    }
}
