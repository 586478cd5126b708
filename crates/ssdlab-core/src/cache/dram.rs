//! The cache's DRAM as one time line: an access transfers its bytes at the DRAM's bandwidth,
//! one transfer after another (they share the bus), and completes its latency after its
//! transfer ends (activation and CAS overlap other transfers, as in MQSim's
//! `estimate_dram_access_time`, which charges tRCD + tCL plus the bursts).

/// The DRAM time line.
#[derive(Debug, Clone)]
pub struct Dram {
    latency_ns: u64,
    mb_s: f64,
    free_at: u64,
}

impl Dram {
    pub fn new(latency_ns: f64, mb_s: f64) -> Self {
        Dram {
            latency_ns: latency_ns.round() as u64,
            mb_s,
            free_at: 0,
        }
    }

    /// Transfer time of `bytes`, ns.
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        (bytes as f64 * 1e3 / self.mb_s).round() as u64
    }

    /// An access of `bytes` ready at `ready` (a timing-free run passes 0 and gets 0): when it
    /// completes.
    pub fn access(&mut self, ready: u64, bytes: u64, timed: bool) -> u64 {
        if !timed {
            return ready;
        }
        let start = ready.max(self.free_at);
        self.free_at = start + self.transfer_ns(bytes);
        self.free_at + self.latency_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfers_queue_and_latency_overlaps() {
        // 4,000 MB/s: 4 KiB in 1,024 ns; 30 ns latency.
        let mut d = Dram::new(30.0, 4000.0);
        assert_eq!(d.access(100, 4096, true), 100 + 1024 + 30);
        // A second access ready at once waits for the first's transfer, not its latency.
        assert_eq!(d.access(100, 4096, true), 100 + 2048 + 30);
        assert_eq!(d.access(5000, 4096, false), 5000);
    }
}
