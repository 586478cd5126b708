//! Placement beside selection (Shafaei & Desnoyers §VI, Figure 9): the same page-write trace
//! replayed through the core FTL with multi-frontier placement (dual-frontier, hot-cold, eti,
//! oracle) and greedy cleaning, on one plane of the offline model's geometry, for comparison
//! with near-optimal single-frontier cleaning.

use serde::Serialize;

use super::OfflineConfig;
use crate::config::{DeviceConfig, Placement};
use crate::error::{Result, SsdError};
use crate::ftl::map::{Ftl, NEVER};
use crate::rng;

/// What a placement run measured (trace writes only; the prefill excluded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementReport {
    pub placement: String,
    pub host_writes: u64,
    pub prefill_writes: u64,
    pub internal_writes: u64,
    pub waf: f64,
    pub cleanings: u64,
    /// Blocks of the plane: the model's T plus the extra open frontiers multi-frontier needs.
    pub blocks: u32,
}

/// Replay `trace` with `placement` (`single`, `dual-frontier`, `hot-cold`, `eti`, `oracle`) and
/// greedy victims. The plane has the model's T blocks plus one block per extra frontier, so
/// that every policy has the same room for data (a fair comparison).
pub fn run_placement(
    trace: &[u32],
    cfg: &OfflineConfig,
    placement: &str,
) -> Result<PlacementReport> {
    cfg.validate()?;
    let p: Placement = serde_json::from_value(serde_json::Value::String(placement.to_string())).map_err(|_| {
        SsdError::config("--placement", format!("unknown placement '{placement}'; expected one of: single, dual-frontier, hot-cold, eti, oracle"))
    })?;
    let streams = match p {
        Placement::Single => 1,
        Placement::DualFrontier => 2,
        _ => 3,
    };
    let blocks = cfg.blocks + streams - 1 + 1;
    let physical = f64::from(blocks) * f64::from(cfg.pages_per_block);
    // spare chosen so that ⌊physical·(1 − spare)⌋ = logical_pages exactly.
    let spare = 1.0 - (f64::from(cfg.logical_pages) + 0.5) / physical;
    let sets = vec![
        "geometry.channels=1".to_string(),
        "geometry.chips_per_channel=1".into(),
        "geometry.dies_per_chip=1".into(),
        "geometry.planes_per_die=1".into(),
        format!("geometry.blocks_per_plane={blocks}"),
        format!("geometry.pages_per_block={}", cfg.pages_per_block),
        format!("geometry.spare_factor={spare}"),
        "gc.threshold_blocks=1".into(),
        "gc.victim=\"greedy\"".into(),
        format!("ftl.placement=\"{placement}\""),
    ];
    let dev = DeviceConfig::from_preset("tiny", &sets)?;
    let mut ftl = Ftl::new(&dev)?;
    if u64::from(ftl.logical_pages()) < u64::from(cfg.logical_pages) {
        return Err(SsdError::Invalid(
            "placement geometry lost logical pages to rounding".into(),
        ));
    }
    let mut gc_rng = rng::stream(0, "placement-gc");
    let mut write = |ftl: &mut Ftl, lpn: u32, hint: u64| -> Result<()> {
        if !ftl.host_can_write(0) {
            ftl.gc_while(0, &mut gc_rng, |f| !f.host_can_write(0), |_| {})?;
            if !ftl.host_can_write(0) {
                return Err(SsdError::DeviceFull(format!(
                    "placement {placement}: GC cannot make room"
                )));
            }
        }
        ftl.write_host_hinted(lpn, 0, hint)?;
        Ok(())
    };
    let prefill = if cfg.prefill { cfg.logical_pages } else { 0 };
    // Next-write clock of every trace write (the oracle's knowledge), in the FTL's host clock.
    let next = next_writes(trace, cfg.logical_pages, u64::from(prefill));
    let first_trace_write = first_writes(trace, cfg.logical_pages, u64::from(prefill));
    for lpn in 0..prefill {
        write(&mut ftl, lpn, first_trace_write[lpn as usize])?;
    }
    let (c0, e0) = (ftl.counters.gc_pages_copied, ftl.counters.gc_victims);
    for (i, &lpn) in trace.iter().enumerate() {
        write(&mut ftl, lpn, next[i])?;
    }
    let host = trace.len() as u64;
    let internal = ftl.counters.gc_pages_copied - c0;
    Ok(PlacementReport {
        placement: placement.to_string(),
        host_writes: host,
        prefill_writes: u64::from(prefill),
        internal_writes: internal,
        waf: if host == 0 {
            1.0
        } else {
            (host + internal) as f64 / host as f64
        },
        cleanings: ftl.counters.gc_victims - e0,
        blocks,
    })
}

fn next_writes(trace: &[u32], logical: u32, offset: u64) -> Vec<u64> {
    let mut seen = vec![NEVER; logical as usize];
    let mut next = vec![NEVER; trace.len()];
    for (i, &l) in trace.iter().enumerate().rev() {
        if let Some(s) = seen.get_mut(l as usize) {
            next[i] = *s;
            *s = offset + i as u64;
        }
    }
    next
}

fn first_writes(trace: &[u32], logical: u32, offset: u64) -> Vec<u64> {
    let mut first = vec![NEVER; logical as usize];
    for (i, &l) in trace.iter().enumerate().rev() {
        if let Some(f) = first.get_mut(l as usize) {
            *f = offset + i as u64;
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hot/cold trace: 90 % of writes to 10 % of the pages.
    fn hot_cold(n: usize, logical: u32, seed: u64) -> Vec<u32> {
        super::super::tests::skewed_writes(n, logical, (logical / 10, 0.9), seed, "t")
    }

    #[test]
    fn temperature_placement_beats_single_frontier_on_skewed_writes() {
        let cfg = OfflineConfig {
            blocks: 256,
            pages_per_block: 64,
            logical_pages: 256 * 64 * 85 / 100,
            prefill: true,
        };
        let trace = hot_cold(400_000, cfg.logical_pages, 1);
        let waf = |p: &str| run_placement(&trace, &cfg, p).unwrap().waf;
        let (single, dual, hc, eti, oracle) = (
            waf("single"),
            waf("dual-frontier"),
            waf("hot-cold"),
            waf("eti"),
            waf("oracle"),
        );
        eprintln!(
            "single {single:.3} dual {dual:.3} hot-cold {hc:.3} eti {eti:.3} oracle {oracle:.3}"
        );
        assert!(
            hc < single && eti < single && oracle < single,
            "{single} {hc} {eti} {oracle}"
        );
        assert!(
            oracle <= hc * 1.02,
            "oracle {oracle} should be at least as good as hot-cold {hc}"
        );
    }

    #[test]
    fn single_frontier_placement_matches_the_offline_greedy_model_closely() {
        let cfg = OfflineConfig {
            blocks: 128,
            pages_per_block: 32,
            logical_pages: 128 * 32 * 8 / 10,
            prefill: true,
        };
        let trace = hot_cold(100_000, cfg.logical_pages, 2);
        let ftl = run_placement(&trace, &cfg, "single").unwrap();
        let model =
            super::super::run_offline(&trace, &cfg, &super::super::OfflineMethod::Greedy, 0)
                .unwrap();
        let rel = (ftl.waf / model.waf - 1.0).abs();
        assert!(
            rel < 0.03,
            "core FTL {} vs offline model {}",
            ftl.waf,
            model.waf
        );
    }

    #[test]
    fn unknown_placement_is_a_clear_error() {
        let cfg = OfflineConfig {
            blocks: 16,
            pages_per_block: 8,
            logical_pages: 100,
            prefill: false,
        };
        let e = run_placement(&[1, 2, 3], &cfg, "magic")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown placement 'magic'") && e.contains("hot-cold"),
            "{e}"
        );
    }
}
