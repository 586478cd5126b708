//! SLC-cache policies (`cache.slc`, the [`SlcPolicyKind`] family): how big the SLC region is
//! and which writes go to it, decided from the device's state every decision period. A new
//! policy is one file here plus its variant in `config/cache.rs`; the compiler then asks for its
//! arm in [`build`].

mod dwa;
mod fixed;
mod none;

use crate::config::{CacheConfig, SlcPolicyKind};

/// What a policy sees at a decision point (whole device).
#[derive(Debug, Clone, Copy)]
pub struct CacheState {
    pub logical_pages: u64,
    /// Logical pages holding data (written and not trimmed).
    pub mapped_pages: u64,
    pub blocks: u64,
    pub planes: u32,
    pub pages_per_block: u32,
    pub slc_pages_per_block: u32,
    /// Blocks per plane the device keeps out of either region (the reclaim trigger's free
    /// blocks and the open QLC block).
    pub reserve_per_plane: u32,
    /// Blocks in SLC mode now.
    pub slc_blocks: u32,
}

impl CacheState {
    /// The most blocks an SLC region can have now: whatever the mapped data, were it all in
    /// QLC, and the reserve leave (a block in SLC mode holds no QLC data).
    pub fn free_for_slc(&self) -> u64 {
        let qlc = self.mapped_pages.div_ceil(u64::from(self.pages_per_block));
        self.blocks
            .saturating_sub(qlc)
            .saturating_sub(u64::from(self.reserve_per_plane) * u64::from(self.planes))
    }
}

/// A policy's decision: the SLC region's size (whole device, blocks), θ (pages: a write
/// request of at most θ pages goes to SLC), and whether a full region migrates before the next
/// SLC write (the seed's simulator) or sends writes straight to QLC (drives with a dynamic
/// cache), migrating in idle time or when the free pool needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub slc_blocks: u32,
    pub theta_pages: u64,
    pub foreground_migration: bool,
}

/// An SLC-cache policy.
pub trait SlcPolicy: Send {
    fn decide(&mut self, s: &CacheState) -> Decision;
}

/// The policy `cfg.slc` names (`theta_pages`: `cache.theta_kib` in pages).
pub fn build(cfg: &CacheConfig, theta_pages: u64) -> Box<dyn SlcPolicy> {
    match cfg.slc.unwrap_or(SlcPolicyKind::None) {
        SlcPolicyKind::None => Box::new(none::NoCache),
        SlcPolicyKind::Static => Box::new(fixed::Fixed {
            slc_blocks: cfg.slc_blocks,
            theta_pages,
        }),
        SlcPolicyKind::Dwa => Box::new(dwa::Dwa {
            off_fill: cfg.dwa_off_fill,
            static_blocks: cfg.slc_blocks,
            max_dynamic_blocks: cfg.dwa_max_dynamic_blocks,
        }),
    }
}
