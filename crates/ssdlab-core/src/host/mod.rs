//! The host interface layer: when each request reaches the device. A workload's requests come in
//! arrival order; the replay mode ([`Replay`]) decides when each is submitted — at its trace
//! time (open loop, scaled) or as soon as one of `queue_depth` outstanding requests completes
//! (closed loop) — and the interface keeps the clock of arrivals and completions.
//!
//! One flow has one submission queue and this clock; several flows (`trace::flows`) have one
//! each,
//! and the controller fetches from them by the arbitration of `[host]` (`arbitration`,
//! `multi_queue`). MQSim's host interface and SimpleSSD's HIL are the references. The engine
//! (`sim`) asks [`HostInterface::arrival`] before it serves a request and tells
//! [`HostInterface::completed`] when the request is done.

pub mod arbitration;
pub mod multi_queue;

pub use crate::trace::Replay;
pub use multi_queue::MultiQueue;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The closed loop's queue depth when none is given (`ssdlab run`, `ssdlab.simulate`, the
/// experiments whose papers name none): 16, fio's common `iodepth` and an NVMe drive's
/// shallow-queue regime — deep enough to keep every channel of the shipped presets busy, short
/// of the deep queues where GC waits dominate every request. Python reads it from
/// `api::defaults()` ("queue_depth").
pub const DEFAULT_QUEUE_DEPTH: u32 = 16;

/// The latest open-loop arrival, ns after the first request (2^62 ns ≈ 146 years): with every
/// operation time bounded by validation (`config::MAX_OP_US`), the u64 clock cannot overflow.
pub const MAX_ARRIVAL_NS: u64 = 1 << 62;

/// The host interface: the replay mode and the clock of arrivals and completions.
#[derive(Debug)]
pub struct HostInterface {
    replay: Replay,
    /// Completion times of outstanding requests (closed loop).
    inflight: BinaryHeap<Reverse<u64>>,
    /// The closed loop's current request arrived at `inflight`'s earliest completion, which
    /// stays in the heap until the request's own completion replaces it: one sift down instead
    /// of a pop and a push (the same times come out, in the same order).
    top_taken: bool,
    /// Trace time of the first request (open loop).
    origin_ns: Option<u64>,
    last_arrival: u64,
    last_completion: u64,
}

impl HostInterface {
    pub fn new(replay: Replay) -> Self {
        HostInterface {
            replay,
            inflight: BinaryHeap::new(),
            top_taken: false,
            origin_ns: None,
            last_arrival: 0,
            last_completion: 0,
        }
    }

    /// The replay mode.
    pub fn replay(&self) -> Replay {
        self.replay
    }

    /// Arrival of the latest request submitted, ns.
    #[inline]
    pub fn last_arrival(&self) -> u64 {
        self.last_arrival
    }

    /// The latest completion so far, ns.
    #[inline]
    pub fn last_completion(&self) -> u64 {
        self.last_completion
    }

    /// The open-loop time of a request stamped `arrival_ns` in its trace: rebased to the first
    /// request and scaled (0 in closed loop, where the trace's times do not count).
    #[inline]
    pub fn open_loop_at(&mut self, arrival_ns: u64) -> u64 {
        let Replay::OpenLoop { time_scale } = self.replay else {
            return 0;
        };
        let origin = *self.origin_ns.get_or_insert(arrival_ns);
        let rel = arrival_ns.saturating_sub(origin);
        if time_scale == 1.0 {
            rel
        } else {
            scaled(rel, time_scale)
        }
    }

    /// When the next request is submitted (`open_at`: its [`Self::open_loop_at`] time): not
    /// before the previous one, and in closed loop once the queue has room.
    #[inline]
    pub fn arrival(&mut self, open_at: u64) -> u64 {
        match self.replay {
            Replay::OpenLoop { .. } => open_at.max(self.last_arrival),
            Replay::ClosedLoop { queue_depth } => {
                if self.inflight.len() >= queue_depth as usize {
                    let Reverse(t) = self
                        .inflight
                        .peek()
                        .copied()
                        .unwrap_or(Reverse(self.last_arrival));
                    self.top_taken = !self.inflight.is_empty();
                    t.max(self.last_arrival)
                } else {
                    self.last_arrival
                }
            }
        }
    }

    /// The request that arrived at `arrival` completes at `completion`.
    #[inline]
    pub fn completed(&mut self, arrival: u64, completion: u64) {
        if let Replay::ClosedLoop { .. } = self.replay {
            if std::mem::take(&mut self.top_taken) {
                // This request arrived at the earliest completion: its own replaces it.
                if let Some(mut top) = self.inflight.peek_mut() {
                    *top = Reverse(completion);
                }
            } else {
                self.inflight.push(Reverse(completion));
            }
        }
        self.last_arrival = arrival;
        self.last_completion = self.last_completion.max(completion);
    }
}

/// `rel` × `time_scale`, out of line: in line, the compiler computed it (~25 instructions)
/// for every request and kept `rel` when the scale is 1, the common case (docs/speed.md
/// docs/speed.md, "Calls that do nothing, skipped; the open-loop time computed once").
#[cold]
#[inline(never)]
fn scaled(rel: u64, time_scale: f64) -> u64 {
    (rel as f64 * time_scale) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_loop_admits_a_request_when_one_of_the_queue_completes() {
        let mut h = HostInterface::new(Replay::ClosedLoop { queue_depth: 2 });
        let a = h.arrival(0);
        h.completed(a, 100);
        let b = h.arrival(0);
        h.completed(b, 50);
        // Queue full: the next arrives at the earliest completion (50), then at 100.
        let c = h.arrival(0);
        assert_eq!(c, 50);
        h.completed(c, 500);
        assert_eq!(h.arrival(0), 100);
        assert_eq!(h.last_completion(), 500);
    }

    #[test]
    fn open_loop_rebases_and_scales_trace_times() {
        let mut h = HostInterface::new(Replay::OpenLoop { time_scale: 0.5 });
        assert_eq!(h.open_loop_at(1_000), 0);
        assert_eq!(h.open_loop_at(3_000), 1_000);
        let a = h.arrival(1_000);
        h.completed(a, 2_000);
        // Never before the previous arrival.
        assert_eq!(h.arrival(400), 1_000);
    }
}
