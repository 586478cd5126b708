//! Latency recording in HDR histograms (Gil Tene's HdrHistogram, via the `hdrhistogram` crate):
//! values in nanoseconds at three significant digits, so every reported percentile up to
//! p99.9999 is exact to three significant digits without keeping the samples.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::trace::OpKind;

/// An HDR histogram plus exact count, sum and max (the histogram's own max and mean are
/// rounded to its bucket; the exact ones make idle-device latencies compare exactly).
#[derive(Debug, Clone)]
struct Track {
    hist: Histogram<u64>,
    sum: u128,
    max: u64,
}

impl Track {
    fn new() -> Self {
        // 3 significant digits, auto-resizing range.
        let mut hist = Histogram::new(3).expect("3 significant figures is a valid HDR precision");
        hist.auto(true);
        Track {
            hist,
            sum: 0,
            max: 0,
        }
    }
    #[inline]
    fn record(&mut self, v: u64) {
        // With auto-resize, recording cannot fail for u64 values.
        let _ = self.hist.record(v);
        self.sum += u128::from(v);
        self.max = self.max.max(v);
    }
}

/// One histogram per operation type. The one over all requests is their merge, made when asked
/// for (recording each request once instead of twice: the same buckets, sum and max, so the same
/// figures; the timed preset spent ~2 % of its time in the second record).
#[derive(Debug, Clone)]
pub struct LatencyRecorder {
    read: Track,
    write: Track,
    trim: Track,
    flush: Track,
}

/// One latency distribution (a flow's queue waits, say), summarised like a type's.
#[derive(Debug, Clone)]
pub struct LatencyTrack(Track);

impl Default for LatencyTrack {
    fn default() -> Self {
        LatencyTrack(Track::new())
    }
}

impl LatencyTrack {
    /// Record a value in ns (values of 0 are kept: a wait of nothing is a wait).
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.0.record(ns);
    }
    /// Record `n` values of `ns` at once.
    pub fn record_n(&mut self, ns: u64, n: u64) {
        if n > 0 {
            // With auto-resize, recording cannot fail for u64 values.
            let _ = self.0.hist.record_n(ns, n);
            self.0.sum += u128::from(ns) * u128::from(n);
            self.0.max = self.0.max.max(ns);
        }
    }

    pub fn summary(&self) -> LatencySummary {
        summarize(&self.0)
    }
}

/// The percentiles every result reports, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub p99_999: f64,
    pub p99_9999: f64,
    pub max: f64,
}

/// Summaries by type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencyReport {
    pub read: LatencySummary,
    pub write: LatencySummary,
    pub all: LatencySummary,
    /// Flush commands (present when the workload has them).
    #[serde(skip_serializing_if = "LatencySummary::is_empty")]
    pub flush: LatencySummary,
}

impl LatencySummary {
    /// No request of this type.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder {
            read: Track::new(),
            write: Track::new(),
            trim: Track::new(),
            flush: Track::new(),
        }
    }
}

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, op: OpKind, latency_ns: u64) {
        let v = latency_ns.max(1);
        let h = match op {
            OpKind::Read => &mut self.read,
            OpKind::Write => &mut self.write,
            OpKind::Trim => &mut self.trim,
            OpKind::Flush => &mut self.flush,
        };
        h.record(v);
    }

    /// All requests: the per-type histograms merged (same precision, so the same buckets as
    /// recording every request into one more histogram).
    fn all(&self) -> Track {
        let mut all = Track::new();
        for t in [&self.read, &self.write, &self.trim, &self.flush] {
            // With auto-resize, adding a histogram of the same precision cannot fail.
            let _ = all.hist.add(&t.hist);
            all.sum += t.sum;
            all.max = all.max.max(t.max);
        }
        all
    }

    pub fn report(&self) -> LatencyReport {
        LatencyReport {
            read: summarize(&self.read),
            write: summarize(&self.write),
            all: summarize(&self.all()),
            flush: summarize(&self.flush),
        }
    }

    /// Histogram buckets of one type as (value_us, count) pairs, for plots and CDFs.
    pub fn distribution(&self, op: Option<OpKind>) -> Vec<(f64, u64)> {
        let all;
        let h = match op {
            Some(OpKind::Read) => &self.read,
            Some(OpKind::Write) => &self.write,
            Some(OpKind::Trim) => &self.trim,
            Some(OpKind::Flush) => &self.flush,
            None => {
                all = self.all();
                &all
            }
        };
        h.hist
            .iter_recorded()
            .map(|v| (v.value_iterated_to() as f64 / 1000.0, v.count_at_value()))
            .collect()
    }
}

/// A latency distribution as plots need it: `count[i]` requests took at most `latency_us[i]`
/// (and more than `latency_us[i - 1]`), values increasing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Distribution {
    pub latency_us: Vec<f64>,
    pub count: Vec<u64>,
}

/// Distributions by type, for the experiments' CCDF plots.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Distributions {
    pub read: Distribution,
    pub write: Distribution,
    pub all: Distribution,
}

/// Bins per decade of [`LatencyRecorder::coarse`]: bin edges 10^(1/200) apart, so a value is
/// rounded up by at most 1.2 %, below what a log–log CCDF can show, while a run spanning six
/// decades (µs to s) keeps at most 1,200 points — the histogram's own 3-digit buckets can
/// number ~20,000 per type, too many to keep per run in an experiment's JSON. Counts are
/// exact, so the CCDF's tail (down to 1 / count) is too.
pub const COARSE_BINS_PER_DECADE: f64 = 200.0;

/// The coarse bin of a latency in µs ([`COARSE_BINS_PER_DECADE`] per decade, from 1 ns up).
#[inline]
pub fn coarse_bin(us: f64) -> i64 {
    (us.max(1e-3).log10() * COARSE_BINS_PER_DECADE).ceil() as i64
}

impl LatencyRecorder {
    /// Every type's distribution in logarithmic bins ([`COARSE_BINS_PER_DECADE`]); a bin's
    /// value is its highest recorded value.
    pub fn coarse(&self) -> Distributions {
        let one = |t: &Track| {
            let mut d = Distribution::default();
            let mut bin = i64::MIN;
            for v in t.hist.iter_recorded() {
                let us = v.value_iterated_to().min(t.max) as f64 / 1000.0;
                let b = coarse_bin(us);
                if b == bin {
                    *d.latency_us.last_mut().expect("a bin was opened") = us;
                    *d.count.last_mut().expect("a bin was opened") += v.count_at_value();
                } else {
                    bin = b;
                    d.latency_us.push(us);
                    d.count.push(v.count_at_value());
                }
            }
            d
        };
        Distributions {
            read: one(&self.read),
            write: one(&self.write),
            all: one(&self.all()),
        }
    }
}

/// Percentiles are the HDR histogram's (the highest value equivalent to the quantile's bucket,
/// within 0.1 %); count, mean and max are exact.
fn summarize(t: &Track) -> LatencySummary {
    let h = &t.hist;
    if h.is_empty() {
        return LatencySummary::default();
    }
    let q = |x: f64| (h.value_at_quantile(x).min(t.max)) as f64 / 1000.0;
    LatencySummary {
        count: h.len(),
        mean: (t.sum as f64 / h.len() as f64) / 1000.0,
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        p99_9: q(0.999),
        p99_99: q(0.9999),
        p99_999: q(0.99999),
        p99_9999: q(0.999999),
        max: t.max as f64 / 1000.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarse_bins_keep_every_count_and_round_values_up_by_at_most_a_bin() {
        let mut r = LatencyRecorder::default();
        for i in 1..=200_000u64 {
            // 1 µs .. ~1 s, denser at the bottom: 20,000+ distinct 3-digit buckets.
            r.record(OpKind::Write, i * i / 40);
        }
        r.record(OpKind::Read, 7_000);
        let d = r.coarse();
        assert_eq!(d.write.count.iter().sum::<u64>(), 200_000);
        assert_eq!(d.all.count.iter().sum::<u64>(), 200_001);
        assert_eq!(
            (d.read.latency_us.clone(), d.read.count.clone()),
            (vec![7.0], vec![1])
        );
        assert!(d.write.latency_us.len() <= 7 * COARSE_BINS_PER_DECADE as usize);
        assert!(d.write.latency_us.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(*d.write.latency_us.last().unwrap(), r.report().write.max);
        // The bins' quantiles are the fine histogram's within one bin.
        let fine = r.distribution(Some(OpKind::Write));
        let step = 10f64.powf(1.0 / COARSE_BINS_PER_DECADE);
        for q in [0.5, 0.9, 0.99, 0.999] {
            let at = |v: &[(f64, u64)]| {
                let target = (q * 200_000.0) as u64;
                let mut seen = 0;
                v.iter()
                    .find(|(_, c)| {
                        seen += c;
                        seen >= target
                    })
                    .unwrap()
                    .0
            };
            let coarse: Vec<(f64, u64)> = d
                .write
                .latency_us
                .iter()
                .copied()
                .zip(d.write.count.iter().copied())
                .collect();
            let (f, c) = (at(&fine), at(&coarse));
            assert!(
                c >= f && c <= f * step * 1.001,
                "q {q}: fine {f}, coarse {c}"
            );
        }
    }

    #[test]
    fn percentiles_are_three_significant_digits() {
        let mut r = LatencyRecorder::default();
        for i in 1..=100_000u64 {
            r.record(OpKind::Read, i * 1000); // 1 µs .. 100 ms
        }
        let s = r.report().read;
        assert_eq!(s.count, 100_000);
        for (got, want) in [
            (s.p50, 50_000.0),
            (s.p99, 99_000.0),
            (s.p99_9, 99_900.0),
            (s.max, 100_000.0),
        ] {
            assert!((got - want).abs() / want < 1e-3, "got {got}, want {want}");
        }
        assert_eq!(r.report().write.count, 0);
        assert_eq!(r.report().all.count, 100_000);
    }
}
