//! Page types: `flash.page_types` says whether the pages of a block take the read and program
//! times of their type (LSB, CSB, MSB, TSB: the first to fourth bit the cells of a word line
//! store); the chip's data are per cell mode: the times (`timing.<mode>.page_read_us`,
//! `page_program_us`, one entry per bit of the mode, LSB first) and the program order in which
//! the types follow each other along a block (`timing.<mode>.page_order`, from the datasheet's
//! word-line pairing). Off (the default), every page of a mode takes the mode's one mean time
//! (`read_us`, `program_us`). The mechanism is `flash::page_types`.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

use super::{CellMode, ModeTiming, Registry, Timing, MAX_OP_US};

/// The order in which a block's pages take their types (`timing.<mode>.page_order`).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum PageOrder {
    /// One word line at a time: its LSB, CSB, MSB (and TSB) pages in a row, page p of type
    /// p mod bits (3D NAND's one-shot programming; MQSim's page_id % bits, Tavakkol et al.,
    /// FAST 2018).
    #[default]
    WordLine,
    /// Shadow programming of 2D MLC: a word line's upper page after the next word line's lower
    /// one (pages LSB 0, LSB 1, MSB 0, LSB 2, MSB 1, …, MSB last), which limits the coupling
    /// of neighbouring cells; TLC/QLC by the same rule, one word line later per bit.
    Shadow,
}

crate::config::impl_registry!(PageOrder, "page order", "timing.<mode>.page_order", default);

crate::config::impl_try_from_name!(PageOrder);

impl PageOrder {
    /// The type (0 = LSB … bits − 1) of each page of a block of `pages` pages, in program
    /// order, for cells of `bits` bits; `pages` is a multiple of `bits` (checked by
    /// `Timing::check_page_types`).
    ///
    /// Shadow's MLC form is the datasheets' pairing as open firmware uses it: Cosmos+ OpenSSD
    /// (`GreedyFTL-3.0.0/address_translation.h`) maps its SLC-mode pages to the LSB pages
    /// 0, 1, 3, 5, …. Its TLC and QLC forms (diagonal d programs word line d − k's type k)
    /// are our generalisation: vendors' tables differ (FEMU's Micron L95B pairing has
    /// irregular ends; MQSim's TLC rule after Yaakobi et al., ICNC 2012, pairs bit lines too).
    pub fn types(self, bits: u32, pages: u32) -> Vec<u8> {
        match self {
            PageOrder::WordLine => (0..pages).map(|p| (p % bits) as u8).collect(),
            PageOrder::Shadow => {
                // Diagonal d programs, for each type k from LSB up, word line d − k: the lower
                // page of a word line goes first, its upper pages one and two word lines later.
                let lines = i64::from(pages / bits);
                let mut out = Vec::with_capacity(pages as usize);
                for d in 0..lines + i64::from(bits) - 1 {
                    for k in 0..i64::from(bits) {
                        if (0..lines).contains(&(d - k)) {
                            out.push(k as u8);
                        }
                    }
                }
                out
            }
        }
    }
}

/// One time per page type, µs, LSB first: as many as the mode's bits per cell. TOML: an array,
/// e.g. `page_program_us = [400.0, 1100.0]` for MLC.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<f64>", into = "Vec<f64>")]
pub struct PageTimes {
    times: [f64; 4],
    len: u8,
}

impl PageTimes {
    /// The times, LSB first.
    pub fn get(&self) -> &[f64] {
        &self.times[..usize::from(self.len)]
    }
}

impl TryFrom<Vec<f64>> for PageTimes {
    type Error = String;
    fn try_from(v: Vec<f64>) -> Result<Self, String> {
        if v.is_empty() || v.len() > 4 {
            return Err(format!(
                "expected 1 to 4 times (µs, LSB first), got {}",
                v.len()
            ));
        }
        let mut times = [0.0; 4];
        times[..v.len()].copy_from_slice(&v);
        Ok(PageTimes {
            times,
            len: v.len() as u8,
        })
    }
}

impl From<PageTimes> for Vec<f64> {
    fn from(p: PageTimes) -> Self {
        p.get().to_vec()
    }
}

impl Timing {
    /// Field checks of the page-type times: any set entry is a time from 0 to [`MAX_OP_US`];
    /// with page types `on`, the device's own mode (`mode`, pages of `pages_per_block`) needs
    /// both arrays with one entry per bit, and whole word lines in a block.
    pub(super) fn check_page_types(
        &self,
        on: bool,
        mode: CellMode,
        pages_per_block: u32,
    ) -> Result<(), (String, String)> {
        for m in [CellMode::Slc, CellMode::Mlc, CellMode::Tlc, CellMode::Qlc] {
            let t = self.mode(m);
            for (field, v) in page_fields(t) {
                for &x in v.iter().flat_map(|p| p.get()) {
                    if !(x.is_finite() && (0.0..=MAX_OP_US).contains(&x)) {
                        return Err((
                            format!("timing.{}.{field}", m.name()),
                            format!("expected times from 0 to {MAX_OP_US} µs (1 s), got {x}"),
                        ));
                    }
                }
            }
        }
        if !on {
            return Ok(());
        }
        let bits = mode.bits_per_cell();
        let name = mode.name();
        if bits == 1 {
            return Err((
                "flash.page_types".into(),
                "an SLC device's pages are all of one type; expected flash.page_types = false \
                 (or an MLC, TLC or QLC geometry.cell_mode)"
                    .into(),
            ));
        }
        for (field, v) in page_fields(self.mode(mode)) {
            let n = v.map_or(0, |p| p.get().len());
            if n != bits as usize {
                return Err((
                    format!("timing.{name}.{field}"),
                    format!(
                        "flash.page_types needs {bits} times for {name} (µs, LSB first), got {n}"
                    ),
                ));
            }
        }
        if !pages_per_block.is_multiple_of(bits) {
            return Err((
                "geometry.pages_per_block".into(),
                format!(
                    "with flash.page_types, a block holds whole word lines of {bits} {name} \
                     pages; expected a multiple of {bits}, got {pages_per_block}"
                ),
            ));
        }
        Ok(())
    }
}

fn page_fields(t: &ModeTiming) -> [(&'static str, Option<PageTimes>); 2] {
    [
        ("page_read_us", t.page_read_us),
        ("page_program_us", t.page_program_us),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Registry;

    #[test]
    fn names_and_default() {
        assert_eq!(PageOrder::default_member(), Some(PageOrder::WordLine));
        assert_eq!(PageOrder::parse_name("shadow"), Ok(PageOrder::Shadow));
        assert_eq!(PageOrder::parse_name("word-line"), Ok(PageOrder::WordLine));
    }

    #[test]
    fn word_line_order_is_the_page_number_modulo_the_bits() {
        assert_eq!(PageOrder::WordLine.types(3, 9), [0, 1, 2, 0, 1, 2, 0, 1, 2]);
    }

    /// The MLC shadow order of the datasheets' pairing tables: LSB pages 0, 1, 3, 5, …, MSB
    /// pages 2, 4, …, and the last word line's MSB last.
    #[test]
    fn shadow_order_pairs_a_word_lines_msb_with_the_next_ones_lsb() {
        assert_eq!(PageOrder::Shadow.types(2, 8), [0, 0, 1, 0, 1, 0, 1, 1]);
        // TLC: diagonals L0; L1 C0; L2 C1 M0; L3 C2 M1; C3 M2; M3.
        assert_eq!(
            PageOrder::Shadow.types(3, 12),
            [0, 0, 1, 0, 1, 2, 0, 1, 2, 1, 2, 2]
        );
    }

    #[test]
    fn every_order_gives_each_type_one_page_a_word_line() {
        for order in [PageOrder::WordLine, PageOrder::Shadow] {
            for bits in 2..=4u32 {
                let t = order.types(bits, bits * 16);
                assert_eq!(t.len() as u32, bits * 16);
                for k in 0..bits as u8 {
                    assert_eq!(
                        t.iter().filter(|&&x| x == k).count(),
                        16,
                        "{order:?} {bits}"
                    );
                }
            }
        }
    }

    #[test]
    fn page_times_take_one_to_four_entries() {
        assert_eq!(
            PageTimes::try_from(vec![1.0, 2.0]).unwrap().get(),
            [1.0, 2.0]
        );
        assert!(PageTimes::try_from(vec![]).is_err());
        assert!(PageTimes::try_from(vec![1.0; 5]).is_err());
    }
}

impl super::DeviceConfig {
    /// Page types: on the plain FTL only (the others time pages without their place in the
    /// block), with the chip's data for the device's mode.
    pub(super) fn check_page_types(&self) -> std::result::Result<(), (String, String)> {
        if self.flash.page_types && self.ftl.kind != super::FtlKind::Plain {
            return Err((
                "flash.page_types".into(),
                format!(
                    "page types are modelled on the plain FTL (ftl.kind = \"plain\"); the '{}' \
                     FTL times its pages without their place in the block",
                    self.ftl.kind.name()
                ),
            ));
        }
        let g = &self.geometry;
        self.timing
            .check_page_types(self.flash.page_types, g.cell_mode, g.pages_per_block)
    }
}
