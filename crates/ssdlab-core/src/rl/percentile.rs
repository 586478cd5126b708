//! Running response-time percentiles for percentile-based rewards (Kang et al. TECS 2017 §5.2:
//! thresholds t1, t2, t3 at the 70th, 90th and 99th percentiles of the response times so far),
//! kept in an HDR histogram (2 significant digits) instead of a sorted list. The thresholds are
//! recomputed every `refresh` records (every record while fewer than `refresh` are recorded).
//!
//! Each threshold is `Histogram::value_at_quantile`'s answer, found without its scan of the
//! counts from the first bin (three scans of ~2,000 bins every 64 records were ~5 % of an
//! `rlgc` run): the threshold's bin and the number of records below it are kept, the count below
//! grows as records fall under it, and a refresh moves the bin by the few bins the quantile
//! has moved since the last one.

use hdrhistogram::Histogram;

/// Running percentiles of a stream of durations (ns).
#[derive(Debug, Clone)]
pub struct RunningPercentiles {
    hist: Histogram<u64>,
    quantiles: Vec<f64>,
    thresholds: Vec<u64>,
    /// Per quantile: the lowest value of its bin at the last refresh, and the records below it.
    bins: Vec<Bin>,
    refresh: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Bin {
    lowest: u64,
    below: u64,
}

impl RunningPercentiles {
    /// `percentiles` in (0, 100), increasing (`gc.rl.reward_percentiles` is checked so); `refresh`
    /// ≥ 1.
    pub fn new(percentiles: &[f64], refresh: u64) -> Self {
        // Bounds 1 ns .. 2^42 ns (≈ 73 min) with 2 significant digits cannot fail.
        let hist =
            Histogram::new_with_bounds(1, 1 << 42, 2).expect("constant HDR bounds are valid");
        RunningPercentiles {
            hist,
            quantiles: percentiles.iter().map(|p| p / 100.0).collect(),
            thresholds: vec![0; percentiles.len()],
            bins: vec![Bin::default(); percentiles.len()],
            refresh: refresh.max(1),
        }
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn record(&mut self, ns: u64) {
        let ns = ns.max(1);
        self.hist.saturating_record(ns);
        // Bins partition the values in order, so `ns` is in a lower bin exactly when it is below
        // the bin's lowest value (a value past the last bin is counted in the last bin: never).
        for b in &mut self.bins {
            b.below += u64::from(ns < b.lowest);
        }
        let n = self.hist.len();
        if n < self.refresh || n % self.refresh == 0 {
            for ((t, b), q) in self
                .thresholds
                .iter_mut()
                .zip(&mut self.bins)
                .zip(&self.quantiles)
            {
                *t = settle(&self.hist, b, *q);
            }
        }
    }

    /// The current thresholds (ns), one per percentile (0 before any record).
    pub fn thresholds(&self) -> &[u64] {
        &self.thresholds
    }

    /// The level of `ns`: the number of thresholds it exceeds (0 ..= percentiles).
    pub fn level(&self, ns: u64) -> usize {
        self.thresholds.iter().filter(|t| ns > **t).count()
    }
}

/// Moves `b` to the first bin whose cumulative count reaches the quantile's target count
/// (`value_at_quantile`'s definition: ⌈q·n⌉, at least 1) and returns that bin's highest value,
/// as `value_at_quantile` does for q > 0. `hist` holds at least one record.
fn settle(hist: &Histogram<u64>, b: &mut Bin, q: f64) -> u64 {
    let target = ((q.min(1.0) * hist.len() as f64).ceil() as u64).max(1);
    // Down while the records below the bin already reach the target (there are some, so the bin
    // is not the first).
    while b.below >= target {
        b.lowest = hist.lowest_equivalent(b.lowest - 1);
        b.below -= hist.count_at(b.lowest);
    }
    // Up while the bin does not reach it (target ≤ n: the highest record's bin does; never past
    // it, even were that arithmetic wrong).
    let top = hist.max();
    loop {
        let here = hist.count_at(b.lowest);
        if b.below + here >= target || b.lowest >= top {
            break;
        }
        b.below += here;
        b.lowest = hist.next_non_equivalent(b.lowest);
    }
    hist.highest_equivalent(b.lowest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_the_distribution() {
        let mut p = RunningPercentiles::new(&[70.0, 90.0, 99.0], 64);
        for v in 1..=10_000u64 {
            p.record(v * 1000);
        }
        let t = p.thresholds();
        for (got, want) in t.iter().zip([7_000_000.0, 9_000_000.0, 9_900_000.0]) {
            assert!((*got as f64 / want - 1.0).abs() < 0.01, "{got} vs {want}");
        }
        assert_eq!(p.level(1000), 0);
        assert_eq!(p.level(8_000_000), 1);
        assert_eq!(p.level(9_950_000), 3);
    }

    /// The kept bins give `value_at_quantile`'s thresholds exactly, at every refresh, for streams
    /// that drift up and down (the bins move both ways), with values of 0, of 1 and past the
    /// histogram's top, and for refresh periods of 1, 5 and 64.
    #[test]
    fn thresholds_are_value_at_quantile() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for (percentiles, refresh) in [
            (&[70.0, 90.0, 99.0][..], 64),
            (&[50.0, 99.9][..], 5),
            (&[1.0, 99.99][..], 1),
        ] {
            let mut p = RunningPercentiles::new(percentiles, refresh);
            let mut reference = Histogram::<u64>::new_with_bounds(1, 1 << 42, 2).unwrap();
            let mut want = vec![0; percentiles.len()];
            for i in 0..30_000u64 {
                // Three phases: small values, then large ones, then small again.
                let scale = if (10_000..20_000).contains(&i) {
                    40
                } else {
                    16
                };
                let ns = match rng.gen_range(0..100) {
                    0 => 0,
                    1 => 1,
                    2 => u64::MAX >> rng.gen_range(0..20),
                    _ => {
                        let bits = rng.gen_range(1..scale);
                        rng.gen_range(0..1u64 << bits)
                    }
                };
                p.record(ns);
                reference.saturating_record(ns.max(1));
                let n = reference.len();
                if n < refresh || n % refresh == 0 {
                    for (w, q) in want.iter_mut().zip(percentiles) {
                        *w = reference.value_at_quantile(q / 100.0);
                    }
                }
                assert_eq!(
                    p.thresholds(),
                    &want[..],
                    "record {i} ({percentiles:?}, refresh {refresh})"
                );
            }
        }
    }
}
