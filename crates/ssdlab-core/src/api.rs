//! A coarse facade for front ends (the PyO3 layer, tools): specifications in as JSON or TOML
//! text, simulations and results out. Keeps the bindings free of logic.

use serde::Deserialize;

use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::offline::{OfflineMethod, OfflineSetup, OfflineWorkload};
use crate::sim::{SimOptions, Simulation};
use crate::trace::{open_workload, trace_info, TraceInfo, TraceSpec, WorkloadSpec};

/// `json` as a `T`, an error naming the field at fault (`options: replay.queue_depth: invalid
/// value: integer `-3`, expected u32`) through `wrap` (which says what was being read).
fn from_json<T: serde::de::DeserializeOwned>(
    json: &str,
    wrap: impl FnOnce(String) -> SsdError,
) -> Result<T> {
    let mut de = serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // serde_json's position is in the front end's JSON, not anything the user wrote.
        let text = inner.to_string();
        let text = match text.rfind(" at line ") {
            Some(i) if inner.line() > 0 => text[..i].to_string(),
            _ => text,
        };
        wrap(if path == "." || path.is_empty() {
            text
        } else {
            format!("{path}: {text}")
        })
    })
}

/// A device from a preset name or TOML text (`origin` names the file), with overrides.
pub fn load_device(
    preset_or_toml: &str,
    origin: &str,
    overrides: &[String],
) -> Result<DeviceConfig> {
    DeviceConfig::load(preset_or_toml, origin, overrides)
}

/// Parse a workload specification (JSON).
pub fn parse_workload(json: &str) -> Result<WorkloadSpec> {
    // Several flows are read as their own struct: inside the `kind`-tagged enum serde buffers
    // the fields and the error's path (`flows[1].replay`) is lost.
    if let Ok(serde_json::Value::Object(mut o)) = serde_json::from_str(json) {
        if o.get("kind").and_then(|k| k.as_str()) == Some("flows") {
            o.remove("kind");
            let v = serde_json::Value::Object(o);
            let spec = from_json(&v.to_string(), |m| SsdError::Workload(name_flow(m, &v)))?;
            return Ok(WorkloadSpec::Flows(spec));
        }
    }
    from_json(json, SsdError::Workload)
}

/// A flows file's TOML text (`ssdlab run --flows`) as a workload's JSON (`origin` names the
/// file in errors).
pub fn parse_flows_toml(text: &str, origin: &str) -> Result<String> {
    let spec = crate::trace::FlowsSpec::from_toml(text, origin)?;
    to_json(&WorkloadSpec::Flows(spec))
}

/// `flows[1]: …` as `flows[1] (writer): …`, the flow's name from the spec.
fn name_flow(message: String, spec: &serde_json::Value) -> String {
    let Some(rest) = message.strip_prefix("flows[") else {
        return message;
    };
    let Some((i, tail)) = rest.split_once(']') else {
        return message;
    };
    let Ok(i) = i.parse::<usize>() else {
        return message;
    };
    let name = spec["flows"][i]["name"]
        .as_str()
        .map_or_else(|| format!("flow{i}"), |n| n.chars().take(64).collect());
    let tail = tail
        .strip_prefix('.')
        .map_or(tail.to_string(), |t| format!(": {t}"));
    format!("flows[{i}] ({name}){tail}")
}

/// Parse run options (JSON).
pub fn parse_options(json: &str) -> Result<SimOptions> {
    let o: SimOptions = from_json(json, |e| SsdError::config("options", e))?;
    o.validate()?;
    Ok(o)
}

/// Build a simulation of `device` running `workload` under `options`.
pub fn build_simulation(
    device: DeviceConfig,
    workload: &WorkloadSpec,
    options: SimOptions,
) -> Result<Simulation> {
    if let WorkloadSpec::Flows(flows) = workload {
        return Simulation::with_flows(device, options, flows);
    }
    let g = &device.geometry;
    let source = open_workload(
        workload,
        g.logical_bytes(),
        u64::from(g.page_size),
        options.seed,
    )?;
    Simulation::new(device, options, source)
}

/// `ssdlab experiment ttflash`: the Tiny-Tail Flash stacks (Yan et al., FAST 2017) on one
/// workload, as JSON (see [`crate::experiments::ttflash::compare`]). Empty `stacks`: all of
/// [`crate::experiments::ttflash::STACKS`]. `jobs`: stacks at once (0: one per CPU).
pub fn ttflash_experiment(
    device: DeviceConfig,
    workload: &WorkloadSpec,
    options: SimOptions,
    stacks: &[String],
    jobs: usize,
    progress: &crate::experiments::parallel::Progress,
) -> Result<String> {
    let stacks: Vec<String> = if stacks.is_empty() {
        crate::experiments::ttflash::STACKS
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        stacks.to_vec()
    };
    let g = &device.geometry;
    let (bytes, page) = (g.logical_bytes(), u64::from(g.page_size));
    let v =
        crate::experiments::ttflash::compare(&device, &stacks, &options, jobs, progress, || {
            open_workload(workload, bytes, page, options.seed)
        })?;
    Ok(v.to_string())
}

/// The tail levers side by side (`experiments::tails`) on `device` (a preset or TOML text,
/// `origin` for its errors) with `overrides`, every row (all when `rows` is empty) on
/// `workload`; JSON (`rows`, `configs.<row>`).
#[allow(clippy::too_many_arguments)]
pub fn tails_experiment(
    device: &str,
    origin: &str,
    overrides: &[String],
    workload: &WorkloadSpec,
    options: SimOptions,
    rows: &[String],
    jobs: usize,
    progress: &crate::experiments::parallel::Progress,
) -> Result<String> {
    use crate::experiments::tails;
    let rows: Vec<String> = if rows.is_empty() {
        tails::ROWS.iter().map(|(n, _)| n.to_string()).collect()
    } else {
        rows.to_vec()
    };
    let devices = tails::devices(&rows, |sets| {
        let mut all = overrides.to_vec();
        all.extend(sets.iter().map(|s| s.to_string()));
        load_device(device, origin, &all)
    })?;
    let g = &devices[0].geometry;
    let (bytes, page) = (g.logical_bytes(), u64::from(g.page_size));
    let name = devices[0].name.clone();
    let v = tails::compare(&name, &rows, &devices, &options, jobs, progress, || {
        open_workload(workload, bytes, page, options.seed)
    })?;
    Ok(v.to_string())
}

/// Host-visible placement (`experiments::placement`) on `device` (a preset or TOML text,
/// `origin` for its errors) with `overrides` before each row's settings, every row (all when
/// `rows` is empty) on `workload` (`None`: the default tenants, `requests` the warm and log
/// tenants'). A flows workload keeps its placement identifiers on the FDP row only. JSON
/// (`rows`, `configs.<row>`).
#[allow(clippy::too_many_arguments)]
pub fn placement_experiment(
    device: &str,
    origin: &str,
    overrides: &[String],
    workload: Option<&WorkloadSpec>,
    requests: u64,
    options: SimOptions,
    rows: &[String],
    jobs: usize,
    progress: &crate::experiments::parallel::Progress,
) -> Result<String> {
    use crate::experiments::placement;
    let rows: Vec<String> = if rows.is_empty() {
        placement::ROWS.iter().map(|(n, _)| n.to_string()).collect()
    } else {
        rows.to_vec()
    };
    let devices = rows
        .iter()
        .map(|r| {
            let mut all = overrides.to_vec();
            all.extend(placement::row_settings(r)?.iter().map(|s| s.to_string()));
            load_device(device, origin, &all)
        })
        .collect::<Result<Vec<_>>>()?;
    let flows = match workload {
        None => Some(placement::default_flows(requests)?),
        Some(WorkloadSpec::Flows(f)) => Some(f.clone()),
        Some(_) => None,
    };
    let name = devices.first().map(|d| d.name.clone()).unwrap_or_default();
    let v = placement::compare(&name, &rows, &devices, &options, jobs, progress, |cfg| {
        let (cfg, opts) = (cfg.clone(), options.clone());
        match (&flows, workload) {
            (Some(f), _) if cfg.fdp.on() => Simulation::with_flows(cfg, opts, f),
            (Some(f), _) => Simulation::with_flows(cfg, opts, &placement::untagged(f)),
            (None, Some(w)) => build_simulation(cfg, w, opts),
            (None, None) => Err(SsdError::Invalid("no workload".into())),
        }
    })?;
    Ok(v.to_string())
}

/// Tenants (`experiments::tenants`) on `device` (a preset or TOML text, `origin` for its
/// errors) with `overrides` after the experiment's `host.command_slots`, every row (all when
/// `rows` is empty) on `flows` (a flows workload; `None`: the default reader and writer,
/// `requests` the reader's); JSON (`rows`, `flows`, `configs.<row>`).
#[allow(clippy::too_many_arguments)]
pub fn tenants_experiment(
    device: &str,
    origin: &str,
    overrides: &[String],
    flows: Option<&WorkloadSpec>,
    requests: u64,
    options: SimOptions,
    rows: &[String],
    jobs: usize,
    progress: &crate::experiments::parallel::Progress,
) -> Result<String> {
    use crate::experiments::tenants;
    let rows: Vec<String> = if rows.is_empty() {
        tenants::ROWS.iter().map(|(n, _)| n.to_string()).collect()
    } else {
        rows.to_vec()
    };
    let spec = match flows {
        None => tenants::default_flows(requests)?,
        Some(WorkloadSpec::Flows(f)) => f.clone(),
        Some(_) => {
            return Err(SsdError::Workload(
                "tenants: expected a flows workload (several flows), not one workload".into(),
            ))
        }
    };
    let devices = rows
        .iter()
        .map(|r| {
            let mut all = vec![format!("host.command_slots={}", tenants::DEFAULT_SLOTS)];
            all.extend(overrides.iter().cloned());
            all.extend(tenants::row_settings(r)?.iter().map(|s| s.to_string()));
            load_device(device, origin, &all)
        })
        .collect::<Result<Vec<_>>>()?;
    let name = devices[0].name.clone();
    let v = tenants::compare(&name, &rows, &devices, &spec, &options, jobs, progress)?;
    Ok(v.to_string())
}

/// The memory a simulation of `device` needs (default options) and what is available, as
/// JSON: `estimate_bytes`, `estimate` (e.g. "30.7 GiB"), `breakdown` (pages × bytes per page,
/// plus blocks × bytes per block, plus the rest), `available_bytes` and `available_source` (null
/// when the system does not say or `SSDLAB_MEMORY_LIMIT=off`), `fits`.
pub fn memory_report(device: &DeviceConfig) -> Result<serde_json::Value> {
    use crate::ftl::map::memory::bytes;
    let e = crate::sim::memory_estimate(device, &SimOptions::default());
    let avail = crate::sim::memory_budget()?;
    Ok(serde_json::json!({
        "estimate_bytes": e.total(),
        "estimate": bytes(e.total()),
        "breakdown": e.breakdown(),
        "available_bytes": avail.as_ref().map(|a| a.bytes),
        "available": avail.as_ref().map(|a| bytes(a.bytes)),
        "available_source": avail.as_ref().map(|a| a.source.clone()),
        "fits": avail.as_ref().is_none_or(|a| e.total() <= a.bytes),
    }))
}

/// `ssdlab trace info`: statistics of a trace file (JSON trace spec).
pub fn trace_stats(spec_json: &str, page_size: u64) -> Result<TraceInfo> {
    let spec: TraceSpec = from_json(spec_json, SsdError::Workload)?;
    trace_info(&spec, page_size)
}

/// Serialize anything serde can, as JSON (results, infos).
pub fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v)
        .map_err(|e| SsdError::Invalid(format!("cannot encode result as JSON: {e}")))
}

/// `ssdlab offline` / `experiment offline`: build the offline problem of a workload (JSON
/// [`OfflineWorkload`]) on the device of `setup_json` ([`OfflineSetup`]) once, run each method
/// of `methods_json` (one [`OfflineMethod`] object or an array of them) on it, and return
/// `{"problem": OfflineProblem, "reports": [OfflineReport, …], "placements": [PlacementReport, …]}`
/// as JSON; `placements_json` is an array of placement names (`dual-frontier`, `hot-cold`, `eti`,
/// `oracle`, `single`) replayed with greedy cleaning for the paper's Figure 9 comparison.
pub fn run_offline_json(
    workload_json: &str,
    setup_json: &str,
    methods_json: &str,
    placements_json: &str,
    seed: u64,
) -> Result<String> {
    let workload: OfflineWorkload = from_json(workload_json, SsdError::Workload)?;
    let setup: OfflineSetup = from_json(setup_json, |e| SsdError::config("offline", e))?;
    let methods = parse_methods(methods_json)?;
    let placements: Vec<String> = from_json(placements_json, |e| {
        SsdError::config("offline.placements", e)
    })?;
    let out = crate::experiments::offline::compare(&workload, &setup, &methods, &placements, seed)?;
    to_json(&out)
}

/// `ssdlab experiment offline --toy`: Tables I and II on `draws` draws of the four toy traces,
/// as JSON (a list of `{dist, draw, problem, reports, placements, mcts}`); `jobs` draws at once
/// (0: one per CPU).
pub fn offline_table_one(
    seed: u64,
    draws: u64,
    jobs: usize,
    progress: &crate::experiments::parallel::Progress,
) -> Result<String> {
    to_json(&crate::experiments::offline::table_one(
        seed, draws, jobs, progress,
    )?)
}

/// One method object or an array of them; an unknown name lists the valid ones.
fn parse_methods(json: &str) -> Result<Vec<OfflineMethod>> {
    let v: serde_json::Value = from_json(json, |e| SsdError::config("offline.method", e))?;
    let items = match v {
        serde_json::Value::Array(a) => a,
        other => vec![other],
    };
    items
        .into_iter()
        .map(|item| {
            let name = item
                .get("name")
                .and_then(|n| n.as_str())
                .map(str::to_string);
            let at = match &name {
                Some(n) => {
                    OfflineMethod::from_name(n)?;
                    format!("offline.method {n}")
                }
                None => "offline.method".to_string(),
            };
            OfflineMethod::deserialize(&item)
                .map_err(|e| SsdError::config(&at, bad_parameter(&item, e)))
        })
        .collect()
}

/// What is wrong with method object `item`, naming the parameter at fault when one is: the
/// methods are an internally tagged enum, whose buffered content hides the path from serde, so
/// each parameter is tried alone (all have defaults) and the first that fails alone is named
/// (`psi: invalid type: string "fast", expected u32`).
fn bad_parameter(item: &serde_json::Value, e: serde_json::Error) -> String {
    if let serde_json::Value::Object(map) = item {
        for (key, value) in map.iter().filter(|(k, _)| k.as_str() != "name") {
            let mut one = serde_json::Map::new();
            if let Some(n) = map.get("name") {
                one.insert("name".into(), n.clone());
            }
            one.insert(key.clone(), value.clone());
            if let Err(alone) = OfflineMethod::deserialize(&serde_json::Value::Object(one)) {
                return format!("{key}: {alone}");
            }
        }
    }
    e.to_string()
}

/// Every registry family, in the order `ssdlab policies` prints them. Python reads every name
/// list and default from here (never a second copy).
pub fn registries() -> Vec<crate::config::Family> {
    use crate::config::{
        Allocation, Arbitration, CacheMode, CmtPolicy, EvictionKind, FlashScheduler, FlushPolicy,
        FtlKind, HandleType, MappingKind, PageOrder, Placement, Registry, SchedulerKind,
        SlcPolicyKind, SuspendMode, VictimPolicy, ZoneHost, ZoneLayout,
    };
    use crate::trace::{
        ArrivalSpec, FsPersonality, IdleDist, LbaMapMode, Pattern, TraceFormat, TrimMode,
    };
    vec![
        VictimPolicy::family(),
        SchedulerKind::family(),
        Placement::family(),
        Allocation::family(),
        FtlKind::family(),
        MappingKind::family(),
        CmtPolicy::family(),
        SlcPolicyKind::family(),
        CacheMode::family(),
        EvictionKind::family(),
        FlushPolicy::family(),
        SuspendMode::family(),
        FlashScheduler::family(),
        PageOrder::family(),
        Arbitration::family(),
        HandleType::family(),
        ZoneLayout::family(),
        ZoneHost::family(),
        TraceFormat::family(),
        Pattern::family(),
        ArrivalSpec::family(),
        IdleDist::family(),
        LbaMapMode::family(),
        FsPersonality::family(),
        TrimMode::family(),
        crate::detect::features::FeatureSet::family(),
        crate::sim::GcLabel::family(),
        crate::offline::OfflineMethod::family(),
        crate::offline::ToyDistribution::family(),
        crate::experiments::Experiment::family(),
    ]
}

/// Defaults the front ends show and use, from the core's own definitions: a synthetic
/// workload's fields, the run options and the closed loop's queue depth, an `fs` workload's fields (`fs.spec`, `null` = the personality's own)
/// and each personality's own defaults (`fs.personalities`), the Tiny-Tail Flash stacks, the
/// RL-GC schedulers and baseline, the Table I toy constants.
pub fn defaults() -> serde_json::Value {
    use crate::config::Registry;
    use crate::trace::{FsPersonality, FsSpec, Pattern, SyntheticSpec, TraceSpec};
    use strum::IntoEnumIterator;
    let mut spec =
        serde_json::to_value(FsSpec::new(FsPersonality::Fileserver, 0)).unwrap_or_default();
    if let Some(o) = spec.as_object_mut() {
        o.remove("personality");
        o.remove("requests");
    }
    let personalities: serde_json::Map<String, serde_json::Value> = FsPersonality::iter()
        .map(|p| {
            (
                p.name().to_string(),
                serde_json::to_value(p.defaults()).unwrap_or_default(),
            )
        })
        .collect();
    serde_json::json!({
        "synthetic": SyntheticSpec::new(Pattern::Uniform, 0),
        "options": SimOptions::default(),
        "queue_depth": crate::sim::DEFAULT_QUEUE_DEPTH,
        "trace": TraceSpec::new(""),
        "fs": {"spec": spec, "personalities": personalities},
        "ttflash_stacks": crate::experiments::ttflash::STACKS,
        "ttflash_artifact_nogc": crate::experiments::ttflash::ARTIFACT_NOGC,
        "ttflash_mechanisms": crate::config::MECHANISMS,
        "tenants_rows": crate::experiments::tenants::ROWS.iter().map(|(n, s)| serde_json::json!({"name": n, "settings": s})).collect::<Vec<_>>(),
        "tenants_slots": crate::experiments::tenants::DEFAULT_SLOTS,
        "placement_rows": crate::experiments::placement::ROWS.iter().map(|(n, s)| serde_json::json!({"name": n, "settings": s})).collect::<Vec<_>>(),
        "tails_rows": crate::experiments::tails::ROWS.iter().map(|(n, s)| serde_json::json!({"name": n, "settings": s})).collect::<Vec<_>>(),
        "experiment_jobs": crate::experiments::parallel::AUTO_JOBS,
        "rlgc_schedulers": crate::experiments::rlgc::SCHEDULERS,
        "lifetime": {"rows": crate::experiments::lifetime::ROWS, "scale": crate::experiments::lifetime::DEFAULT_SCALE},
        "rlgc_baseline": crate::experiments::rlgc::BASELINE,
        "toy": {
            "writes": crate::offline::TOY_WRITES,
            "exhaustive_limit": crate::offline::EXHAUSTIVE_LIMIT,
            "psi": crate::offline::toy::TOY_PSI,
            "draws": crate::experiments::offline::TABLE_ONE_DRAWS,
            "mcts_runs": crate::experiments::offline::TABLE_TWO_RUNS,
            "footprints": crate::offline::ToyDistribution::ALL
                .iter()
                .map(|d| (<&str>::from(*d), d.footprint()))
                .collect::<std::collections::BTreeMap<_, _>>(),
        },
    })
}

/// States of the RL-assisted schedulers' Q-table under a device's `[gc.rl]` binning.
pub fn rl_states(cfg: &DeviceConfig) -> usize {
    crate::ftl::gc::RlFeatures::new(&cfg.gc.rl).states()
}

/// The SLC-cache agents' (`cache.slc = "rl"`, `"external"`) table shape and levels, for outside
/// agents (the Gymnasium environment `ssdlab/SlcCache-v1`) so they never copy them: states,
/// the actions as (size, θ) level steps (0 = keep both), the size levels (fractions of the
/// space the data leaves) and the θ levels (KiB, 4294967295: every write).
pub fn slc_agent() -> serde_json::Value {
    use crate::ftl::hybrid::slc::{ACTIONS, RL_STATES, SIZE_LEVELS, THETA_LEVELS_KIB};
    serde_json::json!({
        "states": RL_STATES,
        "actions": ACTIONS,
        "size_levels": SIZE_LEVELS,
        "theta_levels_kib": THETA_LEVELS_KIB,
    })
}

/// `ssdlab experiment fill`: the drive-review write curve (JSON
/// [`crate::experiments::fill::FillSetup`] in, [`crate::experiments::fill::FillResult`] out).
pub fn fill_experiment(
    setup_json: &str,
    progress: std::sync::Arc<crate::experiments::parallel::Progress>,
) -> Result<String> {
    let mut setup: crate::experiments::fill::FillSetup =
        from_json(setup_json, |e| SsdError::config("experiment fill", e))?;
    setup.progress = progress;
    to_json(&crate::experiments::fill::run(&setup)?)
}

/// `ssdlab experiment slc`: the SLC-cache policies by utilisation (JSON
/// [`crate::experiments::slc::SlcSetup`] in, [`crate::experiments::slc::SlcResult`] out).
pub fn slc_experiment(
    setup_json: &str,
    progress: std::sync::Arc<crate::experiments::parallel::Progress>,
) -> Result<String> {
    let mut setup: crate::experiments::slc::SlcSetup =
        from_json(setup_json, |e| SsdError::config("experiment slc", e))?;
    setup.progress = progress;
    to_json(&crate::experiments::slc::compare(&setup)?)
}

/// `ssdlab experiment detect`: train the GC detector, evaluate it on held-out runs, compare
/// TRIM policies (JSON [`crate::experiments::detect::DetectSetup`] in; the report, the tree and
/// the train/eval datasets out).
pub fn detect_experiment(
    setup_json: &str,
    progress: std::sync::Arc<crate::experiments::parallel::Progress>,
) -> Result<crate::experiments::detect::DetectOutcome> {
    let mut setup: crate::experiments::detect::DetectSetup =
        from_json(setup_json, |e| SsdError::config("experiment detect", e))?;
    setup.progress = progress;
    crate::experiments::detect::train_and_eval(&setup)
}

/// `ssdlab experiment slc --tune-ust`: `ust`'s table tuned offline on the stand-ins (JSON
/// [`crate::experiments::slc::SlcSetup`] in, [`crate::experiments::slc::UstTuning`] out).
pub fn tune_ust(
    setup_json: &str,
    progress: std::sync::Arc<crate::experiments::parallel::Progress>,
) -> Result<String> {
    let mut setup: crate::experiments::slc::SlcSetup =
        from_json(setup_json, |e| SsdError::config("experiment slc", e))?;
    setup.progress = progress;
    to_json(&crate::experiments::slc::tune_ust(&setup)?)
}

/// `ssdlab experiment rlgc`: every run of the RL-assisted GC comparison (JSON
/// [`crate::experiments::rlgc::RlgcSetup`] in, [`crate::experiments::rlgc::RlgcComparison`] out).
pub fn rlgc_experiment(
    setup_json: &str,
    progress: std::sync::Arc<crate::experiments::parallel::Progress>,
) -> Result<String> {
    let mut setup: crate::experiments::rlgc::RlgcSetup =
        from_json(setup_json, |e| SsdError::config("experiment rlgc", e))?;
    setup.progress = progress;
    to_json(&crate::experiments::rlgc::compare(&setup)?)
}

/// A drive's lifetime (`experiments::lifetime`) from a JSON setup
/// (`experiments::lifetime::LifetimeSetup`).
pub fn lifetime_experiment(
    setup_json: &str,
    progress: std::sync::Arc<crate::experiments::parallel::Progress>,
) -> Result<String> {
    let mut setup: crate::experiments::lifetime::LifetimeSetup =
        from_json(setup_json, |e| SsdError::config("experiment lifetime", e))?;
    setup.progress = progress;
    to_json(&crate::experiments::lifetime::compare(&setup)?)
}
