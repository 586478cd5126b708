//! A drive's lifetime (issue 63): write a stated workload until the drive reaches its end of
//! life (`[endurance]`), and compare the host bytes it took with the drive's rated TBW
//! (terabytes written, JEDEC JESD218's endurance rating).
//!
//! **The workloads** (rows):
//! - `jesd219`: JEDEC JESD219A's endurance workload as far as its numbers go: its transfer-size
//!   mix (4 KiB for 67 % of writes; mean 7.6 KiB, [`JESD219_MEAN_KIB`]) as 4 KiB × (1 +
//!   geometric) requests, and its LBA skew reduced to two temperatures: 80 % of writes to 20 %
//!   of the LBAs (its first two bands together: 50 % to 5 %, 30 % to the next 15 %), random,
//!   writes only. JESD219A gives that mix for enterprise drives; its client workload is a
//!   captured PC trace that is not public, and is friendlier (more of it sequential). So this
//!   row is the harsh end.
//! - `sequential`: 128 KiB sequential writes over the whole drive, again and again: the
//!   friendly end (no GC copies in QLC; the SLC cache's migration only).
//!
//! A client trace's lifetime lies between the two rows.
//!
//! **Scaling.** A 1 TB drive to 1,000 P/E cycles is ~3·10^11 mapping-unit writes; the
//! experiment divides `geometry.pages_per_block` by `scale` (every block, spare block, trigger
//! and SLC region keeps its count; each block holds `scale`× fewer pages), so each block
//! reaches its P/E cycles after `scale`× fewer host bytes, and the TBW is the end of life's
//! host bytes times `scale`. What a smaller block changes is GC's victims (fewer pages each:
//! WAF moves a little), which `docs/reliability.md` measures at two scales.
//!
//! **Wear**: blocks retire at the cell mode's rated cycles (`config::rated_endurance`: QLC
//! 1,000) unless `retire_pe` says otherwise; on the hybrid FTL an SLC-mode erase counts
//! `retire_pe / slc_retire_pe` of a cycle (30,000 SLC cycles unless said). Mapping units of
//! 4 KiB (`ftl.mapping_unit_bytes`), as client drives map. Timing off: the FTL only.

use serde::Deserialize;

use crate::config::{rated_endurance, CellMode, DeviceConfig};
use crate::error::{Result, SsdError};
use crate::sim::{SimOptions, Simulation};
use crate::trace::{RequestSource, SyntheticSpec};

/// The workloads, in the table's order.
pub const ROWS: &[&str] = &["jesd219", "sequential"];

/// JESD219A's enterprise transfer sizes (KiB) and their shares of writes.
pub const JESD219_SIZES: &[(f64, f64)] = &[
    (0.5, 0.04),
    (1.0, 0.01),
    (1.5, 0.01),
    (2.0, 0.01),
    (2.5, 0.01),
    (3.0, 0.01),
    (3.5, 0.01),
    (4.0, 0.67),
    (8.0, 0.10),
    (16.0, 0.07),
    (32.0, 0.03),
    (64.0, 0.03),
];

/// The mix's mean transfer size in KiB (7.635).
pub const JESD219_MEAN_KIB: f64 = 7.635;

/// Rated endurance of the presets that have one: (preset, TBW in 10^12 bytes, source).
pub const RATED_TBW: &[(&str, f64, &str)] = &[(
    "client-qlc-1tb",
    360.0,
    "Samsung 870 QVO 1 TB data sheet (2020): 360 TBW over its 3-year warranty",
)];

/// Block-size divisor by default: a 1 TB preset's 1,024-page blocks become 16 pages.
pub const DEFAULT_SCALE: u32 = 64;

/// The experiment's inputs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LifetimeSetup {
    /// A preset name or TOML text (`origin` names the file), with `--set` overrides.
    pub device: String,
    pub origin: String,
    #[serde(default)]
    pub overrides: Vec<String>,
    /// The rows to run (empty: all).
    #[serde(default)]
    pub rows: Vec<String>,
    /// Divide `geometry.pages_per_block` by this.
    #[serde(default = "default_scale")]
    pub scale: u32,
    /// P/E cycles at which a block retires (None: the cell mode's rated cycles).
    #[serde(default)]
    pub retire_pe: Option<u32>,
    /// Hybrid FTL: P/E cycles of a block in SLC mode (None: SLC's rated cycles).
    #[serde(default)]
    pub slc_retire_pe: Option<u32>,
    /// The rating to compare with, in TB (None: [`RATED_TBW`]'s, if the preset has one).
    #[serde(default)]
    pub rated_tbw: Option<f64>,
    pub seed: u64,
    #[serde(default)]
    pub jobs: usize,
    #[serde(skip)]
    pub progress: std::sync::Arc<super::parallel::Progress>,
}

fn default_scale() -> u32 {
    DEFAULT_SCALE
}

/// The rated TBW of preset `name`, if known.
pub fn rated_tbw(name: &str) -> Option<f64> {
    RATED_TBW.iter().find(|(n, ..)| *n == name).map(|r| r.1)
}

/// The scaled device with bad blocks on: the settings after the user's overrides.
pub fn device(setup: &LifetimeSetup) -> Result<DeviceConfig> {
    let base = DeviceConfig::load(&setup.device, &setup.origin, &setup.overrides)?;
    let ppb = base.geometry.pages_per_block;
    let bits = base.geometry.cell_mode.bits_per_cell();
    let scale = setup.scale;
    if scale == 0 || ppb % scale != 0 || ppb / scale < 2 * bits {
        return Err(SsdError::Invalid(format!(
            "--scale: expected a divisor of geometry.pages_per_block ({ppb}) that leaves at \
             least {} pages a block, got {scale}",
            2 * bits
        )));
    }
    if setup.slc_retire_pe.is_some() && base.cache.slc.is_none() {
        return Err(SsdError::Invalid(format!(
            "--slc-retire-pe: applies to a hybrid SLC/QLC device; {} has no SLC cache (cache.slc)",
            base.name
        )));
    }
    let retire = setup
        .retire_pe
        .unwrap_or_else(|| rated_endurance(base.geometry.cell_mode));
    let mut sets = setup.overrides.clone();
    sets.push(format!("geometry.pages_per_block={}", ppb / scale));
    if base.geometry.page_size > 4096 && base.ftl.mapping_unit_bytes.is_none() {
        sets.push("ftl.mapping_unit_bytes=4096".into());
    }
    sets.push(format!("endurance.retire_pe={retire}"));
    if base.cache.slc.is_some() {
        let slc = setup
            .slc_retire_pe
            .unwrap_or_else(|| rated_endurance(CellMode::Slc));
        sets.push(format!("endurance.slc_retire_pe={slc}"));
    }
    DeviceConfig::load(&setup.device, &setup.origin, &sets)
}

/// Row `name`'s workload on `cfg`, `requests` long.
pub fn workload(name: &str, cfg: &DeviceConfig, requests: u64) -> Result<SyntheticSpec> {
    let page_kib = f64::from(cfg.geometry.page_size) / 1024.0;
    let v = match name {
        "jesd219" => serde_json::json!({"pattern": "hotcold", "requests": requests,
            "hot_write_fraction": 0.8, "hot_space_fraction": 0.2,
            "mean_request_kib": JESD219_MEAN_KIB}),
        "sequential" => serde_json::json!({"pattern": "sequential", "requests": requests,
            "request_pages": (128.0 / page_kib).max(1.0) as u64}),
        _ => {
            return Err(SsdError::config(
                "row",
                format!("unknown row '{name}'; expected one of: {}", ROWS.join(", ")),
            ))
        }
    };
    serde_json::from_value(v).map_err(|e| SsdError::Invalid(e.to_string()))
}

/// Run every row to the end of life (or to a cap of twice the host bytes that would wear every
/// block out at a write amplification of 1, then "not reached"). JSON: `rows`, `configs.<row>`
/// with the run's WAF, erases, `endurance` and `erase_per_block`, and `tbw`, `drive_writes`,
/// `rated_tbw`, `tbw_over_rated`, `end_of_life`.
pub fn compare(setup: &LifetimeSetup) -> Result<serde_json::Value> {
    let rows: Vec<String> = if setup.rows.is_empty() {
        ROWS.iter().map(|r| r.to_string()).collect()
    } else {
        setup.rows.clone()
    };
    let cfg = device(setup)?;
    let unit = u64::from(cfg.unit_bytes());
    let physical = cfg.geometry.total_blocks()
        * u64::from(cfg.geometry.pages_per_block)
        * u64::from(cfg.units_per_page());
    let wear = u64::from(cfg.endurance.retire_pe.max(1));
    // Host units before the cap, over a request's mean units (at least 1).
    let specs = rows
        .iter()
        .map(|r| {
            let mut spec = workload(r, &cfg, 1)?;
            let per = match spec.mean_request_kib {
                Some(kib) => (kib * 1024.0 / unit as f64).max(1.0),
                None => (spec.request_pages * u64::from(cfg.units_per_page())) as f64,
            };
            spec.requests = ((2.0 * wear as f64 * physical as f64 / per).ceil() as u64).max(1);
            Ok(spec)
        })
        .collect::<Result<Vec<_>>>()?;
    let opts = SimOptions {
        seed: setup.seed,
        timing: false,
        precondition: Some(crate::ftl::Precondition {
            sequential: true,
            random_passes: 0.0,
            fill_fraction: 1.0,
        }),
        ..SimOptions::default()
    };
    let devices = vec![cfg.clone(); rows.len()];
    let jobs = super::parallel::jobs_for(setup.jobs, rows.len(), &devices, &opts);
    let logical = cfg.geometry.logical_bytes();
    let runs = super::parallel::map(&specs, jobs, &setup.progress, |spec| {
        let src = crate::trace::Synthetic::new(
            spec,
            logical,
            u64::from(cfg.geometry.page_size),
            opts.seed,
        )?;
        let src: Box<dyn RequestSource> = Box::new(src);
        Simulation::new(cfg.clone(), opts.clone(), src)?.run()
    })?;
    let rated = setup.rated_tbw.or_else(|| rated_tbw(&cfg.name));
    let json = |e: serde_json::Error| SsdError::Invalid(e.to_string());
    let mut configs = serde_json::Map::new();
    for (row, r) in rows.iter().zip(runs) {
        let e = r.layers.endurance.unwrap_or_default();
        let eol = e.end_of_life_host_bytes;
        let bytes = eol.unwrap_or(e.host_bytes_written) as f64;
        let tbw = bytes * f64::from(setup.scale) / 1e12;
        let v = serde_json::json!({
            "end_of_life": eol.is_some(),
            "host_bytes_on_scaled_device": bytes,
            "tbw": tbw,
            "drive_writes": bytes / logical as f64,
            "rated_tbw": rated,
            "tbw_over_rated": rated.map(|t| tbw / t),
            "waf": r.waf,
            "erases": r.erases,
            "erase_per_block": serde_json::to_value(r.erase_per_block).map_err(json)?,
            "endurance": serde_json::to_value(e).map_err(json)?,
            "hybrid": serde_json::to_value(r.layers.hybrid).map_err(json)?,
        });
        configs.insert(row.clone(), v);
    }
    Ok(serde_json::json!({
        "device": cfg.name,
        "rows": rows,
        "scale": setup.scale,
        "pages_per_block": cfg.geometry.pages_per_block,
        "retire_pe": cfg.endurance.retire_pe,
        "slc_retire_pe": cfg.endurance.slc_retire_pe,
        "rated_tbw": rated,
        "rated_source": RATED_TBW.iter().find(|(n, ..)| *n == cfg.name).map(|r| r.2),
        "logical_bytes_scaled": logical,
        "configs": configs,
    }))
}
