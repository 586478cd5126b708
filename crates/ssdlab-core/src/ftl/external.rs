//! The narrow handle of a layer that allocates blocks itself (RAIN super-blocks): it programs
//! host, parity and GC-copy pages into blocks it chooses and erases them, and nothing else. The
//! mapping (L2P, P2L, valid bits and counts), counters and test-mode checks stay the FTL's.

use super::{BlockState, Ftl, UNMAPPED};
use crate::error::{Result, SsdError};

/// See [`Ftl::external`].
pub struct ExternalBlocks<'a> {
    pub(super) ftl: &'a mut Ftl,
}

impl ExternalBlocks<'_> {
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

    /// GC: erase `blk` (it must hold no valid page); it goes to no free pool.
    pub fn erase(&mut self, blk: u32) {
        self.ftl.erase_block(blk, false);
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
