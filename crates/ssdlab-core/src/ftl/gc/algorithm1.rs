//! The decision point of the paper's Algorithm 1 (Kang, Shin, Yoo, "Reinforcement
//! Learning-Assisted Garbage Collection to Mitigate Long-Tail Latency in SSD", ACM TECS 16(5s),
//! 2017, §5.2), shared by the schedulers that decide there: `rlgc` (its own Q-learning agent)
//! and `external` (an outside agent, the Gymnasium environment). After each request: intensive
//! GC on planes with one free block left (§5.2, "Intensive Garbage Collection"); a decision is
//! due after a write request (and a read, for read-initiated GC, §5.3) when the inter-request
//! interval is not zero and some plane not under intensive GC has at most the trigger's free
//! blocks; the action — up to k page copies, or a ready victim's erase — runs on every such
//! plane.

use super::context::{GcContext, RequestInfo};
use super::partial::{run_action, PartialGc};
use super::rl_state::RlFeatures;
use crate::config::DeviceConfig;
use crate::error::Result;

/// What the agent knows at a decision point.
#[derive(Debug, Clone, Copy)]
pub struct DecisionPoint {
    /// The paper's state index (Table 3 binning of previous interval, interval, previous action).
    pub state: usize,
    /// The paper's reward of this request's response time (credited to the previous decision).
    pub reward: f64,
    pub prev_interval_ns: u64,
    pub response_ns: u64,
}

/// Max-limited early triggering (§5.3): on a plane above T_GC free blocks, at most `cap`
/// copies, and a new victim only with at most `max_valid` valid pages.
#[derive(Debug, Clone, Copy)]
pub struct EarlyRule {
    pub t_gc: u32,
    pub cap: u32,
    pub max_valid: u32,
}

/// The shared state of Algorithm 1's decision points.
#[derive(Debug, Clone)]
pub struct Algorithm1 {
    pub features: RlFeatures,
    pub partial: PartialGc,
    prev_interval_ns: u64,
    /// Copies asked for at the previous decision (part of the state).
    pub prev_copies: u32,
    pub decisions: u64,
    /// (free epoch, trigger, whether some plane was eligible), worked out while every plane was
    /// out of intensive GC ([`PartialGc::settled_at`]): then eligibility is a plane's free
    /// count against the trigger alone, and stands while the epoch does.
    eligible_seen: Option<(u64, u32, bool)>,
}

impl Algorithm1 {
    pub fn new(cfg: &DeviceConfig) -> Self {
        Algorithm1 {
            features: RlFeatures::new(&cfg.gc.rl),
            partial: PartialGc::new(cfg),
            prev_interval_ns: 0,
            prev_copies: 0,
            decisions: 0,
            eligible_seen: None,
        }
    }

    /// A plane that takes part in a decision under `trigger` free blocks.
    pub fn eligible(&self, gc: &GcContext, plane: u32, trigger: u32) -> bool {
        !self.partial.is_on(plane) && gc.ftl.free_blocks(plane) <= trigger
    }

    /// After a read or write request: intensive GC, then the decision point if one is due
    /// (`reads_decide`: reads are decision points too).
    pub fn observe(
        &mut self,
        info: &RequestInfo,
        gc: &mut GcContext,
        trigger: u32,
        reads_decide: bool,
    ) -> Result<Option<DecisionPoint>> {
        let response = info.completion_ns - info.arrival_ns;
        self.partial
            .run_intensive(gc, info.completion_ns, info.is_write)?;
        let prev_interval = std::mem::replace(&mut self.prev_interval_ns, info.interval_ns);
        let due = (info.is_write || reads_decide)
            && info.interval_ns > 0
            && self.any_eligible(gc, trigger);
        Ok(due.then(|| DecisionPoint {
            state: self
                .features
                .state(prev_interval, info.interval_ns, self.prev_copies),
            reward: self.features.reward(info.is_write, response),
            prev_interval_ns: prev_interval,
            response_ns: response,
        }))
    }

    /// Whether some plane is [`Algorithm1::eligible`] under `trigger`; the answer of the last
    /// look while every plane was out of intensive GC if no free count changed since
    /// (bit-identical; issue 19: a look at every plane after every request).
    fn any_eligible(&mut self, gc: &GcContext, trigger: u32) -> bool {
        let epoch = gc.ftl.free_epoch();
        let settled = self.partial.settled_at(epoch);
        match self.eligible_seen {
            Some((e, t, any)) if settled && e == epoch && t == trigger => return any,
            _ => {}
        }
        let any = (0..gc.ftl.planes()).any(|p| self.eligible(gc, p, trigger));
        if settled {
            self.eligible_seen = Some((epoch, trigger, any));
        }
        any
    }

    /// Run the action `copies` from `now` on every plane eligible under `trigger`.
    pub fn act(
        &mut self,
        gc: &mut GcContext,
        copies: u32,
        now: u64,
        trigger: u32,
        early: Option<EarlyRule>,
    ) -> Result<()> {
        for p in 0..gc.ftl.planes() {
            if !self.eligible(gc, p, trigger) {
                continue;
            }
            let (k, max_valid) = match early {
                Some(e) if gc.ftl.free_blocks(p) > e.t_gc => (copies.min(e.cap), Some(e.max_valid)),
                _ => (copies, None),
            };
            // An early victim the FTL refuses without taking one is no action, known here
            // without the call (`rlgc-aggressive`: most planes at most decisions;
            // docs/speed.md, "`rlgc-aggressive`'s refused early victims answered in line").
            if max_valid.is_some_and(|m| gc.ftl.gc_refuses(p, m)) {
                continue;
            }
            run_action(gc, p, k, now, max_valid)?;
        }
        self.prev_copies = copies;
        self.decisions += 1;
        Ok(())
    }

    /// The request's response time joins the reward's running percentiles.
    pub fn record(&mut self, info: &RequestInfo) {
        self.features
            .record(info.is_write, info.completion_ns - info.arrival_ns);
    }
}
