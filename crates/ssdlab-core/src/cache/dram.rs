//! The cache's DRAM: a bus with the flash channels' gap-filling time line
//! (`flash::ChannelTimeline`) — an access transfers its bytes at the DRAM's bandwidth in the
//! earliest idle interval at or after it is ready (a write waiting for a slot holds the bus
//! only from then, not in front of reads that come earlier), and completes its latency after
//! its transfer ends (activation and CAS overlap other transfers, as in MQSim's
//! `estimate_dram_access_time`, which charges tRCD + tCL plus the bursts).

use crate::flash::ChannelTimeline;

/// The DRAM time line.
#[derive(Debug, Clone)]
pub struct Dram {
    latency_ns: u64,
    mb_s: f64,
    bus: ChannelTimeline,
}

impl Dram {
    pub fn new(latency_ns: f64, mb_s: f64) -> Self {
        Dram {
            latency_ns: latency_ns.round() as u64,
            mb_s,
            bus: ChannelTimeline::default(),
        }
    }

    /// Transfer time of `bytes`, ns (none at a bandwidth of 0: an ideal DRAM).
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        if self.mb_s == 0.0 {
            return 0;
        }
        (bytes as f64 * 1e3 / self.mb_s).round() as u64
    }

    /// An access of `bytes` ready at `ready` (a timing-free run passes 0 and gets 0): when it
    /// completes.
    pub fn access(&mut self, ready: u64, bytes: u64, timed: bool) -> u64 {
        if !timed {
            return ready;
        }
        let xfer = self.transfer_ns(bytes);
        if xfer == 0 {
            return ready + self.latency_ns;
        }
        self.bus.reserve(ready, xfer) + xfer + self.latency_ns
    }

    /// Forget the transfers that ended before `now`.
    pub fn prune(&mut self, now: u64) {
        self.bus.prune(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfers_share_the_bus_and_latency_overlaps() {
        // 4,000 MB/s: 4 KiB in 1,024 ns; 30 ns latency.
        let mut d = Dram::new(30.0, 4000.0);
        assert_eq!(d.access(100, 4096, true), 100 + 1024 + 30);
        // A second access ready at once waits for the first's transfer, not its latency.
        assert_eq!(d.access(100, 4096, true), 100 + 2048 + 30);
        // One ready later than a gap fills the gap: a transfer booked far ahead does not hold
        // the bus before it.
        assert_eq!(d.access(1_000_000, 4096, true), 1_000_000 + 1024 + 30);
        assert_eq!(d.access(10_000, 4096, true), 10_000 + 1024 + 30);
        assert_eq!(d.access(5000, 4096, false), 5000);
        // An ideal DRAM: latency only, no queue.
        let mut z = Dram::new(1000.0, 0.0);
        assert_eq!(
            (z.access(7, 1 << 20, true), z.access(7, 1 << 20, true)),
            (1007, 1007)
        );
    }
}
