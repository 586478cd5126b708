//! The replay loop: the host interface (`crate::host`) decides when a request arrives, the
//! request becomes a page range, the device (`crate::device`: its layers, built from the
//! configuration) serves it, statistics record the completion. The engine knows only
//! [`Device`] and never asks which layer implementations it runs. A [`Simulation`] is a value;
//! it owns its device, workload and statistics.

mod breakdown;
mod decision;
mod flows;
mod iostat;
mod memory;
mod options;
mod replay;
mod sampling;

pub use crate::ftl::Precondition;
pub use breakdown::ReadBreakdown;
pub use iostat::{GcLabel, IostatRow, DEVICE_NAME, GC_LABEL_THRESHOLD};
pub use memory::{
    available_memory, check_memory, check_memory_within, memory_budget, memory_estimate,
    parse_size, Available, MEMORY_LIMIT_ENV,
};
pub use options::{Replay, SimOptions, DEFAULT_QUEUE_DEPTH};

use crate::config::{DeviceConfig, Placement};
use crate::device::{Build, Device};
use crate::error::Result;
use crate::ftl::gc::GcScheduler;
use crate::ftl::map::Ftl;
use crate::ftl::plain::OracleHints;
use crate::host::HostInterface;
use crate::stats::{
    DecisionPoint, LatencyRecorder, LayerReports, RainReport, RequestCounts, SampleCursor,
    SimResult, TimeSeries, TtflashReport,
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

/// One simulation: a device, a workload and statistics.
pub struct Simulation {
    cfg: DeviceConfig,
    opts: SimOptions,
    device: Device,
    source: Box<dyn RequestSource>,
    /// The next request, already fetched (see `advance`), written in place by the source: a
    /// request returned by value through `dyn RequestSource` and moved on at once costs
    /// store-forwarding stalls (docs/speed.md, "The request fetched ahead is written in place").
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
    /// Writes' placement identifiers below this are the device's (`[fdp]`: its handles ×
    /// reclaim groups); a conventional device takes any (it ignores them): `u32::MAX`.
    placement_limit: u32,
    host: HostInterface,
    rec: Recorder,
    precondition_pages: u64,
    finished: bool,
    /// Bad blocks on (`[endurance]`): ask for the end of life after each request.
    watch_eol: bool,
    /// When the power is cut (`SimOptions::power_cut_us`; `u64::MAX`: never).
    power_cut_ns: u64,
    /// The host's diskstats view (`SimOptions::iostat_interval_us`), and a scratch list of the
    /// GC steps the device recorded since the last look.
    iostat: Option<iostat::HostView>,
    gc_steps: Vec<iostat::GcSpan>,
    /// Each block's erase count when the measured phase started (after preconditioning), so
    /// that `erase_per_block` counts what `erases` counts.
    erase_base: Vec<u32>,
    /// The page runs after the first of the request being served, and of the request fetched
    /// ahead, when an LBA map split them (see [`Request::fragment_follows`]).
    split_runs: Vec<(u64, u64)>,
    next_split_runs: Vec<(u64, u64)>,
    /// Several flows (`Simulation::with_flows`), each with its own workload and submission
    /// queue; `None` for a run of one workload.
    flows: Option<Box<flows::Flows>>,
    /// The request being served waited this long in its submission queue before the
    /// controller fetched it (several flows with command slots; 0 otherwise).
    wait_ns: u64,
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
        let build = Build {
            seed: opts.seed,
            timed: opts.timing,
            check: opts.check_every > 0,
            power_cut: opts.power_cut_us.map(|us| (us * 1e3).round() as u64),
        };
        let device = Device::new(&cfg, build, oracle)?;
        let mut sim = Simulation {
            device,
            source,
            ahead: Ahead::Empty,
            ahead_req: Request {
                arrival_ns: 0,
                op: crate::trace::OpKind::Read,
                offset_bytes: 0,
                size_bytes: 0,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            },
            ahead_first: 0,
            ahead_pages: 0,
            ahead_at: 0,
            // The engine addresses mapping units (pages unless `ftl.mapping_unit_bytes`).
            page_size: u64::from(cfg.unit_bytes()),
            page_shift: crate::ftl::map::pow2_shift(u64::from(cfg.unit_bytes())),
            logical_pages: cfg.logical_units(),
            placement_limit: if cfg.fdp.on() {
                cfg.fdp.placement_ids()
            } else {
                u32::MAX
            },
            host: HostInterface::new(opts.replay),
            rec: Recorder::default(),
            precondition_pages: 0,
            finished: false,
            watch_eol: cfg.endurance.on(),
            power_cut_ns: opts
                .power_cut_us
                .map_or(u64::MAX, |us| (us * 1e3).round() as u64),
            iostat: None,
            gc_steps: Vec::new(),
            erase_base: Vec::new(),
            split_runs: Vec::new(),
            next_split_runs: Vec::new(),
            flows: None,
            wait_ns: 0,
            cfg,
            opts,
        };
        if let Some(p) = sim.opts.precondition {
            sim.precondition_pages = sim.device.precondition(&p, sim.opts.seed)?;
            sim.erase_base = sim.device.erase_counts().to_vec();
        }
        if let Some(us) = sim.opts.iostat_interval_us {
            sim.iostat = Some(iostat::HostView::new(us)?);
            sim.device.flash_mut().record_gc_steps(true);
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
        self.device.map()
    }
    /// The device (its layers) serving this simulation.
    pub fn stack(&self) -> &Device {
        &self.device
    }
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    pub fn requests_done(&self) -> u64 {
        self.rec.counts.total
    }

    /// Requests that waited for GC, over all requests.
    pub fn blocked_fraction(&self) -> f64 {
        if self.rec.counts.total == 0 {
            0.0
        } else {
            self.rec.blocked as f64 / self.rec.counts.total as f64
        }
    }

    /// What each of the device's layers reports (the result's sections).
    pub fn layer_reports(&self) -> LayerReports {
        self.device.report()
    }

    /// The Tiny-Tail Flash comparison's view of the run: the RAIN FTL's report (on another
    /// FTL, zeros but its parity count) and the fraction of requests blocked by GC.
    pub fn ttflash_report(&self) -> TtflashReport {
        let layers = self.device.report();
        let cache = layers.write_cache.unwrap_or_default();
        TtflashReport {
            layer: layers.rain.unwrap_or(RainReport {
                parity_pages_written: self.ftl().counters.parity_pages_written,
                ..RainReport::default()
            }),
            buffer_read_hits: cache.read_hits,
            buffer_full_waits: cache.full_waits,
            blocked_fraction: self.blocked_fraction(),
        }
    }

    /// Test mode: rebuild every protected live page from its stripe and verify its checksum
    /// (devices with RAIN parity; `(0, 0)` otherwise). See `ftl::rain::RainFtl::audit`.
    pub fn audit_parity(&mut self) -> Result<(u64, u64)> {
        self.device.ftl_mut().audit_parity()
    }

    /// Replace the GC scheduler (for schedulers built outside the registry, e.g. with options).
    pub fn set_scheduler(&mut self, s: Box<dyn GcScheduler>) -> Result<()> {
        self.device.ftl_mut().set_scheduler(s)
    }

    /// The scheduler's name (`none` for an FTL without one).
    pub fn scheduler_name(&self) -> &'static str {
        self.device.ftl().scheduler().map_or("none", |s| s.name())
    }

    /// The learned Q-table of the GC scheduler (`rlgc`, `rlgc-aggressive`) or of the SLC-cache
    /// policy (`cache.slc = "rl"`), if the run has one.
    pub fn q_table(&self) -> Option<&crate::rl::QTable> {
        self.device.ftl().q_table()
    }

    /// Start the `rl` SLC-cache policy from `table` (pre-training; after preconditioning).
    pub fn set_slc_q_table(&mut self, table: crate::rl::QTable) -> Result<()> {
        self.device.ftl_mut().set_slc_q_table(table)
    }

    /// The SLC-cache policy's decisions in the measured run (hybrid devices; empty otherwise).
    pub fn slc_decisions(&self) -> &[DecisionPoint] {
        self.device.ftl().slc_decisions()
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
        if self.flows.is_some() {
            return self.advance_flows(budget);
        }
        // A drive that reached its end of life in preconditioning serves nothing.
        if self.watch_eol {
            self.check_end_of_life()?;
        }
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
                        self.device.map().prefetch_lpn(self.ahead_first as u32);
                    }
                    self.serve(req, first, pages, at)?;
                    served += 1;
                    if self.watch_eol {
                        self.check_end_of_life()?;
                    }
                    self.check_now()?;
                }
            }
        }
        Ok(self.finished)
    }

    /// Verify the FTL invariants when `check_every` says so (tests). In line, with the check
    /// itself out of line: as a call it cost ~40 instructions a request with checks off
    /// (docs/speed.md, "Several flows: the single path's inlining restored").
    #[inline(always)]
    fn check_now(&self) -> Result<()> {
        if self.opts.check_every > 0 && self.rec.counts.total % self.opts.check_every == 0 {
            return self.check_invariants_now();
        }
        Ok(())
    }

    /// The drive reached its end of life (`[endurance]`): the run ends after this request.
    #[cold]
    #[inline(never)]
    pub(crate) fn check_end_of_life(&mut self) -> Result<()> {
        if self.device.map().end_of_life() {
            self.finish()?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn check_invariants_now(&self) -> Result<()> {
        self.device.check_invariants().map_err(|m| {
            crate::SsdError::Invalid(format!(
                "FTL invariant broken after request {}: {m}",
                self.rec.counts.total
            ))
        })
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

    pub(crate) fn finish(&mut self) -> Result<()> {
        if !self.finished {
            self.finished = true;
            if self.power_cut_ns != u64::MAX {
                // The device works on up to the cut; what the write cache holds then is at risk.
                let at = self.power_cut_ns.max(self.host.last_arrival());
                self.device.background(self.host.last_arrival(), at)?;
                self.device.power_cut();
            } else {
                self.device.finish(self.host.last_completion());
            }
            self.sample_now(true);
            if let Some(h) = &mut self.iostat {
                self.device.flash_mut().take_gc_log(&mut self.gc_steps);
                h.finish(self.host.last_completion(), &mut self.gc_steps)?;
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
        self.iostat.as_ref().map_or(&[], |h| h.rows())
    }

    /// The results so far.
    pub fn result(&self) -> SimResult {
        let ftl = self.device.map();
        let c = ftl.counters;
        let erase_per_block =
            crate::ftl::map::erase_stats(self.device.erase_counts(), &self.erase_base);
        let host = c.host_pages_written;
        SimResult {
            device: self.cfg.name.clone(),
            workload: self.source.describe(),
            seed: self.opts.seed,
            timing: self.opts.timing,
            waf: if host == 0 {
                0.0
            } else {
                c.flash_writes() as f64 / host as f64
            },
            host_pages_written: host,
            host_pages_read: c.host_pages_read,
            gc_pages_copied: c.gc_pages_copied,
            erases: self.device.erases(),
            erase_per_block,
            gc_invocations: c.gc_victims,
            trimmed_pages: c.trimmed_pages,
            unmapped_reads: c.unmapped_reads,
            requests: self.rec.counts,
            blocked_requests: self.rec.blocked,
            sim_time_s: self.host.last_completion().max(self.host.last_arrival()) as f64 / 1e9,
            arrival_span_s: self.host.last_arrival() as f64 / 1e9,
            gc_busy_s: self.device.gc_busy_ns() as f64 / 1e9,
            latency_us: self.rec.latency.report(),
            precondition_pages: self.precondition_pages,
            layers: self.device.report(),
            host_fs: self
                .source
                .host_fs()
                .and_then(|f| serde_json::to_value(f).ok()),
            flows: self.flow_reports(),
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
            self.device.flash_mut().explain_reads();
            self.rec.breakdown = Some(Box::default());
        }
    }

    /// The read-latency breakdown, if [`Simulation::explain_reads`] was called.
    pub fn read_breakdown(&self) -> Option<&ReadBreakdown> {
        self.rec.breakdown.as_deref()
    }
}
