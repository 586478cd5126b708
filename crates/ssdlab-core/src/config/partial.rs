//! `[gc.rl]` and `[gc.partial]`: parameters of the partial-GC schedulers (LazyRTGC, the
//! RL-assisted schedulers of Kang, Shin, Yoo, TECS 2017, and the idle-time predictors). Every
//! value the paper leaves open is a field here so results can be checked for dependence on it.

use serde::{Deserialize, Serialize};

/// `[gc.rl]`: the Q-learning agent of Kang et al. (TECS 2017) §5.2–5.3, Tables 3–4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RlConfig {
    /// The action set: page copies per action; any action erases a ready victim instead. The
    /// paper fixes no size; our reading of its text is 1..=5:
    /// - at least 1: Algorithm 1 runs `partial_gc(A_t)` whenever it is triggered (line 7); the
    ///   only skip is a zero inter-request interval (lines 3–5), so no action is "do nothing";
    /// - more than 2: the aggressive variant caps actions "with more than two GC operations" at
    ///   two (§5.3), which would be void if no action exceeded two; "e.g. five page copies" is
    ///   the paper's own example of an action (§4, §5.1);
    /// - below the intensive amount: intensive GC does "more (5 or 7)" than normal partial GC,
    ///   "typically 1 or 2 page copies" (§5.2) — the policy's usual choices, the lower half of
    ///   the set (Table 3 bins the previous action at max/2).
    ///
    /// Other sets are in `ssdlab experiment rlgc --sensitivity` (0–7, the default until
    /// 2026-11-24; 0–3; 1–2; 0–15): the tail depends on this value more than on any other.
    #[serde(default = "actions")]
    pub actions: Vec<u32>,
    /// Upper edges (µs) of the current-interval bins (17 bins = 16 edges). Table 3 shows only
    /// "< 100, < 500, …, > 100000"; the inner edges are ours, dense between 1 and 10 ms where one
    /// copy (≈0.65 ms), one erase (3.5–4 ms) and 7 copies (≈4.5 ms) must fit.
    #[serde(default = "interval_bins")]
    pub interval_bins_us: Vec<f64>,
    /// Upper edges (µs) of the previous-interval bins (Table 3: < 100 | > 100).
    #[serde(default = "prev_interval_bins")]
    pub prev_interval_bins_us: Vec<f64>,
    /// Response-time percentiles t1, t2, t3 of the reward (§5.2: 70th, 90th, 99th).
    #[serde(default = "reward_percentiles")]
    pub reward_percentiles: Vec<f64>,
    /// Reward for a response ≤ t1, ≤ t2, ≤ t3, > t3 (one more than the percentiles). Figure 6
    /// gives only the range [−0.5, 1] and the sign above t3; the steps 1, 0.5, 0, −0.5 are ours.
    #[serde(default = "reward_levels")]
    pub reward_levels: Vec<f64>,
    /// Recompute the percentile thresholds every this many responses (HDR histogram).
    #[serde(default = "refresh")]
    pub reward_refresh: u64,
    /// Step size α and discount γ (§4 footnote 3: 0.3 and 0.8).
    #[serde(default = "alpha")]
    pub alpha: f64,
    #[serde(default = "gamma")]
    pub gamma: f64,
    /// ε during the first `explore_decisions` decisions, then `epsilon` (§5.2: 0.8, 1000, 0.01).
    #[serde(default = "eps0")]
    pub epsilon_initial: f64,
    #[serde(default = "explore")]
    pub explore_decisions: u64,
    #[serde(default = "eps")]
    pub epsilon: f64,
    /// Aggressive variant: early trigger threshold T_AGC in free blocks per plane (Table 4: 100).
    #[serde(default = "t_agc")]
    pub t_agc: u32,
    /// Aggressive variant: copies per action between T_GC and T_AGC are capped at this (§5.3: 2).
    #[serde(default = "max_limited")]
    pub max_limited_copies: u32,
    /// Aggressive variant: between T_GC and T_AGC a victim is taken only if more than this
    /// fraction of its pages is invalid (§5.3: 60 %).
    #[serde(default = "invalid_frac")]
    pub victim_invalid_fraction: f64,
    /// Path of a saved Q-table (JSON, see `rl::QTable`) to start from instead of zeros.
    #[serde(default)]
    pub q_table: Option<String>,
}

fn actions() -> Vec<u32> {
    (1..=5).collect()
}
fn interval_bins() -> Vec<f64> {
    vec![
        100.0, 500.0, 1000.0, 1500.0, 2000.0, 3000.0, 4000.0, 5000.0, 6000.0, 8000.0, 10000.0,
        15000.0, 20000.0, 30000.0, 50000.0, 100000.0,
    ]
}
fn prev_interval_bins() -> Vec<f64> {
    vec![100.0]
}
fn reward_percentiles() -> Vec<f64> {
    vec![70.0, 90.0, 99.0]
}
fn reward_levels() -> Vec<f64> {
    vec![1.0, 0.5, 0.0, -0.5]
}
fn refresh() -> u64 {
    64
}
fn alpha() -> f64 {
    0.3
}
fn gamma() -> f64 {
    0.8
}
fn eps0() -> f64 {
    0.8
}
fn explore() -> u64 {
    1000
}
fn eps() -> f64 {
    0.01
}
fn t_agc() -> u32 {
    100
}
fn max_limited() -> u32 {
    2
}
fn invalid_frac() -> f64 {
    0.6
}

impl Default for RlConfig {
    fn default() -> Self {
        RlConfig {
            actions: actions(),
            interval_bins_us: interval_bins(),
            prev_interval_bins_us: prev_interval_bins(),
            reward_percentiles: reward_percentiles(),
            reward_levels: reward_levels(),
            reward_refresh: refresh(),
            alpha: alpha(),
            gamma: gamma(),
            epsilon_initial: eps0(),
            explore_decisions: explore(),
            epsilon: eps(),
            t_agc: t_agc(),
            max_limited_copies: max_limited(),
            victim_invalid_fraction: invalid_frac(),
            q_table: None,
        }
    }
}

/// `[gc.partial]`: intensive GC and the non-RL partial schedulers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialConfig {
    /// Intensive GC starts on a plane with this many free blocks or fewer (LazyRTGC, Kang §5.2:
    /// "only one free block left").
    #[serde(default = "one")]
    pub intensive_start_blocks: u32,
    /// Intensive GC stops once a plane has more than T_IGC free blocks (Table 4: 3).
    #[serde(default = "t_igc")]
    pub t_igc: u32,
    /// Copies per write under intensive GC; 0 = α + 1 with α the LazyRTGC quantum. The paper uses
    /// "5 or 7" set from the erase time (§5.2); α + 1 gives 7 on its 128 Gb chip and 5 on its
    /// 512 Gb chip — our reconstruction, the paper does not say which chip used which.
    #[serde(default)]
    pub intensive_copies: u32,
    /// LazyRTGC starts partial GC on a plane at this many free blocks or fewer (Zhang et al.,
    /// TODAES 2015: one block left).
    #[serde(default = "one")]
    pub lazy_trigger_blocks: u32,
    /// idle-ma: moving-average window in intervals (the paper does not give it).
    #[serde(default = "ma_window")]
    pub ma_window: u32,
    /// idle-es: smoothing factor of exponential smoothing (the paper does not give it).
    #[serde(default = "es_alpha")]
    pub es_alpha: f64,
}

fn one() -> u32 {
    1
}
fn t_igc() -> u32 {
    3
}
fn ma_window() -> u32 {
    8
}
fn es_alpha() -> f64 {
    0.5
}

impl Default for PartialConfig {
    fn default() -> Self {
        PartialConfig {
            intensive_start_blocks: 1,
            t_igc: t_igc(),
            intensive_copies: 0,
            lazy_trigger_blocks: 1,
            ma_window: ma_window(),
            es_alpha: es_alpha(),
        }
    }
}

type FieldErr = (String, String);

fn field(name: &str, msg: impl Into<String>) -> FieldErr {
    (name.to_string(), msg.into())
}

/// Most edges of an interval-bin list: the Q-table has (prev + 1) × (current + 1) × 2 states
/// (68 by default), so this bounds it at 132,098 states.
pub const MAX_BIN_EDGES: usize = 256;

fn edges_ok(name: &str, v: &[f64]) -> Result<(), FieldErr> {
    if v.len() > MAX_BIN_EDGES {
        return Err(field(
            name,
            format!(
                "expected at most {MAX_BIN_EDGES} bin edges (each multiplies the Q-table's states), got {}",
                v.len()
            ),
        ));
    }
    if v.iter().any(|e| !(e.is_finite() && *e >= 0.0)) || v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(field(
            name,
            format!("expected increasing non-negative bin edges in µs, got {v:?}"),
        ));
    }
    Ok(())
}

impl RlConfig {
    pub fn check(&self) -> Result<(), FieldErr> {
        if self.actions.is_empty() || self.actions.len() > 64 {
            return Err(field(
                "gc.rl.actions",
                "expected 1 to 64 actions (page copies each)",
            ));
        }
        edges_ok("gc.rl.interval_bins_us", &self.interval_bins_us)?;
        edges_ok("gc.rl.prev_interval_bins_us", &self.prev_interval_bins_us)?;
        let p = &self.reward_percentiles;
        if p.iter().any(|q| !(*q > 0.0 && *q < 100.0)) || p.windows(2).any(|w| w[0] >= w[1]) {
            return Err(field(
                "gc.rl.reward_percentiles",
                format!("expected increasing percentiles in (0, 100), got {p:?}"),
            ));
        }
        if self.reward_levels.len() != p.len() + 1
            || self.reward_levels.iter().any(|r| !r.is_finite())
        {
            return Err(field(
                "gc.rl.reward_levels",
                format!(
                    "expected {} finite levels (one more than the percentiles)",
                    p.len() + 1
                ),
            ));
        }
        if self.reward_refresh == 0 {
            return Err(field("gc.rl.reward_refresh", "expected at least 1"));
        }
        for (n, v) in [
            ("alpha", self.alpha),
            ("gamma", self.gamma),
            ("epsilon_initial", self.epsilon_initial),
            ("epsilon", self.epsilon),
            ("victim_invalid_fraction", self.victim_invalid_fraction),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(field(
                    &format!("gc.rl.{n}"),
                    format!("expected a number in [0, 1], got {v}"),
                ));
            }
        }
        Ok(())
    }
}

impl PartialConfig {
    pub fn check(&self) -> Result<(), FieldErr> {
        if self.ma_window == 0 {
            return Err(field("gc.partial.ma_window", "expected at least 1"));
        }
        if !(self.es_alpha > 0.0 && self.es_alpha <= 1.0) {
            return Err(field(
                "gc.partial.es_alpha",
                format!("expected a number in (0, 1], got {}", self.es_alpha),
            ));
        }
        if self.t_igc < self.intensive_start_blocks {
            return Err(field(
                "gc.partial.t_igc",
                "expected at least intensive_start_blocks",
            ));
        }
        Ok(())
    }
}
