//! Wear levelling (`[wear_leveling]`, issue 63; `config::wear_leveling` has the designs and
//! their sources). Dynamic: a frontier opens its plane's least-worn free block. Static: Chang,
//! Hsieh and Kuo's SW Leveler (DAC 2007, §3) over a block erasing table; the sets it picks are
//! queued per plane and become that plane's next GC victims, so their copies are timed and
//! scheduled like any GC's, and counted apart (`wear_leveling` in the result).
//!
//! Where the paper picks the next set from a random index after each reset, we go on from where
//! the last scan stopped (a cyclic pointer): no draw, and every set is visited once per round.

use std::collections::VecDeque;

use super::{BlockState, Ftl};
use crate::config::WearLevelingConfig;
use crate::stats::WearLevelingReport;

/// The SW Leveler's block erasing table and the victims it queued.
#[derive(Debug, Clone)]
pub struct Leveler {
    dynamic: bool,
    /// Static levelling: T, log2 of the blocks a flag, the flags and their counts.
    on: bool,
    threshold: f64,
    set_shift: u32,
    flags: Vec<bool>,
    /// Erases since the table's reset (`ecnt`) and flags set (`fcnt`).
    ecnt: u64,
    fcnt: u64,
    /// The next set the scan looks at (`findex`).
    findex: usize,
    /// Blocks queued for collection, per plane, and how many in all (a new set is picked
    /// only when none waits).
    pending: Vec<VecDeque<u32>>,
    queued: usize,
    /// The victims taken and the pages they held (the copies they cost).
    victims: u64,
    pages_copied: u64,
    resets: u64,
}

impl Leveler {
    pub fn new(cfg: &WearLevelingConfig, blocks: usize, planes: u32) -> Option<Box<Self>> {
        if !cfg.on() {
            return None;
        }
        let set_shift = cfg.static_set_blocks.trailing_zeros();
        Some(Box::new(Leveler {
            dynamic: cfg.dynamic,
            on: cfg.static_on,
            threshold: cfg.static_threshold,
            set_shift,
            flags: vec![false; blocks.div_ceil(1 << set_shift)],
            ecnt: 0,
            fcnt: 0,
            findex: 0,
            pending: vec![VecDeque::new(); planes as usize],
            queued: 0,
            victims: 0,
            pages_copied: 0,
            resets: 0,
        }))
    }

    /// Flag `set`; reset the table once every flag is set.
    fn flag(&mut self, set: usize) {
        if !self.flags[set] {
            self.flags[set] = true;
            self.fcnt += 1;
            if self.fcnt == self.flags.len() as u64 {
                self.flags.fill(false);
                self.ecnt = 0;
                self.fcnt = 0;
                self.resets += 1;
            }
        }
    }

    pub fn report(&self) -> WearLevelingReport {
        WearLevelingReport {
            dynamic: self.dynamic,
            static_on: self.on,
            static_victims: self.victims,
            static_pages_copied: self.pages_copied,
            table_resets: self.resets,
        }
    }

    /// Forget the counts of a phase that is not measured (preconditioning); the table stays.
    pub fn reset_counts(&mut self) {
        self.victims = 0;
        self.pages_copied = 0;
        self.resets = 0;
    }
}

impl Ftl {
    /// Wear levelling's report, if on.
    pub fn wear_leveling_report(&self) -> Option<WearLevelingReport> {
        self.leveler.as_ref().map(|l| l.report())
    }

    /// Forget wear levelling's counts (the end of preconditioning).
    pub fn reset_wear_leveling_counts(&mut self) {
        if let Some(l) = &mut self.leveler {
            l.reset_counts();
        }
    }

    /// Take a free block of `plane` for a frontier: the least worn under dynamic levelling
    /// (the first of them in the pool's order), else the longest free.
    #[inline]
    pub(super) fn take_free(&mut self, plane: u32) -> Option<u32> {
        let free = &mut self.free[plane as usize];
        if !self.leveler.as_ref().is_some_and(|l| l.dynamic) {
            return free.pop_front();
        }
        let (mut at, mut least) = (0, u32::MAX);
        for (i, &b) in free.iter().enumerate() {
            let e = self.erase_count[b as usize];
            if e < least {
                (at, least) = (i, e);
            }
        }
        free.remove(at)
    }

    /// An erase of `blk`: the table's counts, and a set picked when `ecnt / fcnt` reaches T
    /// (none while picked blocks wait).
    #[inline(always)]
    pub(super) fn level_on_erase(&mut self, blk: u32) {
        if self.leveler.as_ref().is_some_and(|l| l.on) {
            self.level_set(blk);
        }
    }

    /// [`Ftl::level_on_erase`] with static levelling on: the SW-Leveler's step.
    #[inline(never)]
    fn level_set(&mut self, blk: u32) {
        let Some(l) = self.leveler.as_deref_mut() else {
            return;
        };
        l.ecnt += 1;
        l.flag(blk as usize >> l.set_shift);
        if l.queued > 0 || l.fcnt == 0 || (l.ecnt as f64) < l.threshold * l.fcnt as f64 {
            return;
        }
        // SWL-Procedure: the next set with a clear flag whose blocks hold data.
        let sets = l.flags.len();
        let per = 1usize << l.set_shift;
        let total = self.state.len();
        for _ in 0..sets {
            let set = l.findex;
            l.findex = (l.findex + 1) % sets;
            if l.flags[set] {
                continue;
            }
            let first = set * per;
            let mut any = false;
            for b in first..(first + per).min(total) {
                if self.state[b] == BlockState::Full {
                    let plane = (b as u32 / self.blocks_per_plane) as usize;
                    l.pending[plane].push_back(b as u32);
                    l.queued += 1;
                    any = true;
                }
            }
            // The set's flag is set when its blocks are erased; a set with nothing to move is
            // flagged now (its blocks are free or open, and will be erased in their turn).
            if any {
                return;
            }
            l.flag(set);
        }
    }

    /// The next victim of `plane`: a block read reclaim queued, else one static levelling
    /// queued, else the policy's (which refuses a victim with more than `max_valid` valid
    /// pages).
    #[inline(always)]
    pub(super) fn next_victim(
        &mut self,
        plane: u32,
        rng: &mut crate::rng::SimRng,
        max_valid: u32,
    ) -> Option<u32> {
        if self.reclaim.is_some() {
            if let Some(b) = self.reclaim_victim(plane) {
                return Some(b);
            }
        }
        if self.leveler.is_some() {
            if let Some(b) = self.level_victim(plane, max_valid) {
                return Some(b);
            }
        }
        self.victims.select_if(
            plane,
            &self.valid,
            &self.closed_at,
            self.write_clock,
            rng,
            max_valid,
        )
    }

    /// The next block static levelling queued on `plane`, taken out of the victim index if it
    /// still holds at most `max_valid` valid pages (else it waits); blocks no longer full are
    /// dropped.
    #[inline(never)]
    pub(super) fn level_victim(&mut self, plane: u32, max_valid: u32) -> Option<u32> {
        let l = self.leveler.as_deref_mut()?;
        while let Some(&b) = l.pending[plane as usize].front() {
            if self.state[b as usize] != BlockState::Full {
                l.pending[plane as usize].pop_front();
                l.queued -= 1;
                continue;
            }
            let valid = self.valid[b as usize];
            if valid > max_valid {
                return None;
            }
            l.pending[plane as usize].pop_front();
            l.queued -= 1;
            l.victims += 1;
            l.pages_copied += u64::from(valid);
            self.victims.remove(b, valid);
            return Some(b);
        }
        None
    }

    /// Whether static levelling has a block queued on `plane`.
    #[inline]
    pub(super) fn level_waiting(&self, plane: u32) -> bool {
        self.leveler
            .as_ref()
            .is_some_and(|l| !l.pending[plane as usize].is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DeviceConfig;

    fn ftl(dynamic: bool) -> Ftl {
        let set = format!("wear_leveling.dynamic={dynamic}");
        let mut f = Ftl::new(&DeviceConfig::from_preset("tiny", &[set]).unwrap()).unwrap();
        // Plane 0's blocks (0..64) worn 5 times, but blocks 7 and 9 once.
        for b in 0..64 {
            f.erase_count[b] = if b == 7 || b == 9 { 1 } else { 5 };
        }
        f
    }

    #[test]
    fn dynamic_levelling_opens_the_least_worn_free_block_first() {
        let mut f = ftl(true);
        let taken: Vec<u32> = (0..3).map(|_| f.take_free(0).unwrap()).collect();
        assert_eq!(taken, vec![7, 9, 0], "least worn first, ties in pool order");
        assert_eq!(f.free[0].len(), 61);
        // Off: the longest free, whatever its wear.
        let mut f = ftl(false);
        let taken: Vec<u32> = (0..3).map(|_| f.take_free(0).unwrap()).collect();
        assert_eq!(taken, vec![0, 1, 2]);
    }
}
