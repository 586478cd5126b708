//! The replay loop: a request becomes a page range, the device model serves it (mapping,
//! placement, GC, NAND timing are the model's), statistics record the completion. The engine
//! knows only the [`FtlLayer`] seam and never asks which model it runs. A [`Simulation`] is a
//! value; it owns its device model, workload and statistics.

mod breakdown;
mod decision;
mod host;
mod memory;
mod options;
mod replay;
mod sampling;

pub use crate::ftl::rain::TtflashReport;
pub use crate::ftl::Precondition;
pub use breakdown::ReadBreakdown;
pub use host::{GcLabel, IostatRow, DEVICE_NAME, GC_LABEL_THRESHOLD};
pub use memory::{
    available_memory, check_memory, check_memory_within, memory_budget, memory_estimate,
    parse_size, Available, MEMORY_LIMIT_ENV,
};
pub use options::{Replay, SimOptions};

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::{DeviceConfig, DeviceModelKind, Placement};
use crate::error::Result;
use crate::ftl::gc::GcScheduler;
use crate::ftl::hybrid::{HybridFtl, HybridReport};
use crate::ftl::map::Ftl;
use crate::ftl::plain::{OracleHints, PlainFtl};
use crate::ftl::rain::RainFtl;
use crate::ftl::FtlLayer;
use crate::stats::{
    EraseStats, LatencyRecorder, RequestCounts, SampleCursor, SimResult, TimeSeries,
};
use crate::trace::{Request, RequestSource};

/// The request fetched ahead (see `advance`): none yet, one ready (`Simulation::ahead_req`,
/// with its first page run; a request an LBA map split, `fragment_follows`, has its other runs
/// in `next_split_runs`), the end of the workload, or the error fetching it gave (held back
/// until its turn).
enum Ahead {
    Empty,
    Ready,
    End,
    Failed(crate::SsdError),
}

/// One simulation: a device model, a workload and statistics.
pub struct Simulation {
    cfg: DeviceConfig,
    opts: SimOptions,
    model: Box<dyn FtlLayer>,
    source: Box<dyn RequestSource>,
    /// The next request, already fetched (see `advance`), written in place by the source: a
    /// request returned by value through `dyn RequestSource` and moved on at once costs
    /// store-forwarding stalls (docs/speed.md item 20).
    ahead: Ahead,
    ahead_req: Request,
    ahead_first: u64,
    ahead_pages: u64,
    /// Its open-loop time ([`Simulation::check_arrival`]).
    ahead_at: u64,
    page_size: u64,
    /// log2 of `page_size` when it is a power of two (every preset's), else 32: a byte
    /// offset's page is then a shift, not a 64-bit division (two per request: ~6 % of the
    /// MQSim-matched run).
    page_shift: u32,
    logical_pages: u64,
    clock: Clock,
    rec: Recorder,
    precondition_pages: u64,
    finished: bool,
    /// The host's diskstats view (`SimOptions::iostat_interval_us`), and a scratch list of the
    /// GC steps the device recorded since the last look.
    host: Option<host::HostView>,
    gc_steps: Vec<host::GcSpan>,
    /// Each block's erase count when the measured phase started (after preconditioning), so
    /// that `erase_per_block` counts what `erases` counts.
    erase_base: Vec<u32>,
    /// The page runs after the first of the request being served, and of the request fetched
    /// ahead, when an LBA map split them (see [`Request::fragment_follows`]).
    split_runs: Vec<(u64, u64)>,
    next_split_runs: Vec<(u64, u64)>,
}

/// Arrival and completion times of the replay.
#[derive(Debug, Default)]
struct Clock {
    /// Completion times of outstanding requests (closed loop).
    inflight: BinaryHeap<Reverse<u64>>,
    /// The closed loop's current request arrived at `inflight`'s earliest completion, which
    /// stays in the heap until the request's own completion replaces it: one sift down instead
    /// of a pop and a push (the same times come out, in the same order).
    top_taken: bool,
    /// Trace time of the first request (open loop).
    origin_ns: Option<u64>,
    last_arrival: u64,
    last_completion: u64,
}

/// What the run recorded: latencies, counts and the sampled time series.
#[derive(Debug, Default)]
struct Recorder {
    latency: LatencyRecorder,
    counts: RequestCounts,
    blocked: u64,
    series: TimeSeries,
    cursor: SampleCursor,
    next_sample: u64,
    breakdown: Option<Box<ReadBreakdown>>,
}

/// The device-model registry: the model a configuration asks for. Callers check first that it
/// fits in memory ([`check_memory`]).
pub(crate) fn build_model(
    cfg: &DeviceConfig,
    opts: &SimOptions,
    oracle: Option<OracleHints>,
) -> Result<Box<dyn FtlLayer>> {
    let (seed, timed, check) = (opts.seed, opts.timing, opts.check_every > 0);
    Ok(match cfg.model_kind() {
        DeviceModelKind::Plain => Box::new(PlainFtl::new(cfg, seed, timed, check, oracle)?),
        DeviceModelKind::TinyTail => Box::new(RainFtl::new(cfg, seed, timed, check)?),
        DeviceModelKind::Hybrid => Box::new(HybridFtl::new(cfg, seed, timed, check)?),
    })
}

impl Simulation {
    /// Build a simulation; preconditions the device if the options ask for it.
    pub fn new(
        cfg: DeviceConfig,
        opts: SimOptions,
        source: Box<dyn RequestSource>,
    ) -> Result<Self> {
        opts.validate()?;
        check_memory(&cfg, &opts)?;
        let (source, oracle) = if cfg.ftl.placement == Placement::Oracle {
            let (s, o) =
                OracleHints::build(source, u64::from(cfg.unit_bytes()), cfg.logical_units())?;
            (s, Some(o))
        } else {
            (source, None)
        };
        let model = build_model(&cfg, &opts, oracle)?;
        let mut sim = Simulation {
            model,
            source,
            ahead: Ahead::Empty,
            ahead_req: Request {
                arrival_ns: 0,
                op: crate::trace::OpKind::Read,
                offset_bytes: 0,
                size_bytes: 0,
                fragment_follows: false,
            },
            ahead_first: 0,
            ahead_pages: 0,
            ahead_at: 0,
            // The engine addresses mapping units (pages unless `ftl.mapping_unit_bytes`).
            page_size: u64::from(cfg.unit_bytes()),
            page_shift: crate::ftl::map::pow2_shift(u64::from(cfg.unit_bytes())),
            logical_pages: cfg.logical_units(),
            clock: Clock::default(),
            rec: Recorder::default(),
            precondition_pages: 0,
            finished: false,
            host: None,
            gc_steps: Vec::new(),
            erase_base: Vec::new(),
            split_runs: Vec::new(),
            next_split_runs: Vec::new(),
            cfg,
            opts,
        };
        if let Some(p) = sim.opts.precondition {
            sim.precondition_pages = sim.model.precondition(&p, sim.opts.seed)?;
            sim.erase_base = sim.model.ftl().erase_counts().to_vec();
        }
        if let Some(us) = sim.opts.iostat_interval_us {
            sim.host = Some(host::HostView::new(us)?);
            sim.model.resources_mut().record_gc_steps(true);
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
        self.model.ftl()
    }
    /// The device model serving this simulation.
    pub fn model(&self) -> &dyn FtlLayer {
        self.model.as_ref()
    }
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    pub fn requests_done(&self) -> u64 {
        self.rec.counts.total
    }

    fn blocked_fraction(&self) -> f64 {
        if self.rec.counts.total == 0 {
            0.0
        } else {
            self.rec.blocked as f64 / self.rec.counts.total as f64
        }
    }

    /// What the Tiny-Tail Flash layer did (zeros on other devices).
    /// What the hybrid SLC/QLC device did (None on other models).
    pub fn hybrid_report(&self) -> Option<HybridReport> {
        self.model
            .as_any()
            .downcast_ref::<HybridFtl>()
            .map(|d| d.report())
    }

    pub fn ttflash_report(&self) -> TtflashReport {
        let bf = self.blocked_fraction();
        match self.model.as_any().downcast_ref::<RainFtl>() {
            Some(d) => d.report(bf),
            None => TtflashReport {
                parity_pages_written: self.ftl().counters.parity_pages_written,
                blocked_fraction: bf,
                ..TtflashReport::default()
            },
        }
    }

    /// Test mode: rebuild every protected live page from its stripe and verify its checksum
    /// (RAIN devices; `(0, 0)` otherwise). See [`RainFtl::audit`].
    pub fn audit_parity(&mut self) -> Result<(u64, u64)> {
        match self.model.as_any_mut().downcast_mut::<RainFtl>() {
            Some(d) => d.audit(),
            None => Ok((0, 0)),
        }
    }

    /// Replace the GC scheduler (for schedulers built outside the registry, e.g. with options).
    pub fn set_scheduler(&mut self, s: Box<dyn GcScheduler>) -> Result<()> {
        self.model.set_scheduler(s)
    }

    /// The scheduler's name (`none` for a model without one).
    pub fn scheduler_name(&self) -> &'static str {
        self.model.scheduler().map_or("none", |s| s.name())
    }

    /// The learned Q-table of the GC scheduler (`rlgc`, `rlgc-aggressive`) or of the SLC-cache
    /// policy (`cache.slc = "rl"`), if the run has one.
    pub fn q_table(&self) -> Option<&crate::rl::QTable> {
        if let Some(h) = self.model.as_any().downcast_ref::<HybridFtl>() {
            return h.q_table();
        }
        let s = self.model.scheduler()?;
        s.as_any()
            .downcast_ref::<crate::ftl::gc::RlGc>()
            .map(|r| r.q_table())
    }

    /// Start the `rl` SLC-cache policy from `table` (pre-training; after preconditioning).
    pub fn set_slc_q_table(&mut self, table: crate::rl::QTable) -> Result<()> {
        match self.model.as_any_mut().downcast_mut::<HybridFtl>() {
            Some(h) => h.set_q_table(table),
            None => Err(crate::SsdError::Invalid(
                "a Q-table for the SLC cache needs a hybrid device (cache.slc = \"rl\")".into(),
            )),
        }
    }

    /// The SLC-cache policy's decisions in the measured run (hybrid devices; empty otherwise).
    pub fn slc_decisions(&self) -> &[crate::ftl::hybrid::DecisionPoint] {
        self.model
            .as_any()
            .downcast_ref::<HybridFtl>()
            .map_or(&[], |h| h.decisions())
    }

    /// Save the scheduler's Q-table as JSON (see `rl::QTable`); an error if it has none.
    pub fn save_q_table(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        match self.q_table() {
            Some(t) => t.save(path),
            None => Err(crate::SsdError::Invalid(format!(
                "neither the GC scheduler '{}' nor an SLC-cache policy of this run has a Q-table \
                 to save (rlgc, rlgc-aggressive or cache.slc = \"rl\" have)",
                self.scheduler_name()
            ))),
        }
    }

    /// Serve up to `budget` more requests. Returns true when the workload is exhausted (or the
    /// request limit reached).
    pub fn advance(&mut self, budget: u64) -> Result<bool> {
        let limit = self.opts.max_requests.unwrap_or(u64::MAX);
        let mut served = 0;
        while served < budget && !self.finished {
            if self.rec.counts.total >= limit {
                self.finish()?;
                break;
            }
            // One request of lookahead: fetch (and range-check) the next request before serving
            // this one, and prefetch its first page's L2P entry — the dominant cache miss of a
            // host write. A fetch error is held back until its request's turn.
            if matches!(self.ahead, Ahead::Empty) {
                self.fetch_ahead();
            }
            match std::mem::replace(&mut self.ahead, Ahead::Empty) {
                Ahead::Failed(e) => return Err(e),
                Ahead::Empty | Ahead::End => self.finish()?,
                Ahead::Ready => {
                    let (req, first, pages, at) = (
                        self.ahead_req,
                        self.ahead_first,
                        self.ahead_pages,
                        self.ahead_at,
                    );
                    if req.fragment_follows {
                        std::mem::swap(&mut self.split_runs, &mut self.next_split_runs);
                    }
                    self.fetch_ahead();
                    if matches!(self.ahead, Ahead::Ready) {
                        self.model.ftl().prefetch_lpn(self.ahead_first as u32);
                    }
                    self.serve(req, first, pages, at)?;
                    served += 1;
                    if self.opts.check_every > 0
                        && self.rec.counts.total % self.opts.check_every == 0
                    {
                        self.model.check_invariants().map_err(|m| {
                            crate::SsdError::Invalid(format!(
                                "FTL invariant broken after request {}: {m}",
                                self.rec.counts.total
                            ))
                        })?;
                    }
                }
            }
        }
        Ok(self.finished)
    }

    /// Fetch the next host request of the workload into `ahead_req`, with its first page run —
    /// and all its other fragments' runs in `next_split_runs` when an LBA map split it — each
    /// checked against the logical space while the source still points at it (so errors name
    /// the right line).
    fn fetch_ahead(&mut self) {
        self.ahead = match self.fetch_into_ahead() {
            Ok(true) => Ahead::Ready,
            Ok(false) => Ahead::End,
            Err(e) => Ahead::Failed(e),
        };
    }

    fn fetch_into_ahead(&mut self) -> Result<bool> {
        if !self.source.next_into(&mut self.ahead_req)? {
            return Ok(false);
        }
        let (first, pages) = self.page_range(&self.ahead_req)?;
        self.ahead_at = self.check_arrival(self.ahead_req.arrival_ns)?;
        if self.ahead_req.fragment_follows {
            let mut req = self.ahead_req;
            self.gather_fragments(&mut req)?;
            self.ahead_req = req;
        }
        self.ahead_first = first;
        self.ahead_pages = pages;
        Ok(true)
    }

    /// Run the whole workload.
    pub fn run(&mut self) -> Result<SimResult> {
        while !self.advance(1 << 20)? {}
        Ok(self.result())
    }

    fn finish(&mut self) -> Result<()> {
        if !self.finished {
            self.finished = true;
            self.sample_now(true);
            if let Some(h) = &mut self.host {
                self.model.resources_mut().take_gc_log(&mut self.gc_steps);
                h.finish(self.clock.last_completion, &mut self.gc_steps)?;
            }
        }
        Ok(())
    }

    /// The host TRIMs what its file system has deleted and not yet trimmed (workloads with a
    /// file system; 0 bytes otherwise): the next requests served are those TRIMs (after the one
    /// request already fetched ahead). Returns the bytes queued.
    pub fn trim_deleted(&mut self) -> u64 {
        self.source.trim_deleted()
    }

    /// The host file system's counters (file-system workloads; `None` otherwise).
    pub fn host_fs(&self) -> Option<crate::trace::FsStats> {
        self.source.host_fs()
    }

    /// The host view's intervals so far (`SimOptions::iostat_interval_us`; empty when off):
    /// an interval appears once no request can still complete inside it.
    pub fn iostat_rows(&self) -> &[IostatRow] {
        self.host.as_ref().map_or(&[], |h| h.rows())
    }

    /// The results so far.
    pub fn result(&self) -> SimResult {
        let ftl = self.model.ftl();
        let c = ftl.counters;
        let (min, mean, max) = ftl.erase_stats(&self.erase_base);
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
            requests: self.rec.counts,
            blocked_requests: self.rec.blocked,
            sim_time_s: self.clock.last_completion.max(self.clock.last_arrival) as f64 / 1e9,
            arrival_span_s: self.clock.last_arrival as f64 / 1e9,
            gc_busy_s: self.model.gc_busy_ns() as f64 / 1e9,
            latency_us: self.rec.latency.report(),
            precondition_pages: self.precondition_pages,
            hybrid: self
                .hybrid_report()
                .and_then(|r| serde_json::to_value(r).ok()),
            host_fs: self
                .source
                .host_fs()
                .and_then(|f| serde_json::to_value(f).ok()),
            series: self.rec.series.clone(),
        }
    }

    /// `file:line: ` of the last request (binary traces: `file:record: record N at byte offset
    /// X: `), to put before an error about it; empty for generators.
    pub(crate) fn source_at(&self) -> String {
        match (self.source.location(), self.source.record_label()) {
            (Some((f, l)), Some(record)) => format!("{f}:{l}: {record}: "),
            (Some((f, l)), None) => format!("{f}:{l}: "),
            (None, _) => String::new(),
        }
    }

    /// The latency distribution (value µs, count) of one type (`None` = all), for CDF plots.
    pub fn latency_distribution(&self, op: Option<crate::trace::OpKind>) -> Vec<(f64, u64)> {
        self.rec.latency.distribution(op)
    }

    /// Every type's latency distribution in logarithmic bins, for the experiments' CCDFs.
    pub fn latency_distributions(&self) -> crate::stats::Distributions {
        self.rec.latency.coarse()
    }

    /// Keep where each read's time goes ([`ReadBreakdown`]; timed runs): from now
    /// on every read request's latency is split into the controller overhead and its
    /// critical page's parts (queueing behind host work, behind GC, on the channel, array,
    /// transfer, rebuild).
    pub fn explain_reads(&mut self) {
        if self.opts.timing {
            self.model.resources_mut().explain_reads();
            self.rec.breakdown = Some(Box::default());
        }
    }

    /// The read-latency breakdown, if [`Simulation::explain_reads`] was called.
    pub fn read_breakdown(&self) -> Option<&ReadBreakdown> {
        self.rec.breakdown.as_deref()
    }
}
