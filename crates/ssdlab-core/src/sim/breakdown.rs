//! The read-latency breakdown (issue 16): each read request's latency split into the controller
//! overhead, its critical page's [`ReadParts`] and, with a write cache, the DRAM time of a read
//! it served (`cache`: what the request took beyond its flash pages), summed per logarithmic
//! latency bin, so that the parts of the reads in any tail (at or above p99, p99.9, …) can be
//! told apart — where the tail comes from: queueing behind host work, behind GC, on the
//! channel, rebuilds, or the cache's DRAM.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::flash::ReadParts;
use crate::stats::coarse_bin;

/// Sums of one latency bin.
#[derive(Debug, Clone, Default)]
struct Bin {
    reads: u64,
    rebuilt: u64,
    /// The controller overhead, then [`ReadParts::NAMES`], then the cache's DRAM, then the
    /// retries', ns.
    parts: [u64; 9],
}

/// Read requests' latency parts, by latency bin.
#[derive(Debug, Clone, Default)]
pub struct ReadBreakdown {
    bins: BTreeMap<i64, Bin>,
    reads: u64,
    /// Some read's time went to the cache's DRAM (the `cache` part is reported then).
    cached: bool,
    /// Some read retried (the `retry` part is reported then).
    retried: bool,
}

/// The tails reported besides all reads: reads at or above each quantile's latency bin.
const TAILS: [(&str, f64); 3] = [("p99", 0.99), ("p99_9", 0.999), ("p99_99", 0.9999)];

impl ReadBreakdown {
    /// One read request of `latency_ns`, `controller_ns` of it the controller's, its critical
    /// flash page's `parts` (all zero when the cache served every page), the rest the cache's.
    pub fn add(&mut self, latency_ns: u64, controller_ns: u64, parts: ReadParts) {
        let cache = latency_ns.saturating_sub(controller_ns + parts.total());
        self.cached |= cache > 0;
        self.retried |= parts.retry > 0;
        let bin = self
            .bins
            .entry(coarse_bin(latency_ns as f64 / 1000.0))
            .or_default();
        bin.reads += 1;
        bin.rebuilt += u64::from(parts.rebuilt);
        bin.parts[0] += controller_ns;
        for (s, v) in bin.parts[1..7].iter_mut().zip(parts.values()) {
            *s += v;
        }
        bin.parts[7] += cache;
        bin.parts[8] += parts.retry;
        self.reads += 1;
    }

    /// `{"all": {...}, "p99": {...}, "p99_9": {...}, "p99_99": {...}}`, each with `reads`
    /// (in the tail: at or above the quantile's bin, ≤ 1.2 % wide), `rebuilt` (how many of
    /// them were rebuilt from their stripe) and `mean_us` per part (`controller` and
    /// [`ReadParts::NAMES`]; the means add up to the tail's mean latency).
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("all".into(), self.summary(self.bins.values()));
        for (name, q) in TAILS {
            // (1 − 0.99 is 0.010000000000000009: trim the rounding before the ceiling.)
            let want = ((1.0 - q) * self.reads as f64 - 1e-9).ceil().max(1.0) as u64;
            let mut seen = 0u64;
            let mut from = i64::MAX;
            for (&b, bin) in self.bins.iter().rev() {
                if seen >= want {
                    break;
                }
                seen += bin.reads;
                from = b;
            }
            out.insert(
                name.into(),
                self.summary(self.bins.range(from..).map(|(_, v)| v)),
            );
        }
        Value::Object(out)
    }

    fn summary<'a>(&self, bins: impl Iterator<Item = &'a Bin>) -> Value {
        let mut sum = Bin::default();
        for b in bins {
            sum.reads += b.reads;
            sum.rebuilt += b.rebuilt;
            for (s, v) in sum.parts.iter_mut().zip(b.parts) {
                *s += v;
            }
        }
        let shown = std::iter::once("controller")
            .chain(ReadParts::NAMES)
            .chain(["cache", "retry"])
            .zip(sum.parts)
            .enumerate()
            .filter(|&(i, _)| (i != 7 || self.cached) && (i != 8 || self.retried))
            .map(|(_, p)| p);
        let mean: Map<String, Value> = shown
            .map(|(n, v)| {
                let m = if sum.reads == 0 {
                    0.0
                } else {
                    v as f64 / sum.reads as f64 / 1000.0
                };
                (n.to_string(), json!(m))
            })
            .collect();
        json!({"reads": sum.reads, "rebuilt": sum.rebuilt, "mean_us": mean})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_hold_the_slowest_reads_and_means_add_up() {
        let mut b = ReadBreakdown::default();
        let fast = ReadParts {
            array: 40_000,
            transfer: 10_000,
            ..Default::default()
        };
        let slow = ReadParts {
            wait_gc: 950_000,
            ..fast
        };
        for _ in 0..990 {
            b.add(51_000, 1_000, fast);
        }
        for _ in 0..10 {
            b.add(1_001_000, 1_000, slow);
        }
        let v = b.to_json();
        assert_eq!(v["all"]["reads"], 1000);
        assert_eq!(v["p99"]["reads"], 10);
        assert_eq!(v["p99_9"]["reads"], 10);
        let m = &v["p99"]["mean_us"];
        assert_eq!(m["wait_gc"], 950.0);
        let total: f64 = m
            .as_object()
            .unwrap()
            .values()
            .map(|x| x.as_f64().unwrap())
            .sum();
        assert!((total - 1001.0).abs() < 1e-9, "{total}");
        assert_eq!(v["all"]["rebuilt"], 0);
    }
}
