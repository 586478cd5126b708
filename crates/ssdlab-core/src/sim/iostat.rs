//! The host's view of the simulated device (issue 13; Park and Kim §III.A): the counters Linux
//! keeps in `/proc/diskstats` for a block device, snapshotted once per simulated interval and
//! turned into the `iostat -x` fields exactly as sysstat computes them
//! ([`crate::detect::iostat::Interval::between`]), each interval labelled with the ground truth
//! the paper had to get from a modified OpenSSD firmware: the fraction of the interval during
//! which any plane was executing a GC step.
//!
//! Counters follow the kernel's block-layer accounting (`block/blk-core.c`,
//! `Documentation/admin-guide/iostats.rst`):
//! - a request is counted at completion: `ios += 1`, `sectors += bytes / 512`, `ticks +=` its
//!   latency (arrival to completion, the kernel's `start_time` to `end_io`); merges stay 0 (the
//!   simulator's requests reach the device as given; there is no elevator to merge them);
//! - `in_flight` is the number of requests arrived and not completed at the snapshot;
//! - `io_ticks` is the wall time with at least one request in flight;
//! - `time_in_queue` is the integral of `in_flight` over time — the field's definition, and
//!   what kernels before 5.0 (the paper's 3.10) computed; 5.0+ report the sum of completed
//!   requests' ticks instead, which differs only by the part of in-flight requests not yet
//!   completed;
//! - TRIMs count as discards (kernel 4.18+ fields), flushes are not modelled (no fields).
//!
//! Times are kept in ns and cut to whole ms only in the snapshot (the kernel's counters are ms,
//! u32, wrapping as they do). The snapshot's uptime is the boundary in hundredths of a second
//! (sysstat's interval unit), so the interval must be a whole number of them.
//!
//! Completions come out of order (open loop, several planes), but requests are served in arrival
//! order and none completes before it arrives, so a boundary `B` is final once a request arrives
//! after it: every request that could complete by `B` is known. Pending completions wait in a
//! min-heap until their boundary is finalized.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use crate::detect::diskstats::{Discards, DiskStats};
use crate::detect::iostat::Interval;
use crate::error::{Result, SsdError};
pub use crate::flash::GcSpan;
use crate::trace::OpKind;

/// One interval of the host view: the `iostat -x` fields and the GC ground truth.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IostatRow {
    /// End of the interval, simulated seconds since the run started.
    pub t_s: f64,
    pub interval: Interval,
    /// Fraction of the interval during which at least one plane executed a GC step (copy,
    /// erase, or — on the hybrid device — an SLC-to-QLC migration step).
    pub gc_fraction: f64,
    /// The same for the GC steps that move data (copies, migrations, GC parity programs):
    /// erases of victims with no valid page left are not counted.
    pub gc_copy_fraction: f64,
}

/// Which GC an interval's label stands for. The paper labels by its firmware's debug code,
/// printed "when garbage collection occurred" (§III.A) — any GC. A victim with no valid page is
/// erased without a copy: no page crosses the channel, no host request waits behind a copy, and
/// (a workload that rewrites whole blocks, e.g. iozone's sequential rewrite) the host sees
/// nothing at all — WAF 1.000, every iostat field as without GC (docs/detect.md). `copy` labels
/// only the GC that moves data, the GC that costs the host bandwidth the paper's §V manages.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum GcLabel {
    /// Any GC step in the interval (the paper's reading): [`IostatRow::gc_fraction`].
    #[default]
    Any,
    /// GC that moved data (copies; erase-only GC excluded): [`IostatRow::gc_copy_fraction`].
    Copy,
}

crate::config::impl_registry!(GcLabel, "GC label", "detect.label", default);

impl GcLabel {
    /// The fraction of `row`'s interval this label measures.
    pub fn fraction(self, row: &IostatRow) -> f64 {
        match self {
            GcLabel::Any => row.gc_fraction,
            GcLabel::Copy => row.gc_copy_fraction,
        }
    }
}

/// An interval is labelled GC when its `gc_fraction` exceeds this: any GC at all, the paper's
/// reading — its firmware printed a debug code whenever garbage collection ran (§III.A, Fig. 4),
/// and a second was "GC" when a code was printed in it. Experiments can label at another
/// threshold (`experiment detect --label-threshold`).
pub const GC_LABEL_THRESHOLD: f64 = 0.0;

impl IostatRow {
    /// The row as a table: `t_s`, the `iostat -x` columns of sysstat 12.6 (discards included),
    /// the combined and pre-12 columns the paper's iostat printed (`tps`, `avgrq-sz`,
    /// `avgqu-sz`, `await`, `svctm`), `gc_fraction`, `gc_copy_fraction`, and `gc` (1 when
    /// `gc_fraction` is above [`GC_LABEL_THRESHOLD`], else 0).
    pub fn columns(&self) -> Vec<(&'static str, f64)> {
        let iv = &self.interval;
        let mut out = vec![("t_s", self.t_s)];
        out.extend(iv.columns());
        out.extend([
            ("tps", iv.tps),
            ("avgrq-sz", iv.avgrq_sz),
            ("avgqu-sz", iv.aqu_sz),
            ("await", iv.await_ms),
            ("svctm", iv.svctm),
            ("gc_fraction", self.gc_fraction),
            ("gc_copy_fraction", self.gc_copy_fraction),
            (
                "gc",
                f64::from(u8::from(self.gc_fraction > GC_LABEL_THRESHOLD)),
            ),
        ]);
        out
    }
}

/// A request in flight: completion time, kind, sectors, arrival.
type Pending = Reverse<(u64, u8, u64, u64)>;

/// The block-layer counters of one simulated device, in ns until snapshotted.
#[derive(Debug, Default)]
struct Counters {
    ios: [u64; 3],
    sectors: [u64; 3],
    ticks_ns: [u64; 3],
}

/// The kernel's counters over the run and the interval series derived from them.
#[derive(Debug)]
pub(crate) struct HostView {
    interval_ns: u64,
    next_boundary: u64,
    counters: Counters,
    pending: BinaryHeap<Pending>,
    /// Sum of the arrival times of the requests in `pending` (for the in-flight integral).
    pending_arrivals: u128,
    /// Sum over completed requests of their latency (ns): the in-flight integral's closed part.
    completed_wait_ns: u128,
    /// Busy time (≥ 1 in flight) of closed busy periods, and the current one.
    closed_busy_ns: u64,
    busy: Option<(u64, u64)>,
    /// GC steps not yet wholly before the next boundary.
    gc: Vec<GcSpan>,
    prev: DiskStats,
    prev_cs: u64,
    rows: Vec<IostatRow>,
}

const NS_PER_CS: u64 = 10_000_000;

fn kind(op: OpKind) -> u8 {
    match op {
        OpKind::Read => 0,
        OpKind::Write => 1,
        OpKind::Trim | OpKind::Flush => 2,
    }
}

/// The device name the simulated device has in its diskstats line.
pub const DEVICE_NAME: &str = "ssdlab0";

impl HostView {
    /// A view sampled every `interval_us` simulated µs (a positive whole number of 10 ms).
    pub(crate) fn new(interval_us: f64) -> Result<Self> {
        let ns = interval_us * 1e3;
        if !(ns.is_finite() && ns >= NS_PER_CS as f64 && ns % NS_PER_CS as f64 == 0.0) {
            return Err(SsdError::config(
                "options",
                format!(
                    "iostat_interval_us: expected a positive multiple of 10000 (iostat's \
                     intervals are whole hundredths of a second), got {interval_us}"
                ),
            ));
        }
        let prev = DiskStats {
            major: 259,
            name: DEVICE_NAME.into(),
            discards: Some(Discards::default()),
            ..DiskStats::default()
        };
        Ok(HostView {
            interval_ns: ns as u64,
            next_boundary: ns as u64,
            counters: Counters::default(),
            pending: BinaryHeap::new(),
            pending_arrivals: 0,
            completed_wait_ns: 0,
            closed_busy_ns: 0,
            busy: None,
            gc: Vec::new(),
            prev,
            prev_cs: 0,
            rows: Vec::new(),
        })
    }

    /// A request arriving at `arrival` and completing at `completion`. Call
    /// [`HostView::advance_to`] with its arrival first.
    pub(crate) fn add(&mut self, op: OpKind, bytes: u64, arrival: u64, completion: u64) {
        if op == OpKind::Flush {
            return;
        }
        self.pending.push(Reverse((
            completion,
            kind(op),
            bytes.div_ceil(512),
            arrival,
        )));
        self.pending_arrivals += u128::from(arrival);
        self.busy = Some(match self.busy {
            Some((s, e)) if arrival <= e => (s, e.max(completion)),
            Some((s, e)) => {
                self.closed_busy_ns += e - s;
                (arrival, completion)
            }
            None => (arrival, completion),
        });
    }

    /// Finalize every boundary strictly before `now` (no request arrives before `now` any
    /// more; `gc_steps`: the GC steps reserved since the last call, none starting before
    /// `now` from here on).
    pub(crate) fn advance_to(&mut self, now: u64, gc_steps: &mut Vec<GcSpan>) -> Result<()> {
        self.gc.append(gc_steps);
        while self.next_boundary < now {
            self.snapshot(self.next_boundary)?;
            self.next_boundary += self.interval_ns;
        }
        Ok(())
    }

    /// The end of the run at `end` (the last completion): finalize every whole interval.
    pub(crate) fn finish(&mut self, end: u64, gc_steps: &mut Vec<GcSpan>) -> Result<()> {
        self.advance_to(end.saturating_add(1), gc_steps)
    }

    pub(crate) fn rows(&self) -> &[IostatRow] {
        &self.rows
    }

    fn snapshot(&mut self, b: u64) -> Result<()> {
        while let Some(&Reverse((c, k, sectors, a))) = self.pending.peek() {
            if c > b {
                break;
            }
            self.pending.pop();
            self.pending_arrivals -= u128::from(a);
            let k = k as usize;
            self.counters.ios[k] += 1;
            self.counters.sectors[k] += sectors;
            self.counters.ticks_ns[k] += c - a;
            self.completed_wait_ns += u128::from(c - a);
        }
        let in_flight = self.pending.len() as u64;
        let busy_now = self.busy.map_or(0, |(s, e)| e.min(b).saturating_sub(s));
        let io_ticks = self.closed_busy_ns + busy_now;
        let queue_ns =
            self.completed_wait_ns + u128::from(in_flight) * u128::from(b) - self.pending_arrivals;
        let ms = |ns: u64| (ns / 1_000_000) as u32;
        let c = &self.counters;
        let curr = DiskStats {
            rd_ios: c.ios[0],
            rd_sectors: c.sectors[0],
            rd_ticks: ms(c.ticks_ns[0]),
            wr_ios: c.ios[1],
            wr_sectors: c.sectors[1],
            wr_ticks: ms(c.ticks_ns[1]),
            in_flight: in_flight as u32,
            io_ticks: ms(io_ticks),
            time_in_queue: (queue_ns / 1_000_000) as u32,
            discards: Some(Discards {
                ios: c.ios[2],
                merges: 0,
                sectors: c.sectors[2],
                ticks: ms(c.ticks_ns[2]),
            }),
            ..self.prev.clone()
        };
        let cs = b / NS_PER_CS;
        let interval = Interval::between(&self.prev, self.prev_cs, &curr, cs)?;
        let from = b - self.interval_ns;
        self.gc.sort_unstable();
        let gc_fraction = covered(self.gc.iter(), from, b);
        let gc_copy_fraction = covered(self.gc.iter().filter(|g| g.moves_data), from, b);
        self.gc.retain(|g| g.done > b);
        self.rows.push(IostatRow {
            t_s: b as f64 / 1e9,
            interval,
            gc_fraction,
            gc_copy_fraction,
        });
        self.prev = curr;
        self.prev_cs = cs;
        Ok(())
    }
}

/// The measure of the union of `steps` (sorted by start) within `[from, to)`, over `to - from`.
fn covered<'a>(steps: impl Iterator<Item = &'a GcSpan>, from: u64, to: u64) -> f64 {
    let (mut covered, mut reach) = (0u64, from);
    for g in steps {
        let (s, e) = (g.start.max(reach), g.done.min(to));
        if s < e {
            covered += e - s;
            reach = e;
        }
    }
    covered as f64 / (to - from) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counters at `b` by their definitions, summed over every request.
    fn expected(reqs: &[(OpKind, u64, u64, u64)], b: u64) -> DiskStats {
        let mut d = DiskStats {
            discards: Some(Discards::default()),
            ..DiskStats::default()
        };
        let (mut ticks, mut queue) = ([0u64; 3], 0u64);
        for &(op, bytes, a, c) in reqs {
            if a <= b && b < c {
                d.in_flight += 1;
            }
            queue += c.min(b).saturating_sub(a);
            if c > b {
                continue;
            }
            let k = kind(op) as usize;
            ticks[k] += c - a;
            let s = bytes.div_ceil(512);
            match op {
                OpKind::Read => (d.rd_ios, d.rd_sectors) = (d.rd_ios + 1, d.rd_sectors + s),
                OpKind::Write => (d.wr_ios, d.wr_sectors) = (d.wr_ios + 1, d.wr_sectors + s),
                OpKind::Trim => {
                    let x = d.discards.as_mut().unwrap();
                    (x.ios, x.sectors) = (x.ios + 1, x.sectors + s);
                }
                OpKind::Flush => {}
            }
        }
        // Busy time: the union of [a, min(c, b)), merged after sorting by arrival.
        let mut spans: Vec<(u64, u64)> = reqs.iter().map(|r| (r.2, r.3.min(b))).collect();
        spans.sort_unstable();
        let (mut busy, mut reach) = (0, 0);
        for (s, e) in spans {
            let s = s.max(reach);
            if s < e {
                busy += e - s;
                reach = e;
            }
        }
        d.rd_ticks = (ticks[0] / 1_000_000) as u32;
        d.wr_ticks = (ticks[1] / 1_000_000) as u32;
        d.discards.as_mut().unwrap().ticks = (ticks[2] / 1_000_000) as u32;
        d.io_ticks = (busy / 1_000_000) as u32;
        d.time_in_queue = (queue / 1_000_000) as u32;
        d
    }

    #[test]
    fn counters_match_their_definitions_under_out_of_order_completions() {
        let mut x: u64 = 12345;
        let mut rnd = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut reqs = Vec::new();
        let mut a = 0u64;
        for _ in 0..400 {
            a += rnd(30_000) * 1000; // up to 30 ms gaps, whole µs
            let op = [OpKind::Read, OpKind::Write, OpKind::Write, OpKind::Trim][rnd(4) as usize];
            let lat = (1 + rnd(80_000)) * 1000; // up to 80 ms: completions overtake
            reqs.push((op, 512 * (1 + rnd(64)), a, a + lat));
        }
        let mut h = HostView::new(10_000.0).unwrap(); // 10 ms intervals
        let mut gc = Vec::new();
        for &(op, bytes, a, c) in &reqs {
            h.advance_to(a, &mut gc).unwrap();
            h.add(op, bytes, a, c);
        }
        let end = reqs.iter().map(|r| r.3).max().unwrap();
        h.finish(end, &mut gc).unwrap();
        assert_eq!(h.rows().len() as u64, end / 10_000_000);
        let mut prev = expected(&reqs, 0);
        for (i, row) in h.rows().iter().enumerate() {
            let b = (i as u64 + 1) * 10_000_000;
            let mut want = expected(&reqs, b);
            (want.name, want.major) = (DEVICE_NAME.into(), 259);
            prev.name = want.name.clone();
            prev.major = 259;
            let iv = Interval::between(&prev, b / NS_PER_CS - 1, &want, b / NS_PER_CS).unwrap();
            assert_eq!(row.interval, iv, "interval {i}");
            assert_eq!(row.t_s, b as f64 / 1e9);
            prev = want;
        }
    }

    #[test]
    fn gc_fraction_is_the_union_of_steps_within_the_interval() {
        let mut h = HostView::new(10_000.0).unwrap();
        // Overlapping steps on two planes, one spanning a boundary, given out of order.
        // The erase (3–6 ms) counts for `gc_fraction` only.
        let span = |start, done, moves_data| GcSpan {
            start,
            done,
            moves_data,
        };
        let mut gc = vec![
            span(12_000_000, 15_000_000, true),
            span(2_000_000, 4_000_000, true),
            span(3_000_000, 6_000_000, false),
            span(8_000_000, 14_000_000, true),
        ];
        h.advance_to(30_000_001, &mut gc).unwrap();
        let f: Vec<f64> = h.rows().iter().map(|r| r.gc_fraction).collect();
        assert_eq!(f, vec![0.6, 0.5, 0.0]);
        let c: Vec<f64> = h.rows().iter().map(|r| r.gc_copy_fraction).collect();
        assert_eq!(c, vec![0.4, 0.5, 0.0]);
    }

    #[test]
    fn the_interval_must_be_whole_hundredths_of_a_second() {
        for bad in [0.0, 5_000.0, 15_000.0, f64::NAN, -10_000.0] {
            let e = HostView::new(bad).unwrap_err().to_string();
            assert!(e.contains("iostat_interval_us"), "{e}");
        }
        assert!(HostView::new(1_000_000.0).is_ok());
    }
}
