//! Wear: the erase-count distribution over blocks (every run) and wear levelling's counts
//! (`[wear_leveling]` on; issue 63).

use serde::Serialize;

/// Erase counts per block in the measured phase (after preconditioning), as `erases` counts
/// them: `mean` × blocks = `erases`. `cov` (standard deviation over mean) and `max_over_mean`
/// are the spread wear levelling narrows (0 and 1 when even; 0 when nothing was erased);
/// `deciles` are the counts at 0 %, 10 %, …, 100 % of the blocks sorted by count.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EraseStats {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
    pub cov: f64,
    pub max_over_mean: f64,
    pub deciles: Vec<u32>,
}

impl EraseStats {
    /// The statistics of `counts` (one per block).
    pub fn of(mut counts: Vec<u32>) -> Self {
        if counts.is_empty() {
            return EraseStats::default();
        }
        counts.sort_unstable();
        let n = counts.len() as f64;
        let mean = counts.iter().map(|&c| f64::from(c)).sum::<f64>() / n;
        let var = counts
            .iter()
            .map(|&c| (f64::from(c) - mean).powi(2))
            .sum::<f64>()
            / n;
        let max = counts[counts.len() - 1];
        let (cov, max_over_mean) = if mean > 0.0 {
            (var.sqrt() / mean, f64::from(max) / mean)
        } else {
            (0.0, 0.0)
        };
        let last = counts.len() - 1;
        EraseStats {
            min: counts[0],
            mean,
            max,
            cov,
            max_over_mean,
            deciles: (0..=10).map(|d| counts[last * d / 10]).collect(),
        }
    }
}

/// What wear levelling did in the measured phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WearLevelingReport {
    /// Dynamic levelling on (frontiers open the least-worn free block).
    pub dynamic: bool,
    /// Static levelling on (Chang, Hsieh and Kuo's SW Leveler).
    #[serde(rename = "static")]
    pub static_on: bool,
    /// Blocks the static leveler had collected, and the valid pages they held (their copies,
    /// counted in `gc_pages_copied` too).
    pub static_victims: u64,
    pub static_pages_copied: u64,
    /// Times every flag of the block erasing table was set and the table reset.
    pub table_resets: u64,
}

/// Bad blocks and the end of life (`[endurance]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct EnduranceReport {
    /// Blocks bad from the factory, worn out at `retire_pe`, and retired by a failed erase.
    pub factory_bad_blocks: u64,
    pub worn_out_blocks: u64,
    pub failed_blocks: u64,
    /// Blocks retired after a failed program (`program_fail_probability`), and the valid pages
    /// moved off them (in `gc_pages_copied` too).
    pub program_failed_blocks: u64,
    pub program_failed_pages_moved: u64,
    /// Good blocks left, and those beyond what the logical space fills (the spare left).
    pub good_blocks: u64,
    pub spare_blocks: u64,
    /// Host bytes written over the drive's life (preconditioning included).
    pub host_bytes_written: u64,
    /// Host bytes written when the drive reached its end of life (`None`: it has not).
    pub end_of_life_host_bytes: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_known_counts() {
        let s = EraseStats::of(vec![2, 4, 4, 4, 5, 5, 7, 9]);
        assert_eq!((s.min, s.max), (2, 9));
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.cov, 2.0 / 5.0);
        assert_eq!(s.max_over_mean, 9.0 / 5.0);
        assert_eq!(s.deciles, vec![2, 2, 4, 4, 4, 4, 5, 5, 5, 7, 9]);
        let even = EraseStats::of(vec![3; 10]);
        assert_eq!((even.cov, even.max_over_mean), (0.0, 1.0));
        assert_eq!(EraseStats::of(vec![0; 4]).cov, 0.0);
    }
}

/// What read reclaim and retention refresh did in the measured phase (`reliability.reclaim_*`,
/// `reliability.refresh_days`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ReclaimReport {
    /// Times the error model asked for a block, and the asks not queued (the block open, a
    /// victim already, empty, or queued already).
    pub asked: u64,
    pub skipped: u64,
    /// Blocks reclaimed and the valid pages they held (their copies, counted in
    /// `gc_pages_copied` too).
    pub blocks: u64,
    pub pages_copied: u64,
    /// Retention refresh (`reliability.refresh_days`): blocks moved for their age and the valid
    /// pages they held (in `gc_pages_copied` too).
    pub refresh_blocks: u64,
    pub refresh_pages_copied: u64,
}
