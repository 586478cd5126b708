//! `external`: an outside agent (the Gymnasium environment `ssdlab/SlcCache-v1`) chooses the
//! SLC region's size and θ. At the end of every decision period the device records what it
//! observed and keeps the current setting; the simulation stops at the next request boundary
//! (`Simulation::advance_to_slc_decision`, in the engine above this layer) and the agent's action — one of the
//! same nine level changes `rl` takes ([`super::rl::ACTIONS`]) — applies from there on.

use super::rl::{apply_action, observe_state};
use super::{CacheState, Decision, SlcPolicy};
use crate::config::SlcRlConfig;
use crate::stats::SlcObservation;

pub struct ExternalSlc {
    size: usize,
    theta: usize,
    /// The state at the last decision point, until the agent acts.
    pending: Option<CacheState>,
}

impl ExternalSlc {
    /// Starts at the levels `rl` starts at (`cache.rl.start_size_level`, `start_theta_level`).
    pub(crate) fn new(cfg: &SlcRlConfig) -> Self {
        ExternalSlc {
            size: cfg.start_size_level,
            theta: cfg.start_theta_level,
            pending: None,
        }
    }

    /// The pending observation, if a decision is due.
    pub fn pending(&self) -> Option<SlcObservation> {
        let s = self.pending.as_ref()?;
        let p = &s.period;
        Some(SlcObservation {
            state: observe_state(s, self.size, self.theta),
            utilisation: s.utilisation(),
            slc_hit_ratio: p.slc_hits as f64 / p.host_pages.max(1) as f64,
            reward: s.reward(),
            slc_blocks: s.slc_blocks,
            slc_target: s.slc_target,
            theta_pages: s.theta_pages,
            period_host_pages: p.host_pages,
        })
    }

    /// Apply `action` (0–8) to the pending decision; the new decision, or None when none was
    /// pending.
    pub(crate) fn act(&mut self, action: usize) -> Option<Decision> {
        let s = self.pending.take()?;
        (self.size, self.theta) = apply_action(action, self.size, self.theta);
        Some(self.current(&s))
    }

    fn current(&self, s: &CacheState) -> Decision {
        Decision {
            slc_blocks: s.level_blocks(self.size),
            theta_pages: s.level_theta(self.theta),
            foreground_migration: true,
        }
    }
}

impl SlcPolicy for ExternalSlc {
    fn decide(&mut self, s: &CacheState) -> Decision {
        self.pending = Some(*s);
        self.current(s)
    }
    fn levels(&self) -> Option<(usize, usize)> {
        Some((self.size, self.theta))
    }
    fn external(&mut self) -> Option<&mut ExternalSlc> {
        Some(self)
    }
}
