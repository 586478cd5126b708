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
    /// Read-retry steps and soft-decoding tiers after the first read's transfer
    /// (`reliability.errors`).
    pub retry: u64,
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
        self.values().iter().sum::<u64>() + self.retry
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
    /// The page reads being issued are a read's retries: not reads of their own.
    quiet: bool,
    /// The latest page read's parts and completion.
    last: (ReadParts, u64),
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
        if self.quiet {
            return;
        }
        self.last = (parts, done);
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

    /// A suspension moved the end of time line `key`'s latest GC step from `old` to `new`.
    pub(super) fn extend_gc(&mut self, key: usize, old: u64, new: u64) {
        if let Some(b) = self.gc_spans[key].back_mut().filter(|b| b.1 == old) {
            b.1 = new;
        }
    }

    /// A host operation placed at `at` moved time line `key`'s GC intervals from `at` on later
    /// by `delta` (a scheduler's pass), splitting the one running across `at`.
    pub(super) fn shift_gc(&mut self, key: usize, at: u64, delta: u64) {
        if delta == 0 {
            return;
        }
        let q = &mut self.gc_spans[key];
        let mut split = None;
        for (i, s) in q.iter_mut().enumerate() {
            if s.0 >= at {
                s.0 += delta;
                s.1 += delta;
            } else if s.1 > at {
                split = Some((i, s.1));
                s.1 = at;
            }
        }
        if let Some((i, end)) = split {
            q.insert(i + 1, (at + delta, end + delta));
        }
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

/// The read breakdown's side of the time lines.
impl super::Resources {
    /// Start keeping where each host read's time goes ([`ReadParts`]).
    pub fn explain_reads(&mut self) {
        let keys = if self.multiplane {
            self.plane_free.len()
        } else {
            self.die_free.len()
        };
        self.explain = Some(ReadExplain::new(keys));
    }

    /// A read request is about to be served from `ready` (breakdown on).
    pub fn begin_read(&mut self, ready: u64) {
        if let Some(e) = &mut self.explain {
            e.begin(ready);
        }
    }

    /// The parts of the latest-completing page read since [`begin_read`](super::Resources::begin_read) (all zero
    /// when no page was read from flash: buffer hits, unmapped pages).
    pub fn read_parts(&self) -> Option<ReadParts> {
        self.explain.as_ref().map(|e| e.parts())
    }

    /// The page reads issued until the next call are retries of the latest read.
    pub(super) fn quiet_reads(&mut self, on: bool) {
        if let Some(e) = &mut self.explain {
            e.quiet = on;
        }
    }

    /// The latest read's retries ended at `done`: the time after its transfer is `retry`.
    pub(super) fn retried_read(&mut self, done: u64) {
        if let Some(e) = &mut self.explain {
            let (mut parts, first) = e.last;
            parts.retry = done - first;
            e.note(parts, done);
        }
    }

    /// The page reads issued until the next call are the members of a rebuild (GTR).
    pub fn set_rebuilding(&mut self, on: bool) {
        if let Some(e) = &mut self.explain {
            e.rebuilding = on;
        }
    }

    /// A host read of `plane` from `ready`, starting its array read at `start` and its
    /// transfer at `xfer`, by cause; called before the read occupies the plane. The wait
    /// `[ready, start)` is GC's where GC intervals (or, under channel blocking, GC holding the
    /// channel) cover it, the host's otherwise.
    #[cold]
    pub(super) fn explain_read(
        &mut self,
        plane: u32,
        ready: u64,
        start: u64,
        read_ns: u64,
        xfer: u64,
    ) {
        let key = self.queue_key(plane);
        let plane_ready = ready.max(self.plane_free_at(plane));
        let transfer_ns = self.times.transfer_ns;
        let Some(e) = &mut self.explain else {
            return;
        };
        let mut gc = e.gc_within(key, ready, plane_ready);
        // Channel-blocking GC: what the read waited beyond its plane's own queue.
        gc += start - plane_ready;
        let wait = start - ready;
        let gc = gc.min(wait);
        let parts = ReadParts {
            wait_host: wait - gc,
            wait_gc: gc,
            wait_channel: xfer - (start + read_ns),
            array: read_ns,
            transfer: transfer_ns,
            rebuild: 0,
            retry: 0,
            rebuilt: false,
        };
        e.note(parts, xfer + transfer_ns);
    }
}
