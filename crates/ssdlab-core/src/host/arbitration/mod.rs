//! Command arbitration (`host.arbitration`): which submission queue the controller fetches
//! from when a command slot is free and several queues hold commands. The rules are the NVMe
//! base specification's "Command Arbitration" (section 4.13 of NVMe 1.4, 3.4.4 of NVMe 2.0);
//! `config::host` holds the settings. A new arbitration is one file here plus a variant of
//! `config::Arbitration` and its line in [`build`].

mod round_robin;
mod weighted;

use crate::config::{Arbitration, HostConfig};
use crate::trace::Priority;

/// Picks the queue to fetch from.
pub trait Arbiter: Send {
    /// One of the queues with `ready[q]` (at least one is): the queue whose head command the
    /// controller fetches now.
    fn pick(&mut self, ready: &[bool]) -> usize;
}

/// The arbiter `cfg` names, over queues of the given priority classes.
pub fn build(cfg: &HostConfig, classes: &[Priority]) -> Box<dyn Arbiter> {
    match cfg.arbitration {
        Arbitration::RoundRobin => Box::new(round_robin::RoundRobin::new(classes.len(), cfg.burst)),
        Arbitration::WeightedRoundRobin => {
            Box::new(weighted::WeightedRoundRobin::new(cfg, classes))
        }
    }
}

/// Round robin over a set of queues, up to `burst` commands from one before moving on (the
/// Arbitration Burst): shared by both arbitrations, which run it within a class.
#[derive(Debug, Clone)]
pub(crate) struct Rotor {
    members: Vec<usize>,
    /// The queue served last (index into `members`) and how many commands it gave in a row.
    pos: usize,
    taken: u32,
    burst: u32,
}

impl Rotor {
    pub(crate) fn new(members: Vec<usize>, burst: u32) -> Self {
        let pos = members.len().saturating_sub(1);
        // The first pick moves on to members[0].
        Rotor {
            members,
            pos,
            taken: burst,
            burst,
        }
    }

    /// The next ready member: the last one again while its burst lasts, else the next ready
    /// one after it in turn.
    pub(crate) fn pick(&mut self, ready: &[bool]) -> Option<usize> {
        let m = self.members.len();
        if m == 0 {
            return None;
        }
        if self.taken < self.burst && ready[self.members[self.pos]] {
            self.taken += 1;
            return Some(self.members[self.pos]);
        }
        for k in 1..=m {
            let p = (self.pos + k) % m;
            if ready[self.members[p]] {
                self.pos = p;
                self.taken = 1;
                return Some(self.members[p]);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picks(a: &mut dyn Arbiter, ready: &[bool], n: usize) -> Vec<usize> {
        (0..n).map(|_| a.pick(ready)).collect()
    }

    #[test]
    fn round_robin_takes_a_burst_from_each_ready_queue_in_turn() {
        let cfg = HostConfig {
            burst: 2,
            ..HostConfig::default()
        };
        let mut a = build(&cfg, &[Priority::Low, Priority::Urgent, Priority::High]);
        assert_eq!(picks(&mut *a, &[true; 3], 8), [0, 0, 1, 1, 2, 2, 0, 0]);
        // A queue with nothing ready is skipped, and a burst ends when its queue empties.
        assert_eq!(picks(&mut *a, &[true, false, true], 4), [2, 2, 0, 0]);
        assert_eq!(picks(&mut *a, &[false, true, false], 2), [1, 1]);
    }

    #[test]
    fn weighted_round_robin_serves_urgent_first_then_weights_per_round() {
        let cfg = HostConfig {
            arbitration: Arbitration::WeightedRoundRobin,
            high_weight: 3,
            medium_weight: 2,
            low_weight: 1,
            ..HostConfig::default()
        };
        let classes = [
            Priority::Low,
            Priority::High,
            Priority::Medium,
            Priority::Urgent,
        ];
        let mut a = build(&cfg, &classes);
        // Urgent is strict priority.
        assert_eq!(picks(&mut *a, &[true; 4], 3), [3, 3, 3]);
        // Without it: rounds of 3 high, 2 medium, 1 low.
        let ready = [true, true, true, false];
        assert_eq!(
            picks(&mut *a, &ready, 12),
            [1, 1, 1, 2, 2, 0, 1, 1, 1, 2, 2, 0]
        );
        // A class with nothing ready gives up its turn: high and low only.
        assert_eq!(
            picks(&mut *a, &[true, true, false, false], 8),
            [1, 1, 1, 0, 1, 1, 1, 0]
        );
    }

    #[test]
    fn weighted_round_robin_is_round_robin_within_a_class() {
        let cfg = HostConfig {
            arbitration: Arbitration::WeightedRoundRobin,
            high_weight: 2,
            low_weight: 1,
            ..HostConfig::default()
        };
        let classes = [Priority::High, Priority::High, Priority::Low];
        let mut a = build(&cfg, &classes);
        assert_eq!(picks(&mut *a, &[true; 3], 6), [0, 1, 2, 0, 1, 2]);
    }
}
