//! `dwa`: Micron's dynamic write acceleration (Micron, "Optimized client computing with dynamic
//! write acceleration", 2014; the paper's \[4\]), and the static-plus-dynamic caches of today's
//! client QLC drives built the same way (e.g. Samsung's 870 QVO "Intelligent TurboWrite": 6 GB
//! static + up to 36 or 72 GB dynamic). Every write goes to SLC mode (θ = ∞). The region is a
//! static part (`cache.slc_blocks`, out of over-provisioning) plus a dynamic part: the space the
//! data leaves free, capped at `cache.dwa_max_dynamic_blocks` (0: no cap), which shrinks as the
//! drive fills and is gone past a fill level (`cache.dwa_off_fill`; SLC blocks beyond the
//! region are migrated). A full region sends writes straight to QLC (no foreground migration):
//! the SLC data moves in idle time (`cache.idle_migration`) or when the free pool needs it.
//!
//! Open values: the white paper gives no fill level in a form we could read (the figure with it
//! is lost to us); 0.9 is our assumption — the drive keeps accelerating across the paper's
//! 30–90 % utilisations up to the last one. How the free space is counted is ours too: blocks
//! the mapped data would need in QLC and the reserve are subtracted (`free_for_slc`).

use super::{CacheState, Decision, SlcPolicy};

pub struct Dwa {
    pub off_fill: f64,
    pub static_blocks: u32,
    pub max_dynamic_blocks: u32,
}

impl SlcPolicy for Dwa {
    fn decide(&mut self, s: &CacheState) -> Decision {
        let fill = s.mapped_pages as f64 / s.logical_pages.max(1) as f64;
        let free = s
            .free_for_slc()
            .saturating_sub(u64::from(self.static_blocks));
        let dynamic = if fill >= self.off_fill {
            0
        } else if self.max_dynamic_blocks > 0 {
            free.min(u64::from(self.max_dynamic_blocks))
        } else {
            free
        };
        let slc = (u64::from(self.static_blocks) + dynamic).min(u64::from(u32::MAX)) as u32;
        Decision {
            slc_blocks: slc,
            theta_pages: u64::MAX,
            foreground_migration: false,
        }
    }
}
