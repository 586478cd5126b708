//! Fitting trace addresses into the device's logical space: `none` (out-of-range is an error),
//! `dense` (first-come compaction of the page footprint) or `modulo` (wrap page numbers).
//!
//! Conventions. A request covering bytes `[o, o + s)` touches pages `o / P ..= (o + s - 1) / P`
//! (a size-0 request touches the page of `o`). `dense` maps each trace page to its own logical
//! page, in order of first appearance, and keeps the in-page offset; a request whose pages map
//! to non-consecutive logical pages is split into one fragment per consecutive run (same arrival
//! and operation), so the bytes and page count are preserved. `modulo` maps byte address `a` to
//! `a mod (N·P)` (page number modulo N, in-page offset kept); a request that straddles the end
//! of the logical space is split in two, the remainder wrapping to address 0. A request larger
//! than the whole logical space is an error in every mode.
//!
//! A split request stays one host request: every fragment but the last carries
//! [`Request::fragment_follows`], and the engine serves the fragments as one request (one
//! latency, one count), so the mapping changes where pages go, never the workload.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};

use super::request::{forward_to_inner, Request, RequestSource};
use crate::error::{Result, SsdError};

/// How trace addresses are fitted into the logical space.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum LbaMapMode {
    /// Addresses are used as they are; one at or beyond the capacity is an error.
    #[default]
    None,
    /// Distinct pages are packed first-come into logical pages 0, 1, 2, …
    Dense,
    /// Page numbers wrap modulo the logical page count.
    Modulo,
}

crate::config::impl_registry!(LbaMapMode, "LBA mapping", "--lba-map", default);

/// A source whose addresses are fitted into `logical_bytes` by a [`LbaMapMode`].
pub struct LbaMapped {
    inner: Box<dyn RequestSource>,
    mode: LbaMapMode,
    logical_bytes: u64,
    page_size: u64,
    logical_pages: u64,
    dense: HashMap<u64, u64>,
    pending: VecDeque<Request>,
}

impl LbaMapped {
    /// Wraps `inner`. `page_size` must be positive and `logical_bytes` at least one page.
    pub fn new(
        inner: Box<dyn RequestSource>,
        mode: LbaMapMode,
        logical_bytes: u64,
        page_size: u64,
    ) -> Result<Self> {
        if page_size == 0 || logical_bytes < page_size {
            return Err(SsdError::Invalid(format!(
                "lba map: need page_size > 0 and logical_bytes >= page_size, got {page_size} and {logical_bytes}"
            )));
        }
        Ok(LbaMapped {
            inner,
            mode,
            logical_bytes,
            page_size,
            logical_pages: logical_bytes / page_size,
            dense: HashMap::new(),
            pending: VecDeque::new(),
        })
    }

    /// Distinct pages mapped so far by `dense` (0 for the other modes).
    pub fn dense_pages(&self) -> u64 {
        self.dense.len() as u64
    }

    fn err(&self, message: String) -> SsdError {
        match self.inner.location() {
            Some((file, line)) => match self.inner.record_label() {
                Some(record) => SsdError::trace(file, line, format!("{record}: {message}")),
                None => SsdError::trace(file, line, message),
            },
            None => SsdError::Workload(message),
        }
    }

    /// Queues the fragments of `r` (one unless the mapping scatters its pages), every one but
    /// the last marked [`Request::fragment_follows`].
    fn map(&mut self, r: Request) -> Result<()> {
        debug_assert!(self.pending.is_empty());
        self.map_fragments(r)?;
        let n = self.pending.len();
        for (i, f) in self.pending.iter_mut().enumerate() {
            f.fragment_follows = i + 1 < n || r.fragment_follows;
        }
        Ok(())
    }

    /// The end of `r` and the logical space it must fit, or the error when it cannot.
    fn checked_end(&self, r: &Request) -> Result<(u64, u64)> {
        let end = r.offset_bytes.checked_add(r.size_bytes).ok_or_else(|| {
            self.err(format!(
                "request at byte {} of {} bytes overflows the address range",
                r.offset_bytes, r.size_bytes
            ))
        })?;
        let space = match self.mode {
            LbaMapMode::None => self.logical_bytes,
            _ => self.logical_pages * self.page_size,
        };
        if r.size_bytes > space {
            return Err(self.err(format!(
                "request of {} bytes is larger than the logical space of {space} bytes",
                r.size_bytes
            )));
        }
        Ok((end, space))
    }

    /// Mode `none`: `r` as it is, once it is checked to lie inside the logical capacity.
    fn unmapped(&self, r: Request) -> Result<Request> {
        self.check_unmapped(&r)?;
        Ok(r)
    }

    /// Is `r` inside the logical capacity (mode `none`)? The common case — a request of some bytes
    /// that ends inside it, which is then no larger than it — is decided in line; the rest, with
    /// its messages, by [`Self::check_unmapped_slow`] (docs/speed.md, "A replay's per-request
    /// checks in line": the call and both checks were ~60 instructions a request of a replay).
    #[inline]
    fn check_unmapped(&self, r: &Request) -> Result<()> {
        match r.offset_bytes.checked_add(r.size_bytes) {
            // Mode `none` only: its space is `logical_bytes`.
            Some(end) if r.size_bytes > 0 && end <= self.logical_bytes => Ok(()),
            _ => self.check_unmapped_slow(r),
        }
    }

    #[cold]
    #[inline(never)]
    fn check_unmapped_slow(&self, r: &Request) -> Result<()> {
        let (end, space) = self.checked_end(r)?;
        let beyond = if r.size_bytes == 0 {
            r.offset_bytes >= space
        } else {
            end > space
        };
        if beyond {
            return Err(self.err(format!(
                "address range {}..{end} reaches beyond the logical capacity of {space} bytes; \
                 use --lba-map dense|modulo (lba_map = \"dense\" or \"modulo\") to fit the trace",
                r.offset_bytes
            )));
        }
        Ok(())
    }

    fn map_fragments(&mut self, r: Request) -> Result<()> {
        let (end, space) = self.checked_end(&r)?;
        match self.mode {
            LbaMapMode::None => {
                let r = self.unmapped(r)?;
                self.pending.push_back(r);
            }
            LbaMapMode::Modulo => {
                let (start, first) = modulo_split(&r, space);
                self.pending.push_back(Request {
                    offset_bytes: start,
                    size_bytes: first,
                    ..r
                });
                if first < r.size_bytes {
                    self.pending.push_back(Request {
                        offset_bytes: 0,
                        size_bytes: r.size_bytes - first,
                        ..r
                    });
                }
            }
            LbaMapMode::Dense => {
                let p = self.page_size;
                let first_page = r.offset_bytes / p;
                let last_page = if r.size_bytes == 0 {
                    first_page
                } else {
                    (end - 1) / p
                };
                let mut run: Option<Request> = None;
                for page in first_page..=last_page {
                    let lp = self.dense_page(page)?;
                    let lo = r.offset_bytes.max(page * p);
                    let hi = if r.size_bytes == 0 {
                        lo
                    } else {
                        end.min((page * p).saturating_add(p))
                    };
                    let piece = Request {
                        offset_bytes: lp * p + (lo - page * p),
                        size_bytes: hi - lo,
                        ..r
                    };
                    run = match run {
                        Some(mut cur)
                            if cur.offset_bytes + cur.size_bytes == piece.offset_bytes =>
                        {
                            cur.size_bytes += piece.size_bytes;
                            Some(cur)
                        }
                        Some(cur) => {
                            self.pending.push_back(cur);
                            Some(piece)
                        }
                        None => Some(piece),
                    };
                }
                if let Some(cur) = run {
                    self.pending.push_back(cur);
                }
            }
        }
        Ok(())
    }

    fn dense_page(&mut self, page: u64) -> Result<u64> {
        if let Some(&lp) = self.dense.get(&page) {
            return Ok(lp);
        }
        let next = self.dense.len() as u64;
        if next >= self.logical_pages {
            return Err(self.err(format!(
                "the trace touches more than {} distinct pages of {} bytes, the whole logical space; \
                 use a larger device or --lba-map modulo",
                self.logical_pages, self.page_size
            )));
        }
        self.dense.insert(page, next);
        Ok(next)
    }
}

/// Mode `modulo`: where `r` starts in a logical space of `space` bytes, and how many of its
/// bytes fit before the end (the rest wraps to 0).
fn modulo_split(r: &Request, space: u64) -> (u64, u64) {
    let start = r.offset_bytes % space;
    (start, r.size_bytes.min(space - start))
}

impl RequestSource for LbaMapped {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Ok(Some(r));
            }
            match self.inner.next_request()? {
                // Mode `none` splits nothing: no queue.
                Some(r) if self.mode == LbaMapMode::None => return self.unmapped(r).map(Some),
                Some(r) => self.map(r)?,
                None => return Ok(None),
            }
        }
    }

    /// In place when the request needs no split (mode `none`, or `modulo` without a wrap): the
    /// engine's look-ahead is written field by field (docs/speed.md, "The request fetched ahead is
    /// written in place").
    fn next_into(&mut self, out: &mut Request) -> Result<bool> {
        if self.pending.is_empty() {
            if !self.inner.next_into(out)? {
                return Ok(false);
            }
            match self.mode {
                LbaMapMode::None => {
                    self.check_unmapped(out)?;
                    return Ok(true);
                }
                LbaMapMode::Modulo => {
                    let (_, space) = self.checked_end(out)?;
                    let (start, first) = modulo_split(out, space);
                    if first == out.size_bytes {
                        out.offset_bytes = start;
                        return Ok(true);
                    }
                }
                LbaMapMode::Dense => {}
            }
            self.map(*out)?;
        }
        let next = self.next_request()?;
        Ok(super::request::store(next, out))
    }

    fn describe(&self) -> String {
        let mode = match self.mode {
            LbaMapMode::None => "none",
            LbaMapMode::Dense => "dense",
            LbaMapMode::Modulo => "modulo",
        };
        format!(
            "{} [lba map {mode}, {} bytes]",
            self.inner.describe(),
            self.logical_bytes
        )
    }
    forward_to_inner!();
}

#[cfg(test)]
mod tests {
    use super::super::csv::PlainCsv;
    use super::super::input::testutil::fixture;
    use super::super::input::TextSource;
    use super::super::request::{OpKind, VecSource};
    use super::*;

    fn w(offset_bytes: u64, size_bytes: u64) -> Request {
        Request {
            arrival_ns: 0,
            op: OpKind::Write,
            offset_bytes,
            size_bytes,
            fragment_follows: false,
            fua: false,
            preflush: false,
            placement: 0,
        }
    }

    fn follows(r: Request) -> Request {
        Request {
            fragment_follows: true,
            fua: false,
            preflush: false,
            placement: 0,
            ..r
        }
    }

    fn run(reqs: Vec<Request>, mode: LbaMapMode, logical: u64) -> Result<Vec<Request>> {
        let mut m = LbaMapped::new(Box::new(VecSource::new(reqs)), mode, logical, 4096)?;
        let mut v = Vec::new();
        while let Some(r) = m.next_request()? {
            v.push(r);
        }
        Ok(v)
    }

    /// `next_into` (the engine's call, in place when nothing is split) yields exactly what
    /// `next_request` yields, in every mode: whole requests, wraps, dense splits, fragments of
    /// the source, and the same error at the same request.
    #[test]
    fn next_into_gives_what_next_request_gives() {
        let space = 10 * 4096;
        let reqs = vec![
            w(0, 4096),
            w(36864, 8192),
            follows(w(4096, 4096)),
            w(8192, 0),
            w(1 << 30, 12288),
            w(3 * 4096 + 100, 5000),
            w(40000, 4096),
            w(4096, 4096),
        ];
        for mode in [LbaMapMode::None, LbaMapMode::Dense, LbaMapMode::Modulo] {
            let by_value = run(reqs.clone(), mode, space);
            let mut m =
                LbaMapped::new(Box::new(VecSource::new(reqs.clone())), mode, space, 4096).unwrap();
            let mut slot = w(7, 7);
            let mut in_place = Vec::new();
            let in_place = loop {
                match m.next_into(&mut slot) {
                    Ok(true) => in_place.push(slot),
                    Ok(false) => break Ok(in_place),
                    Err(e) => break Err(e),
                }
            };
            match (by_value, in_place) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{mode:?}");
                    assert!(a.len() >= reqs.len(), "{mode:?}: {a:?}");
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{mode:?}"),
                (a, b) => panic!("{mode:?}: by value {a:?}, in place {b:?}"),
            }
        }
        // Mode `none` stops at the request beyond the capacity, both ways.
        assert!(run(reqs, LbaMapMode::None, space).is_err());
    }

    /// Mode `none`'s in-line check decides every request as the full check does (the same
    /// answer, the same message), around the capacity's edge and at the overflow.
    #[test]
    fn unmapped_fast_check_agrees_with_the_full_one() {
        let space = 10 * 4096;
        let m = LbaMapped::new(
            Box::new(VecSource::new(vec![])),
            LbaMapMode::None,
            space,
            4096,
        )
        .unwrap();
        let edges = [0, 1, 4095, 4096, space - 4096, space - 1, space, space + 1];
        let wide = [u64::MAX - space, u64::MAX - 1, u64::MAX];
        let (mut ok, mut err) = (0, 0);
        for &offset in edges.iter().chain(&wide) {
            for &size in edges.iter().chain(&wide) {
                let r = w(offset, size);
                let fast = m.check_unmapped(&r).map_err(|e| e.to_string());
                let full = m.check_unmapped_slow(&r).map_err(|e| e.to_string());
                assert_eq!(fast, full, "offset {offset} size {size}");
                if fast.is_ok() {
                    ok += 1
                } else {
                    err += 1
                }
            }
        }
        assert!(ok > 10 && err > 10, "{ok} accepted, {err} refused");
    }

    #[test]
    fn none_errors_with_file_and_line() {
        let p = fixture("big.csv", b"0,W,0,4096\n1,W,40960,4096\n", false);
        let src = TextSource::open(&p, PlainCsv, None).unwrap();
        let mut m = LbaMapped::new(Box::new(src), LbaMapMode::None, 10 * 4096, 4096).unwrap();
        assert!(m.next_request().unwrap().is_some());
        let e = m.next_request().unwrap_err().to_string();
        assert!(
            e.contains("big.csv:2: ") && e.contains("--lba-map dense|modulo"),
            "{e}"
        );
        assert_eq!(
            run(vec![w(36864, 4096)], LbaMapMode::None, 40960).unwrap(),
            vec![w(36864, 4096)]
        );
        assert!(matches!(
            run(vec![w(40000, 4096)], LbaMapMode::None, 40960),
            Err(SsdError::Workload(_))
        ));
    }

    #[test]
    fn dense_compacts_first_come_and_splits_runs() {
        let reqs = vec![
            w(1 << 40, 8192),
            w(7 << 30, 4096),
            w(1 << 40, 4096),
            w((1 << 40) + 100, 8192),
        ];
        let got = run(reqs, LbaMapMode::Dense, 4 * 4096).unwrap();
        // pages: 2^28 → 0, 2^28+1 → 1, 7·2^18 → 2; then 2^28 again → 0; then 2^28..2^28+2 → 0,1,3
        // (two fragments of one host request: the first says another follows)
        assert_eq!(
            got,
            vec![
                w(0, 8192),
                w(8192, 4096),
                w(0, 4096),
                follows(w(100, 8092)),
                w(3 * 4096, 100)
            ]
        );
        let e = run(vec![w(0, 4096), w(1 << 20, 4096)], LbaMapMode::Dense, 4096)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 1 distinct pages"), "{e}");
    }

    #[test]
    fn modulo_wraps_and_splits_at_the_end() {
        let got = run(
            vec![w(10 * 4096 + 5, 100), w(9 * 4096, 8192)],
            LbaMapMode::Modulo,
            10 * 4096,
        )
        .unwrap();
        assert_eq!(got, vec![w(5, 100), follows(w(9 * 4096, 4096)), w(0, 4096)]);
        assert!(run(vec![w(0, 11 * 4096)], LbaMapMode::Modulo, 10 * 4096).is_err());
    }
}
