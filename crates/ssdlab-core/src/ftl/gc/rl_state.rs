//! The state and reward of the RL-assisted GC scheduler (Kang, Shin, Yoo, TECS 2017 §5.2,
//! Table 3, Figure 6): state = (previous inter-request interval bin, current interval bin,
//! previous action bin); reward = a step function of the response time against running
//! percentiles t1 < t2 < t3 (70th/90th/99th), negative above t3. Response times are ranked
//! against requests of the same type (reads against reads, writes against writes), our choice:
//! the paper's write-intensive traces make the distinction moot there.

use crate::config::RlConfig;
use crate::rl::RunningPercentiles;

/// Binning and reward of the paper's agent; also used by the external (Gymnasium) scheduler.
#[derive(Debug, Clone)]
pub struct RlFeatures {
    prev_edges_ns: Vec<u64>,
    cur_edges_ns: Vec<u64>,
    max_action: u32,
    levels: Vec<f64>,
    reads: RunningPercentiles,
    writes: RunningPercentiles,
}

fn bin(edges: &[u64], v: u64) -> usize {
    edges.iter().take_while(|e| v >= **e).count()
}

impl RlFeatures {
    pub fn new(cfg: &RlConfig) -> Self {
        let ns = |v: &Vec<f64>| {
            v.iter()
                .map(|&e| crate::config::us_to_ns(e))
                .collect::<Vec<_>>()
        };
        RlFeatures {
            prev_edges_ns: ns(&cfg.prev_interval_bins_us),
            cur_edges_ns: ns(&cfg.interval_bins_us),
            max_action: cfg.actions.iter().copied().max().unwrap_or(0),
            levels: cfg.reward_levels.clone(),
            reads: RunningPercentiles::new(&cfg.reward_percentiles, cfg.reward_refresh),
            writes: RunningPercentiles::new(&cfg.reward_percentiles, cfg.reward_refresh),
        }
    }

    /// Number of states: (prev bins) × (current bins) × 2 action bins (68 with the defaults).
    pub fn states(&self) -> usize {
        (self.prev_edges_ns.len() + 1) * (self.cur_edges_ns.len() + 1) * 2
    }

    /// Previous-action bin (Table 3): copies < max action / 2 → 0, otherwise 1.
    pub fn action_bin(&self, copies: u32) -> usize {
        usize::from(2 * u64::from(copies) >= u64::from(self.max_action) && self.max_action > 0)
    }

    /// The state index of (previous interval, current interval, previous action's copies).
    pub fn state(&self, prev_interval_ns: u64, interval_ns: u64, prev_copies: u32) -> usize {
        let pb = bin(&self.prev_edges_ns, prev_interval_ns);
        let cb = bin(&self.cur_edges_ns, interval_ns);
        (pb * (self.cur_edges_ns.len() + 1) + cb) * 2 + self.action_bin(prev_copies)
    }

    /// Reward of a response time (ns) against the percentiles recorded so far: `levels[k]` where
    /// k is the number of thresholds exceeded; 0 before any response of that type is recorded.
    pub fn reward(&self, is_write: bool, response_ns: u64) -> f64 {
        let p = if is_write { &self.writes } else { &self.reads };
        if p.count() == 0 {
            return 0.0;
        }
        self.levels[p.level(response_ns)]
    }

    pub fn record(&mut self, is_write: bool, response_ns: u64) {
        if is_write {
            self.writes.record(response_ns);
        } else {
            self.reads.record(response_ns);
        }
    }

    /// Current thresholds (ns) of writes.
    pub fn write_thresholds(&self) -> &[u64] {
        self.writes.thresholds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_binning_has_68_states() {
        let f = RlFeatures::new(&RlConfig::default());
        assert_eq!(f.states(), 68);
        assert_eq!(f.state(0, 0, 0), 0);
        assert_eq!(f.state(50_000, 99_000, 2), 0); // 50 µs, 99 µs, 2 < 5/2 (actions 1..=5)
        assert_eq!(f.state(50_000, 100_000, 3), 3); // current bin 1, action bin 1
        assert_eq!(f.state(100_000, 1_000_000_000, 5), 67);
    }

    #[test]
    fn reward_steps_at_the_percentiles() {
        let mut f = RlFeatures::new(&RlConfig::default());
        assert_eq!(f.reward(true, 5), 0.0);
        for v in 1..=1000u64 {
            f.record(true, v * 1000);
        }
        assert_eq!(f.reward(true, 10_000), 1.0);
        assert_eq!(f.reward(true, 800_000), 0.5);
        assert_eq!(f.reward(true, 950_000), 0.0);
        assert_eq!(f.reward(true, 2_000_000), -0.5);
        assert_eq!(f.reward(false, 2_000_000), 0.0);
    }
}
