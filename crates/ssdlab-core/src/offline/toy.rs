//! Toy problems of the paper's Table I (§IV-A): 8 blocks of 4 pages, traces of 46 writes whose
//! footprints span 15–29 logical pages, drawn from uniform, normal, exponential and gamma
//! distributions.
//!
//! The paper gives neither the distributions' parameters nor each trace's footprint, only the
//! range (15–29) and the cleaning each trace needs (optimal / Greedy internal writes: normal
//! 2 / 3, uniform and exponential 6 / 10, gamma 15 / 23). Cleaning load is set by the footprint
//! (live pages out of 32), so each distribution is drawn *conditioned on a footprint*: the
//! lightest trace (normal) at the range's low end, 15; the heaviest (gamma) at its high end,
//! 29; uniform and exponential, which need the same cleaning in the paper, both at 25, where
//! i.i.d. draws need 5.8–6.4 optimal internal writes on average (8 draws each, measured when
//! choosing; 22 gives 3.8–4.4, 27 gives 8.7–9.3). A trace is 46 independent draws over logical pages 0..31 (the
//! largest space below 32 physical pages), redrawn whole from the same seeded stream until its
//! footprint is the target; the distributions' parameters below put their unconditioned
//! footprints near the targets, so few redraws are needed.

use rand_distr::{Distribution, Exp, Gamma, Normal};
use serde::{Deserialize, Serialize};

use super::OfflineConfig;
use crate::error::{Result, SsdError};
use crate::rng::{self, Rng};

/// Writes per toy trace (Table I).
pub const TOY_WRITES: usize = 46;
/// Logical pages a toy trace may address: 31, the most below the 32 physical pages (§II: N <
/// T · N_p), so a footprint of 29 leaves two pages unused rather than needing every page hit.
pub const TOY_LOGICAL: u32 = 31;
/// ψ of the pruned search on the toys: N_p = 4, one sampled k (the last page). The paper leaves ψ
/// open; with ψ = N_p the pruned trees have 10^1–10^3 traverses, the paper's 45–429, while ψ = 2
/// gives 10^2–10^5 and ψ = 1 10^4–10^7, with best schedules within one draw of ψ = N_p's
/// (docs/offline.md, "ψ").
pub const TOY_PSI: u32 = 4;
/// Redraws of a toy trace before its footprint is declared unreachable.
const MAX_DRAWS: u32 = 1_000_000;

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
    /// Uniform over 0..31; footprint 25.
    Uniform,
    /// Normal, mean 15.5, standard deviation 4, rejected outside 0..31; footprint 15.
    Normal,
    /// Exponential with mean 20, rejected at 31 and above; footprint 25.
    Exponential,
    /// Gamma with shape 2 and scale 8 (mean 16), rejected at 31 and above; footprint 29.
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

    /// The footprint Table I's trace of this distribution is conditioned on (module docs).
    pub fn footprint(self) -> u32 {
        match self {
            ToyDistribution::Uniform | ToyDistribution::Exponential => 25,
            ToyDistribution::Normal => 15,
            ToyDistribution::Gamma => 29,
        }
    }
}

/// The device of Table I: 8 blocks × 4 pages, 31 logical pages, no prefill.
pub fn toy_config() -> OfflineConfig {
    OfflineConfig {
        blocks: 8,
        pages_per_block: 4,
        logical_pages: TOY_LOGICAL,
        prefill: false,
    }
}

/// A seeded toy trace of `writes` page writes with exactly `footprint` distinct pages.
pub fn toy_trace(
    dist: ToyDistribution,
    writes: usize,
    footprint: u32,
    seed: u64,
) -> Result<Vec<u32>> {
    if footprint == 0 || footprint > TOY_LOGICAL || footprint as usize > writes {
        return Err(SsdError::Workload(format!(
            "toy footprint: must be in 1..={} and at most the writes ({writes}), got {footprint}",
            TOY_LOGICAL
        )));
    }
    let mut r = rng::stream(seed, "offline.toy");
    let hi = f64::from(TOY_LOGICAL);
    let bad = |e: String| SsdError::Workload(format!("toy {dist:?}: {e}"));
    let mut sample: Box<dyn FnMut(&mut crate::rng::SimRng) -> f64> = match dist {
        ToyDistribution::Uniform => Box::new(move |r| r.gen_range(0.0..hi)),
        ToyDistribution::Normal => {
            let d = Normal::new(hi / 2.0, 4.0).map_err(|e| bad(e.to_string()))?;
            Box::new(move |r| d.sample(r))
        }
        ToyDistribution::Exponential => {
            let d = Exp::new(1.0 / 20.0).map_err(|e| bad(e.to_string()))?;
            Box::new(move |r| d.sample(r))
        }
        ToyDistribution::Gamma => {
            let d = Gamma::new(2.0, 8.0).map_err(|e| bad(e.to_string()))?;
            Box::new(move |r| d.sample(r))
        }
    };
    let mut out = Vec::with_capacity(writes);
    let mut seen = [false; TOY_LOGICAL as usize];
    for _ in 0..MAX_DRAWS {
        out.clear();
        seen.fill(false);
        while out.len() < writes {
            let x = sample(&mut r);
            if (0.0..hi).contains(&x) {
                out.push(x as u32);
                seen[x as usize] = true;
            }
        }
        if seen.iter().filter(|&&s| s).count() as u32 == footprint {
            return Ok(out);
        }
    }
    Err(SsdError::Workload(format!(
        "toy {}: no trace of {writes} writes with footprint {footprint} in {MAX_DRAWS} draws; \
         choose a footprint nearer the distribution's natural one ({})",
        <&str>::from(dist),
        dist.footprint()
    )))
}
