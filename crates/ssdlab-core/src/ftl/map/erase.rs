//! Erasing a block: its pages unprogrammed, its erase counted, its retirement decided (bad
//! blocks, `[endurance]`), its wear levelling told; then back to its plane's free pool.

use super::{BlockState, Ftl};

impl Ftl {
    /// Erase `blk` (it must hold no valid page), into its plane's free pool if `to_pool` and it
    /// is not retired.
    pub(crate) fn erase_block(&mut self, blk: u32, to_pool: bool) {
        self.erase_block_in(blk, to_pool, None, None);
    }

    /// [`Ftl::erase_block`], with what a layer that keeps the pools itself knows: `pool_empty`,
    /// whether the block's plane has no other free block (None: the FTL's pool), and `wear`,
    /// the block's P/E cycles counting this erase when its modes wear it unequally (None: its
    /// erases). Whether the erase retired the block (`[endurance]`).
    pub(crate) fn erase_block_in(
        &mut self,
        blk: u32,
        to_pool: bool,
        pool_empty: Option<bool>,
        wear: Option<u32>,
    ) -> bool {
        let ppb = self.pages_per_block as usize;
        let base = blk as usize * ppb;
        debug_assert_eq!(self.valid[blk as usize], 0);
        if let Some(marks) = &mut self.program_marks {
            for m in &mut marks[base..base + ppb] {
                *m = false;
            }
        }
        self.next_page[blk as usize] = 0;
        self.state[blk as usize] = BlockState::Free;
        self.erase_count[blk as usize] += 1;
        self.counters.erases += 1;
        if let Some(c) = &mut self.content {
            c[base..base + ppb].fill(0);
        }
        let plane = self.plane_of_block(blk);
        let retired = self.endurance.is_some() && {
            let empty = pool_empty.unwrap_or_else(|| self.free[plane as usize].is_empty());
            let pe = wear.unwrap_or(self.erase_count[blk as usize]);
            self.retires(blk, empty, pe)
        };
        if to_pool && !retired {
            self.free[plane as usize].push_back(blk);
            self.free_epoch += 1;
        }
        self.level_on_erase(blk);
        retired
    }
}
