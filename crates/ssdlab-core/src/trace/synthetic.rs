//! Synthetic workload generators: uniform, hot/cold, Zipf and sequential address patterns over
//! `request_pages`-aligned slots of the first `footprint_fraction` of the logical space, with
//! the arrival processes of [`super::ArrivalSpec`]. Addresses and operations are drawn from
//! `rng::stream(seed, "workload")`, arrival times from `rng::stream(seed, "workload/arrival")`
//! so changing the arrival process leaves the address sequence unchanged.

use rand::distributions::Bernoulli;
use rand::Rng;
use rand_distr::{Distribution, Geometric, Zipf};

use super::arrival::ArrivalProcess;
use super::request::{OpKind, Request, RequestSource};
use super::spec::{Pattern, SyntheticSpec};
use crate::error::{Result, SsdError};
use crate::rng::{stream, SimRng};

/// A seeded generator yielding `spec.requests` requests.
pub struct Synthetic {
    spec: SyntheticSpec,
    rng: SimRng,
    arrival_rng: SimRng,
    arrival: ArrivalProcess,
    /// `read_fraction` and `hot_write_fraction` as samplers built once: `Rng::gen_bool(p)` builds
    /// the same `Bernoulli` on every call (≈ 26 instructions of a request), with the same draw.
    read: Bernoulli,
    hot_write: Bernoulli,
    slots: u64,
    slot_bytes: u64,
    hot_slots: u64,
    zipf: Option<Zipf<f64>>,
    /// Zipf rank scatter: rank k ↦ (k·mult + add) mod slots, a bijection since gcd(mult, slots) = 1.
    mult: u64,
    add: u64,
    cursor: u64,
    produced: u64,
    /// Variable sizes: extra 4 KiB units ~ Geometric, from `rng::stream(seed, "workload/size")`.
    size: Option<(Geometric, SimRng)>,
}

/// A probability as a sampler (`validate` has checked it; a bad one is an error, not a panic).
fn fraction(field: &str, p: f64) -> Result<Bernoulli> {
    Bernoulli::new(p).map_err(|e| SsdError::Workload(format!("{field}: {e}")))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Synthetic {
    pub fn new(
        spec: &SyntheticSpec,
        logical_bytes: u64,
        page_size: u64,
        seed: u64,
    ) -> Result<Self> {
        spec.validate()?;
        if page_size == 0 {
            return Err(SsdError::Workload("page_size: must be > 0".into()));
        }
        let pages = logical_bytes / page_size;
        let footprint = (pages as f64 * spec.footprint_fraction).floor() as u64;
        let slots = footprint / spec.request_pages;
        if slots == 0 {
            return Err(SsdError::Workload(format!(
                "request_pages: {} pages do not fit in the footprint of {footprint} pages ({} of {pages})",
                spec.request_pages, spec.footprint_fraction
            )));
        }
        let hot_slots = ((slots as f64 * spec.hot_space_fraction).round() as u64).min(slots);
        let zipf = match spec.pattern {
            Pattern::Zipf => Some(
                Zipf::new(slots, spec.zipf_theta)
                    .map_err(|e| SsdError::Workload(format!("zipf_theta: {e}")))?,
            ),
            _ => None,
        };
        // A multiplier near slots/φ, moved until coprime with slots: scatters neighbouring ranks.
        let mut mult = ((slots as f64 * 0.618_033_988_75) as u64).max(1) | 1;
        while gcd(mult, slots) != 1 {
            mult += 1;
        }
        Ok(Synthetic {
            spec: spec.clone(),
            rng: stream(seed, "workload"),
            arrival_rng: stream(seed, "workload/arrival"),
            arrival: ArrivalProcess::new(&spec.arrival)?,
            read: fraction("read_fraction", spec.read_fraction)?,
            hot_write: fraction("hot_write_fraction", spec.hot_write_fraction)?,
            slots,
            slot_bytes: spec.request_pages * page_size,
            hot_slots,
            zipf,
            mult: mult % slots.max(1),
            add: slots / 3,
            cursor: 0,
            produced: 0,
            size: match spec.mean_request_kib {
                // 1 + Geometric(p) units has mean 1/p.
                Some(m) => Some((
                    Geometric::new(4.0 / m)
                        .map_err(|e| SsdError::Workload(format!("mean_request_kib: {e}")))?,
                    stream(seed, "workload/size"),
                )),
                None => None,
            },
        })
    }

    /// The number of request-sized slots addressed.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The number of hot slots (hotcold: the first `hot_slots` slots).
    pub fn hot_slots(&self) -> u64 {
        self.hot_slots
    }

    fn next_slot(&mut self) -> u64 {
        match self.spec.pattern {
            Pattern::Uniform => self.rng.gen_range(0..self.slots),
            Pattern::Hotcold => {
                let (h, n) = (self.hot_slots, self.slots);
                let hot = h == n || (h > 0 && self.hot_write.sample(&mut self.rng));
                if hot {
                    self.rng.gen_range(0..h)
                } else {
                    self.rng.gen_range(h..n)
                }
            }
            Pattern::Zipf => {
                let k = self.zipf.as_ref().map_or(1.0, |z| z.sample(&mut self.rng));
                let rank = (k as u64).clamp(1, self.slots) - 1;
                ((u128::from(rank) * u128::from(self.mult) + u128::from(self.add))
                    % u128::from(self.slots)) as u64
            }
            Pattern::Sequential => {
                let s = self.cursor;
                self.cursor = (self.cursor + 1) % self.slots;
                s
            }
        }
    }
}

impl RequestSource for Synthetic {
    fn next_request(&mut self) -> Result<Option<Request>> {
        let mut r = Request {
            arrival_ns: 0,
            op: OpKind::Read,
            offset_bytes: 0,
            size_bytes: 0,
            fragment_follows: false,
            fua: false,
            preflush: false,
            placement: 0,
        };
        Ok(self.next_into(&mut r)?.then_some(r))
    }

    fn next_into(&mut self, out: &mut Request) -> Result<bool> {
        if self.produced >= self.spec.requests {
            return Ok(false);
        }
        self.produced += 1;
        out.op = if self.read.sample(&mut self.rng) {
            OpKind::Read
        } else {
            OpKind::Write
        };
        let slot = self.next_slot();
        out.arrival_ns = self.arrival.next_arrival(&mut self.arrival_rng);
        let offset_bytes = slot * self.slot_bytes;
        out.offset_bytes = offset_bytes;
        out.size_bytes = match &mut self.size {
            None => self.slot_bytes,
            Some((g, rng)) => (g.sample(rng).saturating_add(1).saturating_mul(4096))
                .min(self.slots * self.slot_bytes - offset_bytes),
        };
        out.fragment_follows = false;
        Ok(true)
    }

    fn describe(&self) -> String {
        format!(
            "synthetic {}: {} requests of {} B over {} slots, {:.0} % reads, arrivals {}",
            <&'static str>::from(self.spec.pattern),
            self.spec.requests,
            self.slot_bytes,
            self.slots,
            self.spec.read_fraction * 100.0,
            self.spec.arrival
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::arrival::ArrivalSpec;
    use super::*;

    const LOGICAL: u64 = 1 << 30; // 262,144 pages of 4 KiB

    fn gen(spec: &SyntheticSpec, seed: u64) -> Vec<Request> {
        let mut g = Synthetic::new(spec, LOGICAL, 4096, seed).unwrap();
        let mut v = Vec::new();
        while let Some(r) = g.next_request().unwrap() {
            v.push(r);
        }
        v
    }

    #[test]
    fn seeded_and_in_range_for_every_pattern() {
        for pattern in [
            Pattern::Uniform,
            Pattern::Hotcold,
            Pattern::Zipf,
            Pattern::Sequential,
        ] {
            let mut s = SyntheticSpec::new(pattern, 5_000);
            s.request_pages = 4;
            s.read_fraction = 0.3;
            s.footprint_fraction = 0.5;
            s.arrival = ArrivalSpec::Poisson { iops: 1000.0 };
            let a = gen(&s, 42);
            assert_eq!(a.len(), 5_000);
            assert_eq!(a, gen(&s, 42), "{pattern:?}");
            if pattern != Pattern::Sequential {
                assert_ne!(a, gen(&s, 43), "{pattern:?}");
            }
            for r in &a {
                assert_eq!(r.offset_bytes % (4 * 4096), 0);
                assert!(
                    r.offset_bytes + r.size_bytes <= LOGICAL / 2,
                    "{pattern:?} {r:?}"
                );
            }
            let reads = a.iter().filter(|r| r.op == OpKind::Read).count() as f64 / 5_000.0;
            assert!((reads - 0.3).abs() < 0.03, "{reads}");
            assert!(a.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
        }
    }

    #[test]
    fn hotcold_puts_r_of_writes_in_f_of_space() {
        let mut s = SyntheticSpec::new(Pattern::Hotcold, 50_000);
        s.hot_write_fraction = 0.9;
        s.hot_space_fraction = 0.1;
        let g = Synthetic::new(&s, LOGICAL, 4096, 7).unwrap();
        let hot_end = g.hot_slots() * 4096;
        assert!((g.hot_slots() as f64 / g.slots() as f64 - 0.1).abs() < 1e-4);
        let v = gen(&s, 7);
        let hot = v.iter().filter(|r| r.offset_bytes < hot_end).count() as f64 / v.len() as f64;
        assert!((hot - 0.9).abs() < 0.01, "{hot}");
    }

    #[test]
    fn zipf_is_skewed_and_scattered() {
        let mut s = SyntheticSpec::new(Pattern::Zipf, 50_000);
        s.zipf_theta = 1.0;
        let v = gen(&s, 9);
        let mut counts = std::collections::HashMap::<u64, u64>::new();
        for r in &v {
            *counts.entry(r.offset_bytes / 4096).or_default() += 1;
        }
        let mut c: Vec<(u64, u64)> = counts.into_iter().map(|(p, n)| (n, p)).collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        let top1pct: u64 = c.iter().take(2621).map(|x| x.0).sum();
        assert!(
            top1pct as f64 > 0.5 * v.len() as f64,
            "top 1 % of pages got {top1pct}"
        );
        // The two hottest pages are not neighbours.
        assert!(c[0].1.abs_diff(c[1].1) > 1, "{:?}", &c[..2]);
    }

    #[test]
    fn sequential_wraps_and_closed_arrivals_are_zero() {
        let mut s = SyntheticSpec::new(Pattern::Sequential, 5);
        s.footprint_fraction = 3.0 * 4096.0 / LOGICAL as f64;
        let v: Vec<u64> = gen(&s, 1).iter().map(|r| r.offset_bytes / 4096).collect();
        assert_eq!(v, [0, 1, 2, 0, 1]);
        assert!(gen(&s, 1).iter().all(|r| r.arrival_ns == 0));
        let mut s = SyntheticSpec::new(Pattern::Uniform, 5);
        s.request_pages = 1 << 20;
        assert!(Synthetic::new(&s, LOGICAL, 4096, 1)
            .err()
            .unwrap()
            .to_string()
            .contains("request_pages"));
    }
}
