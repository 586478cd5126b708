//! Rebuild sets of GC-tolerant reads (the rest of a page's stripe and its parity; while the
//! stripe is open, the rest of it and its running parity in RAM, or the stripe of the page it
//! was copied from), and the test-mode checks: every rebuild verified against what the host
//! wrote, and a full parity audit.

use super::page_checksum;
use super::superblock::{Rain, NONE};
use crate::error::{Result, SsdError};
use crate::ftl::map::Ftl;

/// How a page is rebuilt ([`Rain::rebuild_set`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Its closed stripe: the other pages and the parity page.
    Parity,
    /// Its open stripe: the other pages and the running parity in RAM (`rain.open_parity =
    /// "ram"`), which costs no flash read.
    Ram,
    /// The stripe of the page it was copied from (its own GC stripe still open, `rain.
    /// open_parity = "victim"`).
    Origin,
}

impl Rain {
    /// The flash pages to XOR to rebuild the page at `ppn`: the rest of its stripe and the
    /// parity. While its stripe is open: with the parity in RAM, the rest of the stripe (the
    /// RAM's running parity completes the XOR); otherwise, for a GC copy, the rest of the
    /// stripe of the page it was copied from (still intact: the victim is erased only after
    /// the copy's stripe is closed), and for a host page none. None when it cannot be rebuilt.
    pub fn rebuild_set(&self, ppn: u32, out: &mut Vec<u32>) -> Option<Via> {
        out.clear();
        let mut at = ppn;
        let mut s = self.stripe_of[ppn as usize];
        if s == NONE {
            return None;
        }
        let mut via = Via::Parity;
        if self.stripes[s as usize].parity == NONE {
            if self.ram_parity {
                let st = &self.stripes[s as usize];
                out.extend(st.members.iter().copied().filter(|&m| m != ppn));
                return Some(Via::Ram);
            }
            at = self.origin[ppn as usize];
            if at == NONE {
                return None;
            }
            s = self.stripe_of[at as usize];
            if s == NONE || self.stripes[s as usize].parity == NONE {
                return None;
            }
            via = Via::Origin;
        }
        let st = &self.stripes[s as usize];
        out.extend(st.members.iter().copied().filter(|&m| m != at));
        out.push(st.parity);
        Some(via)
    }
    /// Test mode: XOR the rebuild set and compare with what the host last wrote to the page.
    pub fn verify_rebuild(&mut self, ftl: &Ftl, ppn: u32, set: &[u32]) -> Result<()> {
        let Some(v) = &self.version else {
            return Ok(());
        };
        let lpn = ftl.owner(ppn).ok_or_else(|| {
            SsdError::Invalid(format!("rebuild of page {ppn}, which holds no live data"))
        })?;
        // An open stripe's rebuild XORs in the running parity it keeps in RAM.
        let s = self.stripe_of[ppn as usize];
        let ram = match self.stripes.get(s as usize) {
            Some(st) if self.ram_parity && st.parity == NONE => st.partial,
            _ => 0,
        };
        check_rebuild(ftl, lpn, ppn, v[lpn as usize], set, ram)?;
        self.stats.rebuilds_verified += 1;
        Ok(())
    }
    /// Test mode: every closed stripe's parity equals the XOR of its members, and every live
    /// page rebuilds to what the host wrote. Returns (pages verified, live pages that cannot
    /// be rebuilt: in the open host stripe, with `rain.open_parity = "victim"`).
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
            if self.rebuild_set(ppn, &mut set).is_some() {
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

/// Test mode, either layout: the XOR of `set` (and `ram`, a running parity held in RAM) and
/// the page at `ppn` both hold what the host's write of `lpn` at `version` left.
pub(super) fn check_rebuild(
    ftl: &Ftl,
    lpn: u32,
    ppn: u32,
    version: u32,
    set: &[u32],
    ram: u64,
) -> Result<()> {
    let rebuilt = set
        .iter()
        .fold(ram, |a, &m| a ^ ftl.content(m).unwrap_or(0));
    let written = page_checksum(lpn, version);
    if rebuilt != written || ftl.content(ppn) != Some(written) {
        return Err(SsdError::Invalid(format!(
            "RAIN bug: page {ppn} (logical {lpn}) rebuilt as {rebuilt:#x}, written {written:#x}, stored {:#x?}",
            ftl.content(ppn)
        )));
    }
    Ok(())
}
