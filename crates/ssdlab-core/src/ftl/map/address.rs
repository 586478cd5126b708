//! Where a page is: the FTL's geometry and the arithmetic from a physical page to its block
//! and plane (by shift when the sizes are powers of two), and the channel-first plane order.

use super::{Ftl, UNMAPPED};

impl Ftl {
    /// Where logical page `lpn` lives, if mapped (no counters touched).
    pub fn l2p_of(&self, lpn: u32) -> Option<u32> {
        let p = self.l2p[lpn as usize];
        (p != UNMAPPED).then_some(p)
    }
    pub fn planes(&self) -> u32 {
        self.planes
    }
    pub fn pages_per_block(&self) -> u32 {
        self.pages_per_block
    }
    pub fn blocks_per_plane(&self) -> u32 {
        self.blocks_per_plane
    }
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
    #[inline]
    pub fn plane_of_ppn(&self, ppn: u32) -> u32 {
        if self.ppp_shift < 32 {
            ppn >> self.ppp_shift
        } else {
            ppn / self.pages_per_block / self.blocks_per_plane
        }
    }
    /// The block holding page `ppn`.
    #[inline]
    pub(crate) fn block_of_ppn(&self, ppn: u32) -> u32 {
        if self.ppb_shift < 32 {
            ppn >> self.ppb_shift
        } else {
            ppn / self.pages_per_block
        }
    }
}

/// log2 of `n` if it is a power of two below 2^32, else 32: a divisor that is a shift when it
/// can be (the FTL's sizes, the engine's mapping unit).
pub(crate) fn pow2_shift(n: u64) -> u32 {
    if n.is_power_of_two() && n < 1 << 32 {
        n.trailing_zeros()
    } else {
        32
    }
}

/// Planes in channel-first order: consecutive entries sit on different channels, then chips,
/// dies and planes, so round-robin allocation spreads consecutive pages over all channels.
/// Plane numbering is canonical: ((channel · chips + chip) · dies + die) · planes + plane.
pub(super) fn stripe_order(channels: u32, chips: u32, dies: u32, planes: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity((channels * chips * dies * planes) as usize);
    for pl in 0..planes {
        for d in 0..dies {
            for c in 0..chips {
                for ch in 0..channels {
                    out.push(((ch * chips + c) * dies + d) * planes + pl);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::config::DeviceConfig;
    use crate::ftl::map::Ftl;

    /// By shift or by division, a page's block and plane are the quotients.
    #[test]
    fn block_and_plane_of_a_page() {
        for sets in [
            vec![],
            vec!["geometry.pages_per_block=48".to_string()],
            vec!["geometry.blocks_per_plane=24".to_string()],
        ] {
            let cfg = DeviceConfig::from_preset("tiny", &sets).expect("tiny");
            let f = Ftl::new(&cfg).expect("ftl");
            let (ppb, bpp) = (f.pages_per_block(), f.blocks_per_plane());
            for ppn in 0..f.planes() * bpp * ppb {
                assert_eq!(f.block_of_ppn(ppn), ppn / ppb, "{sets:?}");
                assert_eq!(f.plane_of_ppn(ppn), ppn / ppb / bpp, "{sets:?}");
            }
        }
    }
}
