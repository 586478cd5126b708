//! The mechanics of GC unit steps on the FTL: choose a victim, copy its next valid page, erase
//! it. Schedulers (in `gc`) decide when these run; the engine gives them time.

use super::bits::{next_valid_in, prefetch, set_bits, Ones};
use super::cmt::MappingCache;
use super::{BlockState, Ftl, UNMAPPED};
use crate::error::Result;
use crate::rng::SimRng;

/// GC in progress on one plane: the victim and how far its pages have been scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcJob {
    pub victim: u32,
    pub cursor: u32,
}

/// One unit of GC work, as executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcStep {
    /// A valid page (unit) moved from `from` to `to` (same plane). `read`: the victim's flash
    /// page had to be read (not when an earlier copy of this job read it: units of one page
    /// come out of one read); `program`: `to` filled its flash page, which is programmed now.
    /// Both always hold with one unit per page.
    Copy {
        from: u32,
        to: u32,
        read: bool,
        program: bool,
    },
    /// The victim was erased and returned to the free pool; the job is over.
    Erase { block: u32 },
    /// A translation page the job owed a write (`ftl.mapping = "cached"`: the batch update of
    /// the mappings its copies moved, DFTL §3.3) was programmed at `to` on the job's plane,
    /// after its old copy at `read` was read (`u32::MAX`: it had none; a page number, not an
    /// `Option`, so that the step stays 12 bytes). These follow the victim's
    /// erase, whose block gives the translation frontier room if it needs a block (before the
    /// erase, the plane's free pool may be empty) — in a run of victims collected at once
    /// (`Ftl::gc_while`), after the last; meanwhile the moved mappings are the controller's.
    Translation { read: u32, to: u32 },
    /// Nothing to collect on this plane (no closed block).
    Idle,
}

impl Ftl {
    /// The GC job in progress on `plane`, if any.
    pub fn gc_job(&self, plane: u32) -> Option<GcJob> {
        self.jobs[plane as usize]
    }

    /// Start a job on `plane` if none is running: pick a victim. Returns false when there is no
    /// candidate.
    #[inline]
    pub fn gc_begin(&mut self, plane: u32, rng: &mut SimRng) -> bool {
        self.gc_begin_if(plane, rng, u32::MAX)
    }

    /// Start a job on `plane` only if the victim the policy picks has at most `max_valid` valid
    /// pages; otherwise the block goes back to the index (for FIFO, at the back of the queue).
    /// Returns whether a job is running. (Kang et al. TECS 2017 §5.3: take a victim early only if
    /// enough of it is invalid.)
    #[inline]
    pub fn gc_begin_if(&mut self, plane: u32, rng: &mut SimRng, max_valid: u32) -> bool {
        if self.jobs[plane as usize].is_some() {
            return true;
        }
        // The index decides a refusal: for fewest-valid it takes nothing (docs/speed.md, "The early
        // trigger's victim not taken to be put back"); wear levelling's queued blocks come first.
        match self.next_victim(plane, rng, max_valid) {
            Some(v) => {
                self.prefetch_next_victim(plane);
                self.state[v as usize] = BlockState::Victim;
                self.jobs[plane as usize] = Some(GcJob {
                    victim: v,
                    cursor: 0,
                });
                self.counters.gc_victims += 1;
                true
            }
            None => false,
        }
    }

    /// Warm the P2L entries of the block fewest-valid would take next on `plane` (a hint; other
    /// victim rules: nothing). A blocking GC burst takes victim after victim (on `mqsim-small` at
    /// WAF 7.5 a victim frees ~0.13 of a block, so ~8 in a row), and the load of each one's first
    /// P2L entry was a cache miss the copy loop waited on (docs/speed.md, "The next victim's P2L
    /// entries warmed when a victim is chosen"). Out of line: in line it made `gc_begin_if` and
    /// `gc_begin` too big to be inlined where the partial schedulers call them at every action (+3
    /// % of `rlgc`'s instructions).
    #[inline(never)]
    fn prefetch_next_victim(&mut self, plane: u32) {
        if let Some(n) = self.victims.peek_least(plane) {
            let ppb = self.pages_per_block as usize;
            let base = n as usize * ppb;
            // One prefetch per 64-byte cache line, and the block's last entry (a block need
            // not start on a line).
            for i in (base..base + ppb).step_by(64 / std::mem::size_of::<u32>()) {
                prefetch(&self.p2l, i);
            }
            prefetch(&self.p2l, base + ppb - 1);
        }
    }

    /// Whether [`Ftl::gc_begin_if`] would certainly start nothing on `plane` and change nothing:
    /// no job there, and the victim index refuses without taking a block
    /// (`VictimIndex::refuses`). `false` means only `gc_begin_if` can tell.
    #[inline]
    pub fn gc_refuses(&mut self, plane: u32, max_valid: u32) -> bool {
        self.jobs[plane as usize].is_none()
            && self.victims.refuses(plane, &self.valid, max_valid)
            && !self.level_waiting(plane)
    }

    /// Up to `k` copies in the job on `plane`, stopping early when its victim has no valid page
    /// left (its erase is a step of its own), each through `on_step`; returns how many. The
    /// same steps as `k` calls of [`Ftl::gc_step`] while [`Ftl::gc_remaining_copies`] > 0.
    pub fn gc_copy_up_to(
        &mut self,
        plane: u32,
        k: u32,
        mut on_step: impl FnMut(GcStep),
    ) -> Result<u32> {
        self.copy_rest(plane, k, &mut on_step)
    }

    /// Is the job on `plane` ready for its erase (every valid page copied)?
    pub fn gc_victim_ready(&self, plane: u32) -> bool {
        self.jobs[plane as usize].is_some_and(|j| self.valid[j.victim as usize] == 0)
    }

    /// Valid pages left to copy in the job on `plane` (0 when none or ready to erase).
    pub fn gc_remaining_copies(&self, plane: u32) -> u32 {
        self.jobs[plane as usize].map_or(0, |j| self.valid[j.victim as usize])
    }

    /// Run one unit step of the job on `plane` (starting one if needed).
    /// With a cached map, the translation page writes an erased victim still owes come first.
    pub fn gc_step(&mut self, plane: u32, rng: &mut SimRng) -> Result<GcStep> {
        if self.cmt.is_some() && self.jobs[plane as usize].is_none() {
            if let Some(step) = self.gc_owed_step(plane)? {
                return Ok(step);
            }
        }
        if !self.gc_begin(plane, rng) {
            return Ok(GcStep::Idle);
        }
        let Some(job) = self.jobs[plane as usize] else {
            return Ok(GcStep::Idle);
        };
        let base = job.victim * self.pages_per_block;
        if self.valid[job.victim as usize] > 0 {
            if let Some(from) = self.next_valid(base + job.cursor, base + self.pages_per_block) {
                let stream = self.gc_stream_of(job.victim);
                return self.copy_one(plane, job, from, stream);
            }
        }
        self.erase_block(job.victim, true);
        self.jobs[plane as usize] = None;
        Ok(GcStep::Erase { block: job.victim })
    }

    /// Copy the valid page `from` of `job`'s victim to `plane`'s GC frontier (`stream`), and
    /// move the job's cursor past it.
    #[inline(always)]
    fn copy_one(&mut self, plane: u32, job: GcJob, from: u32, stream: usize) -> Result<GcStep> {
        let ppb = self.pages_per_block;
        let base = job.victim * ppb;
        let lpn = self.p2l[from as usize];
        // A translation page moves to its own frontier (never with the full map).
        let stream = if lpn >= self.translation_base {
            self.data_streams
        } else {
            stream
        };
        // Warm the L2P entry of the next valid page: its address is random.
        if let Some(next) = self.next_valid(from + 1, base + ppb) {
            prefetch(&self.l2p, self.p2l[next as usize] as usize);
        }
        let to = self.program_from(lpn, from, plane, stream)?;
        if let Some(c) = &mut self.content {
            c[to as usize] = c[from as usize];
        }
        self.counters.gc_pages_copied += 1;
        self.translation_gc_move(lpn, plane);
        self.jobs[plane as usize] = Some(GcJob {
            victim: job.victim,
            cursor: from - base + 1,
        });
        Ok(GcStep::Copy {
            from,
            to,
            read: self.copy_reads_page(from - base, job.cursor),
            program: self.completes_page(to),
        })
    }

    /// Copy up to `limit` of the valid pages left in the job on `plane` (started, not ready to
    /// erase), each through `on_step`, in the order `gc_step` would; returns how many. The loop
    /// of [`Ftl::gc_while`] without its per-step dispatch: within a job it runs to the erase
    /// whatever its condition says, so the steps are the same.
    fn copy_rest(
        &mut self,
        plane: u32,
        limit: u32,
        on_step: &mut impl FnMut(GcStep),
    ) -> Result<u32> {
        if self.units_per_page == 1
            && self.content.is_none()
            && self.program_marks.is_none()
            && self.units.is_none()
        {
            return if self.cmt.is_none() {
                self.copy_rest_lean::<false>(plane, limit, on_step)
            } else {
                self.copy_rest_lean_cached(plane, limit, on_step)
            };
        }
        let stream = self.jobs[plane as usize].map_or(0, |j| self.gc_stream_of(j.victim)); // one victim a call
        let mut n = 0;
        while n < limit {
            let Some(job) = self.jobs[plane as usize] else {
                break;
            };
            let base = job.victim * self.pages_per_block;
            if self.valid[job.victim as usize] == 0 {
                break;
            }
            let Some(from) = self.next_valid(base + job.cursor, base + self.pages_per_block) else {
                break;
            };
            let step = self.copy_one(plane, job, from, stream)?;
            on_step(step);
            n += 1;
        }
        Ok(n)
    }

    /// [`Ftl::copy_rest`] when a copy is nothing but the move of one mapping (one unit per page, no
    /// content or program-mark checks, blocks allocated per plane): the same copies in the same
    /// order, with the job, the counter and the bitmap scan kept in registers rather than stored
    /// and re-read for every page. Each step is a whole-page copy (`read` and `program` both hold
    /// with one unit per page). Why a second loop: per GC copy, `copy_one`'s bookkeeping cost as
    /// much as the move itself (callgrind, docs/speed.md, "GC copies in a lean loop"). It restates
    /// `program_from`'s frontier rule, `invalidate` for a victim page and `map`'s stores, so a
    /// change to those must be made here too; the test
    /// `lean_gc_copies_take_the_same_steps_as_the_checked_ones` compares the two loops (and
    /// `mapping_cache.rs`'s `lean_gc_copies_of_a_cached_map_take_the_checked_steps`, `CACHED`'s).
    ///
    /// `CACHED` (`ftl.mapping = "cached"`): each moved page's mapping also goes to the CMT
    /// (`MappingCache::on_gc_move`), and a victim of translation pages — a block holds one kind
    /// only (`Ftl::check_translation`) — moves to the translation frontier, its copies counted
    /// as translation GC copies: `copy_one`'s two extra rules. (The general loop made a cached
    /// run's GC copies 3x a full map's, perf 2026-12-04.)
    #[inline(always)]
    fn copy_rest_lean<const CACHED: bool>(
        &mut self,
        plane: u32,
        limit: u32,
        on_step: &mut impl FnMut(GcStep),
    ) -> Result<u32> {
        let Some(job) = self.jobs[plane as usize] else {
            return Ok(0);
        };
        let victim = job.victim;
        let ppb = self.pages_per_block;
        let base = victim * ppb;
        let end = base + ppb;
        let mut n = 0;
        let mut cursor = job.cursor;
        // One pass over the victim's bits for the whole call, carried from run to run (item
        // 47: a partial GC action's few copies paid a scan for its first page and another to
        // start the run).
        let mut valid = Ones::new(&self.valid_bits, base + cursor, end);
        let mut next = valid.next(&self.valid_bits);
        let translation =
            CACHED && next.is_some_and(|p| self.p2l[p as usize] >= self.translation_base);
        let stream = if translation {
            self.data_streams
        } else {
            self.gc_stream_of(victim)
        };
        let fi = plane as usize * self.streams + stream;
        let mut failed = Ok(());
        while n < limit {
            let Some(from) = next else {
                break;
            };
            // The GC frontier, opened anew when full (as `program_from` does).
            let mut blk = self.frontier[fi];
            if blk == UNMAPPED || self.next_page[blk as usize] == ppb {
                match self.open_frontier(plane, fi) {
                    Ok(b) => blk = b,
                    Err(e) => {
                        failed = Err(e);
                        break;
                    }
                }
            }
            // Then as many copies as the block has room for, on the tables borrowed as local slices
            // (docs/speed.md, "The lean loop on local slices"): a store into one table cannot move
            // another's address or length, so they stay in registers instead of being reloaded
            // after every store.
            let (mut t, next_page, cmt) = self.lean_tables();
            // The CMT a data victim's moves go to (none: full map, or translation victim).
            let mut moves = cmt.filter(|_| CACHED && !translation);
            let page = next_page[blk as usize];
            let room = (ppb - page).min(limit - n);
            let run = t.move_run(
                from,
                valid,
                victim,
                blk * ppb + page,
                room,
                |from, to, lpn, ahead| {
                    if let Some(c) = moves.as_deref_mut() {
                        // The next page's CMT bits warmed, as its L2P entry is.
                        if let Some(l) = ahead {
                            c.warm_bits(l);
                        }
                        c.on_gc_move(lpn, plane);
                    }
                    on_step(GcStep::Copy {
                        from,
                        to,
                        read: true,
                        program: true,
                    })
                },
            );
            next_page[blk as usize] = page + run.moved;
            n += run.moved;
            cursor = run.last - base + 1;
            next = run.next;
            valid = run.valid;
        }
        self.counters.gc_pages_copied += u64::from(n);
        if translation {
            self.counters.translation_gc_copies += u64::from(n);
        }
        self.jobs[plane as usize] = Some(GcJob { victim, cursor });
        failed.map(|()| n)
    }

    /// [`Ftl::copy_rest_lean`] for a cached map, out of line: the full map's loops keep theirs.
    #[inline(never)]
    fn copy_rest_lean_cached(
        &mut self,
        plane: u32,
        limit: u32,
        on_step: &mut impl FnMut(GcStep),
    ) -> Result<u32> {
        self.copy_rest_lean::<true>(plane, limit, on_step)
    }

    /// First valid physical page in [from, to), scanning the bitmap a word at a time.
    #[inline]
    pub(crate) fn next_valid(&self, from: u32, to: u32) -> Option<u32> {
        next_valid_in(&self.valid_bits, from, to)
    }

    /// Collect victims on `plane` until its free pool is back at the threshold (steps to `on_step`).
    pub fn gc_until_threshold(
        &mut self,
        plane: u32,
        rng: &mut SimRng,
        on_step: impl FnMut(GcStep),
    ) -> Result<()> {
        self.gc_while(plane, rng, |f| f.needs_gc(plane), on_step)
    }

    /// Collect victims on `plane` while `more(self)` holds (finishing a started one); in line
    /// (docs/speed.md, "FDP off: the plain path kept; FDP on: 0.83–0.88×").
    #[inline(always)]
    pub fn gc_while(
        &mut self,
        plane: u32,
        rng: &mut SimRng,
        more: impl Fn(&Ftl) -> bool,
        mut on_step: impl FnMut(GcStep),
    ) -> Result<()> {
        // Bound: a victim whose every page was valid frees nothing; after as many fruitless
        // victims as the plane has blocks (four times as many with a cached map:
        // `fruitless_bound`), stop rather than spin (the caller then reports the plane full
        // instead of hanging).
        let mut fruitless = 0u32;
        loop {
            let stopped;
            (fruitless, stopped) = self.gc_run(plane, rng, &more, &mut on_step, fruitless)?;
            // A cached map's translation page writes owed by the victims collected here, once
            // each at the end of the run of victims (a page several victims owe is written
            // once); they take room too, so the condition is asked again.
            // (Not after a stop for want of progress: the writes would take the room left.)
            if stopped || self.cmt.is_none() {
                return Ok(());
            }
            let mut owed = false;
            while let Some(s) = self.gc_owed_step(plane)? {
                on_step(s);
                owed = true;
            }
            if !(owed && more(self)) {
                return Ok(());
            }
        }
    }

    /// Fruitless victims (every page valid) after which a call of [`Ftl::gc_while`] stops: the
    /// plane's blocks, and four times as many with a cached map. There, full victims come
    /// between victims that free pages whose translation writes take the room back. At the
    /// plane's blocks, GC stopped on 4- and 8-page blocks under FIFO with a third of the
    /// plane's blocks empty and next in the queue. That was 6 of 30,000 fuzz cases; at four
    /// times, 1 (NOTES.md, issue 59; 2026-12-04). The test: `ftl_invariants.rs`'s fuzz, whose
    /// attempt 10041 (4-page blocks, FIFO) fails at the plane's blocks.
    #[inline]
    fn fruitless_bound(&self) -> u32 {
        self.blocks_per_plane * if self.cmt.is_some() { 4 } else { 1 }
    }

    /// [`Ftl::gc_while`]'s run of victims, without the translation writes they owe; returns
    /// the fruitless victims so far (given those before), and whether it stopped for want of
    /// progress (no candidate, or too many fruitless victims) rather than because `more` ended.
    #[inline(always)]
    fn gc_run(
        &mut self,
        plane: u32,
        rng: &mut SimRng,
        more: &impl Fn(&Ftl) -> bool,
        on_step: &mut impl FnMut(GcStep),
        mut fruitless: u32,
    ) -> Result<(u32, bool)> {
        let mut copies = 0u32;
        while more(self) || self.jobs[plane as usize].is_some() {
            let step = self.gc_step(plane, rng)?;
            match step {
                GcStep::Idle => return Ok((fruitless, true)),
                GcStep::Copy { .. } => {
                    copies += 1;
                    on_step(step);
                    copies += self.copy_rest(plane, u32::MAX, on_step)?;
                    continue;
                }
                GcStep::Translation { .. } => {}
                GcStep::Erase { .. } => {
                    if copies >= self.pages_per_block {
                        fruitless += 1;
                        if fruitless > self.fruitless_bound() {
                            on_step(step);
                            return Ok((fruitless, true));
                        }
                    }
                    copies = 0;
                }
            }
            on_step(step);
        }
        Ok((fruitless, false))
    }
}

/// The FTL's mapping tables borrowed as local slices ([`Ftl::lean_tables`]), for the lean GC copy
/// loops (`Ftl::copy_rest_lean`, `ExternalBlocks::copy_run`; docs/speed.md, "The lean loop on local
/// slices"): a store into one table cannot move another's address or length, so they stay in
/// registers instead of being reloaded after every store.
pub(super) struct LeanTables<'a> {
    p2l: &'a mut [u32],
    l2p: &'a mut [u32],
    valid_bits: &'a mut [u64],
    valid: &'a mut [u32],
    write_clock: &'a mut u64,
    pages_per_block: u32,
}

impl Ftl {
    /// The mapping tables as [`LeanTables`], and beside them the blocks' next free page (which
    /// the lean loops advance once per run) and the CMT: the one place that splits the borrow.
    #[inline(always)]
    pub(super) fn lean_tables(
        &mut self,
    ) -> (LeanTables<'_>, &mut [u32], Option<&mut MappingCache>) {
        let Ftl {
            p2l,
            l2p,
            valid_bits,
            valid,
            next_page,
            write_clock,
            pages_per_block,
            cmt,
            ..
        } = self;
        let t = LeanTables {
            p2l,
            l2p,
            valid_bits,
            valid,
            write_clock,
            pages_per_block: *pages_per_block,
        };
        (t, next_page, cmt.as_deref_mut())
    }
}

/// What [`LeanTables::move_run`] did: how many pages it moved, the last victim page it moved,
/// and the victim's next valid page (before the end its `valid` was made with), if any.
pub(super) struct MovedRun {
    pub moved: u32,
    pub last: u32,
    pub next: Option<u32>,
    /// The `valid` the run was given, after `next`.
    pub valid: Ones,
}

impl LeanTables<'_> {
    /// GC copies that are only the move of a mapping: the logical pages in the valid pages of
    /// block `victim` from its valid page `from` on, then those `valid` yields (the victim's
    /// valid pages after `from`, up to the end it was made with), at most `room` of them and at
    /// least one, move to the consecutive pages from `to` on (of one block, which has the
    /// room), each reported to `on_copy(from, to, lpn, the next page's lpn)` in order. `valid`
    /// is left after the run's [`MovedRun::next`], so a caller's next run goes on from there. The victim's pages
    /// are invalidated — a victim is neither `Full` nor an indexed unit, so its invalidation
    /// touches no index — and the new ones mapped: `invalidate`'s and `map`'s stores for that
    /// case, so a change to those must be made here too. Each page's L2P entry is warmed one
    /// page ahead (its address is random).
    ///
    /// The stores that do not depend on the logical page (the valid bits of both blocks, their
    /// valid counts, the write clock) are made once for the run, not per page (`docs/speed.md`
    /// docs/speed.md, "GC copies moved in runs"): within the run nothing reads them but the scan
    /// for the victim's next valid page, which only looks past the page just moved, and `on_copy`
    /// cannot reach the FTL. The victim's bits are cleared from `from` to the last page moved:
    /// every valid page in that range was moved, so that is the same as clearing each.
    #[inline(always)]
    pub(super) fn move_run(
        &mut self,
        from: u32,
        mut valid: Ones,
        victim: u32,
        to: u32,
        room: u32,
        mut on_copy: impl FnMut(u32, u32, u32, Option<u32>),
    ) -> MovedRun {
        let (first, mut from, mut dst) = (from, from, to);
        let bits: &[u64] = self.valid_bits;
        let next = loop {
            let lpn = self.p2l[from as usize];
            let next = valid.next(bits);
            let ahead = next.map(|after| self.p2l[after as usize]);
            if let Some(l) = ahead {
                prefetch(self.l2p, l as usize);
            }
            self.p2l[dst as usize] = lpn;
            self.l2p[lpn as usize] = dst;
            on_copy(from, dst, lpn, ahead);
            dst += 1;
            match next {
                Some(p) if dst - to < room => from = p,
                _ => break next,
            }
        };
        let moved = dst - to;
        set_bits(self.valid_bits, first, from + 1, false);
        set_bits(self.valid_bits, to, dst, true);
        self.valid[victim as usize] -= moved;
        self.valid[(to / self.pages_per_block) as usize] += moved;
        *self.write_clock += u64::from(moved);
        MovedRun {
            moved,
            last: from,
            next,
            valid,
        }
    }
}
