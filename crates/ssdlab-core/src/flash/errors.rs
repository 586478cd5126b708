//! The flash's raw bit errors and the reads they cost (issue 63, `[reliability]`): each block's
//! RBER from its P/E cycles, its data's retention time and its reads since its erase
//! (`config::reliability` has the model and its sources), decoded by [`Ecc`] on every host
//! page read, and the retries and soft tiers timed on the plane and channel like any read.
//!
//! A block's retention clock starts when the FTL opens it (the FTL reports each block it opens,
//! and its erase count, through [`Resources::block_opened`]): the oldest data in a block is its
//! first page's, and a firmware keeps one timestamp a block, not one a page. Host page reads
//! count as the block's reads (read disturb); GC's reads are not counted, nor decoded, in this
//! version.
//!
//! The decoder reads its table at the grid point at or above a read's λ ([`Ecc::grid_point`]),
//! and a block's RBER only grows between its erases. So a block keeps its grid point with a
//! window — reads and time — in which its RBER provably stays at or below that point's
//! ceiling (half the headroom to each growing term), and reads inside the window skip the
//! model's powers and logarithm: a healthy block's reads are clean for long windows, an aged
//! block's decode from the row they keep. Every read draws its uniform all the same, and a
//! read decodes at the grid point it would have without the window, so the window never moves
//! a result (tested).

use rand::RngCore;

use super::ecc::{Decode, Ecc};
use super::{OpDone, Resources};
use crate::config::{DeviceConfig, RberModel, MAX_SOFT_TIERS};
use crate::rng::{self, SimRng};
use crate::stats::ErrorReport;

/// The counters behind [`ErrorReport`].
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    page_reads: u64,
    retried_reads: u64,
    retry_steps: u64,
    soft_reads: [u64; MAX_SOFT_TIERS],
    uncorrectable_reads: u64,
    retry_ns: u64,
    max_rber: f64,
}

const DAY_NS: f64 = 86_400e9;

/// A block's wear-dependent terms (fixed from its opening to its next erase) and its clocks.
#[derive(Debug, Clone, Copy, Default)]
struct BlockWear {
    opened_at: u64,
    reads: u32,
    /// Reads below this count at times before `until` decode at grid point `point` without
    /// the model (0: clean).
    window_reads: u32,
    point: u32,
    until: u64,
    /// ε + α·PE^k, β·PE^m and γ·PE^p at the block's P/E cycles.
    wear: f64,
    retention: f64,
    disturb: f64,
}

/// The error model's state: per block wear, the decoder, the draws and the counters.
#[derive(Debug, Clone)]
pub struct Errors {
    model: RberModel,
    pub(super) ecc: Ecc,
    age_ns: u64,
    initial_pe: u32,
    /// Physical pages (mapping units) a block: a page's block; its log2 when a power of two
    /// (a shift, not a division, on every read), else `u32::MAX`.
    units_per_block: u32,
    block_shift: u32,
    blocks: Vec<BlockWear>,
    rng: SimRng,
    counts: Counts,
    page_bits: f64,
    /// Read reclaim's thresholds (0: off) and the blocks that passed one since the FTL last
    /// looked (`take_reclaim_due`).
    reclaim_reads: u32,
    reclaim_retries: u8,
    due: Vec<u32>,
}

impl Errors {
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Self {
        let r = &cfg.reliability;
        let g = &cfg.geometry;
        Errors {
            model: r.model(g.cell_mode),
            ecc: Ecc::new(r, g.page_size),
            age_ns: (r.age_days * DAY_NS) as u64,
            initial_pe: r.initial_pe,
            units_per_block: g.pages_per_block * cfg.units_per_page(),
            block_shift: {
                let u = g.pages_per_block * cfg.units_per_page();
                if u.is_power_of_two() {
                    u.trailing_zeros()
                } else {
                    u32::MAX
                }
            },
            blocks: vec![BlockWear::default(); g.total_blocks() as usize],
            rng: rng::stream(seed, "errors"),
            counts: Counts::default(),
            page_bits: f64::from(g.page_size) * 8.0,
            reclaim_reads: r.reclaim_reads,
            reclaim_retries: r.reclaim_retries.min(u32::from(u8::MAX)) as u8,
            due: Vec::new(),
        }
    }

    /// Bytes the state takes for a device of `cfg` (the memory estimate).
    pub fn memory_bytes(cfg: &DeviceConfig) -> u64 {
        let r = &cfg.reliability;
        let ecc = Ecc::grid(r, cfg.geometry.page_size);
        cfg.geometry.total_blocks() * std::mem::size_of::<BlockWear>() as u64
            + ecc.table_bytes() as u64
    }

    fn report(&self) -> ErrorReport {
        let c = &self.counts;
        let per = |n: u64| n as f64 / c.page_reads.max(1) as f64;
        ErrorReport {
            page_reads: c.page_reads,
            retried_reads: c.retried_reads,
            retry_rate: per(c.retried_reads),
            retry_steps: c.retry_steps,
            soft_reads: c.soft_reads[..self.ecc.soft.len()].to_vec(),
            uncorrectable_reads: c.uncorrectable_reads,
            uber: c.uncorrectable_reads as f64 / (c.page_reads.max(1) as f64 * self.page_bits),
            retry_time_s: c.retry_ns as f64 / 1e9,
            max_rber: c.max_rber,
        }
    }

    fn opened(&mut self, blk: u32, erases: u32, at: u64) {
        let pe = f64::from(erases.saturating_add(self.initial_pe));
        let m = &self.model;
        self.blocks[blk as usize] = BlockWear {
            opened_at: at,
            reads: 0,
            window_reads: 0,
            point: 0,
            until: 0,
            wear: m.epsilon + m.alpha * pe.powf(m.k),
            retention: m.beta * pe.powf(m.m),
            disturb: m.gamma * pe.powf(m.p),
        };
    }

    /// Decode one host read of physical page `ppn` at `now`: the block's read count moves on
    /// and the read's uniform is drawn whatever happens.
    #[inline]
    pub(crate) fn sense(&mut self, ppn: u32, now: u64) -> Decode {
        let u = ((self.rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        let blk = if self.block_shift != u32::MAX {
            ppn >> self.block_shift
        } else {
            ppn / self.units_per_block
        } as usize;
        let b = &mut self.blocks[blk];
        let reads = b.reads;
        b.reads = reads.saturating_add(1);
        self.counts.page_reads += 1;
        let g = if reads < b.window_reads && now < b.until {
            b.point as usize
        } else {
            self.window(blk, now, reads)
        };
        if g == 0 {
            return Decode::CLEAN;
        }
        let d = self.ecc.decode_at(g, u);
        let c = &mut self.counts;
        c.retried_reads += u64::from(d.retries > 0);
        c.retry_steps += u64::from(d.retries);
        if d.soft > 0 {
            c.soft_reads[usize::from(d.soft - 1)] += 1;
        }
        c.uncorrectable_reads += u64::from(d.uncorrectable);
        if self.reclaim_retries > 0 && d.retries >= self.reclaim_retries {
            self.ask_reclaim(blk);
        }
        d
    }

    /// Ask for block `blk`'s reclaim (out of line: a push's growth path in `sense` cost every
    /// read its registers).
    #[cold]
    #[inline(never)]
    fn ask_reclaim(&mut self, blk: usize) {
        self.due.push(blk as u32);
    }

    /// Read reclaim by count (`reclaim_reads` = N): the read that brings block `blk` to N, 2N,
    /// … reads (`reads` before it) asks for the block; the block's window ends before the next
    /// such read, so that the reads between pay nothing for the check.
    #[cold]
    fn reclaim_window(&mut self, blk: usize, reads: u32) {
        let n = u64::from(self.reclaim_reads);
        let count = u64::from(reads) + 1;
        if count % n == 0 {
            self.ask_reclaim(blk);
        }
        let next = ((count / n + 1) * n - 1).min(u64::from(u32::MAX)) as u32;
        let b = &mut self.blocks[blk];
        b.window_reads = b.window_reads.min(next);
    }

    /// Block `blk`'s RBER at `now` after `reads` reads, its grid point, and the window in
    /// which the point holds.
    #[cold]
    fn window(&mut self, blk: usize, now: u64, reads: u32) -> usize {
        let g = self.window_of(blk, now, reads);
        if self.reclaim_reads > 0 {
            self.reclaim_window(blk, reads);
        }
        g
    }

    /// [`Self::window`] without read reclaim's part.
    fn window_of(&mut self, blk: usize, now: u64, reads: u32) -> usize {
        let m = self.model;
        let b = &mut self.blocks[blk];
        let days = (now.saturating_sub(b.opened_at) + self.age_ns) as f64 / DAY_NS;
        let ret = b.retention * days.powf(m.n);
        // A block's first read (most windows start there): no disturb yet, and no power.
        let dist = if reads == 0 && m.q > 0.0 {
            0.0
        } else {
            b.disturb * f64::from(reads).powf(m.q)
        };
        let rber = b.wear + ret + dist;
        let g = self.ecc.grid_point(self.ecc.lambda(rber));
        // A hair under the ceiling, so that no rounding of the grid point's logarithm can
        // put a read inside the window on the next point.
        let room = self.ecc.ceiling(g) * (1.0 - 1e-9) / self.ecc.lambda(1.0) - rber;
        self.counts.max_rber = self.counts.max_rber.max(rber);
        b.point = g as u32;
        if room.is_nan() || room <= 0.0 {
            // On the boundary: this read only.
            (b.window_reads, b.until) = (0, 0);
            return g;
        }
        // Half the room to each growing term.
        let until_days = if b.retention > 0.0 {
            ((ret + room / 2.0) / b.retention).powf(1.0 / m.n)
        } else {
            f64::INFINITY
        };
        let until = b.opened_at as f64 + until_days * DAY_NS - self.age_ns as f64;
        b.until = if until >= u64::MAX as f64 {
            u64::MAX
        } else {
            until.max(0.0) as u64
        };
        b.window_reads = if b.disturb > 0.0 {
            ((dist + room / 2.0) / b.disturb)
                .powf(1.0 / m.q)
                .min(f64::from(u32::MAX)) as u32
        } else {
            u32::MAX
        };
        g
    }
}

impl Resources {
    /// Turn the error model on (`reliability.errors`), its draws from `seed`'s `errors` stream.
    pub fn enable_errors(&mut self, cfg: &DeviceConfig, seed: u64) {
        if cfg.reliability.errors {
            self.errors = Some(Box::new(Errors::new(cfg, seed)));
        }
    }

    #[inline(always)]
    pub fn errors_on(&self) -> bool {
        self.errors.is_some()
    }

    /// The error model, if on: a caller that decodes many reads untimed asks once.
    #[inline(always)]
    pub(crate) fn errors_mut(&mut self) -> Option<&mut Errors> {
        self.errors.as_deref_mut()
    }

    /// The FTL opened block `blk`, erased `erases` times, for writing at `at`: its retention
    /// clock and read count start again.
    pub fn block_opened(&mut self, blk: u32, erases: u32, at: u64) {
        if let Some(e) = &mut self.errors {
            e.opened(blk, erases, at);
        }
    }

    /// Decode a host read of `ppn` at `now` (clean with the model off).
    #[inline]
    pub fn sense(&mut self, ppn: u32, now: u64) -> Decode {
        match &mut self.errors {
            Some(e) => e.sense(ppn, now),
            None => Decode::CLEAN,
        }
    }

    /// A host read of `ppn` on `plane` from `ready` that decoded as `d`: the read, then its
    /// retry steps (each the array read and the transfer, as a read), then each soft tier's
    /// extra reads and its decode. The read breakdown gives the time after the first read's
    /// transfer to `retry`.
    pub fn read_sensed(&mut self, plane: u32, ppn: u32, ready: u64, d: Decode) -> OpDone {
        let first = self.read_page(plane, ppn, ready);
        if d.clean() {
            return first;
        }
        let ns = self.read_ns_of(ppn);
        self.quiet_reads(true);
        let mut out = first;
        for _ in 0..d.retries {
            out.join(self.read_in(plane, out.done, ns));
        }
        for tier in 0..usize::from(d.soft) {
            let (reads, decode_ns) = match &self.errors {
                Some(e) => e.ecc.soft[tier],
                None => break,
            };
            for _ in 0..reads {
                out.join(self.read_in(plane, out.done, ns));
            }
            out.done += decode_ns;
        }
        self.quiet_reads(false);
        self.retried_read(out.done);
        if let Some(e) = &mut self.errors {
            e.counts.retry_ns += out.done - first.done;
        }
        out
    }

    /// The blocks read reclaim asks to move since the last call (`reliability.reclaim_*`), to
    /// `f`, oldest first; a block may come more than once.
    #[inline]
    pub fn take_reclaim_due(&mut self, mut f: impl FnMut(u32)) {
        if let Some(e) = &mut self.errors {
            if !e.due.is_empty() {
                e.due.drain(..).for_each(&mut f);
            }
        }
    }

    /// Every block opened for writing at or before `t` (its data at least that old), to `f`
    /// (the refresh patrol; the FTL keeps those holding data).
    pub fn blocks_opened_by(&self, t: u64, mut f: impl FnMut(u32)) {
        if let Some(e) = &self.errors {
            for (blk, b) in e.blocks.iter().enumerate() {
                if b.opened_at <= t {
                    f(blk as u32);
                }
            }
        }
    }

    /// The error model's counters since the run began.
    pub fn error_report(&self) -> Option<ErrorReport> {
        self.errors.as_ref().map(|e| e.report())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The RBER and decode of a read computed afresh, without windows.
    fn fresh(e: &Errors, blk: usize, now: u64, reads: u32, u: f64) -> Decode {
        let m = &e.model;
        let b = &e.blocks[blk];
        let days = (now.saturating_sub(b.opened_at) + e.age_ns) as f64 / DAY_NS;
        let rber = b.wear + b.retention * days.powf(m.n) + b.disturb * f64::from(reads).powf(m.q);
        e.ecc.decode(e.ecc.lambda(rber), u)
    }

    /// Reads inside a block's window decode exactly as computed afresh, on blocks from clean
    /// to lost, as time passes and reads pile up.
    #[test]
    fn windows_never_move_a_decode() {
        for (age, pe) in [
            ("0", "0"),
            ("30", "1000"),
            ("365", "1400"),
            ("365", "1600"),
            ("3650", "3000"),
        ] {
            let sets = [
                "reliability.errors=true".to_string(),
                format!("reliability.age_days={age}"),
                format!("reliability.initial_pe={pe}"),
            ];
            let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
            let mut e = Errors::new(&cfg, 5);
            let blocks = e.blocks.len();
            for blk in 0..blocks {
                e.opened(blk as u32, (blk % 50) as u32, blk as u64 * 1_000);
            }
            let mut probe = rng::stream(9, "probe");
            let (mut now, mut moved, mut windowed) = (1_000_000u64, 0, 0);
            for _ in 0..200_000 {
                now += probe.next_u64() % 50_000_000;
                let blk = (probe.next_u64() % 8) as usize;
                let ppn = blk as u32 * e.units_per_block + 1;
                let mut draws = e.rng.clone();
                let u = ((draws.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
                let b = e.blocks[blk];
                windowed += usize::from(b.reads < b.window_reads && now < b.until);
                let want = fresh(&e, blk, now, b.reads, u);
                moved += usize::from(e.sense(ppn, now) != want);
            }
            assert_eq!(moved, 0, "age {age} pe {pe}");
            assert!(
                windowed > 150_000,
                "age {age} pe {pe}: {windowed} reads in windows"
            );
        }
    }
}
