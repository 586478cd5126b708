//! `flash.scheduler = "fair"`: which flows are low-intensity on each die, the input of FLIN's
//! first stage, fairness-aware queue insertion (Tavakkol et al., ISCA 2018). A flow is
//! low-intensity on a die while the host operations it has sent there in the current epoch
//! are fewer than the die's share of FLIN's intensity threshold; its operations then pass the
//! queued, unstarted host operations of high-intensity flows (`flash::queue`).
//!
//! The epoch and the thresholds are those MQSim's FLIN is built with (`SSD_Device.cpp`:
//! a 10 ms epoch, α = 32 MiB of reads and 256 KiB of writes an epoch over the device), divided
//! over the dies and into pages as MQSim's `TSU_FLIN` does. MQSim's integer division leaves a
//! write threshold of 0 pages on a die of a small page count, so that no flow is ever
//! low-intensity for writes; ours is at least 1 page (our reading: the paper classifies writes
//! too).

use crate::config::DeviceConfig;

/// FLIN's epoch: intensities are counted afresh every 10 ms.
pub const EPOCH_NS: u64 = 10_000_000;
/// FLIN's read intensity threshold over the device, bytes an epoch.
pub const ALPHA_READ_BYTES: u64 = 32 << 20;
/// FLIN's write intensity threshold over the device, bytes an epoch.
pub const ALPHA_WRITE_BYTES: u64 = 256 << 10;

/// A flow's host operations on a die in one epoch.
#[derive(Debug, Clone, Copy, Default)]
struct Count {
    epoch: u64,
    reads: u32,
    writes: u32,
}

/// Each die's count of each flow's host operations this epoch.
#[derive(Debug, Clone)]
pub(super) struct Intensity {
    read_limit: u32,
    write_limit: u32,
    /// `counts[line][flow]`, grown as flows appear.
    counts: Vec<Vec<Count>>,
}

impl Intensity {
    pub(super) fn new(cfg: &DeviceConfig, lines: usize) -> Self {
        let per_line = |alpha: u64| {
            let pages = alpha / (lines.max(1) as u64) / u64::from(cfg.geometry.page_size.max(1));
            pages.clamp(1, u64::from(u32::MAX)) as u32
        };
        Intensity {
            read_limit: per_line(ALPHA_READ_BYTES),
            write_limit: per_line(ALPHA_WRITE_BYTES),
            counts: vec![Vec::new(); lines],
        }
    }

    /// A host operation (`read` or a program) of `flow` on time line `key` at `t`: whether the
    /// flow is low-intensity there, counting the operations before this one in its epoch.
    pub(super) fn note(&mut self, key: usize, flow: u16, t: u64, read: bool) -> bool {
        let line = &mut self.counts[key];
        let f = usize::from(flow);
        if line.len() <= f {
            line.resize(f + 1, Count::default());
        }
        let c = &mut line[f];
        let epoch = t / EPOCH_NS;
        if c.epoch != epoch {
            *c = Count {
                epoch,
                reads: 0,
                writes: 0,
            };
        }
        let (n, limit) = if read {
            (&mut c.reads, self.read_limit)
        } else {
            (&mut c.writes, self.write_limit)
        };
        let low = *n < limit;
        *n = n.saturating_add(1);
        low
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_is_low_intensity_until_its_share_of_the_threshold_and_again_next_epoch() {
        let cfg = crate::config::DeviceConfig::load("tiny", "tiny", &[]).expect("tiny");
        let mut i = Intensity::new(&cfg, 2);
        let w = i.write_limit;
        assert_eq!(
            w,
            ((ALPHA_WRITE_BYTES / 2 / u64::from(cfg.geometry.page_size)) as u32).max(1)
        );
        for _ in 0..w {
            assert!(i.note(0, 3, 5, false));
        }
        assert!(
            !i.note(0, 3, 6, false),
            "past the threshold: high-intensity"
        );
        // Other dies, other flows and reads count apart; a new epoch starts afresh.
        assert!(i.note(1, 3, 7, false) && i.note(0, 0, 7, false) && i.note(0, 3, 8, true));
        assert!(i.note(0, 3, EPOCH_NS + 1, false));
    }
}
