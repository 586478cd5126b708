//! The Tiny-Tail Flash comparison, one call per configuration: the paper's stacks run on the
//! same device and workload — `nogc` (GC at no cost, without RAIN: the paper's "NoGC (without
//! RAIN)"), `nogc+rain+gtf` (GC at no cost, with RAIN's parity and the capacitor-backed
//! buffer: the NoGC of the authors' simulator, whose `configs/nogc.config` sets `raid = 1`,
//! which turns on parity and the RAID-group write buffer, on a device not aged, so GC never
//! runs), `base+rain` (channel-blocking GC with RAIN: the paper's "Base (with RAIN)"),
//! `pb+rain`, `pb+gtr`, `pb+gtr+gtf` and `ttflash` (each adds one technique, as the paper's
//! progression Base → +PB → +GTR → +GTF → +RGC; every stack of it has RAIN, so each step
//! compares like with like), then `ttflash+rf` (ssdlab's rotating flush). The mechanisms alone
//! (`base`, `pb` without RAIN, …) remain available as stacks.

use crate::config::{DeviceConfig, FtlKind, Placement, RainLayout};
use crate::error::{Result, SsdError};
use crate::sim::{SimOptions, Simulation};
use crate::stats::{Distributions, SimResult, TtflashReport};
use crate::trace::RequestSource;

/// The stacks of the paper's experiment, in its order, then `ttflash+rf` (the rotating flush,
/// an ssdlab extension: `rain.rotating_flush`), which removes what ttFlash leaves of the read
/// tail on the default workloads (reads queued behind RAIN's programs; docs/ttflash.md).
/// The three GC-free stacks come first. The paper's slides normalise to NoGC "without RAIN"
/// (`nogc`); the authors' simulator runs its NoGC with RAIN and the buffer (`nogc+rain+gtf`;
/// docs/ttflash.md, "Which NoGC"). `nogc+gtf` (the buffer, without RAIN) is the reference of
/// the extra P/E due to RAIN for every stack with the buffer: the buffer absorbs rewrites (7 %
/// of the default workload's host pages, 43 % of the `ttflash` preset's on `mixed70`), so
/// against `nogc` a buffered stack's erases would mix RAIN's cost with the buffer's saving.
pub const STACKS: [&str; 9] = [
    "nogc",
    BUFFERED_NOGC,
    ARTIFACT_NOGC,
    "base+rain",
    "pb+rain",
    "pb+gtr",
    "pb+gtr+gtf",
    "ttflash",
    "ttflash+rf",
];
/// The NoGC of the authors' simulator: GC at no cost, with RAIN's parity and the buffer.
pub const ARTIFACT_NOGC: &str = "nogc+rain+gtf";
/// The buffer without RAIN: what a buffered stack's extra P/E due to RAIN is taken against.
pub const BUFFERED_NOGC: &str = "nogc+gtf";

/// One configuration's outcome: the full result (its `latency_us` has the usual keys), the
/// fraction of requests blocked by GC, erases (parity's GC included) and the RAIN counters.
#[derive(Debug, Clone)]
pub struct StackRun {
    pub stack: String,
    pub result: SimResult,
    pub blocked_fraction: f64,
    pub erases: u64,
    pub report: TtflashReport,
    /// Latency distributions (logarithmic bins), for CCDF plots.
    pub latency_histogram: Distributions,
    /// Where the reads' time went, for all reads and for the tails
    /// ([`crate::sim::ReadBreakdown::to_json`]).
    pub read_breakdown: serde_json::Value,
    /// Blocks per plane of the flash the stack ran on (more than the device's with RAIN parity
    /// on top: `rain.parity_space = "extra"`, [`DeviceConfig::rain_physical`]).
    pub physical_blocks_per_plane: u32,
}

/// `device` with the layers of `stack` (see [`DeviceConfig::with_stack`]); what a stack does not
/// name is the device's (the write cache's size, watermark and DRAM; where parity's room comes
/// from, the stripe layout, where an open stripe's parity is).
pub fn device_for(device: &DeviceConfig, stack: &str) -> Result<DeviceConfig> {
    let mut cfg = device
        .with_stack(stack)
        .map_err(|m| SsdError::config("stack", m))?;
    // RAIN's super-block GC copies into GC super-blocks, apart from the host's. The GC-free
    // stacks without RAIN (`nogc`, `nogc+gtf`: the references of "extra P/E due to RAIN") get
    // the same separation, a GC frontier of their own (`dual-frontier`), so that their erases
    // differ from a RAIN stack's by parity alone: the paper's "additional P/E cycles due to
    // RAIN". Their latencies do not depend on it (their GC costs no time, and host pages land
    // on the same planes; `tests/ttflash_parity_cost.rs`). Measured on the `ttflash` preset (256 × 64
    // pages per plane) with Financial1 stitched 20× at fresh addresses, whose pages die in the
    // order they were written: nogc erases 27,246 with one shared frontier, 12,458 with two
    // (WAF 7.0 → 3.2), ttflash 14,760; on uniform random writes the shared frontier erases 1–2 %
    // fewer. Stacks whose GC takes time keep the device's placement (their latencies depend on
    // it), and so does the logical layout, which collects per plane through the FTL's own
    // frontiers.
    if cfg.flash.nogc
        && cfg.ftl.kind != FtlKind::Rain
        && device.rain.layout == RainLayout::SuperBlock
        && cfg.ftl.placement == Placement::Single
    {
        cfg.ftl.placement = Placement::DualFrontier;
    }
    cfg.validate(&format!("{} + {stack}", device.name))?;
    Ok(cfg)
}

/// Run one stack on `device` and `source`.
pub fn run_stack(
    device: &DeviceConfig,
    stack: &str,
    opts: SimOptions,
    source: Box<dyn RequestSource>,
) -> Result<StackRun> {
    run_device(device_for(device, stack)?, stack, opts, source)
}

/// Run `stack` whose device ([`device_for`]) is `cfg`.
fn run_device(
    cfg: DeviceConfig,
    stack: &str,
    opts: SimOptions,
    source: Box<dyn RequestSource>,
) -> Result<StackRun> {
    let mut sim = Simulation::new(cfg, opts, source)?;
    sim.explain_reads();
    let result = sim.run()?;
    let report = sim.ttflash_report();
    Ok(StackRun {
        latency_histogram: sim.latency_distributions(),
        physical_blocks_per_plane: sim.ftl().blocks_per_plane(),
        read_breakdown: sim
            .read_breakdown()
            .map_or(serde_json::Value::Null, |b| b.to_json()),
        stack: stack.to_string(),
        blocked_fraction: report.blocked_fraction,
        erases: result.erases,
        result,
        report,
    })
}

/// The whole comparison on one workload as JSON: `configs.<stack>` has the keys of a run's
/// result (`latency_us.{read,write,all}.{mean,p50,p99,...}`, `erases`, …) plus
/// `blocked_fraction`, `parity_pages_written`, `ttflash` (the RAIN counters) and
/// `read_breakdown` (where the reads' time went, all reads and the tails),
/// `physical_blocks_per_plane` (the flash the stack ran on) and `extra_pe_due_to_rain`
/// (`{reference, extra}`: erases over those of the same device without RAIN — `nogc+gtf` for a
/// stack with the buffer, `nogc` otherwise — minus one; null without RAIN or reference). Every stack
/// gets a fresh source from `open` (same workload, same seed). Every stack's device is
/// checked before any runs; then up to `jobs` stacks run at once on threads
/// ([`super::parallel::jobs_for`]: 0 is one per CPU), which changes no result.
pub fn compare(
    device: &DeviceConfig,
    stacks: &[String],
    opts: &SimOptions,
    jobs: usize,
    progress: &super::parallel::Progress,
    open: impl Fn() -> Result<Box<dyn RequestSource>> + Sync,
) -> Result<serde_json::Value> {
    let devices = stacks
        .iter()
        .map(|s| device_for(device, s))
        .collect::<Result<Vec<_>>>()?;
    let jobs = super::parallel::jobs_for(jobs, stacks.len(), &devices, opts);
    let items: Vec<(&String, &DeviceConfig)> = stacks.iter().zip(&devices).collect();
    let runs = super::parallel::map(&items, jobs, progress, |&(stack, cfg)| {
        run_device(cfg.clone(), stack, opts.clone(), open()?)
    })?;
    let erases_of = |name: &str| {
        stacks
            .iter()
            .position(|s| s == name)
            .map(|i| runs[i].erases)
    };
    // Extra P/E due to RAIN, like with like: against the same device without RAIN, with the
    // buffer if this one has it (null without RAIN or without that stack in the run).
    let extra_pe: Vec<serde_json::Value> = devices
        .iter()
        .zip(&runs)
        .map(|(cfg, run)| {
            let reference = if cfg.has_gtf() { BUFFERED_NOGC } else { "nogc" };
            match (cfg.ftl.kind == FtlKind::Rain, erases_of(reference)) {
                (true, Some(r)) if r > 0 => serde_json::json!({
                    "reference": reference,
                    "extra": run.erases as f64 / r as f64 - 1.0,
                }),
                _ => serde_json::Value::Null,
            }
        })
        .collect();
    let mut configs = serde_json::Map::new();
    for ((stack, run), pe) in stacks.iter().zip(runs).zip(extra_pe) {
        let mut v =
            serde_json::to_value(&run.result).map_err(|e| SsdError::Invalid(e.to_string()))?;
        if let Some(o) = v.as_object_mut() {
            // The RAIN FTL's section is this experiment's `ttflash` (with `blocked_fraction`).
            o.remove("rain");
            o.insert("blocked_fraction".into(), run.blocked_fraction.into());
            o.insert(
                "parity_pages_written".into(),
                run.report.layer.parity_pages_written.into(),
            );
            o.insert(
                "ttflash".into(),
                serde_json::to_value(run.report).map_err(|e| SsdError::Invalid(e.to_string()))?,
            );
            o.insert("read_breakdown".into(), run.read_breakdown.clone());
            o.insert("extra_pe_due_to_rain".into(), pe);
            o.insert(
                "physical_blocks_per_plane".into(),
                run.physical_blocks_per_plane.into(),
            );
            o.insert(
                "latency_histogram".into(),
                serde_json::to_value(run.latency_histogram)
                    .map_err(|e| SsdError::Invalid(e.to_string()))?,
            );
        }
        configs.insert(stack.clone(), v);
    }
    Ok(serde_json::json!({ "device": device.name, "stacks": stacks, "configs": configs }))
}
