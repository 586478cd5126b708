//! Running response-time percentiles for percentile-based rewards (Kang et al. TECS 2017 §5.2:
//! thresholds t1, t2, t3 at the 70th, 90th and 99th percentiles of the response times so far),
//! kept in an HDR histogram (2 significant digits) instead of a sorted list. The thresholds are
//! recomputed every `refresh` records (every record while fewer than `refresh` are recorded).

use hdrhistogram::Histogram;

/// Running percentiles of a stream of durations (ns).
#[derive(Debug, Clone)]
pub struct RunningPercentiles {
    hist: Histogram<u64>,
    quantiles: Vec<f64>,
    thresholds: Vec<u64>,
    refresh: u64,
}

impl RunningPercentiles {
    /// `percentiles` in (0, 100), increasing; `refresh` ≥ 1.
    pub fn new(percentiles: &[f64], refresh: u64) -> Self {
        // Bounds 1 ns .. 2^42 ns (≈ 73 min) with 2 significant digits cannot fail.
        let hist =
            Histogram::new_with_bounds(1, 1 << 42, 2).expect("constant HDR bounds are valid");
        RunningPercentiles {
            hist,
            quantiles: percentiles.iter().map(|p| p / 100.0).collect(),
            thresholds: vec![0; percentiles.len()],
            refresh: refresh.max(1),
        }
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn record(&mut self, ns: u64) {
        self.hist.saturating_record(ns.max(1));
        let n = self.hist.len();
        if n < self.refresh || n % self.refresh == 0 {
            for (t, q) in self.thresholds.iter_mut().zip(&self.quantiles) {
                *t = self.hist.value_at_quantile(*q);
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
}
