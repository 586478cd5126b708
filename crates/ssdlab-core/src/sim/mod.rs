//! The replay loop: a request becomes page operations, the FTL maps and places them, the NAND
//! time lines time them, statistics record the completion, and the GC scheduler is called at
//! its decision points. A [`Simulation`] is a value; it owns its FTL, time lines, scheduler,
//! random streams, statistics and workload.

mod decision;
mod gc_driver;
mod options;
mod oracle;
mod precondition;
mod rain_io;
mod replay;
mod sampling;

pub use decision::{ExternalScheduler, Observation};
pub use gc_driver::{build_scheduler, BlockingGc, GcContext, GcScheduler, RequestInfo};
pub use options::{Precondition, Replay, SimOptions};

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::DeviceConfig;
use crate::config::Placement;
use crate::error::Result;
use crate::ftl::{Ftl, NEVER};
use crate::gc::SchedulerKind;
use crate::nand::Resources;
use crate::rain::{Rain, RainStats, WriteBuffer};
use crate::rng::{self, SimRng};
use crate::stats::{
    EraseStats, LatencyRecorder, RequestCounts, SampleCursor, SimResult, TimeSeries,
};
use crate::trace::RequestSource;

/// One simulation: device state, workload and statistics.
pub struct Simulation {
    cfg: DeviceConfig,
    opts: SimOptions,
    pub(crate) ftl: Ftl,
    pub(crate) res: Resources,
    pub(crate) scheduler: Box<dyn GcScheduler>,
    pub(crate) gc_rng: SimRng,
    source: Box<dyn RequestSource>,
    pub(crate) page_size: u64,
    pub(crate) logical_pages: u64,
    pub(crate) latency: LatencyRecorder,
    pub(crate) counts: RequestCounts,
    pub(crate) blocked: u64,
    /// Completion times of outstanding requests (closed loop).
    pub(crate) inflight: BinaryHeap<Reverse<u64>>,
    pub(crate) origin_ns: Option<u64>,
    pub(crate) last_arrival: u64,
    pub(crate) last_completion: u64,
    pub(crate) series: TimeSeries,
    pub(crate) cursor: SampleCursor,
    pub(crate) next_sample: u64,
    precondition_pages: u64,
    finished: bool,
    pub(crate) oracle: Option<oracle::OracleHints>,
    /// The next request, already fetched (see `advance`).
    lookahead: Option<Result<Option<(crate::trace::Request, u64, u64)>>>,
    /// RAIN parity (`[rain] rain = true`).
    pub(crate) rain: Option<Rain>,
    /// GC-tolerant flush buffer (`[rain] gtf = true`).
    pub(crate) wbuf: Option<WriteBuffer>,
    /// Time of the latest unit the GTF buffer flushed (flushes are issued in order).
    pub(crate) flush_clock: u64,
    pub(crate) unit_scratch: Vec<u32>,
    pub(crate) rebuild_scratch: Vec<u32>,
}

/// What the Tiny-Tail Flash layer did during the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct TtflashReport {
    pub rain: RainStats,
    pub parity_pages_written: u64,
    pub buffer_read_hits: u64,
    pub buffer_full_waits: u64,
    /// Mean data members of the GC stripes closed (N − 1 when none is short).
    pub mean_gc_stripe_members: f64,
    /// Requests that waited for GC, over all requests.
    pub blocked_fraction: f64,
}

impl Simulation {
    /// Build a simulation; preconditions the device if the options ask for it.
    pub fn new(
        cfg: DeviceConfig,
        opts: SimOptions,
        source: Box<dyn RequestSource>,
    ) -> Result<Self> {
        opts.validate()?;
        let (source, oracle) = if cfg.ftl.placement == Placement::Oracle {
            let (s, o) = oracle::OracleHints::build(
                source,
                u64::from(cfg.geometry.page_size),
                cfg.geometry.logical_pages(),
            )?;
            (s, Some(o))
        } else {
            (source, None)
        };
        let mut ftl = Ftl::new(&cfg)?;
        if opts.check_every > 0 {
            ftl.enable_program_checks();
        }
        let kind = SchedulerKind::parse(&cfg.gc.scheduler)
            .map_err(|m| crate::SsdError::config(&cfg.name, format!("gc.scheduler: {m}")))?;
        let res = Resources::new(&cfg);
        let page_size = u64::from(cfg.geometry.page_size);
        let g = &cfg.geometry;
        let per_channel = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
        let rain = cfg.rain.rain.then(|| {
            Rain::new(
                &mut ftl,
                g.channels,
                per_channel,
                cfg.gc.threshold_blocks,
                opts.check_every > 0,
            )
        });
        let wbuf = cfg.rain.gtf.then(|| {
            let cap = (cfg.rain.buffer_mib * 1048576.0 / page_size as f64) as usize;
            let unit = if cfg.rain.rain {
                g.channels as usize - 1
            } else {
                g.channels as usize
            };
            WriteBuffer::new(cap, cfg.rain.flush_at, unit, g.logical_pages() as usize)
        });
        let logical_pages = cfg.geometry.logical_pages();
        let mut sim = Simulation {
            gc_rng: rng::stream(opts.seed, "gc"),
            scheduler: build_scheduler(kind, &cfg, opts.seed)?,
            ftl,
            res,
            source,
            page_size,
            logical_pages,
            latency: LatencyRecorder::default(),
            counts: RequestCounts::default(),
            blocked: 0,
            inflight: BinaryHeap::new(),
            origin_ns: None,
            last_arrival: 0,
            last_completion: 0,
            series: TimeSeries::default(),
            cursor: SampleCursor::default(),
            next_sample: 0,
            precondition_pages: 0,
            finished: false,
            oracle,
            lookahead: None,
            rain,
            wbuf,
            flush_clock: 0,
            unit_scratch: Vec::new(),
            rebuild_scratch: Vec::new(),
            cfg,
            opts,
        };
        if let Some(p) = sim.opts.precondition {
            sim.precondition_pages = if sim.rain.is_some() {
                sim.precondition_rain(&p)?
            } else {
                precondition::run(&mut sim.ftl, &p, sim.opts.seed)?
            };
            sim.ftl.reset_counters();
        }
        let clock = sim.ftl.host_clock();
        if let Some(o) = &mut sim.oracle {
            o.set_offset(clock);
        }
        Ok(sim)
    }

    pub fn device(&self) -> &DeviceConfig {
        &self.cfg
    }
    pub fn options(&self) -> &SimOptions {
        &self.opts
    }
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    pub fn requests_done(&self) -> u64 {
        self.counts.total
    }

    /// What the Tiny-Tail Flash layer did (zeros on the plain device).
    pub fn ttflash_report(&self) -> TtflashReport {
        TtflashReport {
            rain: self.rain.as_ref().map(|r| r.stats).unwrap_or_default(),
            parity_pages_written: self.ftl.counters.parity_pages_written,
            buffer_read_hits: self.wbuf.as_ref().map_or(0, |b| b.read_hits),
            buffer_full_waits: self.wbuf.as_ref().map_or(0, |b| b.full_waits),
            mean_gc_stripe_members: self.rain.as_ref().map_or(0.0, |r| {
                if r.stats.gc_stripes == 0 {
                    0.0
                } else {
                    r.stats.gc_stripe_members as f64 / r.stats.gc_stripes as f64
                }
            }),
            blocked_fraction: if self.counts.total == 0 {
                0.0
            } else {
                self.blocked as f64 / self.counts.total as f64
            },
        }
    }

    /// Test mode: rebuild every protected live page from its stripe and verify its checksum.
    /// Every closed stripe's parity is also checked against its members. Returns (pages
    /// verified, live pages in the open host stripe, not yet protected).
    pub fn audit_parity(&mut self) -> Result<(u64, u64)> {
        match &mut self.rain {
            Some(r) => r.audit(&self.ftl),
            None => Ok((0, 0)),
        }
    }

    /// Replace the GC scheduler (for schedulers built outside the registry, e.g. with options).
    pub fn set_scheduler(&mut self, s: Box<dyn GcScheduler>) {
        self.scheduler = s;
    }

    /// The scheduler's name.
    pub fn scheduler_name(&self) -> &'static str {
        self.scheduler.name()
    }

    /// The scheduler's learned Q-table (`rlgc`, `rlgc-aggressive`), if it has one.
    pub fn q_table(&self) -> Option<&crate::rl::QTable> {
        self.scheduler.q_table()
    }

    /// Save the scheduler's Q-table as JSON (see `rl::QTable`); an error if it has none.
    pub fn save_q_table(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        match self.scheduler.q_table() {
            Some(t) => t.save(path),
            None => Err(crate::SsdError::Invalid(format!(
                "scheduler '{}' has no Q-table to save",
                self.scheduler.name()
            ))),
        }
    }

    /// Serve up to `budget` more requests. Returns true when the workload is exhausted (or the
    /// request limit reached).
    pub fn advance(&mut self, budget: u64) -> Result<bool> {
        let limit = self.opts.max_requests.unwrap_or(u64::MAX);
        let mut served = 0;
        while served < budget && !self.finished {
            if self.counts.total >= limit {
                self.finish();
                break;
            }
            // One request of lookahead: fetch (and range-check) the next request before serving
            // this one, and prefetch its first page's L2P entry — the dominant cache miss of a
            // host write. A fetch error is held back until its request's turn.
            let current = match self.lookahead.take() {
                Some(fetched) => fetched?,
                None => self.fetch()?,
            };
            match current {
                None => self.finish(),
                Some((req, first, pages)) => {
                    let next = self.fetch();
                    if let Ok(Some((_, next_first, _))) = &next {
                        self.ftl.prefetch_lpn(*next_first as u32);
                    }
                    self.lookahead = Some(next);
                    self.serve(req, first, pages)?;
                    served += 1;
                    if self.opts.check_every > 0 && self.counts.total % self.opts.check_every == 0 {
                        self.ftl.check_invariants().map_err(|m| {
                            crate::SsdError::Invalid(format!(
                                "FTL invariant broken after request {}: {m}",
                                self.counts.total
                            ))
                        })?;
                    }
                }
            }
        }
        Ok(self.finished)
    }

    /// The next request of the workload with its page range, checked against the logical space
    /// while the source still points at it (so errors name the right line).
    fn fetch(&mut self) -> Result<Option<(crate::trace::Request, u64, u64)>> {
        match self.source.next_request()? {
            None => Ok(None),
            Some(req) => {
                let (first, pages) = self.page_range(&req)?;
                self.check_arrival(&req)?;
                Ok(Some((req, first, pages)))
            }
        }
    }

    /// Run the whole workload.
    pub fn run(&mut self) -> Result<SimResult> {
        while !self.advance(1 << 20)? {}
        Ok(self.result())
    }

    fn finish(&mut self) {
        if !self.finished {
            self.finished = true;
            self.sample_now(true);
        }
    }

    /// The results so far.
    pub fn result(&self) -> SimResult {
        let c = self.ftl.counters;
        let (min, mean, max) = self.ftl.erase_stats();
        let host = c.host_pages_written;
        SimResult {
            device: self.cfg.name.clone(),
            workload: self.source.describe(),
            seed: self.opts.seed,
            timing: self.opts.timing,
            waf: if host == 0 {
                0.0
            } else {
                (host + c.gc_pages_copied) as f64 / host as f64
            },
            host_pages_written: host,
            host_pages_read: c.host_pages_read,
            gc_pages_copied: c.gc_pages_copied,
            erases: c.erases,
            erase_per_block: EraseStats { min, mean, max },
            gc_invocations: c.gc_victims,
            trimmed_pages: c.trimmed_pages,
            unmapped_reads: c.unmapped_reads,
            requests: self.counts,
            blocked_requests: self.blocked,
            sim_time_s: self.last_completion.max(self.last_arrival) as f64 / 1e9,
            gc_busy_s: self.res.gc_busy_ns as f64 / 1e9,
            latency_us: self.latency.report(),
            precondition_pages: self.precondition_pages,
            series: self.series.clone(),
        }
    }

    /// The oracle's next-write hint for the next host page write (NEVER without oracle).
    #[inline]
    pub(crate) fn next_write_hint(&mut self) -> u64 {
        match &mut self.oracle {
            Some(o) => o.next_hint(),
            None => NEVER,
        }
    }

    pub(crate) fn source_location(&self) -> Option<(String, u64)> {
        self.source.location()
    }

    /// The latency distribution (value µs, count) of one type (`None` = all), for CDF plots.
    pub fn latency_distribution(&self, op: Option<crate::trace::OpKind>) -> Vec<(f64, u64)> {
        self.latency.distribution(op)
    }
}
