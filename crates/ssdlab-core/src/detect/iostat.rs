//! The `iostat -x` view of one device: its fields per interval between two `/proc/diskstats`
//! snapshots, computed as sysstat 12.6 computes them (`iostat.c` `write_ext_stat`,
//! `write_plain_ext_stat`; `common.c` `compute_ext_disk_stats`; `common.h` `S_VALUE`).
//!
//! With `itv` the interval in hundredths of a second (the `/proc/uptime` difference, 1 if
//! zero: `get_interval`) and `S(d) = d / itv * 100` (per second):
//! - `r/s = S(reads)`, `rkB/s = S(sectors read) / 2`, `rrqm/s = S(reads merged)`,
//!   `%rrqm = merged / (merged + reads) * 100`, `r_await = read ticks / reads` (ms),
//!   `rareq-sz = sectors read / reads / 2` (kB); the same for writes (`w…`) and discards (`d…`);
//!   `f/s = S(flushes)`, `f_await = flush ticks / flushes`; a ratio with a zero count is 0;
//! - `aqu-sz = S(weighted ticks) / 1000`, `%util = S(io ticks) / 10`;
//! - the combined fields of `iostat -x -s` and of sysstat before 12 use `nr_ios = reads + writes +
//!   discards` (flushes are already counted as writes): `tps = S(nr_ios)`,
//!   `await = (read + write + discard ticks) / nr_ios`, `avgrq-sz = (sectors read + written +
//!   discarded) / nr_ios` (sectors; `areq-sz` is half that, in kB), `avgqu-sz = aqu-sz`, and
//!   `svctm = S(io ticks) / S(nr_ios)` (ms; sysstat dropped it in 12.x, the paper's detector
//!   keys on its standard deviation). On kernels before 4.18 there are no discard counters and
//!   these are exactly sysstat 11's `avgrq-sz`, `await` and `svctm` (there `nr_ios = reads +
//!   writes`).
//!
//! Counter differences: the millisecond counters are 32-bit in the kernel and in sysstat, and
//! their difference is taken modulo 2^32, as sysstat's `unsigned int` arithmetic does (so a wrap
//! after ~49.7 days is harmless). A 64-bit count that decreases from a value below 2^32 wrapped
//! as a 32-bit kernel's `unsigned long` does and is taken modulo 2^32 too (sysstat's
//! `write_basic_stat` does the same for sectors). One that decreases from above 2^32 cannot
//! have wrapped; it restarted, and its new value is the interval's count (sysstat on a 64-bit
//! host would print a difference near 2^64 instead). When the total of reads, writes,
//! discards and flushes decreases and so do all sector counts, sysstat takes the device as
//! removed and re-inserted and counts from zero; so does this module.

use serde::{Deserialize, Serialize};

use super::diskstats::{DiskStats, Recording};
use crate::error::{Result, SsdError};

/// The discard columns (kernel 4.18+).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DiscardFields {
    pub d_s: f64,
    pub dkb_s: f64,
    pub drqm_s: f64,
    pub drqm_pct: f64,
    pub d_await: f64,
    pub dareq_sz: f64,
}

/// The flush columns (kernel 5.5+).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlushFields {
    pub f_s: f64,
    pub f_await: f64,
}

/// The `iostat -x` fields of one device over one interval (units as iostat prints them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub device: String,
    /// Uptimes at the interval's start and end, in hundredths of a second.
    pub start_cs: u64,
    pub end_cs: u64,
    /// The interval sysstat divides by, in hundredths of a second (at least 1).
    pub itv_cs: u64,
    pub r_s: f64,
    pub rkb_s: f64,
    pub rrqm_s: f64,
    pub rrqm_pct: f64,
    pub r_await: f64,
    pub rareq_sz: f64,
    pub w_s: f64,
    pub wkb_s: f64,
    pub wrqm_s: f64,
    pub wrqm_pct: f64,
    pub w_await: f64,
    pub wareq_sz: f64,
    pub discard: Option<DiscardFields>,
    pub flush: Option<FlushFields>,
    pub aqu_sz: f64,
    pub util_pct: f64,
    pub tps: f64,
    pub kb_s: f64,
    pub rqm_s: f64,
    pub await_ms: f64,
    pub areq_sz: f64,
    pub avgrq_sz: f64,
    pub svctm: f64,
}

/// A 64-bit counter's increase (see the module documentation for decreases).
fn d64(prev: u64, curr: u64) -> u64 {
    if curr >= prev {
        curr - prev
    } else if prev <= u64::from(u32::MAX) {
        curr.wrapping_sub(prev) & 0xffff_ffff
    } else {
        curr
    }
}

/// A 32-bit millisecond counter's increase, modulo 2^32.
fn d32(prev: u32, curr: u32) -> u32 {
    curr.wrapping_sub(prev)
}

fn ratio(num: f64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num / den as f64
    }
}

/// `%rrqm`: merged requests as a share of all requests that reached the queue.
fn merge_pct(merges: u64, ios: u64) -> f64 {
    ratio(merges as f64, merges + ios) * 100.0
}

/// sysstat's rule for a device that disappeared and came back: every count went down.
fn reinserted(prev: &DiskStats, curr: &DiskStats) -> bool {
    let total = |d: &DiskStats| {
        d.rd_ios
            .wrapping_add(d.wr_ios)
            .wrapping_add(d.discards.map_or(0, |x| x.ios))
            .wrapping_add(d.flushes.map_or(0, |x| x.ios))
    };
    let down = |p: u64, c: u64| p == 0 || c < p;
    let dc = |d: &DiskStats| d.discards.map_or(0, |x| x.sectors);
    total(curr) < total(prev)
        && down(prev.rd_sectors, curr.rd_sectors)
        && down(prev.wr_sectors, curr.wr_sectors)
        && down(dc(prev), dc(curr))
}

impl Interval {
    /// The fields between `prev` read at uptime `prev_cs` and `curr` read at `curr_cs` (both
    /// hundredths of a second). Discard and flush fields are given when both samples have
    /// them.
    pub fn between(
        prev: &DiskStats,
        prev_cs: u64,
        curr: &DiskStats,
        curr_cs: u64,
    ) -> Result<Interval> {
        if curr_cs < prev_cs {
            return Err(SsdError::Invalid(format!(
                "iostat {}: expected the later sample's uptime ({curr_cs} cs) not below the earlier's ({prev_cs} cs)",
                curr.name
            )));
        }
        let zero = DiskStats::zero_like(curr);
        let prev = if reinserted(prev, curr) { &zero } else { prev };
        let itv_cs = (curr_cs - prev_cs).max(1);
        let itv = itv_cs as f64;
        let s = |d: u64| d as f64 / itv * 100.0;

        let (rd, wr) = (d64(prev.rd_ios, curr.rd_ios), d64(prev.wr_ios, curr.wr_ios));
        let (rm, wm) = (
            d64(prev.rd_merges, curr.rd_merges),
            d64(prev.wr_merges, curr.wr_merges),
        );
        let (rs, ws) = (
            d64(prev.rd_sectors, curr.rd_sectors),
            d64(prev.wr_sectors, curr.wr_sectors),
        );
        let (rt, wt) = (
            d32(prev.rd_ticks, curr.rd_ticks),
            d32(prev.wr_ticks, curr.wr_ticks),
        );
        let both_dc = prev.discards.zip(curr.discards);
        let (dc, dm, ds, dt) = match both_dc {
            Some((p, c)) => (
                d64(p.ios, c.ios),
                d64(p.merges, c.merges),
                d64(p.sectors, c.sectors),
                d32(p.ticks, c.ticks),
            ),
            None => (0, 0, 0, 0),
        };
        let discard = both_dc.map(|_| DiscardFields {
            d_s: s(dc),
            dkb_s: s(ds) / 2.0,
            drqm_s: s(dm),
            drqm_pct: merge_pct(dm, dc),
            d_await: ratio(dt as f64, dc),
            dareq_sz: ratio(ds as f64, dc) / 2.0,
        });
        let flush = prev.flushes.zip(curr.flushes).map(|(p, c)| {
            let n = d64(p.ios, c.ios);
            FlushFields {
                f_s: s(n),
                f_await: ratio(d32(p.ticks, c.ticks) as f64, n),
            }
        });
        let io_ticks = d32(prev.io_ticks, curr.io_ticks);
        let nr_ios = rd + wr + dc;
        let util = s(u64::from(io_ticks));
        let tput = s(nr_ios);
        let arqsz = ratio((rs + ws + ds) as f64, nr_ios);
        Ok(Interval {
            device: curr.name.clone(),
            start_cs: prev_cs,
            end_cs: curr_cs,
            itv_cs,
            r_s: s(rd),
            rkb_s: s(rs) / 2.0,
            rrqm_s: s(rm),
            rrqm_pct: merge_pct(rm, rd),
            r_await: ratio(rt as f64, rd),
            rareq_sz: ratio(rs as f64, rd) / 2.0,
            w_s: s(wr),
            wkb_s: s(ws) / 2.0,
            wrqm_s: s(wm),
            wrqm_pct: merge_pct(wm, wr),
            w_await: ratio(wt as f64, wr),
            wareq_sz: ratio(ws as f64, wr) / 2.0,
            discard,
            flush,
            aqu_sz: s(u64::from(d32(prev.time_in_queue, curr.time_in_queue))) / 1000.0,
            util_pct: util / 10.0,
            tps: tput,
            kb_s: (s(rs) + s(ws) + s(ds)) / 2.0,
            rqm_s: s(rm + wm + dm),
            await_ms: ratio(rt.wrapping_add(wt).wrapping_add(dt) as f64, nr_ios),
            areq_sz: arqsz / 2.0,
            avgrq_sz: arqsz,
            svctm: if tput > 0.0 { util / tput } else { 0.0 },
        })
    }

    /// iostat's first report: the counters since boot (previous sample all zero, interval the
    /// uptime).
    pub fn since_boot(curr: &DiskStats, uptime_cs: u64) -> Result<Interval> {
        Interval::between(&DiskStats::zero_like(curr), 0, curr, uptime_cs)
    }

    /// `(column, value)` in the order and with the names of `iostat -x`'s header (sysstat
    /// 12.6), the discard and flush columns only when present.
    pub fn columns(&self) -> Vec<(&'static str, f64)> {
        let mut out = vec![
            ("r/s", self.r_s),
            ("rkB/s", self.rkb_s),
            ("rrqm/s", self.rrqm_s),
            ("%rrqm", self.rrqm_pct),
            ("r_await", self.r_await),
            ("rareq-sz", self.rareq_sz),
            ("w/s", self.w_s),
            ("wkB/s", self.wkb_s),
            ("wrqm/s", self.wrqm_s),
            ("%wrqm", self.wrqm_pct),
            ("w_await", self.w_await),
            ("wareq-sz", self.wareq_sz),
        ];
        if let Some(d) = &self.discard {
            out.extend([
                ("d/s", d.d_s),
                ("dkB/s", d.dkb_s),
                ("drqm/s", d.drqm_s),
                ("%drqm", d.drqm_pct),
                ("d_await", d.d_await),
                ("dareq-sz", d.dareq_sz),
            ]);
        }
        if let Some(f) = &self.flush {
            out.extend([("f/s", f.f_s), ("f_await", f.f_await)]);
        }
        out.extend([("aqu-sz", self.aqu_sz), ("%util", self.util_pct)]);
        out
    }

    /// `(key, value)` under the names of sysstat 12.6's JSON output (`iostat -x -o JSON`,
    /// `write_json_ext_stat`): `r/s w/s d/s f/s rkB/s wkB/s dkB/s rrqm/s wrqm/s drqm/s rrqm wrqm
    /// drqm r_await w_await d_await f_await rareq-sz wareq-sz dareq-sz aqu-sz util` (the discard
    /// and flush keys are 0 on kernels without those counters, as sysstat prints them); then
    /// the keys of `iostat -x -s -o JSON` not already given (`tps kB/s rqm/s await areq-sz`);
    /// then sysstat 11's columns that 12 dropped or renamed (`avgrq-sz`, in sectors, `avgqu-sz`,
    /// `svctm`).
    pub fn json_fields(&self) -> Vec<(&'static str, f64)> {
        let d = self.discard.unwrap_or(DiscardFields {
            d_s: 0.0,
            dkb_s: 0.0,
            drqm_s: 0.0,
            drqm_pct: 0.0,
            d_await: 0.0,
            dareq_sz: 0.0,
        });
        let f = self.flush.unwrap_or(FlushFields {
            f_s: 0.0,
            f_await: 0.0,
        });
        vec![
            ("r/s", self.r_s),
            ("w/s", self.w_s),
            ("d/s", d.d_s),
            ("f/s", f.f_s),
            ("rkB/s", self.rkb_s),
            ("wkB/s", self.wkb_s),
            ("dkB/s", d.dkb_s),
            ("rrqm/s", self.rrqm_s),
            ("wrqm/s", self.wrqm_s),
            ("drqm/s", d.drqm_s),
            ("rrqm", self.rrqm_pct),
            ("wrqm", self.wrqm_pct),
            ("drqm", d.drqm_pct),
            ("r_await", self.r_await),
            ("w_await", self.w_await),
            ("d_await", d.d_await),
            ("f_await", f.f_await),
            ("rareq-sz", self.rareq_sz),
            ("wareq-sz", self.wareq_sz),
            ("dareq-sz", d.dareq_sz),
            ("aqu-sz", self.aqu_sz),
            ("util", self.util_pct),
            ("tps", self.tps),
            ("kB/s", self.kb_s),
            ("rqm/s", self.rqm_s),
            ("await", self.await_ms),
            ("areq-sz", self.areq_sz),
            ("avgrq-sz", self.avgrq_sz),
            ("avgqu-sz", self.aqu_sz),
            ("svctm", self.svctm),
        ]
    }

    /// `(column, value)` as `iostat -x -s` prints them.
    pub fn short_columns(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("tps", self.tps),
            ("kB/s", self.kb_s),
            ("rqm/s", self.rqm_s),
            ("await", self.await_ms),
            ("areq-sz", self.areq_sz),
            ("aqu-sz", self.aqu_sz),
            ("%util", self.util_pct),
        ]
    }

    /// `(column, value)` of sysstat before 12 (`avgrq-sz` in sectors, `avgqu-sz`, `svctm`).
    pub fn legacy_columns(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("avgrq-sz", self.avgrq_sz),
            ("avgqu-sz", self.aqu_sz),
            ("await", self.await_ms),
            ("svctm", self.svctm),
        ]
    }
}

/// The intervals of `device` between consecutive snapshots of a recording. A snapshot without
/// the device is an error naming it, the snapshot's line and the devices present.
/// A recording of one snapshot has no interval: an error (issue 58), not an empty table.
pub fn series(rec: &Recording, device: &str) -> Result<Vec<Interval>> {
    if let [only] = rec.snapshots.as_slice() {
        return Err(SsdError::trace(
            &rec.origin,
            only.line,
            "one snapshot, and an interval needs two; expected a recording of at least two \
             (ssdlab detect record --count 1 or more)",
        ));
    }
    let mut samples = Vec::with_capacity(rec.snapshots.len());
    for snap in &rec.snapshots {
        samples.push((snap.require(device, &rec.origin)?, snap.uptime_cs));
    }
    samples
        .windows(2)
        .map(|w| Interval::between(w[0].0, w[0].1, w[1].0, w[1].1))
        .collect()
}
