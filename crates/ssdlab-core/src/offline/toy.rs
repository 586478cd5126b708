//! Toy problems of the seed's Table I (§IV-A): 8 blocks of 4 pages, traces of 46 writes whose
//! footprint is 15–29 logical pages, drawn from uniform, normal, exponential and gamma
//! distributions. The seed does not give the distributions' parameters; the ones below are
//! chosen so the footprints land in the seed's 15–29 range (checked by a test).

use rand_distr::{Distribution, Exp, Gamma, Normal};
use serde::{Deserialize, Serialize};

use super::OfflineConfig;
use crate::error::{Result, SsdError};
use crate::rng::{self, Rng};

/// Writes per toy trace (Table I).
pub const TOY_WRITES: usize = 46;
/// Logical pages a toy trace may address: 29, the largest footprint of Table I (< 32 pages).
pub const TOY_LOGICAL: u32 = 29;

/// The distribution of logical page numbers in a toy trace.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ToyDistribution {
    /// Uniform over 0..29.
    Uniform,
    /// Normal, mean 14.5, standard deviation 4.5, rejected outside 0..29.
    Normal,
    /// Exponential with mean 8, rejected at 29 and above.
    Exponential,
    /// Gamma with shape 2 and scale 6 (mean 12), rejected at 29 and above.
    Gamma,
}

crate::config::impl_registry!(ToyDistribution, "toy distribution", "--workload toy-NAME");

/// Exhaustive and pruned DFS run only on problems with at most this many physical pages and
/// page writes (Table I's are 32 and 46): their trees grow exponentially beyond.
pub const EXHAUSTIVE_LIMIT: u32 = 64;

impl ToyDistribution {
    pub const ALL: [ToyDistribution; 4] = [
        ToyDistribution::Uniform,
        ToyDistribution::Normal,
        ToyDistribution::Exponential,
        ToyDistribution::Gamma,
    ];
}

/// The device of Table I: 8 blocks × 4 pages, 29 logical pages, no prefill.
pub fn toy_config() -> OfflineConfig {
    OfflineConfig {
        blocks: 8,
        pages_per_block: 4,
        logical_pages: TOY_LOGICAL,
        prefill: false,
    }
}

/// A seeded toy trace of `writes` page writes.
pub fn toy_trace(dist: ToyDistribution, writes: usize, seed: u64) -> Result<Vec<u32>> {
    let mut r = rng::stream(seed, "offline.toy");
    let hi = f64::from(TOY_LOGICAL);
    let bad = |e: String| SsdError::Workload(format!("toy {dist:?}: {e}"));
    let sample: Box<dyn FnMut(&mut crate::rng::SimRng) -> f64> = match dist {
        ToyDistribution::Uniform => Box::new(move |r| r.gen_range(0.0..hi)),
        ToyDistribution::Normal => {
            let d = Normal::new(hi / 2.0, 4.5).map_err(|e| bad(e.to_string()))?;
            Box::new(move |r| d.sample(r))
        }
        ToyDistribution::Exponential => {
            let d = Exp::new(1.0 / 8.0).map_err(|e| bad(e.to_string()))?;
            Box::new(move |r| d.sample(r))
        }
        ToyDistribution::Gamma => {
            let d = Gamma::new(2.0, 6.0).map_err(|e| bad(e.to_string()))?;
            Box::new(move |r| d.sample(r))
        }
    };
    let mut sample = sample;
    let mut out = Vec::with_capacity(writes);
    while out.len() < writes {
        let x = sample(&mut r);
        if (0.0..hi).contains(&x) {
            out.push(x as u32);
        }
    }
    Ok(out)
}
