//! Device geometry: channels × chips × dies × planes × blocks × pages, page size, spare factor,
//! and the derived counts (physical and logical pages) everything else indexes by.

use serde::{Deserialize, Serialize};

use super::CellMode;

/// `[geometry]` section. Units in the field comments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    /// Independent flash channels (buses).
    pub channels: u32,
    /// Chips (packages / chip enables) per channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_size: u32,
    /// Over-provisioning as a fraction of physical capacity: logical = physical × (1 − spare).
    pub spare_factor: f64,
    /// The cell mode the device's blocks operate in (selects the timing row).
    #[serde(default = "default_cell_mode")]
    pub cell_mode: CellMode,
}

fn default_cell_mode() -> CellMode {
    CellMode::Tlc
}

/// Physical page numbers are u32 in the FTL (4 bytes of L2P and P2L per page) and `u32::MAX`
/// marks an unmapped entry, so a device has fewer than this many physical pages.
pub const MAX_PHYSICAL_PAGES: u64 = u32::MAX as u64;

impl Geometry {
    /// Planes of the device. Exact for a geometry that passed [`Geometry::check`] (which bounds
    /// every product of counts below 2^32); saturates at `u32::MAX` otherwise, never overflows.
    pub fn planes(&self) -> u32 {
        saturate(self.planes_u64())
    }
    /// Dies of the device (exact once checked; saturating otherwise, like [`Geometry::planes`]).
    pub fn dies(&self) -> u32 {
        saturate(
            u64::from(self.channels)
                .saturating_mul(u64::from(self.chips_per_channel))
                .saturating_mul(u64::from(self.dies_per_chip)),
        )
    }
    pub fn total_blocks(&self) -> u64 {
        self.planes_u64()
            .saturating_mul(u64::from(self.blocks_per_plane))
    }
    pub fn physical_pages(&self) -> u64 {
        self.total_blocks()
            .saturating_mul(u64::from(self.pages_per_block))
    }
    /// Logical pages exported to the host: ⌊physical × (1 − spare_factor)⌋.
    pub fn logical_pages(&self) -> u64 {
        (self.physical_pages() as f64 * (1.0 - self.spare_factor)).floor() as u64
    }
    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages()
            .saturating_mul(u64::from(self.page_size))
    }
    pub fn physical_bytes(&self) -> u64 {
        self.physical_pages()
            .saturating_mul(u64::from(self.page_size))
    }

    fn planes_u64(&self) -> u64 {
        u64::from(self.channels)
            .saturating_mul(u64::from(self.chips_per_channel))
            .saturating_mul(u64::from(self.dies_per_chip))
            .saturating_mul(u64::from(self.planes_per_die))
    }

    /// Field-level and cross-field checks; returns the first violation as (field, message).
    /// `gc_reserve_blocks` is what each plane keeps free beyond its data: the GC threshold plus
    /// one block per write frontier.
    pub fn check(&self, gc_reserve_blocks: u64) -> Result<(), (String, String)> {
        self.check_shape()?;
        self.check_spare(gc_reserve_blocks)
    }

    /// Every count positive, the page size, the spare factor, and the device small enough that
    /// every derived count (planes, blocks, physical pages) fits the FTL's u32 page numbers.
    pub fn check_shape(&self) -> Result<(), (String, String)> {
        let counts = [
            ("channels", self.channels),
            ("chips_per_channel", self.chips_per_channel),
            ("dies_per_chip", self.dies_per_chip),
            ("planes_per_die", self.planes_per_die),
            ("blocks_per_plane", self.blocks_per_plane),
            ("pages_per_block", self.pages_per_block),
        ];
        for (name, v) in counts
            .iter()
            .copied()
            .chain([("page_size", self.page_size)])
        {
            if v == 0 {
                return Err((
                    format!("geometry.{name}"),
                    "expected a positive integer, got 0".into(),
                ));
            }
        }
        if !(self.page_size >= 512 && self.page_size.is_power_of_two()) {
            return Err((
                "geometry.page_size".into(),
                format!(
                    "expected a power of two ≥ 512 bytes, got {}",
                    self.page_size
                ),
            ));
        }
        if !(self.spare_factor > 0.0 && self.spare_factor < 1.0) {
            return Err((
                "geometry.spare_factor".into(),
                format!("expected a fraction in (0, 1), got {}", self.spare_factor),
            ));
        }
        if self.pages_per_block > 65_535 {
            return Err((
                "geometry.pages_per_block".into(),
                format!("expected at most 65535, got {}", self.pages_per_block),
            ));
        }
        // The running product channels × chips × dies × planes × blocks × pages, in u64 (each
        // factor < 2^32, the product so far < 2^32: no overflow); the field that takes it to the
        // limit is the one named.
        let mut product: u64 = 1;
        let mut so_far = Vec::new();
        for (name, v) in counts {
            product *= u64::from(v);
            so_far.push(name);
            if product >= MAX_PHYSICAL_PAGES {
                return Err((
                    format!("geometry.{name}"),
                    format!(
                        "{} = {product}, but the FTL numbers physical pages in 32 bits and addresses fewer than 2^32 - 1; got {name} = {v}",
                        so_far.join(" × ")
                    ),
                ));
            }
        }
        if self.logical_pages() == 0 {
            return Err((
                "geometry.spare_factor".into(),
                format!(
                    "leaves no logical page: {product} physical pages × (1 − {}) < 1; expected a smaller spare factor",
                    self.spare_factor
                ),
            ));
        }
        Ok(())
    }

    /// Each plane must keep, beyond its share of logical data, the GC reserve plus one block per
    /// write frontier; otherwise GC can never make progress.
    fn check_spare(&self, gc_reserve_blocks: u64) -> Result<(), (String, String)> {
        let spare_blocks_per_plane = f64::from(self.blocks_per_plane) * self.spare_factor;
        let needed = gc_reserve_blocks.saturating_add(1) as f64;
        if spare_blocks_per_plane < needed {
            return Err((
                "geometry.spare_factor".into(),
                format!(
                    "{:.1} spare blocks per plane (blocks_per_plane × spare_factor) cannot hold the GC reserve and frontiers: need at least {needed}",
                    spare_blocks_per_plane
                ),
            ));
        }
        Ok(())
    }
}

fn saturate(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
