//! Where a host read's time goes (issue 16: the Tiny-Tail Flash read-latency breakdown). The
//! time lines attribute every nanosecond of a page read from `ready` to completion to one
//! part; the engine keeps the parts of each read request's critical (last-completing) page.

use std::collections::VecDeque;

/// One page read's time from `ready` to completion, by cause (ns); the parts add up exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadParts {
    /// Waiting for the plane (or its die) while it executed host work: reads, programs, flushes.
    pub wait_host: u64,
    /// Waiting for the plane while it executed GC (under channel-blocking GC, also while GC
    /// held the channel).
    pub wait_gc: u64,
    /// The page register waiting for the channel after the array read.
    pub wait_channel: u64,
    /// The array read.
    pub array: u64,
    /// The transfer out over the channel.
    pub transfer: u64,
    /// A read rebuilt from its stripe (GTR): the waits of its slowest member (host, GC and
    /// channel alike) — what the rebuild cost beyond one plain page read.
    pub rebuild: u64,
    /// The read was rebuilt from its stripe.
    pub rebuilt: bool,
}

impl ReadParts {
    /// The parts' names, in the order of [`ReadParts::values`].
    pub const NAMES: [&'static str; 6] = [
        "wait_host",
        "wait_gc",
        "wait_channel",
        "array",
        "transfer",
        "rebuild",
    ];

    pub fn values(&self) -> [u64; 6] {
        [
            self.wait_host,
            self.wait_gc,
            self.wait_channel,
            self.array,
            self.transfer,
            self.rebuild,
        ]
    }

    pub fn total(&self) -> u64 {
        self.values().iter().sum()
    }

    /// The same read counted as (a member of) a rebuild: its waits become `rebuild`.
    fn as_rebuild(mut self) -> Self {
        self.rebuild += self.wait_host + self.wait_gc + self.wait_channel;
        self.wait_host = 0;
        self.wait_gc = 0;
        self.wait_channel = 0;
        self.rebuilt = true;
        self
    }
}

/// The parts of the current request's critical page while a request is being served, and the
/// GC intervals not yet passed on each time line (plane, or die without multi-plane
/// operation), oldest first.
#[derive(Debug, Clone, Default)]
pub(super) struct ReadExplain {
    parts: ReadParts,
    done: u64,
    /// The page reads being issued are the members of a rebuild.
    pub(super) rebuilding: bool,
    gc_spans: Vec<VecDeque<(u64, u64)>>,
}

impl ReadExplain {
    pub(super) fn new(time_lines: usize) -> Self {
        ReadExplain {
            gc_spans: vec![VecDeque::new(); time_lines],
            ..Default::default()
        }
    }

    pub(super) fn begin(&mut self, ready: u64) {
        self.parts = ReadParts::default();
        self.done = ready;
    }

    /// A page read completing at `done`: it becomes the critical one if it is the latest.
    pub(super) fn note(&mut self, parts: ReadParts, done: u64) {
        if done > self.done {
            self.done = done;
            self.parts = if self.rebuilding {
                parts.as_rebuild()
            } else {
                parts
            };
        }
    }

    pub(super) fn parts(&self) -> ReadParts {
        self.parts
    }

    /// A GC step occupies time line `key` over `[start, done)`.
    pub(super) fn gc_step(&mut self, key: usize, start: u64, done: u64) {
        self.gc_spans[key].push_back((start, done));
    }

    /// Forget GC intervals that ended by `now`.
    pub(super) fn prune(&mut self, now: u64) {
        for q in &mut self.gc_spans {
            while q.front().is_some_and(|&(_, until)| until <= now) {
                q.pop_front();
            }
        }
    }

    /// How much of `[from, to)` time line `key` spent on GC.
    pub(super) fn gc_within(&mut self, key: usize, from: u64, to: u64) -> u64 {
        let q = &mut self.gc_spans[key];
        while q.front().is_some_and(|&(_, until)| until <= from) {
            q.pop_front();
        }
        q.iter().map(|&(a, b)| overlap(from, to, a, b)).sum()
    }
}

/// The part of `[from, to)` inside `[a, b)`.
fn overlap(from: u64, to: u64, a: u64, b: u64) -> u64 {
    to.min(b).saturating_sub(from.max(a))
}
