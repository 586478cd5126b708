//! Page types (`flash.page_types`): in MLC, TLC and QLC flash the pages of a word line hold
//! one bit of each cell each (LSB, CSB, MSB, TSB), and reading or programming an upper bit
//! takes more sensing steps or program-verify pulses than the lower ones, so the pages of a
//! block read and program at times up to 2–5× apart (Grupp et al., MICRO 2009, §3; MQSim models it
//! per type, Tavakkol et al., FAST 2018). A page's type follows from its place in its block,
//! in program order ([`crate::config::PageOrder::types`]), so every operation on a page takes
//! the time of its type: host reads and programs, GC copies (the victim page's read, the destination's
//! program), translation pages (a cached map).
//!
//! Off, nothing here runs: every page takes the mode's mean time ([`crate::config::OpTimes`]).

use super::{OpDone, Resources};
use crate::config::{us_to_ns, DeviceConfig};

/// The times of each page of a block, by its place.
#[derive(Debug, Clone)]
pub(super) struct PageTypes {
    /// Physical pages are numbered in mapping units (`ftl.mapping_unit_bytes`): this many per
    /// block.
    units_per_block: u32,
    /// Each unit's page type (0 = LSB), by its place in the block (a whole page's units share
    /// their page's): one table lookup a page, no division by the units a page.
    kind: Vec<u8>,
    read_ns: [u64; 4],
    program_ns: [u64; 4],
}

impl PageTypes {
    /// `None` unless `flash.page_types` is on (validation has checked the device's mode has one
    /// time per type and whole word lines a block).
    pub(super) fn new(cfg: &DeviceConfig) -> Option<Box<Self>> {
        if !cfg.flash.page_types {
            return None;
        }
        let g = &cfg.geometry;
        let m = cfg.timing.mode(g.cell_mode);
        let order = m.page_order.unwrap_or_default();
        let (reads, programs) = (m.page_read_us?, m.page_program_us?);
        let ns = |us: &[f64]| {
            let mut out = [0u64; 4];
            for (o, &v) in out.iter_mut().zip(us) {
                *o = us_to_ns(v);
            }
            out
        };
        let k = cfg.units_per_page();
        let types = order.types(g.cell_mode.bits_per_cell(), g.pages_per_block);
        Some(Box::new(PageTypes {
            units_per_block: g.pages_per_block * k,
            kind: types
                .iter()
                .flat_map(|&t| std::iter::repeat_n(t, k as usize))
                .collect(),
            read_ns: ns(reads.get()),
            program_ns: ns(programs.get()),
        }))
    }

    #[inline]
    fn kind_of(&self, ppn: u32) -> usize {
        usize::from(self.kind[(ppn % self.units_per_block) as usize])
    }
}

impl Resources {
    /// The array read time of physical page `ppn`: its type's with page types on, else the
    /// mode's.
    #[inline(always)]
    pub fn read_ns_of(&self, ppn: u32) -> u64 {
        match &self.page_types {
            None => self.times.read_ns,
            Some(t) => t.read_ns[t.kind_of(ppn)],
        }
    }

    /// The program time of physical page `ppn` (see [`Resources::read_ns_of`]).
    #[inline(always)]
    pub fn program_ns_of(&self, ppn: u32) -> u64 {
        match &self.page_types {
            None => self.times.program_ns,
            Some(t) => t.program_ns[t.kind_of(ppn)],
        }
    }

    /// Host read of physical page `ppn` on `plane` ([`Resources::read_in`] in its time).
    #[inline(always)]
    pub fn read_page(&mut self, plane: u32, ppn: u32, ready: u64) -> OpDone {
        let ns = self.read_ns_of(ppn);
        self.read_in(plane, ready, ns)
    }

    /// Host program of physical page `ppn` on `plane` ([`Resources::write_in`] in its time).
    #[inline(always)]
    pub fn write_page(&mut self, plane: u32, ppn: u32, ready: u64) -> OpDone {
        let ns = self.program_ns_of(ppn);
        self.write_in(plane, ready, ns)
    }

    /// A GC copy from page `from` to page `to` on `plane` (both on it), each part only if
    /// given ([`Resources::gc_move`]), in their pages' times.
    pub fn gc_copy_page(
        &mut self,
        plane: u32,
        not_before: u64,
        from: Option<u32>,
        to: Option<u32>,
    ) -> u64 {
        let read = from.map(|p| self.read_ns_of(p));
        let program = to.map(|p| self.program_ns_of(p));
        self.gc_move(plane, not_before, read, program)
    }

    /// The plane physical page `ppn` is on.
    pub fn plane_of(&self, ppn: u32) -> u32 {
        ppn / self.units_per_plane
    }
}
