//! Where a zone's pages lie on flash (`zns.layout`; ConfZNS, Song et al., SYSTOR 2023,
//! section 3). A zone is `k` erase blocks; its page `o` is page `o / k` of its block `o mod k`,
//! so consecutive pages of a zone go to its blocks in turn, each on another plane.
//! - `striped`: zones take the device's blocks `k` at a time in channel-first plane order, so
//!   a zone's blocks sit on different channels and dies (up to `k` of them);
//! - `die-group`: the planes fall into groups of `zns.group_dies` dies; zone `z` lies in group
//!   `z mod groups` and takes its blocks `k` at a time from that group's planes.

use crate::config::{DeviceConfig, ZoneLayout, ZoneShape};

/// The blocks of every zone, and the arithmetic from a zone's page to its plane and block.
#[derive(Debug, Clone)]
pub struct ZoneMap {
    /// Erase blocks per zone.
    k: u32,
    pages_per_block: u32,
    blocks_per_plane: u32,
    /// blocks[z * k + i]: block `i` of zone `z`, numbered as the FTL does (plane × blocks per
    /// plane + block).
    blocks: Vec<u32>,
    /// The plane of every block (a lookup instead of a division a page).
    plane: Vec<u32>,
}

impl ZoneMap {
    pub fn new(cfg: &DeviceConfig, s: &ZoneShape) -> Self {
        let g = &cfg.geometry;
        let bpp = g.blocks_per_plane;
        let order = plane_order(cfg);
        let per_group = u64::from(s.group_planes) * u64::from(bpp) / u64::from(s.blocks);
        let mut blocks = Vec::with_capacity((s.zones * s.blocks) as usize);
        for z in 0..s.zones {
            let (group, local) = match cfg.zns.layout {
                ZoneLayout::Striped => (0, z),
                ZoneLayout::DieGroup => (z % s.groups, z / s.groups),
            };
            debug_assert!(u64::from(local) < per_group);
            for i in 0..s.blocks {
                let seq = local * s.blocks + i;
                let plane = order[(group * s.group_planes + seq % s.group_planes) as usize];
                blocks.push(plane * bpp + seq / s.group_planes);
            }
        }
        ZoneMap {
            k: s.blocks,
            pages_per_block: g.pages_per_block,
            blocks_per_plane: bpp,
            blocks,
            plane: (0..g.total_blocks() as u32).map(|b| b / bpp).collect(),
        }
    }

    /// Zone `z`'s page `o`: (plane, block).
    #[inline]
    pub fn locate(&self, z: u32, o: u32) -> (u32, u32) {
        let slot = if self.k.is_power_of_two() {
            o & (self.k - 1)
        } else {
            o % self.k
        };
        let block = self.blocks[(z * self.k + slot) as usize];
        (self.plane[block as usize], block)
    }

    /// The blocks of zone `z` that hold any of its first `pages` pages.
    pub fn written_blocks(&self, z: u32, pages: u32) -> &[u32] {
        let n = pages.min(self.k) as usize;
        let base = (z * self.k) as usize;
        &self.blocks[base..base + n]
    }

    pub fn blocks_per_zone(&self) -> u32 {
        self.k
    }

    pub fn pages_per_block(&self) -> u32 {
        self.pages_per_block
    }

    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
}

/// The planes in the order zones take them: channel-first for the striped layout (a zone's
/// consecutive blocks on different channels), canonical for die groups (a group's planes are
/// its dies', consecutive in the canonical numbering).
fn plane_order(cfg: &DeviceConfig) -> Vec<u32> {
    let g = &cfg.geometry;
    match cfg.zns.layout {
        ZoneLayout::DieGroup => (0..g.planes()).collect(),
        ZoneLayout::Striped => {
            let mut out = Vec::with_capacity(g.planes() as usize);
            for pl in 0..g.planes_per_die {
                for d in 0..g.dies_per_chip {
                    for c in 0..g.chips_per_channel {
                        for ch in 0..g.channels {
                            let chip = ch * g.chips_per_channel + c;
                            out.push((chip * g.dies_per_chip + d) * g.planes_per_die + pl);
                        }
                    }
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ZoneMap;
    use crate::config::DeviceConfig;
    use std::collections::HashSet;

    /// Every layout gives each zone distinct blocks and no block to two zones; striped zones
    /// spread over the channels, die-group zones stay on their group's planes.
    #[test]
    fn zones_partition_their_blocks() {
        for sets in [
            vec!["ftl.kind=\"zoned\"".to_string()],
            vec![
                "ftl.kind=\"zoned\"".to_string(),
                "zns.zone_size_kib=256".to_string(),
            ],
            vec![
                "ftl.kind=\"zoned\"".to_string(),
                "zns.layout=\"die-group\"".to_string(),
                "zns.zone_size_kib=256".to_string(),
            ],
        ] {
            let cfg = DeviceConfig::from_preset("tiny", &sets).expect("tiny zoned");
            let s = cfg.zone_shape().expect("zoned");
            let m = ZoneMap::new(&cfg, &s);
            let mut seen = HashSet::new();
            for z in 0..s.zones {
                let planes: HashSet<u32> = (0..s.blocks).map(|o| m.locate(z, o).0).collect();
                assert_eq!(
                    planes.len() as u32,
                    s.blocks.min(s.group_planes),
                    "{sets:?}"
                );
                for &b in m.written_blocks(z, s.size_pages) {
                    assert!(seen.insert(b), "block {b} in two zones ({sets:?})");
                }
            }
        }
    }
}
