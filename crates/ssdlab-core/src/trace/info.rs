//! Trace statistics in one streaming pass: request mix, time span, bytes, page footprints and
//! page-granular write counts.
//!
//! Page convention (the one the README counts of the shipped excerpts use): a request of
//! `size` bytes at byte `offset` touches pages `offset / P ..= (offset + size - 1) / P`, i.e.
//! every page it overlaps, partial pages included; a size-0 request touches none. Counts are
//! of the raw trace (no LBA mapping); `max_requests` and the device filter apply.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Serialize;

use super::format::detect_format;
use super::open::open_trace;
use super::request::OpKind;
use super::spec::TraceSpec;
use super::TraceFormat;
use crate::error::{Result, SsdError};

/// What [`trace_info`] measures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceInfo {
    pub path: String,
    pub format: String,
    pub page_size: u64,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Flush commands (blktrace's data-less `F` events).
    pub flushes: u64,
    /// writes / requests (0 for an empty trace).
    pub write_fraction: f64,
    pub first_arrival_ns: u64,
    pub last_arrival_ns: u64,
    /// last − first arrival.
    pub span_ns: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub bytes_trimmed: u64,
    /// Distinct pages touched by any request.
    pub footprint_pages: u64,
    /// Distinct pages written.
    pub write_footprint_pages: u64,
    /// Page writes: each write counts every page it overlaps.
    pub page_writes: u64,
    /// Page reads, likewise.
    pub page_reads: u64,
    /// Well-formed records that yielded no request (other device, action or opcode).
    pub skipped: u64,
}

/// Streams once through the trace of `spec` and measures it with pages of `page_size` bytes.
pub fn trace_info(spec: &TraceSpec, page_size: u64) -> Result<TraceInfo> {
    if page_size == 0 {
        return Err(SsdError::Invalid("page_size: must be > 0".into()));
    }
    let format = if spec.format == TraceFormat::Auto {
        detect_format(&spec.path)?
    } else {
        spec.format
    };
    let mut src = open_trace(&TraceSpec {
        format,
        ..spec.clone()
    })?;
    let mut i = TraceInfo {
        path: spec.path.display().to_string(),
        format: format.name().to_string(),
        page_size,
        requests: 0,
        reads: 0,
        writes: 0,
        trims: 0,
        flushes: 0,
        write_fraction: 0.0,
        first_arrival_ns: 0,
        last_arrival_ns: 0,
        span_ns: 0,
        bytes_read: 0,
        bytes_written: 0,
        bytes_trimmed: 0,
        footprint_pages: 0,
        write_footprint_pages: 0,
        page_writes: 0,
        page_reads: 0,
        skipped: 0,
    };
    let mut all = PageSet::default();
    let mut written = PageSet::default();
    let (mut first, mut last) = (u64::MAX, 0u64);
    while let Some(r) = src.next_request()? {
        i.requests += 1;
        first = first.min(r.arrival_ns);
        last = last.max(r.arrival_ns);
        let pages = if r.size_bytes == 0 {
            0..0
        } else {
            let end = r.offset_bytes.saturating_add(r.size_bytes - 1);
            r.offset_bytes / page_size..(end / page_size).saturating_add(1)
        };
        let n = pages.end - pages.start;
        match r.op {
            OpKind::Read => {
                i.reads += 1;
                i.bytes_read = i.bytes_read.saturating_add(r.size_bytes);
                i.page_reads = i.page_reads.saturating_add(n);
            }
            OpKind::Write => {
                i.writes += 1;
                i.bytes_written = i.bytes_written.saturating_add(r.size_bytes);
                i.page_writes = i.page_writes.saturating_add(n);
                written.insert(pages.clone());
            }
            OpKind::Trim => {
                i.trims += 1;
                i.bytes_trimmed = i.bytes_trimmed.saturating_add(r.size_bytes);
            }
            OpKind::Flush => i.flushes += 1,
        }
        all.insert(pages);
    }
    if i.requests > 0 {
        i.first_arrival_ns = first;
        i.last_arrival_ns = last;
        i.span_ns = last - first;
        i.write_fraction = i.writes as f64 / i.requests as f64;
    }
    i.footprint_pages = all.pages;
    i.write_footprint_pages = written.pages;
    i.skipped = src.skipped();
    Ok(i)
}

/// A set of page numbers kept as disjoint runs `start → end` (half-open), merged on insertion:
/// memory grows with the number of separate runs, not of pages, so a corrupt request spanning
/// 2^50 pages costs one entry instead of an allocation that aborts the process.
#[derive(Debug, Default)]
struct PageSet {
    runs: BTreeMap<u64, u64>,
    /// Distinct pages in the set.
    pages: u64,
}

impl PageSet {
    fn insert(&mut self, r: Range<u64>) {
        if r.is_empty() {
            return;
        }
        let (mut start, mut end) = (r.start, r.end);
        // A run that starts before and reaches `start` is merged in…
        if let Some((&s, &e)) = self.runs.range(..start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
                self.pages -= e - s;
                self.runs.remove(&s);
            }
        }
        // …and so is every run that starts inside (or right after) the new one.
        while let Some((&s, &e)) = self.runs.range(start..=end).next() {
            end = end.max(e);
            self.pages -= e - s;
            self.runs.remove(&s);
        }
        self.runs.insert(start, end);
        self.pages += end - start;
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::testutil::{fixture, real};
    use super::*;

    #[test]
    fn page_sets_count_distinct_pages_of_overlapping_and_huge_ranges() {
        let mut s = PageSet::default();
        let mut exact = std::collections::HashSet::new();
        for r in [5..9, 1..3, 3..4, 8..12, 0..1, 20..25, 2..21, 30..31, 29..30] {
            exact.extend(r.clone());
            s.insert(r);
        }
        assert_eq!(s.pages, exact.len() as u64);
        assert_eq!(s.runs.len(), 2, "{:?}", s.runs);
        s.insert(0..u64::MAX);
        s.insert(7..7);
        assert_eq!((s.pages, s.runs.len()), (u64::MAX, 1));
    }

    #[test]
    fn counts_on_a_fixture() {
        let p = fixture(
            "info.csv",
            b"0,W,0,8192\n10,W,4095,2\n20,R,0,1\n30,T,0,4096\n40,W,0,0\n",
            false,
        );
        let i = trace_info(&TraceSpec::new(&p), 4096).unwrap();
        assert_eq!((i.requests, i.reads, i.writes, i.trims), (5, 1, 3, 1));
        assert_eq!(
            (
                i.span_ns,
                i.bytes_written,
                i.page_writes,
                i.write_footprint_pages
            ),
            (40_000, 8194, 4, 2)
        );
        assert_eq!(
            (i.footprint_pages, i.page_reads, i.format.as_str()),
            (2, 1, "csv")
        );
        assert!(serde_json::to_string(&i)
            .unwrap()
            .contains("\"page_writes\":4"));
    }

    fn info(rel: &str, format: TraceFormat) -> Option<TraceInfo> {
        let p = real(rel)?;
        let mut s = TraceSpec::new(p);
        s.format = format;
        Some(trace_info(&s, 4096).unwrap())
    }

    fn pct(i: &TraceInfo) -> String {
        format!("{:.1}", i.write_fraction * 100.0)
    }

    #[test]
    fn real_cloudphysics_vscsi_and_csv() {
        let Some(b) = info("cloudphysics/cloudPhysicsIO.vscsi", TraceFormat::Auto) else {
            return;
        };
        assert_eq!((b.requests, pct(&b).as_str()), (113_872, "58.7"));
        assert_eq!(
            (b.write_footprint_pages, b.page_writes, b.skipped),
            (208_696, 656_169, 0)
        );
        // "2 h". The README's "2.30 GiB written" is 2,408,565,760 bytes divided by 1000·2^20
        // (a unit mix-up): it is 2.24 GiB, or 2.41 GB.
        assert_eq!((b.span_ns as f64 / 3.6e12).round(), 2.0);
        assert_eq!(b.bytes_written, 2_408_565_760);
        let Some(c) = info("cloudphysics/cloudPhysicsIO.csv", TraceFormat::Auto) else {
            return;
        };
        assert_eq!(c.format, "vscsi-csv");
        assert_eq!(
            (c.requests, c.reads, c.writes),
            (b.requests, b.reads, b.writes)
        );
        assert_eq!(
            (c.write_footprint_pages, c.page_writes, c.bytes_written),
            (b.write_footprint_pages, b.page_writes, b.bytes_written)
        );
    }

    #[test]
    fn real_spc_and_mqsim_excerpts() {
        // Each excerpt on its own: a missing one is reported skipped, the others still checked.
        if let Some(f) = info("spc_financial1/example.ascii", TraceFormat::Disksim) {
            assert_eq!(
                (
                    f.requests,
                    pct(&f).as_str(),
                    f.write_footprint_pages,
                    f.page_writes
                ),
                (10_000, "59.2", 3_621, 12_405)
            );
            assert_eq!((f.span_ns as f64 / 1e9).round(), 260.0);
        }
        if let Some(t) = info("spc_tpcc_websearch/tpcc-small.trace", TraceFormat::Auto) {
            assert_eq!((t.requests, pct(&t).as_str()), (6_999, "37.4"));
        }
        if let Some(w) = info("spc_tpcc_websearch/wsrch-small.trace", TraceFormat::Auto) {
            // The README calls it read-only; the file has 4 type-0 (write) lines out of 24,783
            // (device 2, lbas 6112 and 25949120, each written twice).
            assert_eq!((w.requests, w.reads, w.writes), (24_783, 24_779, 4));
        }
        if let Some(m) = info("msr_cambridge/rsrch_0_first20.csv", TraceFormat::Auto) {
            assert_eq!((m.requests, m.format.as_str()), (20, "msr"));
        }
    }
}
