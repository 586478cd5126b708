//! The multi-queue host interface: one submission queue per flow, each with its own replay
//! (its [`HostInterface`]: when the flow submits its next command), and the controller's
//! command slots, which a freed slot's arbitration (`host::arbitration`) gives to one of the
//! queues holding a submitted command. MQSim's host interface (Tavakkol et al., FAST 2018,
//! section 3.1) and SimpleSSD's HIL arbitration are the references.
//!
//! Times only: the engine (`sim::flows`) holds each flow's next command and serves the one
//! [`MultiQueue::next`] picks, at the time it says, then reports the completion back.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::arbitration::{self, Arbiter};
use super::{HostInterface, Replay};
use crate::config::HostConfig;
use crate::trace::Priority;

/// A queue with no more commands: no submission time (later than any, since
/// [`MAX_ARRIVAL_NS`] bounds every submission).
///
/// [`MAX_ARRIVAL_NS`]: super::MAX_ARRIVAL_NS
pub const NONE: u64 = u64::MAX;

pub struct MultiQueue {
    /// Each flow's replay clock: when it submits its next command.
    queues: Vec<HostInterface>,
    arbiter: Box<dyn Arbiter>,
    /// Completion times of the commands holding the controller's slots (`slots > 0`).
    held: BinaryHeap<Reverse<u64>>,
    slots: usize,
    last_fetch: u64,
    ready: Vec<bool>,
}

impl MultiQueue {
    pub fn new(cfg: &HostConfig, replays: &[Replay], classes: &[Priority]) -> Self {
        MultiQueue {
            queues: replays.iter().map(|&r| HostInterface::new(r)).collect(),
            arbiter: arbitration::build(cfg, classes),
            held: BinaryHeap::new(),
            slots: cfg.command_slots as usize,
            last_fetch: 0,
            ready: vec![false; replays.len()],
        }
    }

    /// Flow `f`'s replay clock: [`HostInterface::open_loop_at`] and
    /// [`HostInterface::arrival`] give its next command's submission time.
    pub fn queue(&mut self, f: usize) -> &mut HostInterface {
        &mut self.queues[f]
    }

    /// The flow whose head command the controller fetches next, and when: at the earliest time
    /// a command slot is free and some queue holds a submitted command, the arbitration picks
    /// among the queues whose head was submitted by then. `submitted[f]`: flow f's head
    /// command's submission time, [`NONE`] when the flow has no more. `None` when none has.
    pub fn next(&mut self, submitted: &[u64]) -> Option<(usize, u64)> {
        let earliest = submitted.iter().copied().min().filter(|&t| t != NONE)?;
        let free = if self.slots == 0 || self.held.len() < self.slots {
            self.last_fetch
        } else {
            self.held
                .peek()
                .map_or(self.last_fetch, |r| r.0.max(self.last_fetch))
        };
        let at = free.max(earliest);
        for (r, &s) in self.ready.iter_mut().zip(submitted) {
            *r = s <= at;
        }
        let f = self.arbiter.pick(&self.ready);
        debug_assert!(self.ready[f]);
        if self.slots > 0 && self.held.len() >= self.slots {
            self.held.pop();
        }
        self.last_fetch = at;
        Some((f, at))
    }

    /// Flow `f`'s command, submitted at `submitted`, completed at `completion`.
    pub fn completed(&mut self, f: usize, submitted: u64, completion: u64) {
        self.queues[f].completed(submitted, completion);
        if self.slots > 0 {
            self.held.push(Reverse(completion));
        }
    }
}
