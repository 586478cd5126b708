//! `rl`: the paper's SLC-cache manager (Yoo & Shin, "Reinforcement Learning-Based SLC Cache
//! Technique for Enhancing SSD Write Performance", HotStorage 2020, slides 8–11): tabular
//! Q-learning that, every decision period, observes the host and the SSD, is rewarded with the
//! write cost of the previous period, and changes the SLC region's size and the hot/cold
//! threshold θ.
//!
//! - Update (slide 8): Q(s,a) ← Q(s,a) + α·(r + γ·max_a′ Q(s′,a′) − Q(s,a)).
//! - Action choice (slide 8): ε-greedy with ε = 0.07 (`cache.rl.epsilon`).
//! - State (slide 10): "workload characteristics and the internal status of the SSD", 1,296
//!   states (5,184-byte table of 4-byte values). The features are not listed in the text we
//!   have; ours are four of six bins each (6⁴ = 1,296): space utilisation, the share of the
//!   period's host writes that overwrote data still in SLC (how hot the cached data is — the
//!   workload side), and the current size and θ levels (the actions change them, so the agent
//!   must see them).
//! - Actions (slide 9: "changes of the SLC cache size and hot/cold separation threshold"): each
//!   of size and θ one level down, unchanged or one level up ([`super::SIZE_LEVELS`],
//!   [`super::THETA_LEVELS_KIB`]): 9 actions ([`ACTIONS`]; "keep both" first, so ties keep).
//! - Reward (slide 11): the period's write cost — SLC and QLC program time of host pages plus
//!   the time writes waited for migration and QLC GC — per host page, in QLC programs, counted
//!   as the saving against writing in QLC only ([`CacheState::reward`]).
//! - Open values, ours: α = 0.1 and γ = 0.9 (`cache.rl.alpha`, `gamma`): a size change pays off
//!   or costs only when the region next fills, tens of periods later, so a long horizon; the
//!   per-period reward is noisy, so a small step. Start at size level 2 and θ = 64 KiB (the
//!   slide-7 setting 1). The table starts at zero, which is what writing in QLC only earns:
//!   an action that saved write time is preferred to an untried one, ε explores the rest.
//! - Migration on the paper's trigger in the foreground (slide 12), as `static`.

use super::{CacheState, Decision, SlcPolicy, SIZE_LEVELS, THETA_LEVELS_KIB};
use crate::config::SlcRlConfig;
use crate::error::Result;
use crate::rl::{QLearner, QTable};
use crate::rng;

pub use crate::stats::{RlState, RL_BINS};

/// States and actions (the paper's 1,296 states: [`RL_BINS`] bins of four features).
pub const RL_STATES: usize = RL_BINS * RL_BINS * RL_BINS * RL_BINS;
pub const RL_ACTIONS: usize = 9;

/// Upper edges of the utilisation bins (the paper's experiments run 30–90 %).
const UTIL_EDGES: [f64; RL_BINS - 1] = [0.2, 0.4, 0.55, 0.7, 0.85];
/// Upper edges of the SLC-hit bins (share of host page writes overwriting SLC data).
const HIT_EDGES: [f64; RL_BINS - 1] = [0.02, 0.1, 0.25, 0.5, 0.75];

fn bin(v: f64, edges: &[f64]) -> usize {
    edges.iter().take_while(|e| v >= **e).count()
}

/// The binned state `rl` sees now: utilisation and the period's SLC hits, with the current
/// size and θ levels.
pub fn observe_state(s: &CacheState, size_level: usize, theta_level: usize) -> RlState {
    let p = &s.period;
    let hits = p.slc_hits as f64 / p.host_pages.max(1) as f64;
    RlState {
        utilisation: bin(s.utilisation(), &UTIL_EDGES),
        slc_hits: bin(hits, &HIT_EDGES),
        size_level,
        theta_level,
    }
}

/// The actions: (size change, θ change) in levels. "Keep both" is action 0, so a row of equal
/// Q values (an unvisited state) keeps the current setting rather than drifting one way.
pub const ACTIONS: [(i8, i8); RL_ACTIONS] = [
    (0, 0),
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
];

/// Levels after `action` ([`ACTIONS`]), clamped to the levels.
pub fn apply_action(action: usize, size: usize, theta: usize) -> (usize, usize) {
    let (ds, dt) = ACTIONS[action % RL_ACTIONS];
    let step =
        |v: usize, d: i8, n: usize| (v as i64 + i64::from(d)).clamp(0, n as i64 - 1) as usize;
    (
        step(size, ds, SIZE_LEVELS.len()),
        step(theta, dt, THETA_LEVELS_KIB.len()),
    )
}

/// A table for this agent has its states and actions.
fn check_shape(t: &QTable, what: &str) -> Result<()> {
    if t.states() != RL_STATES || t.actions() != RL_ACTIONS {
        return Err(crate::error::SsdError::config(
            what,
            format!(
                "a {}x{} table, expected {RL_STATES} states x {RL_ACTIONS} actions (one saved by \
                 an SLC-cache run with cache.slc = \"rl\")",
                t.states(),
                t.actions()
            ),
        ));
    }
    Ok(())
}

pub struct RlSlc {
    learner: QLearner,
    epsilon: f64,
    size: usize,
    theta: usize,
    prev: Option<(usize, usize)>,
}

impl RlSlc {
    pub fn new(cfg: &SlcRlConfig, seed: u64) -> Result<Self> {
        let table = match &cfg.q_table {
            Some(p) => {
                let t = QTable::load(p)?;
                check_shape(&t, &format!("cache.rl.q_table: {p}"))?;
                t
            }
            None => QTable::new(RL_STATES, RL_ACTIONS),
        };
        Ok(RlSlc {
            learner: QLearner::new(table, cfg.alpha, cfg.gamma, rng::stream(seed, "slc-rl")),
            epsilon: cfg.epsilon,
            size: cfg.start_size_level,
            theta: cfg.start_theta_level,
            prev: None,
        })
    }
}

impl SlcPolicy for RlSlc {
    fn decide(&mut self, s: &CacheState) -> Decision {
        if !s.timed {
            // Preconditioning: keep the current setting, learn nothing.
            return Decision {
                slc_blocks: s.level_blocks(self.size),
                theta_pages: s.level_theta(self.theta),
                foreground_migration: true,
            };
        }
        let state = observe_state(s, self.size, self.theta).index();
        if let Some((ps, pa)) = self.prev {
            if s.period.host_pages > 0 {
                self.learner.update_max(ps, pa, s.reward(), state);
            }
        }
        let a = self.learner.choose(state, self.epsilon);
        (self.size, self.theta) = apply_action(a, self.size, self.theta);
        self.prev = Some((state, a));
        Decision {
            slc_blocks: s.level_blocks(self.size),
            theta_pages: s.level_theta(self.theta),
            foreground_migration: true,
        }
    }
    fn q_table(&self) -> Option<&QTable> {
        Some(&self.learner.table)
    }
    fn set_q_table(&mut self, table: QTable) -> Result<()> {
        check_shape(&table, "Q-table")?;
        self.learner.table = table;
        Ok(())
    }
    fn levels(&self) -> Option<(usize, usize)> {
        Some((self.size, self.theta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_actions_cover_the_table() {
        let top = RlState {
            utilisation: 5,
            slc_hits: 5,
            size_level: 5,
            theta_level: 5,
        };
        assert_eq!(top.index(), RL_STATES - 1);
        assert_eq!(RL_STATES, 1296);
        assert_eq!(apply_action(0, 2, 2), (2, 2));
        assert_eq!(apply_action(5, 0, 0), (0, 0));
        assert_eq!(apply_action(8, 5, 5), (5, 5));
        assert_eq!(apply_action(6, 3, 3), (2, 4));
        assert_eq!(apply_action(2, 3, 3), (4, 3));
        assert_eq!(bin(0.3, &UTIL_EDGES), 1);
        assert_eq!(bin(0.95, &UTIL_EDGES), 5);
        assert_eq!(bin(0.0, &HIT_EDGES), 0);
    }
}
