//! A channel's time line with gap filling: transfers reserve the earliest idle interval at or
//! after their ready time, so a transfer waiting for a busy plane does not hold the bus for the
//! transfers of other planes (the bus is shared, the planes are not).

/// Future busy intervals of one channel, sorted by start, non-overlapping.
#[derive(Debug, Clone, Default)]
pub struct ChannelTimeline {
    busy: Vec<(u64, u64)>,
}

impl ChannelTimeline {
    /// Forget intervals that end at or before `now` (nothing can be scheduled before the current
    /// request's arrival, so they can never matter again).
    #[inline]
    pub fn prune(&mut self, now: u64) {
        let n = self.busy.iter().take_while(|(_, e)| *e <= now).count();
        if n > 0 {
            self.busy.drain(..n);
        }
    }

    /// The start `reserve(ready, dur)` would return, without reserving.
    #[inline]
    pub fn fit(&self, ready: u64, dur: u64) -> u64 {
        let mut start = ready;
        for &(s, e) in &self.busy {
            if e <= start {
                continue;
            }
            if s >= start + dur {
                break;
            }
            start = start.max(e);
        }
        start
    }

    /// Reserve `dur` ns at the earliest start ≥ `ready` that fits; returns the start.
    #[inline]
    pub fn reserve(&mut self, ready: u64, dur: u64) -> u64 {
        let mut start = ready;
        let mut idx = self.busy.len();
        for (i, &(s, e)) in self.busy.iter().enumerate() {
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
            // Merge with neighbours that touch, to keep the list short.
            let end = start + dur;
            if idx > 0 && self.busy[idx - 1].1 == start {
                self.busy[idx - 1].1 = end;
                if idx < self.busy.len() && self.busy[idx].0 == end {
                    self.busy[idx - 1].1 = self.busy[idx].1;
                    self.busy.remove(idx);
                }
            } else if idx < self.busy.len() && self.busy[idx].0 == end {
                self.busy[idx].0 = start;
            } else {
                self.busy.insert(idx, (start, end));
            }
        }
        start
    }

    /// End of the last reservation (0 when idle).
    pub fn busy_until(&self) -> u64 {
        self.busy.last().map_or(0, |(_, e)| *e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn staircase_on_one_channel() {
        let mut c = ChannelTimeline::default();
        let starts: Vec<u64> = (0..5).map(|_| c.reserve(0, 7)).collect();
        assert_eq!(starts, vec![0, 7, 14, 21, 28]);
    }
}
