//! Runs of host operations on several planes of one channel (a zone cleaner's reads or
//! appends): their transfers placed in the order they are ready, in one pass.

use super::{merge_reserve, ChannelTimeline};

impl ChannelTimeline {
    /// Reserve the transfers of runs of operations on several planes of this channel, each run
    /// `(start, n)`: a plane's operations one after another, each `before` ns, its transfer of
    /// `xfer`, then `after` ns (a read: array read, transfer out; a program: transfer in,
    /// program). The transfer ready first is reserved first (ties: the earlier run), as single
    /// reservations made in time order would be, in one merge pass as
    /// [`ChannelTimeline::reserve_copies`] does. Each run's `start` becomes when its last
    /// operation ends.
    pub fn reserve_runs(&mut self, runs: &mut [(u64, u32)], before: u64, xfer: u64, after: u64) {
        let Some(first) = runs.iter().filter(|r| r.1 > 0).map(|r| r.0).min() else {
            return;
        };
        if self.busy_until() <= first + before {
            return self.append_runs(runs, before, xfer, after);
        }
        let p = self.first_ending_after(first + before);
        let mut rest = std::mem::take(&mut self.spare);
        rest.clear();
        rest.extend_from_slice(&self.busy[p..]);
        self.busy.truncate(p);
        let head = self.head;
        let (mut i, mut first_end, mut last_end) = (0, self.first_end, 0);
        let mut scratch = std::mem::take(&mut self.order);
        let mut order = ReadyOrder::new(&mut scratch, runs);
        loop {
            // The run whose next transfer is ready first. Another plane's transfer ready before
            // the last one placed cannot go before it (a gap there was too short for the last
            // one, of the same length), so the merge pass sees its reservations in order.
            let Some(j) = order.next(runs) else { break };
            let t = runs[j].0;
            let ready = (t + before).max(last_end);
            let (s, _) = merge_reserve(&mut self.busy, head, &mut rest, &mut i, ready, xfer, false);
            if xfer > 0 {
                first_end = first_end.min(s + xfer);
            }
            last_end = s + xfer;
            runs[j] = (s + xfer + after, runs[j].1 - 1);
            order.served(j, runs);
        }
        self.first_end = first_end;
        self.busy.extend_from_slice(&rest[i..]);
        self.spare = rest;
        self.order = scratch;
    }

    /// [`ChannelTimeline::reserve_runs`] when nothing reserved ends after the first transfer is
    /// ready (a cleaner's runs on a channel it has to itself): each transfer goes at its ready
    /// time or after the last, merged with it when they touch, as the merge pass would place
    /// it — in a few instructions a transfer instead of a list pass.
    fn append_runs(&mut self, runs: &mut [(u64, u32)], before: u64, xfer: u64, after: u64) {
        let mut cur = if self.busy.len() > self.head {
            self.busy.pop()
        } else {
            None
        };
        let mut first_end = self.first_end;
        let mut scratch = std::mem::take(&mut self.order);
        let mut order = ReadyOrder::new(&mut scratch, runs);
        loop {
            let Some(j) = order.next(runs) else { break };
            let ready = runs[j].0 + before;
            cur = match cur {
                Some((a, e)) if e >= ready => Some((a, e + xfer)),
                Some(iv) => {
                    self.busy.push(iv);
                    Some((ready, ready + xfer))
                }
                None => Some((ready, ready + xfer)),
            };
            let end = cur.map_or(0, |c| c.1);
            first_end = first_end.min(end);
            runs[j] = (end + after, runs[j].1 - 1);
            order.served(j, runs);
        }
        self.busy.extend(cur);
        self.first_end = first_end;
        self.order = scratch;
    }
}

/// Which of several runs' transfers is ready next, in O(1) a transfer: runs not yet served in
/// the order of their first ready times (ties: the earlier run), then the runs served, in the
/// order they were served — a run served at `s` is ready again at `s + xfer + after + before`,
/// the same delay for all, so the served runs' ready times rise in their service order. Its
/// lists live in the time line's scratch vector (`[pending…, ring of served…]`), reused.
struct ReadyOrder<'a> {
    buf: &'a mut Vec<usize>,
    k: usize,
    next_pending: usize,
    head: usize,
    len: usize,
}

impl<'a> ReadyOrder<'a> {
    fn new(buf: &'a mut Vec<usize>, runs: &[(u64, u32)]) -> Self {
        buf.clear();
        buf.extend((0..runs.len()).filter(|&j| runs[j].1 > 0));
        buf.sort_unstable_by_key(|&j| (runs[j].0, j));
        let k = buf.len();
        buf.resize(2 * k, 0);
        ReadyOrder {
            buf,
            k,
            next_pending: 0,
            head: 0,
            len: 0,
        }
    }

    /// The run to serve next (taken off its list), or `None` when all are done.
    #[inline(always)]
    fn next(&mut self, runs: &[(u64, u32)]) -> Option<usize> {
        let take_pending = if self.next_pending < self.k {
            let p = self.buf[self.next_pending];
            self.len == 0 || {
                let q = self.buf[self.k + self.head];
                (runs[p].0, p) < (runs[q].0, q)
            }
        } else if self.len > 0 {
            false
        } else {
            return None;
        };
        if take_pending {
            self.next_pending += 1;
            Some(self.buf[self.next_pending - 1])
        } else {
            let q = self.buf[self.k + self.head];
            self.head = if self.head + 1 == self.k {
                0
            } else {
                self.head + 1
            };
            self.len -= 1;
            Some(q)
        }
    }

    /// Run `j` was served: back in line if it has more.
    #[inline(always)]
    fn served(&mut self, j: usize, runs: &[(u64, u32)]) {
        if runs[j].1 > 0 {
            let mut at = self.head + self.len;
            if at >= self.k {
                at -= self.k;
            }
            self.buf[self.k + at] = j;
            self.len += 1;
        }
    }
}
