//! A channel's time line with gap filling: transfers reserve the earliest idle interval at or
//! after their ready time, so a transfer waiting for a busy plane does not hold the bus for the
//! transfers of other planes (the bus is shared, the planes are not).

mod runs;

/// Future busy intervals of one channel, sorted by start, non-overlapping: `busy[head..]`
/// (`busy[..head]` are pruned ones not yet dropped; see [`ChannelTimeline::prune`]).
#[derive(Debug, Clone, Default)]
pub struct ChannelTimeline {
    busy: Vec<(u64, u64)>,
    head: usize,
    /// The request ([`Now::seq`]) this time line was last pruned for.
    pruned_for: u64,
    /// A lower bound of the first live interval's end (0 before the first prune, `u64::MAX`
    /// when no interval is live): `prune(now)` for an earlier `now` has nothing to drop, so it
    /// returns without reading the list.
    first_end: u64,
    /// Where [`ChannelTimeline::reserve_copies`] sets aside the intervals it merges with (kept
    /// for its allocation).
    spare: Vec<(u64, u64)>,
    /// [`ChannelTimeline::reserve_runs`]'s order of runs (kept for its allocation).
    order: Vec<usize>,
}

/// A run of GC page copies without copy-back on one plane, for
/// [`ChannelTimeline::reserve_copies`]: each reads its page (`read_ns`), transfers it out and
/// back in (`xfer_ns` each, on the channel) and programs it (`program_ns`).
#[derive(Debug, Clone, Copy)]
pub struct CopyRun {
    pub start: u64,
    pub copies: u32,
    pub read_ns: u64,
    pub xfer_ns: u64,
    pub program_ns: u64,
}

/// The current request: its arrival, and its number (1 for the first), as
/// [`crate::flash::Resources::advance`] was told.
#[derive(Debug, Clone, Copy, Default)]
pub struct Now {
    pub at: u64,
    pub seq: u64,
}

impl ChannelTimeline {
    /// Prune to the current request's arrival once per request, when the time line is first
    /// used for it. A request's own reservations may end before its arrival (a background flush
    /// catching up on its own clock), and stay visible to its later ones, as when every time line
    /// was pruned as each request arrived; only the untouched time lines are no longer visited.
    #[inline]
    pub fn catch_up(&mut self, now: Now) {
        if self.pruned_for != now.seq {
            self.pruned_for = now.seq;
            self.prune(now.at);
        }
    }

    /// Forget intervals that end at or before `now` (nothing can be scheduled before the current
    /// request's arrival, so they can never matter again). The front is dropped lazily, once it
    /// is at least half the vector: a drain per call moved the whole list (thousands of
    /// intervals during a GC burst without copy-back) for every request.
    #[inline]
    pub fn prune(&mut self, now: u64) {
        if now < self.first_end {
            return;
        }
        self.head += self.busy[self.head..]
            .iter()
            .take_while(|(_, e)| *e <= now)
            .count();
        if self.head > 0 && 2 * self.head >= self.busy.len() {
            self.busy.drain(..self.head);
            self.head = 0;
        }
        self.first_end = self.busy.get(self.head).map_or(u64::MAX, |&(_, e)| e);
    }

    /// Index in `busy` of the first live interval ending after `t`. The intervals are sorted
    /// and disjoint, so their ends are sorted too: a search, where a scan from the front made a
    /// GC burst reserved far ahead (copies without copy-back: two transfers each, ~1,000
    /// intervals per burst) quadratic. Every interval before it ends at or before `t` and cannot
    /// hold a reservation starting at or after `t`; every one from it on ends after `t`, and
    /// after any later start the scans below move to, so they skip nothing else. The search
    /// checks the back first (GC bursts append far ahead), then gallops from the front (host
    /// transfers reserve near the present): O(log k) for an answer k intervals in. (Always in
    /// line, as `insert_live`: issue 59's code growth moved both out of `reserve_on`, +7.5 M
    /// instructions on the bench, callgrind 2026-12-04.)
    #[inline(always)]
    fn first_ending_after(&self, t: u64) -> usize {
        let b = &self.busy;
        match b[self.head..].last() {
            Some(&(_, e)) if e > t => {}
            _ => return b.len(),
        }
        // All of b[..lo] end at or before t; b[hi] ends after it (at the latest for hi = len − 1).
        let mut lo = self.head;
        let mut step = 1;
        let mut hi = lo;
        while b[hi].1 <= t {
            lo = hi + 1;
            hi = (hi + step).min(b.len() - 1);
            step *= 2;
        }
        lo + b[lo..hi].partition_point(|&(_, e)| e <= t)
    }

    /// The start `reserve(ready, dur)` would return after `catch_up(now)`, without reserving
    /// or pruning: a time line not yet pruned for this request holds only earlier requests'
    /// intervals, of which those ending by `now.at` would have been pruned.
    #[inline]
    pub fn fit(&self, now: Now, ready: u64, dur: u64) -> u64 {
        let mut start = ready;
        let from = if self.pruned_for == now.seq {
            ready
        } else {
            ready.max(now.at)
        };
        for &(s, e) in &self.busy[self.first_ending_after(from)..] {
            if s >= start + dur {
                break;
            }
            start = start.max(e);
        }
        start
    }

    /// Reserve `dur` ns at the earliest start ≥ `ready` that fits; returns the start. (Always in
    /// line: the flash's reservation is the hot path, and the DRAM's second call site made the
    /// compiler call it instead, +1 % instructions on the timed bench.)
    #[inline(always)]
    pub fn reserve(&mut self, ready: u64, dur: u64) -> u64 {
        let mut start = ready;
        let mut idx = self.busy.len();
        let first = self.first_ending_after(ready);
        for (i, &(s, e)) in self.busy.iter().enumerate().skip(first) {
            if s >= start + dur {
                idx = i;
                break;
            }
            start = start.max(e);
        }
        if dur > 0 {
            // Merge with neighbours that touch, to keep the list short.
            let end = start + dur;
            // A new interval may be the first live one; merging only lengthens intervals.
            self.first_end = self.first_end.min(end);
            if idx > self.head && self.busy[idx - 1].1 == start {
                if idx < self.busy.len() && self.busy[idx].0 == end {
                    // Touches both: the next one takes the previous one's start, which goes.
                    self.busy[idx].0 = self.busy[idx - 1].0;
                    self.remove_live(idx - 1);
                } else {
                    self.busy[idx - 1].1 = end;
                }
            } else if idx < self.busy.len() && self.busy[idx].0 == end {
                self.busy[idx].0 = start;
            } else {
                self.insert_live(idx, (start, end));
            }
        }
        start
    }

    /// Insert `iv` at `idx` of the live list, moving the shorter side: the live intervals before it
    /// one slot down into the pruned front when there is one, else the ones after it up. A host
    /// transfer reserves near the present, in front of GC bursts reserved far ahead (without
    /// copy-back, hundreds of intervals): `Vec::insert` moved all of those for every such transfer
    /// (docs/speed.md, "A copy's two transfers reserved in one go; inserts that move the shorter
    /// side"). The pruned slots are never read.
    #[inline(always)]
    fn insert_live(&mut self, idx: usize, iv: (u64, u64)) {
        if self.head > 0 && idx - self.head < self.busy.len() - idx {
            self.busy.copy_within(self.head..idx, self.head - 1);
            self.head -= 1;
            self.busy[idx - 1] = iv;
        } else {
            self.busy.insert(idx, iv);
        }
    }

    /// Remove the live interval at `idx`, moving the shorter side as [`Self::insert_live`]
    /// does: the ones before it one slot up (the front slot joins the pruned ones), or
    /// the ones after it down.
    #[inline]
    fn remove_live(&mut self, idx: usize) {
        if idx - self.head < self.busy.len() - idx {
            self.busy.copy_within(self.head..idx, self.head + 1);
            self.head += 1;
        } else {
            self.busy.remove(idx);
        }
    }

    /// Reserve the transfers of `run`'s copies, each starting when the one before ends (the
    /// plane does one at a time), as `2 × copies` calls of [`ChannelTimeline::reserve`] would:
    /// `t = start + read; s = reserve(t, xfer); s' = reserve(s + xfer, xfer); end = s' + xfer +
    /// program`. Returns when the last copy ends. The reservations are made in time order, so
    /// one merge pass over the list replaces a search and an insert each (without copy-back a GC
    /// burst is reserved far ahead, behind the other planes' bursts: each insert moved the
    /// intervals after it). Call after [`ChannelTimeline::catch_up`] for the current request.
    pub fn reserve_copies(&mut self, run: CopyRun) -> u64 {
        // Everything ending by the first transfer's ready time stays where it is; the rest is
        // merged with the new reservations back onto the end of the list.
        let p = self.first_ending_after(run.start + run.read_ns);
        let mut rest = std::mem::take(&mut self.spare);
        rest.clear();
        rest.extend_from_slice(&self.busy[p..]);
        self.busy.truncate(p);
        let head = self.head;
        let (mut i, mut t, mut first_end) = (0, run.start, self.first_end);
        for _ in 0..run.copies {
            // The copy's two transfers, back to back when the gap holds both (then in one go).
            let (s, both) = merge_reserve(
                &mut self.busy,
                head,
                &mut rest,
                &mut i,
                t + run.read_ns,
                run.xfer_ns,
                true,
            );
            let s2 = if both {
                s + run.xfer_ns
            } else {
                merge_reserve(
                    &mut self.busy,
                    head,
                    &mut rest,
                    &mut i,
                    s + run.xfer_ns,
                    run.xfer_ns,
                    false,
                )
                .0
            };
            if run.xfer_ns > 0 {
                first_end = first_end.min(s + run.xfer_ns);
            }
            t = s2 + run.xfer_ns + run.program_ns;
        }
        self.first_end = first_end;
        self.busy.extend_from_slice(&rest[i..]);
        self.spare = rest;
        t
    }

    /// End of the last reservation not yet pruned (0 when none; a time line not used since
    /// earlier requests may still hold ones that have ended).
    pub fn busy_until(&self) -> u64 {
        self.busy[self.head..].last().map_or(0, |(_, e)| *e)
    }
}

/// One [`ChannelTimeline::reserve`] of `dur` at `ready` on the list `out[live..] ++ old[*i..]`
/// (`out[..live]`: pruned intervals), where every interval of `out` ends at or before `ready`:
/// intervals passed over move to `out`, the new one is merged with the neighbours it touches
/// and pushed (or, if it touches the next one, left in its place in `old`). The search, fit and
/// merge rules are [`ChannelTimeline::reserve`]'s on a list split in two; they must change
/// together (`a_run_of_copies_reserves_as_its_transfers_one_by_one` compares them). `reserve`
/// keeps its own in-place form: splitting the list for every host transfer would copy the
/// tail twice where an insert moves it once. Forced in line: called twice per GC copy without
/// copy-back, its call cost ~20 of its ~56 instructions (saving and restoring registers).
///
/// With `pair`, when the gap found also holds a second `dur` right after the first (no interval
/// starts before `start + 2 × dur`), both are reserved as one interval and the answer says so: what
/// a second call at `start + dur` would have done, since it would find that gap free and merge with
/// the first (docs/speed.md, "A copy's two transfers reserved in one go; inserts that move the
/// shorter side"). Returns the start and whether both were reserved.
#[inline(always)]
fn merge_reserve(
    out: &mut Vec<(u64, u64)>,
    live: usize,
    old: &mut [(u64, u64)],
    i: &mut usize,
    ready: u64,
    dur: u64,
    pair: bool,
) -> (u64, bool) {
    // The intervals ending by `ready` cannot hold the reservation (reserve's search skips them).
    while let Some(&iv) = old.get(*i) {
        if iv.1 > ready {
            break;
        }
        out.push(iv);
        *i += 1;
    }
    let mut start = ready;
    while let Some(&(s, e)) = old.get(*i) {
        if s >= start + dur {
            break;
        }
        start = start.max(e);
        out.push((s, e));
        *i += 1;
    }
    let mut both = false;
    if dur > 0 {
        both = pair && old.get(*i).is_none_or(|next| next.0 >= start + 2 * dur);
        let end = start + if both { 2 * dur } else { dur };
        // An interval that reaches past `end` (merged with the next one) stays in `old`, where
        // the next reservation's scan sees it.
        let from = match out.last() {
            Some(&(s, e)) if e == start && out.len() > live => {
                out.pop();
                s
            }
            _ => start,
        };
        match old.get_mut(*i) {
            Some(next) if next.0 == end => next.0 = from,
            _ => out.push((from, end)),
        }
    }
    (start, both)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn fills_gaps_and_queues() {
        let mut c = ChannelTimeline::default();
        assert_eq!(c.reserve(100, 10), 100);
        assert_eq!(c.reserve(0, 10), 0); // before the first reservation
        assert_eq!(c.reserve(95, 10), 110); // does not fit in [10,100) after 95
        assert_eq!(c.reserve(50, 10), 50); // gap
        assert_eq!(c.reserve(105, 5), 120);
        c.prune(1000);
        assert_eq!(c.busy_until(), 0);
    }

    /// The time line as it was before the searches and the lazy prune: a plain scan.
    #[derive(Default)]
    struct Reference(Vec<(u64, u64)>);

    impl Reference {
        fn reserve(&mut self, ready: u64, dur: u64) -> u64 {
            let mut start = ready;
            let mut idx = self.0.len();
            for (i, &(s, e)) in self.0.iter().enumerate() {
                if e <= start {
                    continue;
                }
                if s >= start + dur {
                    idx = i;
                    break;
                }
                start = start.max(e);
            }
            if dur > 0 {
                self.0.insert(idx, (start, start + dur));
            }
            start
        }
    }

    #[test]
    fn same_starts_as_a_plain_scan() {
        // Host-like transfers near the present, GC-like bursts far ahead, pruning as time
        // moves: every start equals the plain scan's (which never merges and never prunes; the
        // two differ only for zero-length requests between touching intervals).
        let mut rng = crate::rng::stream(7, "channel-test");
        let mut c = ChannelTimeline::default();
        let mut r = Reference::default();
        let mut now = 0u64;
        for i in 0..20_000u64 {
            now += rng.gen_range(0..40u64);
            let ready = if i % 3 == 0 {
                now + 500 + rng.gen_range(0..5_000u64)
            } else {
                now + rng.gen_range(0..30u64)
            };
            let dur = rng.gen_range(1..12u64);
            // A time line pruned for this request (every 7th step) and one not yet pruned for
            // it (the others) must both answer as the reference.
            let now_s = Now {
                at: now,
                seq: i + 1,
            };
            if i % 7 == 0 {
                c.catch_up(now_s);
            }
            assert_eq!(
                c.fit(now_s, ready, dur),
                r.reserve_peek(ready, dur),
                "fit at step {i}"
            );
            assert_eq!(
                c.reserve(ready, dur),
                r.reserve(ready, dur),
                "reserve at step {i}"
            );
        }
        assert!(c.busy_until() > 0);
    }

    impl Reference {
        fn reserve_peek(&self, ready: u64, dur: u64) -> u64 {
            Reference(self.0.clone()).reserve(ready, dur)
        }
    }

    #[test]
    fn a_requests_past_reservations_stay_until_the_next_request() {
        let mut c = ChannelTimeline::default();
        let first = Now { at: 100, seq: 1 };
        c.catch_up(first);
        // A background flush catching up on its own clock reserves before the arrival...
        assert_eq!(c.reserve(40, 10), 40);
        // ...and the same request's next reservation there still sees it.
        c.catch_up(first);
        assert_eq!(c.fit(first, 45, 10), 50);
        assert_eq!(c.reserve(45, 10), 50);
        // The next request (even at the same time) prunes both.
        let next = Now { at: 100, seq: 2 };
        assert_eq!(c.fit(next, 45, 10), 45);
        c.catch_up(next);
        assert_eq!(c.reserve(45, 10), 45);
    }

    #[test]
    fn a_run_of_copies_reserves_as_its_transfers_one_by_one() {
        // Host-like transfers near the present and runs of GC copies (other planes' bursts far
        // ahead on the same channel), with zero-length and touching cases: the batched run must
        // leave the same list and give the same end as its reservations made one at a time.
        let mut rng = crate::rng::stream(11, "channel-copies");
        let (mut batched, mut single) = (ChannelTimeline::default(), ChannelTimeline::default());
        let mut now = 0u64;
        for i in 0..4_000u64 {
            now += rng.gen_range(0..400u64);
            let at = Now {
                at: now,
                seq: i + 1,
            };
            batched.catch_up(at);
            single.catch_up(at);
            if i % 4 == 0 {
                let run = CopyRun {
                    start: now + rng.gen_range(0..20_000u64),
                    copies: rng.gen_range(1..40u32),
                    read_ns: rng.gen_range(0..60u64),
                    xfer_ns: [0, 5, 10, 17][rng.gen_range(0..4usize)],
                    program_ns: rng.gen_range(0..300u64),
                };
                let mut t = run.start;
                for _ in 0..run.copies {
                    let s = single.reserve(t + run.read_ns, run.xfer_ns);
                    let s2 = single.reserve(s + run.xfer_ns, run.xfer_ns);
                    t = s2 + run.xfer_ns + run.program_ns;
                }
                assert_eq!(batched.reserve_copies(run), t, "run at step {i}");
            } else {
                let (ready, dur) = (now + rng.gen_range(0..30u64), rng.gen_range(1..12u64));
                assert_eq!(
                    batched.reserve(ready, dur),
                    single.reserve(ready, dur),
                    "step {i}"
                );
            }
            assert_eq!(
                batched.busy[batched.head..],
                single.busy[single.head..],
                "step {i}"
            );
            assert_eq!(batched.busy_until(), single.busy_until());
        }
    }

    #[test]
    fn staircase_on_one_channel() {
        let mut c = ChannelTimeline::default();
        let starts: Vec<u64> = (0..5).map(|_| c.reserve(0, 7)).collect();
        assert_eq!(starts, vec![0, 7, 14, 21, 28]);
    }
}
