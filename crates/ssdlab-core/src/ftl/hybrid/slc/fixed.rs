//! `static`: a fixed SLC region and a fixed hot/cold threshold θ (the paper's "static scheme",
//! Yoo & Shin, HotStorage 2020, slide 6). Validation checks the region fits beside the logical
//! capacity.

use super::{CacheState, Decision, SlcPolicy};

pub struct Fixed {
    pub slc_blocks: u32,
    pub theta_pages: u64,
}

impl SlcPolicy for Fixed {
    fn decide(&mut self, _s: &CacheState) -> Decision {
        Decision {
            slc_blocks: self.slc_blocks,
            theta_pages: self.theta_pages,
            foreground_migration: true,
        }
    }
}
