//! The host request: what every workload (trace reader or synthetic generator) yields, in
//! arrival order, and the trait through which the simulation pulls them one at a time.

use crate::error::Result;

/// What a host request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    Read,
    Write,
    /// TRIM / discard / unmap: invalidates the pages it covers.
    Trim,
    /// A flush (cache flush) command: every acknowledged write durable before it completes
    /// (NVMe Flush; blktrace's `F` without data). No pages.
    Flush,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Trim => "trim",
            OpKind::Flush => "flush",
        }
    }
}

/// One host request. Times are nanoseconds from the trace's own origin (the simulation rebases
/// them to the first request); addresses and sizes are bytes.
///
/// A host request whose pages an LBA map scatters ([`super::LbaMapMode`]: `dense` packs pages
/// first-come, `modulo` wraps at the end of the logical space) comes as several *fragments*,
/// each a contiguous byte range with the same arrival and operation: every fragment but the
/// last has `fragment_follows` set. The engine serves the fragments as one request — one
/// arrival, one latency (to the last page's completion), one count, its bytes summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub arrival_ns: u64,
    pub op: OpKind,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// Another fragment of the same host request comes next (see above); false for a whole
    /// request and for the last fragment.
    pub fragment_follows: bool,
    /// A write with force unit access (NVMe FUA, blktrace's `F` after the `W`): durable before
    /// it completes.
    pub fua: bool,
    /// A preflush (Linux `REQ_PREFLUSH`, blktrace's `F` before the operation): every earlier
    /// acknowledged write durable before this request is served.
    pub preflush: bool,
    /// The write's placement identifier (NVMe Flexible Data Placement: the directive's
    /// placement handle, with the reclaim group above it; `config::FdpConfig::placement_ids`).
    /// 0, the default handle, when the host gives none, as the specification has a write
    /// without a placement directive. Only an FDP device (`[fdp]`) honours it.
    pub placement: u16,
}

/// A stream of requests in arrival order. Readers never load a whole file; generators are
/// seeded. `Ok(None)` ends the stream; an `Err` names the file and line.
pub trait RequestSource: Send {
    fn next_request(&mut self) -> Result<Option<Request>>;
    /// [`next_request`](Self::next_request) written into `out` (false at the end, `out` then
    /// unchanged): what the engine calls. A generator overrides it to store the fields in
    /// place — a request returned by value and moved on at once costs store-forwarding stalls.
    fn next_into(&mut self, out: &mut Request) -> Result<bool> {
        Ok(store(self.next_request()?, out))
    }
    /// Human-readable description (file name and format, or generator parameters).
    fn describe(&self) -> String;
    /// Where the last returned request came from (file, line or record number), for errors
    /// raised downstream (e.g. an address beyond the logical capacity). `None` for generators.
    fn location(&self) -> Option<(String, u64)> {
        None
    }
    /// For binary formats, whose [`location`](Self::location) numbers records rather than
    /// lines: `record N at byte offset X`, which errors raised downstream put before their
    /// message. `None` for text formats and generators.
    fn record_label(&self) -> Option<String> {
        None
    }
    /// How many well-formed records were read but yielded no request so far (another device,
    /// another blktrace action, a non-data SCSI opcode). Generators skip nothing.
    fn skipped(&self) -> u64 {
        0
    }
    /// Why the source yielded no request (trace readers: the file is empty, holds only a
    /// header, or every record was skipped — by device, action or opcode, with counts and
    /// where the first was). `None` for sources that cannot tell.
    fn why_empty(&self) -> Option<String> {
        None
    }
    /// The host TRIMs what it has deleted and not yet trimmed (fstrim, or the GC detector's
    /// response): the next requests are TRIMs of the pending extents. Returns the bytes queued
    /// (0 for sources without a file system).
    fn trim_deleted(&mut self) -> u64 {
        0
    }
    /// The host file system's counters (bytes deleted, trimmed, pending …); `None` for sources
    /// without a file system.
    fn host_fs(&self) -> Option<super::fs::stats::FsStats> {
        None
    }
}

/// `r` into `out` if there is one (what [`RequestSource::next_into`] returns).
#[inline]
pub(crate) fn store(r: Option<Request>, out: &mut Request) -> bool {
    match r {
        Some(r) => {
            *out = r;
            true
        }
        None => false,
    }
}

/// The metadata methods of a [`RequestSource`] that wraps another in its field `inner` and
/// changes only the requests (the LBA map, the `max_requests` cut, the non-empty check):
/// forwarded whole, so that no wrapper hides where a request came from, what was skipped, why
/// nothing was replayed, or the host file system behind the requests (its TRIMs and counters).
macro_rules! forward_to_inner {
    () => {
        fn location(&self) -> Option<(String, u64)> {
            self.inner.location()
        }
        fn record_label(&self) -> Option<String> {
            self.inner.record_label()
        }
        fn skipped(&self) -> u64 {
            self.inner.skipped()
        }
        fn why_empty(&self) -> Option<String> {
            self.inner.why_empty()
        }
        fn trim_deleted(&mut self) -> u64 {
            self.inner.trim_deleted()
        }
        fn host_fs(&self) -> Option<$crate::trace::fs::stats::FsStats> {
            self.inner.host_fs()
        }
    };
}
pub(crate) use forward_to_inner;

/// A source over an in-memory list, for tests and for the Python API.
pub struct VecSource {
    requests: Vec<Request>,
    next: usize,
}

impl VecSource {
    pub fn new(requests: Vec<Request>) -> Self {
        VecSource { requests, next: 0 }
    }
}

impl RequestSource for VecSource {
    fn next_request(&mut self) -> Result<Option<Request>> {
        let r = self.requests.get(self.next).copied();
        self.next += 1;
        Ok(r)
    }
    fn describe(&self) -> String {
        format!("{} in-memory requests", self.requests.len())
    }
}
