//! The input of the offline model (seed §II): a workload (trace, synthetic generator or a Table I
//! toy) turned into the sequence of logical page writes `a_1 … a_m`, and the device it is
//! replayed on.
//!
//! Page writes. Reads and TRIMs are ignored (the model has neither); each write request
//! contributes every page it covers, in order, at `page_size` (a request covering bytes
//! `[o, o + s)` writes pages `o / P ..= (o + s − 1) / P`; a size-0 write writes nothing). Trace
//! addresses go through the trace layer's LBA map ([`crate::trace::LbaMapMode`]: `dense` is the
//! natural choice here and the CLI's default), over a logical space of `logical_pages` when
//! given, else of 2^32 − 1 pages (so every mode accepts the trace). The written pages are then
//! compacted to `0 .. footprint` keeping their mapped order (first touch for `dense`, LBA order
//! for `none`), so the model's logical space is exactly the *write footprint*: pages that are
//! only read would be static data and are dropped.
//!
//! Device. With prefill (seed §IV-C: "initialized by prepending sequential writes to the entire
//! LBA space"), logical pages N = footprint and, unless `blocks` is given,
//! `T = ⌈N / (N_p · (1 − spare))⌉ + 1`: the blocks that hold N pages at the spare factor, plus
//! one for the single write frontier, which also keeps `N < T · N_p` (§II) at spare 0. GC is
//! then active from the first write after the prefill.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::toy::{toy_config, toy_trace, ToyDistribution, TOY_WRITES};
use super::OfflineConfig;
use crate::error::{Result, SsdError};
use crate::trace::{open_workload, OpKind, SyntheticSpec, TraceSpec, WorkloadSpec};

/// A workload of the offline model: a trace, a synthetic generator, or a toy trace of Table I.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum OfflineWorkload {
    Trace(TraceSpec),
    Synthetic(SyntheticSpec),
    /// A Table I toy trace (§IV-A); its device is always [`toy_config`] (8 × 4 pages).
    Toy(ToySpec),
}

/// One toy trace of Table I.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToySpec {
    pub dist: ToyDistribution,
    #[serde(default = "toy_writes")]
    pub writes: usize,
    /// Distinct pages the trace writes; default: the distribution's Table I footprint
    /// ([`ToyDistribution::footprint`]).
    #[serde(default)]
    pub footprint: Option<u32>,
    /// The draw; default 1, the first of Table I's draws.
    #[serde(default)]
    pub seed: Option<u64>,
}

fn toy_writes() -> usize {
    TOY_WRITES
}

/// How to build the device for a workload (ignored for toy workloads but `prefill`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfflineSetup {
    /// N_p; 128 as in §IV-C.
    #[serde(default = "default_np")]
    pub pages_per_block: u32,
    /// T; default: scaled to the footprint with `spare` (module doc).
    #[serde(default)]
    pub blocks: Option<u32>,
    /// Spare factor used when `blocks` is not given; §IV-C uses 2%; 7% is the common
    /// consumer-SSD over-provisioning and gives GC more choice per cleaning.
    #[serde(default = "default_spare")]
    pub spare: f64,
    /// Bytes per page; 4 KiB as in §IV-C.
    #[serde(default = "default_page_size")]
    pub page_size: u64,
    /// Logical space in pages that trace addresses are mapped into (default 2^32 − 1) or that a
    /// synthetic workload addresses (required for synthetic workloads).
    #[serde(default)]
    pub logical_pages: Option<u64>,
    /// Prepend one sequential write of every logical page (§IV-C); toys never prefill.
    #[serde(default = "default_true")]
    pub prefill: bool,
}

fn default_np() -> u32 {
    128
}
fn default_spare() -> f64 {
    0.07
}
fn default_page_size() -> u64 {
    4096
}
fn default_true() -> bool {
    true
}

impl Default for OfflineSetup {
    fn default() -> Self {
        OfflineSetup {
            pages_per_block: default_np(),
            blocks: None,
            spare: default_spare(),
            page_size: default_page_size(),
            logical_pages: None,
            prefill: true,
        }
    }
}

impl OfflineSetup {
    pub fn validate(&self) -> Result<()> {
        if !(self.spare.is_finite() && (0.0..1.0).contains(&self.spare)) {
            return Err(SsdError::config(
                "offline.spare",
                format!("must be in [0, 1), got {}", self.spare),
            ));
        }
        if self.page_size == 0 {
            return Err(SsdError::config("offline.page_size", "must be > 0"));
        }
        if self.pages_per_block == 0 {
            return Err(SsdError::config(
                "offline.pages_per_block",
                "must be at least 1",
            ));
        }
        if self.logical_pages == Some(0) {
            return Err(SsdError::config("offline.logical_pages", "must be > 0"));
        }
        Ok(())
    }
}

/// The blocks that hold `footprint` pages at `spare`, plus one for the write frontier.
pub fn scaled_blocks(footprint: u64, pages_per_block: u32, spare: f64) -> u64 {
    let per_block = f64::from(pages_per_block) * (1.0 - spare);
    (footprint as f64 / per_block).ceil() as u64 + 1
}

/// A workload ready for [`super::run_offline`]: its page writes and the device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OfflineProblem {
    #[serde(skip)]
    pub writes: Vec<u32>,
    pub config: OfflineConfig,
    /// Requests read from the workload, and those that were writes.
    pub requests: u64,
    pub write_requests: u64,
    /// Page writes of the trace (prefill excluded).
    pub page_writes: u64,
    /// Distinct logical pages written (= `config.logical_pages` unless toy).
    pub footprint: u64,
    /// Spare factor of the device: 1 − N / (T · N_p).
    pub spare: f64,
    /// What the workload was (file and format, generator, toy).
    pub source: String,
}

/// Page writes of a trace or synthetic workload, compacted to the write footprint (module doc).
/// Returns (page writes, footprint, requests, write requests, description).
pub fn page_writes(
    spec: &WorkloadSpec,
    setup: &OfflineSetup,
    seed: u64,
) -> Result<(Vec<u32>, u32, u64, u64, String)> {
    setup.validate()?;
    let space_pages = match (spec, setup.logical_pages) {
        (_, Some(n)) => n,
        (WorkloadSpec::Trace(_), None) => u64::from(u32::MAX - 1),
        (WorkloadSpec::Flows(_), None) => {
            return Err(SsdError::Workload(
                "flows: offline cleaning takes one workload, not several flows".into(),
            ))
        }
        (WorkloadSpec::Synthetic(_) | WorkloadSpec::Preset { .. } | WorkloadSpec::Fs(_), None) => {
            return Err(SsdError::config(
                "offline.logical_pages",
                "a synthetic workload needs the logical space it addresses, in pages",
            ))
        }
    };
    let p = setup.page_size;
    let bytes = space_pages.checked_mul(p).ok_or_else(|| {
        SsdError::config(
            "offline.logical_pages",
            "logical_pages × page_size overflows",
        )
    })?;
    let mut src = open_workload(spec, bytes, p, seed)?;
    let (mut requests, mut write_requests) = (0u64, 0u64);
    let mut pages: Vec<u64> = Vec::new();
    while let Some(r) = src.next_request()? {
        requests += 1;
        if r.op != OpKind::Write {
            continue;
        }
        write_requests += 1;
        if r.size_bytes == 0 {
            continue;
        }
        pages.extend(r.offset_bytes / p..=(r.offset_bytes + r.size_bytes - 1) / p);
    }
    let mut distinct = pages.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() as u64 >= u64::from(u32::MAX - 1) {
        return Err(SsdError::Workload(format!(
            "write footprint of {} pages is too large for the offline model",
            distinct.len()
        )));
    }
    let index: HashMap<u64, u32> = distinct
        .iter()
        .enumerate()
        .map(|(i, &pg)| (pg, i as u32))
        .collect();
    let writes = pages.iter().map(|pg| index[pg]).collect();
    Ok((
        writes,
        distinct.len() as u32,
        requests,
        write_requests,
        src.describe(),
    ))
}

/// Build the offline problem of `workload` on the device of `setup` (module doc).
pub fn load_problem(
    workload: &OfflineWorkload,
    setup: &OfflineSetup,
    seed: u64,
) -> Result<OfflineProblem> {
    let spec = match workload {
        OfflineWorkload::Toy(t) => return toy_problem(t),
        OfflineWorkload::Trace(t) => WorkloadSpec::Trace(t.clone()),
        OfflineWorkload::Synthetic(s) => WorkloadSpec::Synthetic(s.clone()),
    };
    let (writes, footprint, requests, write_requests, source) = page_writes(&spec, setup, seed)?;
    if footprint == 0 {
        return Err(SsdError::Workload(format!(
            "{source}: no write requests, nothing to clean"
        )));
    }
    let np = setup.pages_per_block;
    let blocks = match setup.blocks {
        Some(b) => b,
        None => {
            let b = scaled_blocks(u64::from(footprint), np, setup.spare);
            u32::try_from(b).map_err(|_| {
                SsdError::config("offline.blocks", format!("{b} blocks needed; too many"))
            })?
        }
    };
    let config = OfflineConfig {
        blocks,
        pages_per_block: np,
        logical_pages: footprint,
        prefill: setup.prefill,
    };
    config.validate()?;
    Ok(OfflineProblem {
        page_writes: writes.len() as u64,
        writes,
        spare: spare_of(&config),
        config,
        requests,
        write_requests,
        footprint: u64::from(footprint),
        source,
    })
}

fn spare_of(c: &OfflineConfig) -> f64 {
    1.0 - f64::from(c.logical_pages) / (f64::from(c.blocks) * f64::from(c.pages_per_block))
}

fn toy_problem(t: &ToySpec) -> Result<OfflineProblem> {
    if t.writes == 0 {
        return Err(SsdError::Workload("toy writes: must be > 0".into()));
    }
    let footprint = t.footprint.unwrap_or_else(|| t.dist.footprint());
    let writes = toy_trace(t.dist, t.writes, footprint, t.seed.unwrap_or(1))?;
    let mut distinct = writes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let config = toy_config();
    Ok(OfflineProblem {
        page_writes: writes.len() as u64,
        requests: writes.len() as u64,
        write_requests: writes.len() as u64,
        footprint: distinct.len() as u64,
        spare: spare_of(&config),
        source: format!(
            "toy {:?} trace of {} writes (Table I)",
            t.dist,
            writes.len()
        ),
        writes,
        config,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{LbaMapMode, Pattern};

    fn csv(name: &str, body: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-offline-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn offline_input_pages_of_writes_only_compacted_in_order() {
        // Writes: 2 pages at 1 TiB, a read, a 1-page write at 8 KiB, the first page again.
        let p = csv(
            "a.csv",
            "0,W,1099511627776,8192\n1,R,0,4096\n2,W,8192,4096\n3,W,1099511627776,100\n4,W,0,0\n",
        );
        let mut t = TraceSpec::new(&p);
        t.lba_map = LbaMapMode::Dense;
        let setup = OfflineSetup::default();
        let (w, n, req, wreq, _) = page_writes(&WorkloadSpec::Trace(t.clone()), &setup, 0).unwrap();
        // dense maps first touch: 1 TiB → 0, +1 → 1, (read page 0 → 2), 8 KiB → 3; compacted 0,1,2
        assert_eq!((w, n, req, wreq), (vec![0, 1, 2, 0], 3, 5, 4));
        t.lba_map = LbaMapMode::None;
        let (w, n, ..) = page_writes(&WorkloadSpec::Trace(t), &setup, 0).unwrap();
        // LBA order: page 2 (8 KiB) first, then the two at 1 TiB.
        assert_eq!((w, n), (vec![1, 2, 0, 1], 3));
    }

    #[test]
    fn offline_input_scales_blocks_to_the_footprint() {
        assert_eq!(scaled_blocks(1000, 128, 0.0), 9);
        assert_eq!(scaled_blocks(1000, 128, 0.5), 17);
        let wl = OfflineWorkload::Synthetic(SyntheticSpec::new(Pattern::Uniform, 5000));
        let mut setup = OfflineSetup {
            pages_per_block: 16,
            logical_pages: Some(512),
            ..Default::default()
        };
        let prob = load_problem(&wl, &setup, 3).unwrap();
        assert_eq!(prob.config.logical_pages, 512);
        assert_eq!(prob.config.blocks, scaled_blocks(512, 16, 0.07) as u32);
        assert!(prob.spare > 0.07 && prob.page_writes == 5000);
        assert_eq!(load_problem(&wl, &setup, 3).unwrap().writes, prob.writes);
        setup.logical_pages = None;
        let e = load_problem(&wl, &setup, 3).unwrap_err().to_string();
        assert!(e.contains("offline.logical_pages"), "{e}");
        setup.spare = 1.0;
        assert!(load_problem(&wl, &setup, 3)
            .unwrap_err()
            .to_string()
            .contains("offline.spare"));
        let toy: OfflineWorkload =
            serde_json::from_str(r#"{"kind":"toy","dist":"gamma"}"#).unwrap();
        let prob = load_problem(&toy, &OfflineSetup::default(), 0).unwrap();
        assert_eq!((prob.config, prob.page_writes), (toy_config(), 46));
        assert!(
            serde_json::from_str::<OfflineWorkload>(r#"{"kind":"toy","dist":"beta"}"#).is_err()
        );
    }
}
