//! Arrival-time processes of synthetic workloads (their spec, [`ArrivalSpec`], and the process
//! that draws the times): closed (all 0), fixed interval, Poisson and
//! on-off bursty (the ON/OFF source model of e.g. Willinger et al., "Self-similarity through
//! high-variability", SIGCOMM'95: heavy-tailed OFF periods give bursty, self-similar traffic).

use rand_distr::{Distribution, Exp, Geometric, LogNormal, Pareto};
use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};
use crate::rng::SimRng;

/// When requests arrive.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Default,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
#[strum(serialize_all = "kebab-case")]
pub enum ArrivalSpec {
    /// All arrivals at 0: replayed closed-loop or timing-free by the caller.
    #[default]
    Closed,
    /// One request every `interval_us`.
    Fixed { interval_us: f64 },
    /// Poisson arrivals at `iops` requests per second.
    Poisson { iops: f64 },
    /// Bursty on-off arrivals: bursts of a geometric number of requests (mean
    /// `burst_requests`) with exponential gaps (mean `burst_interval_us`), separated by idle
    /// periods of mean `idle_mean_us` drawn from `idle`.
    #[serde(alias = "on_off", alias = "onoff")]
    OnOff {
        burst_requests: f64,
        burst_interval_us: f64,
        idle_mean_us: f64,
        #[serde(default)]
        idle: IdleDist,
    },
}

crate::config::impl_registry!(ArrivalSpec, "arrival process", "--arrival", default);

/// The distribution of idle periods of on-off arrivals (its mean is `idle_mean_us`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Default,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(tag = "dist", rename_all = "kebab-case", deny_unknown_fields)]
#[strum(serialize_all = "kebab-case")]
pub enum IdleDist {
    /// Exponential idle periods with the given mean.
    #[default]
    Exponential,
    /// Pareto with this shape α (> 1 for a finite mean); scale = mean·(α−1)/α.
    Pareto { shape: f64 },
    /// Log-normal with this σ; μ = ln(mean) − σ²/2.
    Lognormal { sigma: f64 },
    /// Every idle period lasts exactly the mean.
    Fixed,
}

crate::config::impl_registry!(IdleDist, "idle distribution", "--idle-dist", default);

/// As a user would write it (run headers, result descriptions): `poisson, 2000 IOPS`.
impl std::fmt::Display for ArrivalSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrivalSpec::Closed => write!(f, "closed"),
            ArrivalSpec::Fixed { interval_us } => write!(f, "fixed, every {interval_us} µs"),
            ArrivalSpec::Poisson { iops } => write!(f, "poisson, {iops} IOPS"),
            ArrivalSpec::OnOff {
                burst_requests,
                burst_interval_us,
                idle_mean_us,
                idle,
            } => write!(
                f,
                "on-off, bursts of {burst_requests} requests {burst_interval_us} µs apart, idle {idle_mean_us} µs mean ({idle})"
            ),
        }
    }
}

impl std::fmt::Display for IdleDist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdleDist::Pareto { shape } => write!(f, "pareto, shape {shape}"),
            IdleDist::Lognormal { sigma } => write!(f, "lognormal, sigma {sigma}"),
            other => write!(f, "{}", <&'static str>::from(other)),
        }
    }
}

impl ArrivalSpec {
    pub fn validate(&self) -> Result<()> {
        let pos = |name: &str, v: f64, min_ok: f64, strict: bool| -> Result<()> {
            let ok = v.is_finite() && if strict { v > min_ok } else { v >= min_ok };
            if ok {
                Ok(())
            } else {
                let rel = if strict { ">" } else { ">=" };
                Err(SsdError::Workload(format!(
                    "arrival.{name}: must be a finite number {rel} {min_ok}, got {v}"
                )))
            }
        };
        match *self {
            ArrivalSpec::Closed => Ok(()),
            ArrivalSpec::Fixed { interval_us } => pos("interval_us", interval_us, 0.0, false),
            ArrivalSpec::Poisson { iops } => pos("iops", iops, 0.0, true),
            ArrivalSpec::OnOff {
                burst_requests,
                burst_interval_us,
                idle_mean_us,
                idle,
            } => {
                pos("burst_requests", burst_requests, 1.0, false)?;
                pos("burst_interval_us", burst_interval_us, 0.0, false)?;
                pos("idle_mean_us", idle_mean_us, 0.0, true)?;
                match idle {
                    IdleDist::Pareto { shape } => pos("idle.shape", shape, 1.0, true),
                    IdleDist::Lognormal { sigma } => pos("idle.sigma", sigma, 0.0, true),
                    IdleDist::Exponential | IdleDist::Fixed => Ok(()),
                }
            }
        }
    }
}

enum Idle {
    Exp(Exp<f64>),
    Pareto(Pareto<f64>),
    LogNormal(LogNormal<f64>),
    Fixed(f64),
}

enum Kind {
    Closed,
    Fixed(f64),
    Poisson(Exp<f64>),
    OnOff {
        burst_len: Geometric,
        gap: Option<Exp<f64>>,
        idle: Idle,
    },
}

/// Yields arrival times in nanoseconds, starting at 0.
pub(crate) struct ArrivalProcess {
    kind: Kind,
    now_ns: f64,
    started: bool,
    left_in_burst: u64,
}

fn dist_err(what: &str, e: impl std::fmt::Display) -> SsdError {
    SsdError::Workload(format!("arrival.{what}: {e}"))
}

impl ArrivalProcess {
    /// Builds the process of a validated spec.
    pub(crate) fn new(spec: &ArrivalSpec) -> Result<Self> {
        spec.validate()?;
        let kind = match *spec {
            ArrivalSpec::Closed => Kind::Closed,
            ArrivalSpec::Fixed { interval_us } => Kind::Fixed(interval_us * 1e3),
            ArrivalSpec::Poisson { iops } => {
                Kind::Poisson(Exp::new(iops / 1e9).map_err(|e| dist_err("iops", e))?)
            }
            ArrivalSpec::OnOff {
                burst_requests,
                burst_interval_us,
                idle_mean_us,
                idle,
            } => {
                let mean = idle_mean_us * 1e3;
                let idle = match idle {
                    IdleDist::Exponential => {
                        Idle::Exp(Exp::new(1.0 / mean).map_err(|e| dist_err("idle_mean_us", e))?)
                    }
                    IdleDist::Pareto { shape } => Idle::Pareto(
                        Pareto::new(mean * (shape - 1.0) / shape, shape)
                            .map_err(|e| dist_err("idle.shape", e))?,
                    ),
                    IdleDist::Lognormal { sigma } => Idle::LogNormal(
                        LogNormal::new(mean.ln() - sigma * sigma / 2.0, sigma)
                            .map_err(|e| dist_err("idle.sigma", e))?,
                    ),
                    IdleDist::Fixed => Idle::Fixed(mean),
                };
                // Requests per burst N = 1 + Geometric(p) (failures before success), mean 1/p.
                let burst_len = Geometric::new(1.0 / burst_requests)
                    .map_err(|e| dist_err("burst_requests", e))?;
                let gap = if burst_interval_us > 0.0 {
                    Some(
                        Exp::new(1.0 / (burst_interval_us * 1e3))
                            .map_err(|e| dist_err("burst_interval_us", e))?,
                    )
                } else {
                    None
                };
                Kind::OnOff {
                    burst_len,
                    gap,
                    idle,
                }
            }
        };
        Ok(ArrivalProcess {
            kind,
            now_ns: 0.0,
            started: false,
            left_in_burst: 0,
        })
    }

    /// The gap before the next request in ns, and whether it is an idle (OFF) period.
    pub(crate) fn next_gap(&mut self, rng: &mut SimRng) -> (f64, bool) {
        match &self.kind {
            Kind::Closed => (0.0, false),
            Kind::Fixed(g) => (*g, false),
            Kind::Poisson(e) => (e.sample(rng), false),
            Kind::OnOff {
                burst_len,
                gap,
                idle,
            } => {
                if self.left_in_burst > 0 {
                    self.left_in_burst -= 1;
                    (gap.as_ref().map_or(0.0, |g| g.sample(rng)), false)
                } else {
                    self.left_in_burst = burst_len.sample(rng); // the rest of this new burst
                    let d = match idle {
                        Idle::Exp(d) => d.sample(rng),
                        Idle::Pareto(d) => d.sample(rng),
                        Idle::LogNormal(d) => d.sample(rng),
                        Idle::Fixed(m) => *m,
                    };
                    (d, true)
                }
            }
        }
    }

    /// The next arrival time (ns). The first request arrives at 0 and opens the first burst.
    pub(crate) fn next_arrival(&mut self, rng: &mut SimRng) -> u64 {
        if !self.started {
            self.started = true;
            if let Kind::OnOff { burst_len, .. } = &self.kind {
                self.left_in_burst = burst_len.sample(rng);
            }
            return 0;
        }
        if let Kind::Closed = self.kind {
            // Every gap is 0: the clock stays at 0 (and `f64::round` is a libm call per request on
            // the baseline x86-64 target; docs/speed.md, "Closed-loop arrivals skip the clock").
            return 0;
        }
        let (g, _) = self.next_gap(rng);
        self.now_ns += g;
        if self.now_ns >= u64::MAX as f64 {
            u64::MAX
        } else {
            self.now_ns.round() as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn idle_and_burst_stats(idle: IdleDist, n: usize) -> (f64, f64, f64) {
        let spec = ArrivalSpec::OnOff {
            burst_requests: 8.0,
            burst_interval_us: 5.0,
            idle_mean_us: 1000.0,
            idle,
        };
        let mut p = ArrivalProcess::new(&spec).unwrap();
        let mut rng = stream(3, "workload/arrival");
        p.next_arrival(&mut rng);
        let (mut idle_sum, mut idles, mut gap_sum, mut gaps) = (0.0, 0usize, 0.0, 0usize);
        let mut reqs = 1usize;
        while idles < n {
            let (g, is_idle) = p.next_gap(&mut rng);
            reqs += 1;
            if is_idle {
                idle_sum += g;
                idles += 1;
            } else {
                gap_sum += g;
                gaps += 1;
            }
        }
        (
            idle_sum / idles as f64 / 1e3,
            gap_sum / gaps as f64 / 1e3,
            reqs as f64 / (idles + 1) as f64,
        )
    }

    #[test]
    fn on_off_idle_gaps_have_the_configured_mean() {
        // 20,000 idle periods: the standard error of the mean is < 1 % for exponential and
        // lognormal(σ=1); Pareto α=3 has finite variance (sd/mean = 0.58), so < 0.5 %.
        for (idle, tol) in [
            (IdleDist::Exponential, 0.03),
            (IdleDist::Lognormal { sigma: 1.0 }, 0.05),
            (IdleDist::Pareto { shape: 3.0 }, 0.05),
            (IdleDist::Fixed, 1e-9),
        ] {
            let (idle_mean, gap_mean, burst) = idle_and_burst_stats(idle, 20_000);
            assert!(
                (idle_mean / 1000.0 - 1.0).abs() < tol,
                "{idle:?}: idle mean {idle_mean}"
            );
            assert!(
                (gap_mean / 5.0 - 1.0).abs() < 0.05,
                "{idle:?}: gap mean {gap_mean}"
            );
            assert!(
                (burst / 8.0 - 1.0).abs() < 0.05,
                "{idle:?}: burst mean {burst}"
            );
        }
    }

    #[test]
    fn poisson_and_fixed_rates() {
        let mut rng = stream(1, "workload/arrival");
        let mut p = ArrivalProcess::new(&ArrivalSpec::Poisson { iops: 10_000.0 }).unwrap();
        let last = (0..100_000)
            .map(|_| p.next_arrival(&mut rng))
            .last()
            .unwrap();
        assert!((last as f64 / 1e9 - 10.0).abs() < 0.2, "{last}");
        let mut p = ArrivalProcess::new(&ArrivalSpec::Fixed { interval_us: 2.5 }).unwrap();
        let v: Vec<u64> = (0..3).map(|_| p.next_arrival(&mut rng)).collect();
        assert_eq!(v, [0, 2500, 5000]);
    }
}
