//! Round robin: every submission queue has equal priority; the controller takes up to an
//! Arbitration Burst of commands from one queue, then moves to the next that has any (NVMe
//! base specification, "Round Robin Arbitration": section 4.13.1 of NVMe 1.4). Priority
//! classes are ignored, as the specification says they are under this arbitration.

use super::{Arbiter, Rotor};

pub struct RoundRobin(Rotor);

impl RoundRobin {
    pub fn new(queues: usize, burst: u32) -> Self {
        RoundRobin(Rotor::new((0..queues).collect(), burst))
    }
}

impl Arbiter for RoundRobin {
    fn pick(&mut self, ready: &[bool]) -> usize {
        self.0.pick(ready).unwrap_or(0)
    }
}
