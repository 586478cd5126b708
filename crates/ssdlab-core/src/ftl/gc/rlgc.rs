//! RL-assisted GC scheduling: Kang, Shin, Yoo, "Reinforcement Learning-Assisted Garbage
//! Collection to Mitigate Long-Tail Latency in SSD", ACM TECS 16(5s), 2017.
//!
//! `rlgc` is the baseline of §5.2 (Algorithm 1): after each write request, when a plane has at
//! most T_GC free blocks (`gc.threshold_blocks`) and the inter-request interval is not zero, the
//! agent picks an action ε-greedily from the state (previous interval, current interval,
//! previous action), the partial GC runs after the request, and the reward of this request's
//! response time updates Q of the *previous* state-action (line 9). Intensive GC (fixed copies
//! per write, policy ignored) runs on planes with one free block left until more than T_IGC are
//! free. `rlgc-aggressive` adds §5.3: max-limited early triggering (between T_GC and T_AGC free
//! blocks, actions capped at 2 copies and a victim taken only if > 60 % invalid) and
//! read-initiated GC (decisions after reads as well).

use super::algorithm1::{Algorithm1, EarlyRule};
use super::context::{GcContext, GcScheduler, RequestInfo};
use super::rl_state::RlFeatures;
use crate::config::DeviceConfig;
use crate::error::Result;
use crate::rl::{QLearner, QTable};
use crate::rng;

/// The RL-assisted scheduler (baseline or aggressive).
pub struct RlGc {
    aggressive: bool,
    actions: Vec<u32>,
    t_gc: u32,
    t_agc: u32,
    cap: u32,
    max_valid_early: u32,
    eps0: f64,
    eps: f64,
    explore: u64,
    learner: QLearner,
    alg: Algorithm1,
    prev: Option<(usize, usize)>,
}

impl RlGc {
    /// Build from the device configuration; starts from the Q-table at `gc.rl.q_table` if set.
    /// The agent's random stream is `rng::stream(seed, "rl")`.
    pub fn new(cfg: &DeviceConfig, seed: u64, aggressive: bool) -> Result<Self> {
        let table = match &cfg.gc.rl.q_table {
            Some(p) => Some(QTable::load(p)?),
            None => None,
        };
        Self::with_table(cfg, seed, aggressive, table)
    }

    /// Build with an explicit starting Q-table (`None` = zeros). The table must have the state
    /// and action counts of the configuration (68 × 8 with the defaults).
    pub fn with_table(
        cfg: &DeviceConfig,
        seed: u64,
        aggressive: bool,
        table: Option<QTable>,
    ) -> Result<Self> {
        let rl = &cfg.gc.rl;
        let table = check_table(table, RlFeatures::new(rl).states(), &rl.actions)?;
        let ppb = cfg.geometry.pages_per_block;
        Ok(RlGc {
            aggressive,
            actions: rl.actions.clone(),
            t_gc: cfg.gc.threshold_blocks,
            t_agc: rl.t_agc.max(cfg.gc.threshold_blocks),
            cap: rl.max_limited_copies,
            max_valid_early: ((1.0 - rl.victim_invalid_fraction) * f64::from(ppb)).floor() as u32,
            eps0: rl.epsilon_initial,
            eps: rl.epsilon,
            explore: rl.explore_decisions,
            learner: QLearner::new(table, rl.alpha, rl.gamma, rng::stream(seed, "rl")),
            alg: Algorithm1::new(cfg),
            prev: None,
        })
    }

    /// The learned Q-table (to save and reuse).
    pub fn q_table(&self) -> &QTable {
        &self.learner.table
    }

    pub fn decisions(&self) -> u64 {
        self.alg.decisions
    }

    /// The ε of the next decision (§5.2: large for the first decisions, then small).
    pub fn epsilon(&self) -> f64 {
        if self.alg.decisions < self.explore {
            self.eps0
        } else {
            self.eps
        }
    }
}

/// A zero table of the right shape, or the given one checked against it.
pub(crate) fn check_table(table: Option<QTable>, states: usize, actions: &[u32]) -> Result<QTable> {
    match table {
        None => {
            let mut t = QTable::new(states, actions.len());
            t.action_labels = actions.to_vec();
            Ok(t)
        }
        Some(t) if t.states() == states && t.actions() == actions.len() => Ok(t),
        Some(t) => Err(crate::SsdError::config(
            "gc.rl.q_table",
            format!(
                "table is {} states × {} actions, the configuration needs {states} × {}",
                t.states(),
                t.actions(),
                actions.len()
            ),
        )),
    }
}

impl GcScheduler for RlGc {
    fn q_table(&self) -> Option<&QTable> {
        Some(&self.learner.table)
    }
    fn name(&self) -> &'static str {
        if self.aggressive {
            "rlgc-aggressive"
        } else {
            "rlgc"
        }
    }

    fn after_page_write(&mut self, _plane: u32, _now: u64, _gc: &mut GcContext) -> Result<()> {
        Ok(())
    }

    fn after_request(&mut self, info: &RequestInfo, gc: &mut GcContext) -> Result<()> {
        if !info.is_write && !info.is_read {
            return Ok(());
        }
        let trigger = if self.aggressive {
            self.t_agc
        } else {
            self.t_gc
        };
        if let Some(d) = self.alg.observe(info, gc, trigger, self.aggressive)? {
            let eps = self.epsilon();
            let a = self.learner.choose(d.state, eps);
            if let Some((ps, pa)) = self.prev {
                self.learner.update(ps, pa, d.reward, d.state, a);
            }
            let early = self.aggressive.then_some(EarlyRule {
                t_gc: self.t_gc,
                cap: self.cap,
                max_valid: self.max_valid_early,
            });
            self.alg
                .act(gc, self.actions[a], info.completion_ns, trigger, early)?;
            self.prev = Some((d.state, a));
        }
        self.alg.record(info);
        Ok(())
    }
}
