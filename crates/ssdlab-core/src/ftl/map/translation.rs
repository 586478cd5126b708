//! The FTL's side of a cached map (`ftl.mapping = "cached"`, [`super::cmt`]): translation
//! pages are logical pages after the user's, programmed on a frontier of their own in each
//! plane, so that their blocks hold nothing else, and collected by GC like any block. Their
//! directory (DFTL's GTD) is their L2P entries. Without a CMT none of this runs.

use super::cmt::{Lookup, MappingCache};
use super::{Ftl, FtlCounters, GcStep, UNMAPPED};
use crate::error::Result;

impl Ftl {
    /// Is the map cached (a CMT in front of translation pages on flash)?
    #[inline(always)]
    pub fn cached_mapping(&self) -> bool {
        self.cmt.is_some()
    }

    /// The CMT, if the map is cached.
    pub fn mapping_cache(&self) -> Option<&MappingCache> {
        self.cmt.as_deref()
    }

    /// Look host page `lpn`'s mapping up in the CMT (cached map only), loading it on a miss.
    pub fn cmt_lookup(&mut self, lpn: u32, write: bool) -> Lookup {
        self.cmt
            .as_deref_mut()
            .expect("cmt_lookup without a CMT")
            .lookup(lpn, write)
    }

    /// Host page `lpn`'s mapping has changed or is about to (a host write, a trim): its
    /// cached entry is dirty. Nothing with the full map.
    #[inline]
    pub fn cmt_dirty(&mut self, lpn: u32) {
        if let Some(c) = self.cmt.as_deref_mut() {
            c.set_dirty(lpn);
        }
    }

    /// The translation page holding host page `lpn`'s mapping.
    pub fn translation_page_of(&self, lpn: u32) -> u32 {
        self.cmt.as_deref().map_or(0, |c| c.page_of(lpn))
    }

    /// Where translation page `t` is on flash (its GTD entry), if it was ever written.
    pub fn translation_ppn(&self, t: u32) -> Option<u32> {
        let c = self.cmt.as_deref()?;
        let p = self.l2p[c.lpn_of_page(t) as usize];
        (p != UNMAPPED).then_some(p)
    }

    /// The FTL's logical page of translation page `t` (what the allocator is asked a plane for).
    pub fn translation_lpn(&self, t: u32) -> u32 {
        self.cmt.as_deref().map_or(UNMAPPED, |c| c.lpn_of_page(t))
    }

    /// Count a translation page read (a miss, or a read-modify-write's read).
    pub fn count_translation_read(&mut self) {
        if let Some(c) = self.cmt.as_deref_mut() {
            c.counters.translation_reads += 1;
        }
    }

    /// Program translation page `t` on `plane`'s translation frontier with the mappings as they
    /// are now: its old copy (if any) becomes invalid, its cached entries clean. `gc`: a GC
    /// batch update (else a CMT write-back). Returns the new page.
    pub fn write_translation(&mut self, t: u32, plane: u32, gc: bool) -> Result<u32> {
        let lpn = self.translation_lpn(t);
        let ppn = self.program(lpn, plane, self.data_streams)?;
        self.counters.translation_pages_written += 1;
        let Ftl { cmt, l2p, .. } = self;
        let c = cmt.as_deref_mut().expect("write_translation without a CMT");
        let user = c.lpn_of_page(0) as usize;
        c.written(t, &l2p[..user]);
        if gc {
            c.counters.gc_updates += 1;
        } else {
            c.counters.write_backs += 1;
        }
        Ok(ppn)
    }

    /// GC moved the page of `lpn` on `plane`: a translation page's copy is counted; a user
    /// page's new mapping goes to its cached entry or is owed to its translation page.
    #[inline]
    pub(super) fn translation_gc_move(&mut self, lpn: u32, plane: u32) {
        if let Some(c) = self.cmt.as_deref_mut() {
            if c.is_translation(lpn) {
                self.counters.translation_gc_copies += 1;
            } else {
                c.on_gc_move(lpn, plane);
            }
        }
    }

    /// The next translation page write GC on `plane` owes for the mappings its copies moved
    /// (due once their victim is erased), done: the step, with its old copy, which is read.
    /// `None` when nothing is owed (always with the full map), or when the write would take the
    /// plane's last free block.
    pub fn gc_owed_step(&mut self, plane: u32) -> Result<Option<GcStep>> {
        // Not from GC's last free block: the data frontier may need it for the next victim's
        // copies. The pages stay owed (the moved mappings the controller's) until there is room.
        if self.cmt.is_none() {
            return Ok(None);
        }
        let fi = plane as usize * self.streams + self.data_streams;
        let f = self.frontier[fi];
        let room = f != UNMAPPED && self.next_page[f as usize] < self.pages_per_block;
        if !room && self.free[plane as usize].len() < 2 {
            return Ok(None);
        }
        let Some(t) = self.cmt.as_deref_mut().and_then(|c| c.next_owed(plane)) else {
            return Ok(None);
        };
        let old = self.translation_ppn(t);
        if old.is_some() {
            self.count_translation_read();
        }
        let read = old.unwrap_or(UNMAPPED);
        let to = self.write_translation(t, plane, true)?;
        Ok(Some(GcStep::Translation { read, to }))
    }

    /// The cached map's invariants (nothing without one): the CMT's bookkeeping against the
    /// L2P, and translation pages only in blocks of their own.
    pub(super) fn check_translation(&self) -> std::result::Result<(), String> {
        let Some(c) = self.cmt.as_deref() else {
            return Ok(());
        };
        let user = c.lpn_of_page(0) as usize;
        c.check(&self.l2p[..user], &self.l2p[user..])?;
        let ppb = self.pages_per_block;
        for b in 0..self.valid.len() as u32 {
            let mut kinds = [false; 2];
            let base = b * ppb;
            let mut i = base;
            while let Some(p) = self.next_valid(i, base + ppb) {
                kinds[usize::from(c.is_translation(self.p2l[p as usize]))] = true;
                i = p + 1;
            }
            if kinds[0] && kinds[1] {
                return Err(format!(
                    "block {b} holds both translation pages and data pages"
                ));
            }
        }
        Ok(())
    }
}

impl FtlCounters {
    /// Flash page writes: host pages, GC copies and translation pages (WAF's numerator).
    pub fn flash_writes(&self) -> u64 {
        self.host_pages_written + self.gc_pages_copied + self.translation_pages_written
    }
}
