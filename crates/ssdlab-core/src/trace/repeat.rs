//! A trace replayed several times back to back (`TraceSpec::repeat`): the same requests at the
//! same addresses, each pass's arrivals shifted past the previous pass's.
//!
//! Why: a short trace excerpt may write less than a device's write buffer or spare space, so GC
//! never runs (Financial1 and TPC-C excerpts on the Tiny-Tail `ttflash` preset, whose 64 MiB
//! buffer absorbs them whole). Repeating it keeps its address pattern, request sizes and
//! inter-arrival times, and makes GC active; what it cannot keep is the trace's long-term drift,
//! which an excerpt does not have anyway.
//!
//! Pass k (from 0) arrives at `t + k · period`, where `period` is the first pass's span (last
//! arrival − first) plus its mean inter-arrival gap: the gap between passes is a typical gap,
//! and arrivals stay in order. Each pass reopens the file (a gzip trace is inflated again),
//! so the passes are read exactly as the first.
//!
//! With `shift`, pass k's addresses are also moved k · (the first pass's address span, lowest
//! offset to highest end) up: the passes write fresh pages, so the footprint is `repeat` times
//! the trace's (an LBA map `modulo` folds it onto the device). Without it a device's write
//! buffer can hold a short trace's whole write footprint and absorb every later pass, as the
//! `ttflash` preset's 64 MiB buffer does with Financial1 (3,621 pages written) — GC then never
//! runs however often the trace repeats.

use super::request::{Request, RequestSource};
use crate::error::{Result, SsdError};

type Opener = Box<dyn FnMut() -> Result<Box<dyn RequestSource>> + Send>;

pub(super) struct Repeat {
    inner: Box<dyn RequestSource>,
    open: Opener,
    passes: u32,
    shift: bool,
    /// Passes started so far (1 while the first is read).
    pass: u32,
    /// The first pass's earliest and latest arrival and its request count.
    first: Option<(u64, u64)>,
    /// The first pass's lowest offset and highest end (bytes).
    space: Option<(u64, u64)>,
    count: u64,
    period: u64,
    offset: u64,
    /// Bytes added to this pass's addresses (`shift`).
    moved: u64,
    /// Records skipped by finished passes.
    skipped_before: u64,
}

impl Repeat {
    /// `passes` ≥ 2 passes: `inner` is the first, `open` opens each next one; `shift` moves
    /// each pass's addresses past the previous pass's.
    pub(super) fn new(
        inner: Box<dyn RequestSource>,
        open: Opener,
        passes: u32,
        shift: bool,
    ) -> Self {
        Repeat {
            inner,
            open,
            passes,
            shift,
            pass: 1,
            first: None,
            space: None,
            count: 0,
            period: 0,
            offset: 0,
            moved: 0,
            skipped_before: 0,
        }
    }
}

impl RequestSource for Repeat {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            if let Some(mut r) = self.inner.next_request()? {
                if self.pass == 1 {
                    let (lo, hi) = self.first.get_or_insert((r.arrival_ns, r.arrival_ns));
                    *lo = (*lo).min(r.arrival_ns);
                    *hi = (*hi).max(r.arrival_ns);
                    let end = r.offset_bytes.saturating_add(r.size_bytes);
                    let (a, b) = self.space.get_or_insert((r.offset_bytes, end));
                    *a = (*a).min(r.offset_bytes);
                    *b = (*b).max(end);
                    self.count += 1;
                } else {
                    r.arrival_ns = r.arrival_ns.saturating_add(self.offset);
                    r.offset_bytes = match r.offset_bytes.checked_add(self.moved) {
                        Some(o) => o,
                        None => {
                            let m = format!(
                                "repeat_shift: pass {} moves byte {} beyond the address range",
                                self.pass, r.offset_bytes
                            );
                            return Err(match self.inner.location() {
                                Some((file, line)) => SsdError::trace(file, line, m),
                                None => SsdError::Workload(m),
                            });
                        }
                    };
                }
                return Ok(Some(r));
            }
            if self.pass == self.passes || self.count == 0 {
                return Ok(None);
            }
            if self.pass == 1 {
                let (lo, hi) = self.first.unwrap_or((0, 0));
                let span = hi - lo;
                let gap = if self.count > 1 {
                    span / (self.count - 1)
                } else {
                    0
                };
                self.period = span + gap;
            }
            if self.shift {
                let (a, b) = self.space.unwrap_or((0, 0));
                self.moved = self.moved.saturating_add(b - a);
            }
            self.skipped_before += self.inner.skipped();
            self.inner = (self.open)()?;
            self.pass += 1;
            self.offset = self.offset.saturating_add(self.period);
        }
    }

    fn describe(&self) -> String {
        let moved = if self.shift {
            ", each at new addresses"
        } else {
            ""
        };
        format!("{} (×{} passes{moved})", self.inner.describe(), self.passes)
    }

    fn location(&self) -> Option<(String, u64)> {
        self.inner.location()
    }
    fn record_label(&self) -> Option<String> {
        self.inner.record_label()
    }
    fn skipped(&self) -> u64 {
        self.skipped_before + self.inner.skipped()
    }
    fn why_empty(&self) -> Option<String> {
        self.inner.why_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::super::request::{OpKind, VecSource};
    use super::*;

    fn req(t: u64, offset: u64) -> Request {
        Request {
            arrival_ns: t,
            op: OpKind::Write,
            offset_bytes: offset,
            size_bytes: 4096,
            fragment_follows: false,
            fua: false,
            preflush: false,
            placement: 0,
        }
    }

    fn drain(mut s: Repeat) -> Vec<Request> {
        let mut v = Vec::new();
        while let Some(r) = s.next_request().unwrap() {
            v.push(r);
        }
        v
    }

    fn repeat(reqs: Vec<Request>, passes: u32) -> Repeat {
        repeat_shifted(reqs, passes, false)
    }

    fn repeat_shifted(reqs: Vec<Request>, passes: u32, shift: bool) -> Repeat {
        let again = reqs.clone();
        Repeat::new(
            Box::new(VecSource::new(reqs)),
            Box::new(move || Ok(Box::new(VecSource::new(again.clone())) as Box<dyn RequestSource>)),
            passes,
            shift,
        )
    }

    #[test]
    fn shifted_passes_write_fresh_pages() {
        // Addresses 4,096..16,384: a span of 12,288 bytes.
        let one = vec![req(0, 8192), req(10, 4096), req(20, 12288)];
        let v = drain(repeat_shifted(one, 3, true));
        let offsets: Vec<u64> = v.iter().map(|r| r.offset_bytes).collect();
        assert_eq!(
            offsets,
            [8192, 4096, 12288, 20480, 16384, 24576, 32768, 28672, 36864]
        );
        let over = vec![req(0, 0), req(1, u64::MAX - 8192)];
        let mut s = repeat_shifted(over, 2, true);
        for _ in 0..3 {
            assert!(s.next_request().unwrap().is_some());
        }
        let e = s.next_request().unwrap_err().to_string();
        assert!(e.contains("repeat_shift: pass 2"), "{e}");
    }

    #[test]
    fn passes_follow_each_other_a_mean_gap_apart() {
        let one = vec![req(1_000, 0), req(1_500, 8192), req(4_000, 4096)];
        let v = drain(repeat(one.clone(), 3));
        assert_eq!(v.len(), 9);
        // span 3,000 ns + mean gap 1,500 ns = 4,500 ns per pass.
        let arrivals: Vec<u64> = v.iter().map(|r| r.arrival_ns).collect();
        assert_eq!(
            arrivals,
            [1_000, 1_500, 4_000, 5_500, 6_000, 8_500, 10_000, 10_500, 13_000]
        );
        for (k, r) in v.iter().enumerate() {
            assert_eq!(r.offset_bytes, one[k % 3].offset_bytes);
        }
    }

    #[test]
    fn one_request_and_empty_traces() {
        let v = drain(repeat(vec![req(7, 0)], 4));
        assert_eq!(v.len(), 4);
        assert!(v.iter().all(|r| r.arrival_ns == 7));
        assert!(drain(repeat(Vec::new(), 5)).is_empty());
    }
}
