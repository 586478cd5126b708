//! Rebuild sets of GC-tolerant reads (the rest of a page's stripe and its parity, or the stripe
//! of the page it was copied from while its own is open), and the test-mode checks: every
//! rebuild verified against what the host wrote, and a full parity audit.

use super::page_checksum;
use super::superblock::{Rain, NONE};
use crate::error::{Result, SsdError};
use crate::ftl::Ftl;

impl Rain {
    /// The pages to XOR to rebuild the page at `ppn`: the rest of its stripe and the parity —
    /// or, when its stripe is a GC stripe still open, the rest of the stripe of the page it was
    /// copied from (still intact: the victim is erased only after the copy's stripe is closed).
    /// Returns (available, through the origin).
    pub fn rebuild_set(&self, ppn: u32, out: &mut Vec<u32>) -> (bool, bool) {
        out.clear();
        let mut at = ppn;
        let mut s = self.stripe_of[ppn as usize];
        if s == NONE {
            return (false, false);
        }
        let mut via = false;
        if self.stripes[s as usize].parity == NONE {
            at = self.origin[ppn as usize];
            if at == NONE {
                return (false, false);
            }
            s = self.stripe_of[at as usize];
            if s == NONE || self.stripes[s as usize].parity == NONE {
                return (false, false);
            }
            via = true;
        }
        let st = &self.stripes[s as usize];
        out.extend(st.members.iter().copied().filter(|&m| m != at));
        out.push(st.parity);
        (true, via)
    }
    /// Test mode: XOR the rebuild set and compare with what the host last wrote to the page.
    pub fn verify_rebuild(&mut self, ftl: &Ftl, ppn: u32, set: &[u32]) -> Result<()> {
        let Some(v) = &self.version else {
            return Ok(());
        };
        let lpn = ftl.owner(ppn).ok_or_else(|| {
            SsdError::Invalid(format!("rebuild of page {ppn}, which holds no live data"))
        })?;
        check_rebuild(ftl, lpn, ppn, v[lpn as usize], set)?;
        self.stats.rebuilds_verified += 1;
        Ok(())
    }
    /// Test mode: every closed stripe's parity equals the XOR of its members, and every live
    /// page rebuilds to what the host wrote. Returns (pages verified, live pages in an open
    /// host stripe, i.e. not yet protected).
    pub fn audit(&mut self, ftl: &Ftl) -> Result<(u64, u64)> {
        if self.version.is_none() {
            return Ok((0, 0));
        }
        for (i, st) in self.stripes.iter().enumerate() {
            // (A victim being erased member by member no longer holds all of its stripes; its
            // pages are copied already and only served as rebuild paths until then.)
            let intact = st
                .members
                .iter()
                .all(|&m| self.stripe_of[m as usize] == i as u32);
            if st.parity != NONE && self.stripe_of[st.parity as usize] == i as u32 && intact {
                let x = self.members_xor(ftl, i as u32);
                if ftl.content(st.parity) != Some(x) {
                    return Err(SsdError::Invalid(format!(
                        "RAIN bug: stripe {i} parity {:#x?} != XOR of members {x:#x}",
                        ftl.content(st.parity)
                    )));
                }
            }
        }
        let mut set = std::mem::take(&mut self.scratch);
        let (mut ok, mut open) = (0, 0);
        for lpn in 0..ftl.logical_pages() {
            let Some(ppn) = ftl.lookup(lpn) else { continue };
            if self.rebuild_set(ppn, &mut set).0 {
                self.verify_rebuild(ftl, ppn, &set)?;
                ok += 1;
            } else {
                open += 1;
            }
        }
        self.scratch = set;
        Ok((ok, open))
    }
}

/// Test mode, either layout: the XOR of `set` and the page at `ppn` both hold what the host's
/// write of `lpn` at `version` left.
pub(super) fn check_rebuild(
    ftl: &Ftl,
    lpn: u32,
    ppn: u32,
    version: u32,
    set: &[u32],
) -> Result<()> {
    let rebuilt = set
        .iter()
        .fold(0u64, |a, &m| a ^ ftl.content(m).unwrap_or(0));
    let written = page_checksum(lpn, version);
    if rebuilt != written || ftl.content(ppn) != Some(written) {
        return Err(SsdError::Invalid(format!(
            "RAIN bug: page {ppn} (logical {lpn}) rebuilt as {rebuilt:#x}, written {written:#x}, stored {:#x?}",
            ftl.content(ppn)
        )));
    }
    Ok(())
}
