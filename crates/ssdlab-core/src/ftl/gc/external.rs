//! Decision stepping for outside agents (the Gymnasium environment): the `external` scheduler
//! stops the replay at each GC decision point of the paper's Algorithm 1 (Kang, Shin, Yoo, TECS
//! 2017 §5.2: after a write request, a plane at ≤ T_GC free blocks, a non-zero inter-request
//! interval), exposes an [`Observation`], and runs the partial GC the agent asks for.
//!
//! Protocol: `obs = sim.advance_to_decision()?` serves requests until the next decision point
//! (`None` when the workload ends); `sim.apply_decision(copies)?` runs up to `copies` page copies
//! (or the erase of a ready victim) on every plane at ≤ T_GC free blocks, starting when the
//! request completed. The reward in each observation is the paper's reward of *that* request's
//! response time, which Algorithm 1 credits to the previous decision: a Gym `step(a)` is
//! `apply_decision(a)` then `advance_to_decision()`, returning that observation's reward.
//! Intensive GC (one free block left) and forced GC run by themselves, as for `rlgc`. Needs
//! timing on (the timing-free mode has no response times). Calling `advance_to_decision` again
//! without `apply_decision` returns the same observation.

use super::algorithm1::Algorithm1;
use super::context::{GcContext, GcScheduler, RequestInfo};
use super::observation::Observation;
use crate::config::DeviceConfig;
use crate::error::Result;

/// The scheduler whose decisions come from outside.
pub struct ExternalScheduler {
    alg: Algorithm1,
    t_gc: u32,
    pending: Option<(Observation, u64)>,
}

impl ExternalScheduler {
    pub fn new(cfg: &DeviceConfig) -> Self {
        ExternalScheduler {
            alg: Algorithm1::new(cfg),
            t_gc: cfg.gc.threshold_blocks,
            pending: None,
        }
    }

    /// The decision waiting for an action, if any.
    pub fn pending(&self) -> Option<Observation> {
        self.pending.map(|(o, _)| o)
    }

    /// Run the action of the pending decision (no-op without one).
    pub fn apply(&mut self, copies: u32, gc: &mut GcContext) -> Result<()> {
        let Some((_, now)) = self.pending.take() else {
            return Ok(());
        };
        self.alg.act(gc, copies, now, self.t_gc, None)
    }
}

impl GcScheduler for ExternalScheduler {
    fn is_external(&self) -> bool {
        true
    }
    fn pending_decision(&self) -> Option<Observation> {
        self.pending()
    }
    fn apply_decision(&mut self, copies: u32, gc: &mut GcContext) -> Result<()> {
        self.apply(copies, gc)
    }
    fn name(&self) -> &'static str {
        "external"
    }
    fn after_page_write(&mut self, _plane: u32, _now: u64, _gc: &mut GcContext) -> Result<()> {
        Ok(())
    }
    fn after_request(&mut self, info: &RequestInfo, gc: &mut GcContext) -> Result<()> {
        if !info.is_write && !info.is_read {
            return Ok(());
        }
        // A decision left unanswered (a plain `run()`) counts as "no GC".
        if self.pending.is_some() {
            self.apply(0, gc)?;
        }
        if let Some(d) = self.alg.observe(info, gc, self.t_gc, false)? {
            let planes = gc.ftl.planes();
            let obs = Observation {
                prev_interval_us: d.prev_interval_ns as f64 / 1e3,
                interval_us: info.interval_ns as f64 / 1e3,
                prev_action: self.alg.prev_copies,
                free_blocks: (0..planes)
                    .map(|p| gc.ftl.free_blocks(p))
                    .min()
                    .unwrap_or(0),
                response_us: d.response_ns as f64 / 1e3,
                reward: d.reward,
                state: d.state as u32,
                is_write: info.is_write,
                victim_ready: (0..planes).any(|p| gc.ftl.gc_victim_ready(p)),
                time_us: info.completion_ns as f64 / 1e3,
                decisions: self.alg.decisions,
            };
            self.pending = Some((obs, info.completion_ns));
        }
        self.alg.record(info);
        Ok(())
    }
}
