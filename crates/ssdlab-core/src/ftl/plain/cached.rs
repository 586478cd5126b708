//! The plain FTL's page service with a cached map (`ftl.mapping = "cached"`; DFTL, Gupta, Kim,
//! Urgaonkar, ASPLOS 2009): each host page first looks its mapping up in the CMT
//! (`ftl::map::cmt`), and the flash work a lookup owes runs on the same time lines as data,
//! ahead of the page's own access. In order, for one page from its ready time:
//! 1. a dirty entry given up for this one has its translation page written back: the old copy
//!    read on its plane (the read of DFTL's read-modify-write), then the page programmed on the
//!    plane the allocator gives it (forced GC there if need be);
//! 2. on a miss, the page's translation page is read on its plane (nothing if it was never
//!    written: its mappings are all unmapped);
//! 3. the data read or program.
//!
//! DFTL serves a miss this way (§3.2: the victim's write-back, then the fetch, then the
//! request). A write waits for its mapping too, as DFTL's does: the old page's location must be
//! known to invalidate it. Ours where DFTL is silent: pages of one request are looked up in
//! order and served in parallel, each after its own lookup, as the full map's pages are; a
//! trim's mapping updates go through the CMT as a write's do but, as every trim here, take no
//! flash time (a write-back a trim causes is programmed and counted, untimed).

use std::ops::Range;

use rand::Rng;

use super::PlainFtl;
use crate::error::Result;
use crate::flash::OpDone;
use crate::ftl::gc::GcContext;
use crate::ftl::map::Ftl;
use crate::ftl::Precondition;
use crate::rng::{self, SimRng};
use crate::stats::{MappingReport, WafSplit};

impl PlainFtl {
    /// The cached map's section of the result (`None` with the full map).
    pub(super) fn mapping_report(&self) -> Option<MappingReport> {
        let cmt = self.ftl.mapping_cache()?;
        let c = cmt.counters;
        let k = self.ftl.counters;
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let host = k.host_pages_written;
        let data_gc = k.gc_pages_copied - k.translation_gc_copies;
        Some(MappingReport {
            cmt_entries: u64::from(cmt.capacity()),
            cmt_policy: self.cmt_policy,
            translation_pages: u64::from(cmt.pages()),
            mappings_per_translation_page: u64::from(cmt.per_page_of()),
            read_lookups: c.read_lookups,
            read_hits: c.read_hits,
            read_hit_ratio: ratio(c.read_hits, c.read_lookups),
            write_lookups: c.write_lookups,
            write_hits: c.write_hits,
            write_hit_ratio: ratio(c.write_hits, c.write_lookups),
            clean_evictions: c.clean_evictions,
            dirty_evictions: c.dirty_evictions,
            translation_reads: c.translation_reads,
            translation_writes: k.translation_pages_written,
            write_backs: c.write_backs,
            gc_updates: c.gc_updates,
            data_gc_copies: data_gc,
            translation_gc_copies: k.translation_gc_copies,
            cached_entries: u64::from(cmt.used()),
            dirty_entries: cmt.dirty_entries(),
            waf: WafSplit {
                host: ratio(host, host),
                data_gc: ratio(data_gc, host),
                translation: ratio(k.translation_pages_written, host),
                translation_gc: ratio(k.translation_gc_copies, host),
            },
        })
    }

    /// The flash work of looking host page `lpn` up (write-back, miss read), from `ready`:
    /// when the page's own access may start.
    fn translate(&mut self, lpn: u32, write: bool, ready: u64, timed: bool) -> Result<OpDone> {
        let look = self.ftl.cmt_lookup(lpn, write);
        let mut at = OpDone::at(ready);
        if let Some(t) = look.write_back {
            at = self.write_back(t, ready, timed)?;
        }
        if look.miss {
            let t = self.ftl.translation_page_of(lpn);
            if let Some(ppn) = self.ftl.translation_ppn(t) {
                self.ftl.count_translation_read();
                if timed {
                    let d = self.res.read_page(self.ftl.plane_of_ppn(ppn), ppn, at.done);
                    at.done = d.done;
                    at.blocked_by_gc |= d.blocked_by_gc;
                }
            }
        }
        Ok(at)
    }

    /// Write translation page `t` back for the CMT from `ready` (read-modify-write): when the
    /// program ends.
    fn write_back(&mut self, t: u32, ready: u64, timed: bool) -> Result<OpDone> {
        let mut at = OpDone::at(ready);
        if let Some(old) = self.ftl.translation_ppn(t) {
            self.ftl.count_translation_read();
            if timed {
                at = self.res.read_page(self.ftl.plane_of_ppn(old), old, ready);
            }
        }
        let lpn = self.ftl.translation_lpn(t);
        let plane = self.gc_context(timed).host_plane(lpn, at.done)?;
        let ppn = self.ftl.write_translation(t, plane, false)?;
        if timed {
            let d = self.res.write_page(plane, ppn, at.done);
            at.done = d.done;
            at.blocked_by_gc |= d.blocked_by_gc;
        }
        self.after_page_write(plane, at.done, timed)?;
        Ok(at)
    }

    pub(super) fn read_cached(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        let mut last_page = u32::MAX;
        for lpn in pages {
            let at = self.translate(lpn, false, ready, self.timed)?;
            out.join(at);
            if let Some(ppn) = self.ftl.read(lpn) {
                if self.timed && self.ftl.read_needs_page(ppn, &mut last_page) {
                    out.join(self.res.read_page(self.ftl.plane_of_ppn(ppn), ppn, at.done));
                }
            }
        }
        Ok(out)
    }

    pub(super) fn write_cached(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        for lpn in pages {
            let at = self.translate(lpn, true, ready, self.timed)?;
            let hint = self.next_write_hint();
            let mut d = self.program_page_cached(lpn, at.done, hint)?;
            d.blocked_by_gc |= at.blocked_by_gc;
            out.join(d);
        }
        Ok(out)
    }

    /// [`PlainFtl::program_page`] with the page's entry made dirty once its plane is chosen
    /// (forced GC there may move pages of the entry's translation page).
    fn program_page_cached(&mut self, lpn: u32, ready: u64, hint: u64) -> Result<OpDone> {
        let timed = self.timed;
        let plane = self.gc_context(timed).host_plane(lpn, ready)?;
        let ppn = self.ftl.write_host_hinted(lpn, plane, hint)?;
        self.ftl.cmt_dirty(lpn);
        let d = if timed && self.ftl.completes_page(ppn) {
            self.res.write_page(plane, ppn, ready)
        } else {
            OpDone::at(ready)
        };
        self.after_page_write(plane, ready, timed)?;
        Ok(d)
    }

    pub(super) fn trim_cached(&mut self, pages: Range<u32>) -> Result<()> {
        for lpn in pages {
            if self.ftl.lookup(lpn).is_none() {
                continue;
            }
            self.translate(lpn, true, 0, false)?;
            self.ftl.cmt_dirty(lpn);
            self.ftl.trim(lpn);
        }
        Ok(())
    }
}

/// Preconditioning with a cached map: the full map's fill (the same writes, draws and blocking
/// GC, timing off), each write looked up in the CMT first, write-backs programmed as they
/// fall due. The loop restates `super::precondition`'s, whose write is forced in line: taking
/// the write as a closure cost the full map's timed bench 6 % more instructions (callgrind,
/// 2026-12-03), so a change to one loop must be made to the other. The CMT starts the measured run as the fill leaves it: warm, and with the
/// translation pages and their blocks aged by the fill's own write-backs.
pub(super) fn precondition(ftl: &mut Ftl, p: &Precondition, seed: u64) -> Result<u64> {
    let mut rng = rng::stream(seed, "precondition");
    let mut gc_rng = rng::stream(seed, "precondition-gc");
    let n = p.pages(ftl.logical_pages());
    let mut written = 0u64;
    if p.sequential {
        for lpn in 0..n {
            write_one(ftl, lpn, &mut gc_rng)?;
        }
        written += u64::from(n);
    }
    let random = (p.random_passes * f64::from(n)).round() as u64;
    // One draw ahead (the same draws in the same order), its L2P entry and CMT slot warmed:
    // both are random accesses of the write. The whole bench process at 40,000 writes
    // (preconditioning most of it) took 0.72-1.10x, median 0.87x, the time without it
    // (4 runs paired, 2026-12-04).
    let mut next = (random > 0).then(|| rng.gen_range(0..n));
    for k in 0..random {
        let lpn = next.take().unwrap_or_default();
        if k + 1 < random {
            let l = rng.gen_range(0..n);
            ftl.prefetch_lpn(l);
            next = Some(l);
        }
        write_one(ftl, lpn, &mut gc_rng)?;
    }
    Ok(written + random)
}

/// One host page write through the CMT, timing off, with blocking GC.
fn write_one(ftl: &mut Ftl, lpn: u32, gc_rng: &mut SimRng) -> Result<()> {
    if let Some(t) = ftl.cmt_lookup(lpn, true).write_back {
        let tl = ftl.translation_lpn(t);
        let plane = untimed(ftl, gc_rng).host_plane(tl, 0)?;
        ftl.write_translation(t, plane, false)?;
        if ftl.needs_gc(plane) {
            ftl.gc_until_threshold(plane, gc_rng, |_| {})?;
        }
    }
    let plane = untimed(ftl, gc_rng).host_plane(lpn, 0)?;
    ftl.write_host(lpn, plane)?;
    ftl.cmt_dirty(lpn);
    if ftl.needs_gc(plane) {
        ftl.gc_until_threshold(plane, gc_rng, |_| {})?;
    }
    Ok(())
}

fn untimed<'a>(ftl: &'a mut Ftl, rng: &'a mut SimRng) -> GcContext<'a> {
    GcContext {
        ftl,
        res: None,
        rng,
    }
}
