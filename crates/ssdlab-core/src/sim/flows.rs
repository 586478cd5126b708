//! The engine with several flows (`host::flows`): each flow's next command waits in its
//! submission queue from its submission time; the multi-queue host interface
//! (`host::MultiQueue`) says whose command the controller fetches next and when, and the
//! engine serves it as it serves any request (`Simulation::serve`), its queue wait added to its
//! latency. One flow through this path gives exactly the single-queue path's results (tested).

use super::{Replay, Simulation};
use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::host::{MultiQueue, DEFAULT_QUEUE_DEPTH, MAX_ARRIVAL_NS};
use crate::stats::{FlowRecorder, FlowReport};
use crate::trace::{
    open_workload, ArrivalSpec, FlowSpec, FlowsSpec, OpKind, PageSpan, Request, RequestSource,
    WorkloadSpec,
};

/// A flow with no more commands (no submission time).
use crate::host::multi_queue::NONE;

/// One flow: its workload, its logical pages, its next command and what it recorded.
struct Flow {
    name: String,
    priority: &'static str,
    source: Box<dyn RequestSource>,
    span: PageSpan,
    open_loop: bool,
    head: Request,
    head_first: u64,
    head_pages: u64,
    /// The head's other page runs when an LBA map split it.
    head_runs: Vec<(u64, u64)>,
    /// The placement identifier its writes carry (FDP), if the spec gives one.
    placement: Option<u16>,
    rec: FlowRecorder,
}

/// The flows of a run and their host interface.
pub(crate) struct Flows {
    flows: Vec<Flow>,
    mq: MultiQueue,
    /// Each flow's head command's submission time ([`NONE`]: the flow has no more).
    submitted: Vec<u64>,
    started: bool,
}

/// What the single source of a run of flows says (each flow has its own).
struct FlowsSource(String);

impl RequestSource for FlowsSource {
    fn next_request(&mut self) -> Result<Option<Request>> {
        Ok(None)
    }
    fn describe(&self) -> String {
        self.0.clone()
    }
}

impl Simulation {
    /// A simulation of several flows: each flow's workload opened on its own logical pages,
    /// flow i (from 0) seeded with the run's seed plus i (flow 0 draws what a run of its
    /// workload alone draws). Oracle placement is refused: it needs one workload's future.
    pub fn with_flows(
        cfg: DeviceConfig,
        opts: super::SimOptions,
        spec: &FlowsSpec,
    ) -> Result<Self> {
        spec.check()?;
        opts.validate()?;
        if cfg.ftl.placement == crate::config::Placement::Oracle {
            return Err(SsdError::config(
                "ftl.placement",
                "oracle placement reads one workload's future; it cannot run several flows",
            ));
        }
        let unit = u64::from(cfg.unit_bytes());
        let spans = spec.spans(cfg.logical_units())?;
        let page_size = u64::from(cfg.geometry.page_size);
        let mut flows = Vec::with_capacity(spans.len());
        let mut replays = Vec::with_capacity(spans.len());
        let mut classes = Vec::with_capacity(spans.len());
        let mut parts = Vec::with_capacity(spans.len());
        for (i, (f, span)) in spec.flows.iter().zip(&spans).enumerate() {
            let seed = opts.seed.wrapping_add(i as u64);
            let source = open_workload(&f.workload, span.pages * unit, page_size, seed)
                .map_err(|e| in_flow(spec, i, e))?;
            parts.push(source.describe());
            check_placement(&cfg, f.placement).map_err(|e| in_flow(spec, i, e))?;
            let replay = replay_of(f, opts.replay);
            replays.push(replay);
            classes.push(f.priority);
            flows.push(Flow {
                name: spec.name(i),
                priority: f.priority.into(),
                source,
                span: *span,
                open_loop: matches!(replay, Replay::OpenLoop { .. }),
                head: Request {
                    arrival_ns: 0,
                    op: OpKind::Read,
                    offset_bytes: 0,
                    size_bytes: 0,
                    fragment_follows: false,
                    fua: false,
                    preflush: false,
                    placement: 0,
                },
                head_first: 0,
                head_pages: 0,
                head_runs: Vec::new(),
                placement: f.placement,
                rec: FlowRecorder::default(),
            });
        }
        let mq = MultiQueue::new(&cfg.host, &replays, &classes);
        let n = flows.len();
        // The device's own clock takes each command at its fetch time.
        let device_opts = super::SimOptions {
            replay: Replay::OpenLoop { time_scale: 1.0 },
            ..opts.clone()
        };
        let mut sim = Simulation::new(
            cfg,
            device_opts,
            Box::new(FlowsSource(spec.describe(&parts))),
        )?;
        sim.opts = opts;
        sim.flows = Some(Box::new(Flows {
            flows,
            mq,
            submitted: vec![NONE; n],
            started: false,
        }));
        Ok(sim)
    }

    /// Serve up to `budget` more commands of the flows (see [`Simulation::advance`]).
    pub(super) fn advance_flows(&mut self, budget: u64) -> Result<bool> {
        let Some(mut fl) = self.flows.take() else {
            return Ok(self.finished);
        };
        let r = self.run_flows(&mut fl, budget);
        self.flows = Some(fl);
        r
    }

    fn run_flows(&mut self, fl: &mut Flows, budget: u64) -> Result<bool> {
        if !fl.started {
            fl.started = true;
            for f in 0..fl.flows.len() {
                self.load_head(fl, f)?;
            }
        }
        let limit = self.opts.max_requests.unwrap_or(u64::MAX);
        let mut served = 0;
        while served < budget && !self.finished {
            if self.rec.counts.total >= limit {
                self.finish()?;
                break;
            }
            let Some((f, at)) = fl.mq.next(&fl.submitted) else {
                self.finish()?;
                break;
            };
            let submitted = fl.submitted[f];
            let flow = &mut fl.flows[f];
            let (req, first, pages) = (flow.head, flow.head_first, flow.head_pages);
            if req.fragment_follows {
                std::mem::swap(&mut self.split_runs, &mut flow.head_runs);
            }
            self.device.flash_mut().set_flow(f as u16);
            self.wait_ns = at - submitted;
            let completion = self.serve(req, first, pages, at)?;
            self.wait_ns = 0;
            if self.finished {
                // The power was cut before this command arrived.
                break;
            }
            let times = self.opts.timing.then_some((submitted, at, completion));
            flow.rec.record(req.op, req.size_bytes, times);
            fl.mq.completed(f, submitted, completion);
            self.load_head(fl, f)?;
            served += 1;
            if self.watch_eol {
                self.check_end_of_life()?;
            }
            self.check_now()?;
        }
        Ok(self.finished)
    }

    /// Flow `f`'s next command into its head, with its page runs (shifted to the flow's
    /// pages) and its submission time.
    fn load_head(&mut self, fl: &mut Flows, f: usize) -> Result<()> {
        let flow = &mut fl.flows[f];
        if !flow.source.next_into(&mut flow.head)? {
            fl.submitted[f] = NONE;
            return Ok(());
        }
        if let Some(p) = flow.placement {
            flow.head.placement = p;
        }
        if u32::from(flow.head.placement) >= self.placement_limit && flow.head.op == OpKind::Write {
            return Err(SsdError::Invalid(format!(
                "{}flow {}: {}",
                at(&*flow.source),
                flow.name,
                super::replay::placement_message(self.placement_limit, flow.head.placement)
            )));
        }
        let (first, pages) = self.flow_range(flow, &flow.head)?;
        flow.head_runs.clear();
        let mut follows = flow.head.fragment_follows;
        while follows {
            let Some(fr) = flow.source.next_request()? else {
                break;
            };
            let run = self.flow_range(flow, &fr)?;
            flow.head_runs.push(run);
            flow.head.size_bytes = flow.head.size_bytes.saturating_add(fr.size_bytes);
            follows = fr.fragment_follows;
        }
        flow.head.fragment_follows = !flow.head_runs.is_empty();
        flow.head_first = first;
        flow.head_pages = pages;
        // Its first page's L2P entry, the dominant cache miss of a host write, fetched while
        // the other flows' commands are served (the single path fetches one request ahead).
        self.device.map().prefetch_lpn(first as u32);
        let q = fl.mq.queue(f);
        let open_at = if self.opts.timing && flow.open_loop {
            let t = q.open_loop_at(flow.head.arrival_ns);
            if t > MAX_ARRIVAL_NS {
                return Err(SsdError::Invalid(format!(
                    "{}flow {}: request arrives {t} ns after the flow's first one, beyond the {MAX_ARRIVAL_NS} ns (146 years) the simulated clock allows; check the trace's timestamps",
                    at(&*flow.source),
                    flow.name
                )));
            }
            t
        } else {
            0
        };
        fl.submitted[f] = q.arrival(open_at);
        Ok(())
    }

    /// A request's page run on its flow's pages, checked against them.
    fn flow_range(&self, flow: &Flow, req: &Request) -> Result<(u64, u64)> {
        let first = self.page_of(req.offset_bytes);
        if req.size_bytes == 0 {
            return Ok((flow.span.first + first.min(flow.span.pages - 1), 0));
        }
        let last = self.page_of(req.offset_bytes + (req.size_bytes - 1));
        if last >= flow.span.pages {
            return Err(SsdError::Invalid(format!(
                "{}flow {}: request at byte offset {} size {} ends beyond the flow's range ({} bytes); use the workload's lba_map dense|modulo to compact or wrap the footprint",
                at(&*flow.source),
                flow.name,
                req.offset_bytes,
                req.size_bytes,
                flow.span.pages * self.page_size
            )));
        }
        Ok((flow.span.first + first, last - first + 1))
    }

    /// Each flow's results (empty for a run of one workload).
    pub(super) fn flow_reports(&self) -> Vec<FlowReport> {
        self.flows.as_ref().map_or_else(Vec::new, |fl| {
            fl.flows
                .iter()
                .map(|f| {
                    let mut r =
                        f.rec
                            .report(f.name.clone(), f.priority, f.span.first, f.span.pages);
                    r.placement = f.placement;
                    r
                })
                .collect()
        })
    }

    /// Each flow's latency distributions in logarithmic bins (empty for one workload).
    pub fn flow_distributions(&self) -> Vec<crate::stats::Distributions> {
        self.flows.as_ref().map_or_else(Vec::new, |fl| {
            fl.flows.iter().map(|f| f.rec.coarse()).collect()
        })
    }
}

/// A flow's replay: its own or, without one, as a run of its workload alone replays it
/// (closed loop when it has no arrival times of its own, open loop at its times otherwise),
/// with the run's queue depth or time scale when the run's replay is of that mode, else the
/// default queue depth or a time scale of 1.
fn replay_of(f: &FlowSpec, run: Replay) -> Replay {
    if let Some(r) = f.replay {
        return r;
    }
    let closed = match &f.workload {
        WorkloadSpec::Synthetic(s) => s.arrival == ArrivalSpec::Closed,
        WorkloadSpec::Fs(f) => f.arrival == ArrivalSpec::Closed,
        _ => false,
    };
    match (closed, run) {
        (true, Replay::ClosedLoop { .. }) | (false, Replay::OpenLoop { .. }) => run,
        (true, _) => Replay::ClosedLoop {
            queue_depth: DEFAULT_QUEUE_DEPTH,
        },
        (false, _) => Replay::OpenLoop { time_scale: 1.0 },
    }
}

/// `file:line: ` of a flow's last request (empty for generators).
fn at(source: &dyn RequestSource) -> String {
    match source.location() {
        Some((f, l)) => format!("{f}:{l}: "),
        None => String::new(),
    }
}

/// A flow's placement identifier needs an FDP device that has it.
fn check_placement(cfg: &DeviceConfig, placement: Option<u16>) -> Result<()> {
    let Some(p) = placement else {
        return Ok(());
    };
    if !cfg.fdp.on() {
        return Err(SsdError::Invalid(format!(
            "placement: {p} needs a device with Flexible Data Placement (set fdp.handles); \
             this device ignores placement identifiers"
        )));
    }
    let ids = cfg.fdp.placement_ids();
    if u32::from(p) >= ids {
        return Err(SsdError::Invalid(super::replay::placement_message(ids, p)));
    }
    Ok(())
}

/// An error opening flow `i`'s workload, naming the flow.
fn in_flow(spec: &FlowsSpec, i: usize, e: SsdError) -> SsdError {
    let prefix = format!("flows[{i}] ({})", spec.name(i));
    match e {
        SsdError::Workload(m) => SsdError::Workload(format!("{prefix}: workload: {m}")),
        SsdError::Invalid(m) => SsdError::Invalid(format!("{prefix}: {m}")),
        other => other,
    }
}
