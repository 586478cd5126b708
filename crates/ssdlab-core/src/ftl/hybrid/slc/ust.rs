//! `ust`: utilisation-aware self-tuning (the paper's \[3\], "Utilization-aware self-tuning design
//! for TLC flash storage devices", 2016; the paper's slide 6–7 "dynamic scheme"): the SLC
//! region's size and θ are a function of space utilisation, read from a table tuned offline
//! on representative workloads (`cache.ust_table`, rows sorted by `up_to`).
//!
//! The paper's table is a lost figure (slide 7). Ours is tuned the way the slide says drives
//! tune theirs: `ssdlab experiment slc --tune-ust` runs `static` at every size level and θ of
//! the dynamic policies on the seeded stand-in workloads at each utilisation and keeps, per
//! utilisation, the setting with the best mean write throughput (see `config/cache.rs` for the
//! default table and the run that produced it). Migration in the foreground, as `static`.

use super::{CacheState, Decision, SlcPolicy};
use crate::config::UstRow;

pub struct Ust {
    rows: Vec<UstRow>,
}

impl Ust {
    /// From a table validation has checked (`CacheConfig::check_policies`).
    pub fn new(rows: &[UstRow]) -> Self {
        Ust {
            rows: rows.to_vec(),
        }
    }
}

impl SlcPolicy for Ust {
    fn decide(&mut self, s: &CacheState) -> Decision {
        let u = s.utilisation();
        let last = self.rows[self.rows.len() - 1];
        let row = self
            .rows
            .iter()
            .find(|r| u <= r.up_to)
            .copied()
            .unwrap_or(last);
        Decision {
            slc_blocks: (s.free_for_slc() as f64 * row.slc_fraction).floor() as u32,
            theta_pages: s.theta_pages_of(row.theta_kib),
            foreground_migration: true,
        }
    }
}
