//! Weighted round robin with urgent priority class (NVMe base specification, section 4.13.2 of
//! NVMe 1.4): urgent queues have strict priority over the rest, round robin among themselves;
//! the high, medium and low classes then share rounds in which each class may give up to its
//! weight in commands, round robin among its queues. The specification leaves the order of
//! the classes within a round open; we serve high, then medium, then low, so that a round of
//! saturated classes is `high_weight` high commands, then the medium ones, then the low ones.
//! A class with nothing ready gives up the rest of its turn; a new round starts when no class
//! with credit left has a ready queue.

use super::{Arbiter, Rotor};
use crate::config::HostConfig;
use crate::trace::Priority;

pub struct WeightedRoundRobin {
    urgent: Rotor,
    /// High, medium, low.
    classes: [Rotor; 3],
    weights: [u32; 3],
    credits: [u32; 3],
}

impl WeightedRoundRobin {
    pub fn new(cfg: &HostConfig, classes: &[Priority]) -> Self {
        let members = |p: Priority| -> Vec<usize> {
            (0..classes.len()).filter(|&q| classes[q] == p).collect()
        };
        let rotor = |p| Rotor::new(members(p), cfg.burst);
        let weights = [cfg.high_weight, cfg.medium_weight, cfg.low_weight];
        WeightedRoundRobin {
            urgent: rotor(Priority::Urgent),
            classes: [
                rotor(Priority::High),
                rotor(Priority::Medium),
                rotor(Priority::Low),
            ],
            weights,
            credits: weights,
        }
    }
}

impl Arbiter for WeightedRoundRobin {
    fn pick(&mut self, ready: &[bool]) -> usize {
        if let Some(q) = self.urgent.pick(ready) {
            return q;
        }
        for _round in 0..2 {
            for c in 0..3 {
                if self.credits[c] > 0 {
                    if let Some(q) = self.classes[c].pick(ready) {
                        self.credits[c] -= 1;
                        return q;
                    }
                }
            }
            self.credits = self.weights;
        }
        // Unreachable while some queue is ready: every ready queue is in one class.
        ready.iter().position(|&r| r).unwrap_or(0)
    }
}
