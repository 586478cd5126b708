//! `dwa`: Micron's dynamic write acceleration (Micron, "Optimized client computing with dynamic
//! write acceleration", 2014; the seed's [4]). Every write goes to SLC mode (θ = ∞); the SLC
//! region is all the space the data leaves free, so it is the whole free space of an empty
//! drive and shrinks as the drive fills (SLC blocks beyond it are migrated); past a fill level
//! (`cache.dwa_off_fill`) the region is gone and writes go to QLC.
//!
//! Open values: the white paper gives no fill level in a form we could read (the figure with it
//! is lost to us); 0.9 is our assumption — the drive keeps accelerating across the seed's
//! 30–90 % utilisations up to the last one. How the free space is counted is ours too: blocks
//! the mapped data would need in QLC and the reserve are subtracted (`free_for_slc`).

use super::{CacheState, Decision, SlcPolicy};

pub struct Dwa {
    pub off_fill: f64,
}

impl SlcPolicy for Dwa {
    fn decide(&mut self, s: &CacheState) -> Decision {
        let fill = s.mapped_pages as f64 / s.logical_pages.max(1) as f64;
        let slc = if fill >= self.off_fill {
            0
        } else {
            s.free_for_slc().min(u64::from(u32::MAX)) as u32
        };
        Decision {
            slc_blocks: slc,
            theta_pages: u64::MAX,
        }
    }
}
