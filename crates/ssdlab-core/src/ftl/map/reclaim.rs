//! Read reclaim (`reliability.reclaim_reads`, `reliability.reclaim_retries`; issue 63) and
//! retention refresh (`reliability.refresh_days`): the blocks the flash layer's error model
//! found read too often, read at too many retries, or holding old data, are queued per plane and become that plane's next GC victims, whatever their valid pages, so
//! their data is rewritten into fresh blocks before read disturb makes it uncorrectable. The
//! device model runs them at once after the read that queued them (`GcContext::reclaim`);
//! their copies are counted apart (`read_reclaim` in the result) and in `gc_pages_copied`.

use std::collections::VecDeque;

use super::{BlockState, Ftl};
use crate::stats::ReclaimReport;

/// Why a block waits to be moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Why {
    #[default]
    No,
    /// Read too often or at too many retries (or a failed program: counted with bad blocks).
    Reads,
    /// Its data is older than `reliability.refresh_days`.
    Refresh,
}

/// Read reclaim's queue and counts.
#[derive(Debug, Clone, Default)]
pub struct Reclaim {
    pending: Vec<VecDeque<u32>>,
    /// Why each block is queued now (a block is queued once however often it is asked for).
    queued: Vec<Why>,
    /// Blocks queued in all (a look at every plane only when some wait).
    waiting: usize,
    /// Read reclaim asked for (not only program failures' moves): its report is shown.
    reads: bool,
    report: ReclaimReport,
}

impl Ftl {
    /// Turn the queue on: for read reclaim (`reads`), or for program failures' moves only.
    pub fn enable_reclaim(&mut self, reads: bool) {
        match &mut self.reclaim {
            Some(r) => r.reads |= reads,
            None => {
                self.reclaim = Some(Box::new(Reclaim {
                    pending: vec![VecDeque::new(); self.planes as usize],
                    queued: vec![Why::No; self.state.len()],
                    waiting: 0,
                    reads,
                    report: ReclaimReport::default(),
                }))
            }
        }
    }

    /// Whether a block waits to be moved on any plane.
    #[inline]
    pub fn reclaim_pending(&self) -> bool {
        self.reclaim.as_ref().is_some_and(|r| r.waiting > 0)
    }

    /// Queue block `blk` for read reclaim: a closed block holding data is, once; an open block,
    /// a victim already, an empty one or one queued already is not (counted as skipped: its
    /// data is being moved, is not there, or will be).
    pub fn queue_reclaim(&mut self, blk: u32) {
        let queued = self.holds_data(blk) && self.enqueue(blk, Why::Reads);
        if let Some(r) = self.reclaim.as_deref_mut() {
            r.report.asked += 1;
            r.report.skipped += u64::from(!queued);
        }
    }

    /// Queue block `blk` for refresh (its data is old), as [`Ftl::queue_reclaim`] does; the
    /// patrol asks for every old block, so only asks for blocks holding data are counted.
    pub fn queue_refresh(&mut self, blk: u32) {
        if self.holds_data(blk) {
            let queued = self.enqueue(blk, Why::Refresh);
            if let Some(r) = self.reclaim.as_deref_mut() {
                r.report.asked += 1;
                r.report.skipped += u64::from(!queued);
            }
        }
    }

    /// Queue block `blk`, whose program failed, to move its data (counted with bad blocks).
    pub(super) fn queue_failed(&mut self, blk: u32) {
        if self.holds_data(blk) {
            self.enqueue(blk, Why::Reads);
        }
    }

    fn holds_data(&self, blk: u32) -> bool {
        self.state[blk as usize] == BlockState::Full && self.valid[blk as usize] > 0
    }

    /// Put `blk` on its plane's queue unless it is there already; whether it was put.
    fn enqueue(&mut self, blk: u32, why: Why) -> bool {
        let plane = self.plane_of_block(blk) as usize;
        let Some(r) = self.reclaim.as_deref_mut() else {
            return false;
        };
        if r.queued[blk as usize] != Why::No {
            return false;
        }
        r.queued[blk as usize] = why;
        r.waiting += 1;
        r.pending[plane].push_back(blk);
        true
    }

    /// Whether read reclaim is on.
    #[inline(always)]
    pub fn reclaim_on(&self) -> bool {
        self.reclaim.is_some()
    }

    /// Whether a block waits for reclaim on `plane`.
    #[inline]
    pub fn reclaim_waiting(&self, plane: u32) -> bool {
        self.reclaim
            .as_ref()
            .is_some_and(|r| !r.pending[plane as usize].is_empty())
    }

    /// The next block queued for reclaim on `plane`, taken out of the victim index whatever its
    /// valid pages; blocks no longer closed (GC took them meanwhile) are dropped.
    #[inline(never)]
    pub(super) fn reclaim_victim(&mut self, plane: u32) -> Option<u32> {
        let (b, why) = loop {
            let r = self.reclaim.as_deref_mut()?;
            let b = r.pending[plane as usize].pop_front()?;
            let why = std::mem::take(&mut r.queued[b as usize]);
            r.waiting -= 1;
            if self.state[b as usize] == BlockState::Full {
                break (b, why);
            }
        };
        let valid = self.valid[b as usize];
        // A block whose program failed is moved for that (counted with bad blocks), else for
        // its reads or its age.
        if self.program_failed(b) {
            self.count_program_move(valid);
        } else if let Some(r) = self.reclaim.as_deref_mut() {
            if why == Why::Refresh {
                r.report.refresh_blocks += 1;
                r.report.refresh_pages_copied += u64::from(valid);
            } else {
                r.report.blocks += 1;
                r.report.pages_copied += u64::from(valid);
            }
        }
        self.victims.remove(b, valid);
        Some(b)
    }

    /// Read reclaim's counts, if asked for.
    pub fn reclaim_report(&self) -> Option<ReclaimReport> {
        self.reclaim.as_ref().filter(|r| r.reads).map(|r| r.report)
    }

    pub(super) fn reset_reclaim_counts(&mut self) {
        if let Some(r) = &mut self.reclaim {
            r.report = ReclaimReport::default();
        }
    }
}
