//! The plain FTL's reads with the error model on (`reliability.errors`, issue 63): every host
//! page read is decoded by the flash layer (`flash::errors`), timed or not, and a timed read
//! takes its retries and soft tiers on its plane and channel. The blocks the map opened since
//! the last look are handed to the flash layer at the next host read or write, stamped with
//! its time: a block GC opened in an idle gap starts its retention clock up to a gap late
//! (milliseconds against retention's days), and the idle path pays nothing. Read reclaim
//! (`reliability.reclaim_*`) moves the blocks the model asks for right after the read.

use std::ops::Range;

use super::PlainFtl;
use crate::config::ReliabilityConfig;
use crate::error::Result;
use crate::flash::OpDone;

const HOUR_NS: f64 = 3.6e12;

/// Retention refresh's patrol (`reliability.refresh_days`): every `every` ns of simulated time
/// on its own clock (not at the rate of requests), the blocks whose data is `age` ns old or
/// more are moved.
#[derive(Debug, Clone)]
pub(crate) struct Patrol {
    age: u64,
    every: u64,
    next: u64,
}

impl Patrol {
    pub(crate) fn new(r: &ReliabilityConfig) -> Option<Self> {
        (r.refresh_days > 0.0).then(|| {
            let every = (r.refresh_scan_hours * HOUR_NS).max(1.0) as u64;
            Patrol {
                age: (r.refresh_days * 24.0 * HOUR_NS) as u64,
                every,
                next: every,
            }
        })
    }
}

impl PlainFtl {
    /// Hand the blocks opened since the last call to the error model, opened at `at`.
    #[inline(always)]
    pub(super) fn stamp_opened(&mut self, at: u64) {
        let Self { ftl, res, .. } = self;
        ftl.take_opened(|blk, erases| res.block_opened(blk, erases, at));
    }

    /// [`crate::ftl::FtlLayer::read`] with every page read decoded.
    pub(super) fn read_decoded(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        self.stamp_opened(ready);
        let mut out = OpDone::at(ready);
        let mut last_page = u32::MAX;
        if !self.timed {
            // Untimed: only the decode's counts and draws, the model asked for once.
            let Self { ftl, res, .. } = self;
            if let Some(e) = res.errors_mut() {
                for lpn in pages {
                    if let Some(ppn) = ftl.read(lpn) {
                        if ftl.read_needs_page(ppn, &mut last_page) {
                            e.sense(ppn, ready);
                        }
                    }
                }
            }
            self.reclaim(ready)?;
            return Ok(out);
        }
        for lpn in pages {
            let Some(ppn) = self.ftl.read(lpn) else {
                continue;
            };
            if !self.ftl.read_needs_page(ppn, &mut last_page) {
                continue;
            }
            let d = self.res.sense(ppn, ready);
            let plane = self.ftl.plane_of_ppn(ppn);
            out.join(self.res.read_sensed(plane, ppn, ready, d));
        }
        self.reclaim(out.done)?;
        Ok(out)
    }

    /// Read reclaim: queue the blocks the error model asked to move, and move them now on
    /// their planes, from `at` (the read that asked has completed; the host's next requests
    /// on those planes wait behind the copies, as behind any GC).
    #[inline(always)]
    fn reclaim(&mut self, at: u64) -> Result<()> {
        if !self.ftl.reclaim_on() {
            return Ok(());
        }
        let Self { ftl, res, .. } = self;
        res.take_reclaim_due(|blk| {
            ftl.queue_reclaim(blk);
        });
        if self.ftl.reclaim_pending() {
            self.run_reclaim(at)?;
        }
        Ok(())
    }

    /// Retention refresh: the patrols due by `now`, each at its own time, then the time lines
    /// forget what finished before `now` (`FtlLayer::background`'s end). An idle gap of more
    /// than two periods runs its last two only: nothing but age changes between patrols in a
    /// gap, and the last one finds every block the skipped ones would have (a run that is
    /// idle for years costs two scans, not thousands).
    #[cold]
    #[inline(never)]
    pub(super) fn patrol_until(&mut self, now: u64) -> Result<()> {
        let Some(p) = self.patrol.as_mut() else {
            self.res.advance(now);
            return Ok(());
        };
        if now >= p.next + 2 * p.every {
            p.next += (now - p.next) / p.every * p.every - p.every;
        }
        while let Some(p) = self.patrol.as_mut().filter(|p| p.next <= now) {
            let (at, cutoff) = (p.next, p.next.saturating_sub(p.age));
            p.next += p.every;
            if at < p.age {
                continue;
            }
            let Self { ftl, res, .. } = self;
            res.blocks_opened_by(cutoff, |blk| {
                ftl.queue_refresh(blk);
            });
            if self.ftl.reclaim_pending() {
                self.run_reclaim(at)?;
            }
        }
        self.res.advance(now);
        Ok(())
    }

    /// Move every block queued to move (read reclaim, failed programs), from `at`.
    #[cold]
    #[inline(never)]
    pub(super) fn run_reclaim(&mut self, at: u64) -> Result<()> {
        for plane in 0..self.ftl.planes() {
            if self.ftl.reclaim_waiting(plane) {
                let (_, mut ctx) = self.parts(self.timed);
                ctx.reclaim(plane, at)?;
            }
        }
        // The blocks the moves opened start their clocks now (a patrol runs between requests:
        // left to the next request's stamp, they would look as old as their last use).
        if self.res.errors_on() {
            self.stamp_opened(at);
        }
        Ok(())
    }
}
