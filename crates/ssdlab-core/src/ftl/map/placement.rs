//! Temperature estimation for multi-frontier placement: which host frontier (stream) a page
//! goes to. Stream 0 is the hottest; the last host stream the coldest; GC copies use their own
//! frontier after the host streams. Every policy estimates a page's update interval (in host
//! page writes) and bins it against the logical capacity U: with k streams, boundaries are
//! U·2^(j−k+1) for j = 0..k−2 (k = 2: hot below U/2). Under uniform random writes every page's
//! interval averages U, so the bins only pay off when the workload has skew.

use crate::config::{FdpConfig, FtlConfig, Placement};

/// No future write known (oracle) / never written (history-based policies).
pub const NEVER: u64 = u64::MAX;

#[derive(Debug, Clone)]
pub(crate) enum Temperature {
    /// single / dual-frontier: host stream 0 always.
    Fixed,
    /// hot-cold: host clock of each page's previous write.
    LastWrite { last: Vec<u64> },
    /// eti: per-extent decayed write count and the clock of its last update.
    Extents {
        extent_pages: u32,
        count: Vec<f32>,
        stamp: Vec<u64>,
    },
    /// oracle: the caller passes each write's next-write time.
    Oracle,
    /// FDP (`[fdp]`): the host's placement identifier of each page's latest write chooses the
    /// handle's frontier; `written` counts host pages per identifier.
    Host {
        pid: Vec<u16>,
        handles: u16,
        written: Vec<u64>,
    },
}

/// Per-FTL placement state.
#[derive(Debug, Clone)]
pub(crate) struct PlacementState {
    temp: Temperature,
    /// Host page writes so far (the clock of temperatures; never reset).
    clock: u64,
    host_streams: u32,
    boundaries: Vec<f64>,
    /// Half-life of ETI's decay, in host writes (= U).
    half_life: f64,
}

impl PlacementState {
    pub fn new(cfg: &FtlConfig, fdp: &FdpConfig, logical_pages: u64) -> Self {
        let k = match cfg.placement {
            _ if fdp.on() => fdp.handles,
            Placement::Single | Placement::DualFrontier => 1,
            _ => cfg.temperature_streams,
        };
        let u = logical_pages as f64;
        let boundaries = (0..k.saturating_sub(1))
            .map(|j| u * 2f64.powi(j as i32 - k as i32 + 1))
            .collect();
        let temp = match cfg.placement {
            // Until the host writes a page it counts as written through handle 0 of the group
            // whose share of the logical space it lies in (what preconditioning writes it
            // through): with several reclaim groups the fill spreads over them as their flash
            // does, instead of filling the first group's alone.
            _ if fdp.on() => Temperature::Host {
                pid: {
                    // Group g's share: the pages l with ⌊l·G/L⌋ = g, one fill each.
                    let (groups, mut pid) = (
                        u64::from(fdp.reclaim_groups),
                        vec![0u16; logical_pages as usize],
                    );
                    for g in 1..groups {
                        let from = (g * logical_pages).div_ceil(groups) as usize;
                        pid[from..].fill((g * u64::from(fdp.handles)) as u16);
                    }
                    pid
                },
                handles: fdp.handles as u16,
                written: vec![0; fdp.placement_ids() as usize],
            },
            Placement::Single | Placement::DualFrontier => Temperature::Fixed,
            Placement::HotCold => Temperature::LastWrite {
                last: vec![NEVER; logical_pages as usize],
            },
            Placement::Eti => {
                let n = logical_pages.div_ceil(u64::from(cfg.eti_extent_pages)) as usize;
                Temperature::Extents {
                    extent_pages: cfg.eti_extent_pages,
                    count: vec![0.0; n],
                    stamp: vec![0; n],
                }
            }
            Placement::Oracle => Temperature::Oracle,
        };
        PlacementState {
            temp,
            clock: 0,
            host_streams: k,
            boundaries,
            half_life: u.max(1.0),
        }
    }

    pub fn clock(&self) -> u64 {
        self.clock
    }

    pub fn host_streams(&self) -> u32 {
        self.host_streams
    }

    #[inline]
    fn bin(&self, interval: f64) -> usize {
        self.boundaries
            .iter()
            .position(|b| interval < *b)
            .unwrap_or(self.host_streams as usize - 1)
    }

    /// The host stream for a write of `lpn`; `next_write` is the host clock of its next write
    /// (oracle only; NEVER when unknown). Updates the estimator.
    #[inline(always)]
    pub fn host_stream(&mut self, lpn: u32, next_write: u64) -> usize {
        // One host stream (`single`, `dual-frontier`): decided in line, once per host page.
        if let Temperature::Fixed = self.temp {
            self.clock += 1;
            return 0;
        }
        self.temperature_stream(lpn, next_write)
    }

    /// [`PlacementState::host_stream`] for the placements that estimate temperatures.
    #[inline(never)]
    fn temperature_stream(&mut self, lpn: u32, next_write: u64) -> usize {
        let now = self.clock;
        self.clock += 1;
        match &mut self.temp {
            Temperature::Fixed => 0,
            Temperature::LastWrite { last } => {
                let prev = std::mem::replace(&mut last[lpn as usize], now);
                if prev == NEVER {
                    self.host_streams as usize - 1
                } else {
                    self.bin((now - prev) as f64)
                }
            }
            Temperature::Extents {
                extent_pages,
                count,
                stamp,
            } => {
                let e = (lpn / *extent_pages) as usize;
                let decay = 0.5f64.powf((now - stamp[e]) as f64 / self.half_life);
                let c = count[e] as f64 * decay + 1.0;
                count[e] = c as f32;
                stamp[e] = now;
                // Decayed count ≈ rate · half_life / ln 2, so rate = c·ln2/H writes per host
                // write over the extent; a page's expected interval is extent_pages / rate.
                let rate = c * std::f64::consts::LN_2 / self.half_life;
                let interval = f64::from(*extent_pages) / rate;
                self.bin(interval)
            }
            Temperature::Host {
                pid,
                handles,
                written,
            } => {
                let p = pid[lpn as usize];
                written[p as usize] += 1;
                usize::from(p % *handles)
            }
            Temperature::Oracle => {
                if next_write == NEVER {
                    self.host_streams as usize - 1
                } else {
                    self.bin(next_write.saturating_sub(now) as f64)
                }
            }
        }
    }

    /// FDP: the next host writes of `pages` come through placement identifier `id` (the
    /// caller checked it is one of the device's). Nothing without FDP.
    pub fn set_placement(&mut self, pages: std::ops::Range<u32>, id: u16) {
        if let Temperature::Host { pid, .. } = &mut self.temp {
            pid[pages.start as usize..pages.end as usize].fill(id);
        }
    }

    /// FDP: the placement identifier of `lpn`'s latest host write (0 without FDP, and for a
    /// cached map's translation pages, the logical pages after the user's: group 0's).
    #[inline]
    pub fn placement_of(&self, lpn: u32) -> u16 {
        match &self.temp {
            Temperature::Host { pid, .. } => pid.get(lpn as usize).copied().unwrap_or(0),
            _ => 0,
        }
    }

    /// FDP: host pages written through each placement identifier (empty without FDP).
    pub fn host_pages_by_placement(&self) -> &[u64] {
        match &self.temp {
            Temperature::Host { written, .. } => written,
            _ => &[],
        }
    }

    /// Counters reset (FDP's per-identifier host pages).
    pub fn reset_counters(&mut self) {
        if let Temperature::Host { written, .. } = &mut self.temp {
            written.iter_mut().for_each(|n| *n = 0);
        }
    }

    /// Heap bytes.
    pub fn memory_bytes(&self) -> usize {
        match &self.temp {
            Temperature::Host { pid, written, .. } => pid.capacity() * 2 + written.capacity() * 8,
            Temperature::LastWrite { last } => last.capacity() * 8,
            Temperature::Extents { count, stamp, .. } => {
                count.capacity() * 4 + stamp.capacity() * 8
            }
            _ => 0,
        }
    }
}
