//! `none`: every block in QLC mode, no SLC region (the paper's baseline, Yoo & Shin,
//! HotStorage 2020, slide 13).

use super::{CacheState, Decision, SlcPolicy};

pub struct NoCache;

impl SlcPolicy for NoCache {
    fn decide(&mut self, _s: &CacheState) -> Decision {
        Decision {
            slc_blocks: 0,
            theta_pages: 0,
            foreground_migration: true,
        }
    }
}
