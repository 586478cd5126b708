//! ECC decoding of one page read (issue 63): hard decoding, read-retry steps, soft tiers.
//!
//! A codeword of `b` bits read at raw bit error rate `r` holds Poisson(λ = b·r) bit errors
//! (the binomial's limit: `b` is thousands, `r` below 10⁻¹). A decoding attempt that corrects
//! up to `t` errors fails the page if any of its `c` codewords holds more:
//! `P_fail = 1 − (1 − P(X > t))^c`. The attempts, in order:
//! - the first read, decoded hard (`ecc_bits`);
//! - `retry_steps` re-reads at shifted read voltages, step `i` at λ·(`retry_floor` +
//!   (1 − `retry_floor`)·`retry_factor`^i), decoded hard;
//! - the soft tiers at the last retry's voltages, each correcting more (`soft[i].ecc_bits`).
//!
//! Their failure probabilities fall along the list, so one uniform draw `u` per read decides
//! them all: attempt `i` fails when `u < P_fail(i)` — a read that fails an attempt failed every
//! one before it, and each attempt fails with exactly its probability. The number of failing
//! attempts gives the retries and tiers a read takes, or an uncorrectable read when all fail.
//!
//! The probabilities are tabulated over λ on a grid of [`STEPS_PER_OCTAVE`] points an octave,
//! read at the grid point at or above λ (0.5 % more errors at most): a read costs a logarithm
//! and a few comparisons instead of Poisson tails.

use statrs::distribution::{DiscreteCDF, Poisson};

use crate::config::ReliabilityConfig;

/// Grid points per doubling of λ.
pub const STEPS_PER_OCTAVE: f64 = 128.0;

/// Below this failure probability of the first attempt a read is clean for every draw (draws
/// are multiples of 2⁻⁵³ above 0).
const NEGLIGIBLE: f64 = 1.0 / (1u64 << 60) as f64;

/// What decoding a page read took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Decode {
    /// Read-retry steps (re-reads at shifted voltages).
    pub retries: u8,
    /// Soft tiers run (the last of them succeeded unless `uncorrectable`).
    pub soft: u8,
    /// Every attempt failed: the read returns an uncorrectable error.
    pub uncorrectable: bool,
}

impl Decode {
    pub const CLEAN: Decode = Decode {
        retries: 0,
        soft: 0,
        uncorrectable: false,
    };

    #[inline]
    pub fn clean(self) -> bool {
        self == Self::CLEAN
    }
}

/// The decoder's attempts and their failure probabilities over λ.
#[derive(Debug, Clone)]
pub struct Ecc {
    /// Bits a codeword, codewords a page.
    bits: f64,
    codewords: f64,
    /// Each attempt's λ factor and correctable errors.
    attempts: Vec<(f64, u32)>,
    retry_steps: u8,
    /// The soft tiers' extra reads and decode times, ns.
    pub(super) soft: Vec<(u32, u64)>,
    /// log2 λ of the grid's first point; at or below it a read is clean ([`NEGLIGIBLE`]).
    lo: f64,
    /// Grid points; past the last every attempt fails.
    points: usize,
    /// `table[g * attempts + i]`: attempt `i`'s failure probability at grid point `g`.
    table: Vec<f32>,
    /// `sure[g]`: the leading attempts of grid point `g`'s row that fail for every draw (their
    /// probability 1 in the table), which a read skips.
    sure: Vec<u8>,
}

impl Ecc {
    pub fn new(cfg: &ReliabilityConfig, page_size: u32) -> Self {
        let mut ecc = Self::grid(cfg, page_size);
        let n = ecc.attempts.len();
        ecc.table = (0..ecc.points)
            .flat_map(|g| {
                let lambda = ecc.grid_lambda(g);
                (0..n).map(move |i| (lambda, i))
            })
            .map(|(lambda, i)| ecc.p_fail(lambda, i) as f32)
            .collect();
        ecc.sure = ecc
            .table
            .chunks(n)
            .map(|row| row.iter().take_while(|&&p| p >= 1.0).count() as u8)
            .collect();
        ecc
    }

    /// The decoder's attempts and grid, without its table: enough for [`Ecc::table_bytes`]
    /// (the memory estimate builds no table).
    pub fn grid(cfg: &ReliabilityConfig, page_size: u32) -> Self {
        let hard = cfg.ecc_bits;
        let step =
            |i: u32| cfg.retry_floor + (1.0 - cfg.retry_floor) * cfg.retry_factor.powi(i as i32);
        let last = step(cfg.retry_steps);
        let mut attempts: Vec<(f64, u32)> =
            (0..=cfg.retry_steps).map(|i| (step(i), hard)).collect();
        attempts.extend(cfg.soft.iter().map(|s| (last, s.ecc_bits)));
        let mut ecc = Ecc {
            bits: cfg.codeword_bits(page_size),
            codewords: f64::from(cfg.codewords(page_size)),
            attempts,
            retry_steps: cfg.retry_steps as u8,
            soft: cfg
                .soft
                .iter()
                .map(|s| (s.reads, crate::config::us_to_ns(s.decode_us)))
                .collect(),
            lo: 0.0,
            points: 0,
            table: Vec::new(),
            sure: Vec::new(),
        };
        // The grid: from where the first attempt's failures are negligible to where the last
        // attempt fails for every draw.
        let mut lo = (f64::from(hard) + 1.0).log2();
        while lo > -40.0 && ecc.p_fail(lo.exp2(), 0) > NEGLIGIBLE {
            lo -= 1.0;
        }
        let n = ecc.attempts.len();
        let mut hi = lo + 1.0;
        while hi < 40.0 && ecc.p_fail(hi.exp2(), n - 1) < 1.0 - f64::EPSILON {
            hi += 1.0;
        }
        ecc.lo = lo;
        ecc.points = ((hi - lo) * STEPS_PER_OCTAVE) as usize + 1;
        ecc
    }

    /// Expected bit errors a codeword at `rber` (λ at the first attempt's voltages).
    #[inline]
    pub fn lambda(&self, rber: f64) -> f64 {
        rber * self.bits
    }

    /// The largest λ at which every read is clean.
    #[inline]
    pub fn clean_below(&self) -> f64 {
        self.lo.exp2()
    }

    /// λ at grid point `g`.
    pub fn grid_lambda(&self, g: usize) -> f64 {
        (self.lo + g as f64 / STEPS_PER_OCTAVE).exp2()
    }

    /// Attempt `i`'s exact failure probability for a page read at first-attempt λ `lambda`.
    pub fn p_fail(&self, lambda: f64, i: usize) -> f64 {
        let (factor, t) = self.attempts[i];
        let l = lambda * factor;
        if l <= 0.0 {
            return 0.0;
        }
        let tail = Poisson::new(l).map_or(1.0, |p| p.sf(u64::from(t)));
        -(self.codewords * (-tail).ln_1p()).exp_m1()
    }

    /// Bytes of the table (the memory estimate).
    pub fn table_bytes(&self) -> usize {
        self.points * (self.attempts.len() * std::mem::size_of::<f32>() + 1)
    }

    /// The attempts: `retry_steps + 1` hard decodes, then the soft tiers.
    pub fn attempts(&self) -> usize {
        self.attempts.len()
    }

    /// What a read at first-attempt λ `lambda` takes for the draw `u` in (0, 1], from the
    /// table (the grid point at or above `lambda`).
    #[inline]
    pub fn decode(&self, lambda: f64, u: f64) -> Decode {
        self.decode_at(self.grid_point(lambda), u)
    }

    /// The grid point a read at λ `lambda` is decoded at: 0 when it is clean for every draw
    /// (at or below [`Ecc::clean_below`]), past the table's last when every attempt fails.
    #[inline]
    pub fn grid_point(&self, lambda: f64) -> usize {
        let x = (lambda.log2() - self.lo) * STEPS_PER_OCTAVE;
        if x.is_nan() || x <= 0.0 {
            0
        } else {
            (x.ceil() as usize).min(self.points)
        }
    }

    /// The largest λ decoded at grid point `g` (infinite past the table).
    pub fn ceiling(&self, g: usize) -> f64 {
        if g >= self.points {
            f64::INFINITY
        } else {
            self.grid_lambda(g)
        }
    }

    /// What a read decoded at grid point `g` ([`Ecc::grid_point`]) takes for the draw `u`.
    #[inline]
    pub fn decode_at(&self, g: usize, u: f64) -> Decode {
        if g == 0 {
            return Decode::CLEAN;
        }
        let n = self.attempts.len();
        if g >= self.points {
            return self.outcome(n);
        }
        // The probabilities fall along the row, so the failing attempts are a prefix: those
        // that fail for every draw are skipped, and the scan from there ends within an attempt
        // or two (each attempt's probability is far below the one before).
        let row = &self.table[g * n..(g + 1) * n];
        let sure = usize::from(self.sure[g]);
        self.outcome(
            sure + row[sure..]
                .iter()
                .take_while(|&&p| u < f64::from(p))
                .count(),
        )
    }

    /// [`Ecc::decode`] from the exact probabilities (tests).
    pub fn decode_exact(&self, lambda: f64, u: f64) -> Decode {
        let n = (0..self.attempts.len())
            .take_while(|&i| u < self.p_fail(lambda, i))
            .count();
        self.outcome(n)
    }

    /// The outcome of `failed` leading attempts failing.
    fn outcome(&self, failed: usize) -> Decode {
        let r = usize::from(self.retry_steps);
        if failed <= r {
            Decode {
                retries: failed as u8,
                ..Decode::CLEAN
            }
        } else {
            Decode {
                retries: r as u8,
                soft: (failed - r).min(self.soft.len()) as u8,
                uncorrectable: failed == self.attempts.len(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ecc() -> Ecc {
        Ecc::new(&ReliabilityConfig::default(), 4096)
    }

    #[test]
    fn attempts_fail_less_along_the_list() {
        let e = ecc();
        assert_eq!(e.attempts(), 8 + 1 + 2);
        for g in (0..e.points).step_by(97) {
            let l = e.grid_lambda(g);
            for i in 1..e.attempts() {
                assert!(e.p_fail(l, i) <= e.p_fail(l, i - 1), "{l} {i}");
            }
        }
    }

    #[test]
    fn failure_is_the_poisson_tail_over_the_page() {
        let e = ecc();
        // λ = 30 against t = 40, four 1 KiB codewords a 4 KiB page.
        let tail = Poisson::new(30.0).unwrap().sf(40);
        let want = 1.0 - (1.0 - tail).powi(4);
        assert!((e.p_fail(30.0, 0) / want - 1.0).abs() < 1e-9);
        // The first retry sees floor + (1 − floor)·factor = 0.3 + 0.7·0.5 of the errors.
        let tail = Poisson::new(30.0 * 0.65).unwrap().sf(40);
        let want = 1.0 - (1.0 - tail).powi(4);
        assert!((e.p_fail(30.0, 1) / want - 1.0).abs() < 1e-9, "{tail}");
    }

    /// The tier boundaries: just under attempt `i`'s failure probability the read fails it,
    /// just over it the read stops there — on the table as exactly as from the Poisson tails.
    #[test]
    fn tier_boundaries_are_exact() {
        let e = ecc();
        // A λ where the first hard decodes surely fail and the later ones may not: λ = 130
        // reads at 44.7 on the fourth retry and at 39.4 from the eighth (the floor, 0.3).
        let g = ((130f64.log2() - e.lo) * STEPS_PER_OCTAVE).ceil() as usize;
        let l = e.grid_lambda(g);
        let mut seen = 0;
        for i in 0..e.attempts() {
            let p = f64::from(e.table[g * e.attempts() + i]);
            if p <= 1e-300 || p >= 1.0 {
                continue;
            }
            seen += 1;
            let below = e.decode(l, p * (1.0 - 1e-6));
            let above = e.decode(l, p * (1.0 + 1e-6));
            assert_eq!(below, e.outcome(i + 1), "attempt {i}");
            assert_eq!(above, e.outcome(i), "attempt {i}");
            assert_eq!(below, e.decode_exact(l, p * (1.0 - 1e-6)));
            assert_eq!(above, e.decode_exact(l, p * (1.0 + 1e-6)));
        }
        assert!(seen >= 2, "λ {l} crosses too few attempts");
        // The outcomes by failures: retries first, then the tiers, then uncorrectable.
        assert_eq!(
            e.outcome(3),
            Decode {
                retries: 3,
                ..Decode::CLEAN
            }
        );
        assert_eq!(
            e.outcome(9),
            Decode {
                retries: 8,
                soft: 1,
                uncorrectable: false
            }
        );
        assert_eq!(
            e.outcome(11),
            Decode {
                retries: 8,
                soft: 2,
                uncorrectable: true
            }
        );
    }

    #[test]
    fn the_estimate_is_the_tables_size_without_building_it() {
        let cfg = ReliabilityConfig::default();
        let e = Ecc::new(&cfg, 4096);
        let built = e.table.len() * std::mem::size_of::<f32>() + e.sure.len();
        assert_eq!(e.table_bytes(), built);
        let g = Ecc::grid(&cfg, 4096);
        assert!(g.table.is_empty());
        assert_eq!(g.table_bytes(), built);
    }

    #[test]
    fn clean_below_the_grid_and_lost_above_it() {
        let e = ecc();
        assert!(e
            .decode(e.clean_below(), 1e-300_f64.max(f64::MIN_POSITIVE))
            .clean());
        assert!(e.p_fail(e.clean_below(), 0) <= NEGLIGIBLE);
        let top = e.grid_lambda(e.points) * 2.0;
        assert!(e.decode(top, 1.0).uncorrectable);
    }
}
