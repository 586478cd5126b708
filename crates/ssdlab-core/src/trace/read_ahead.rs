//! Parsing a text trace on a second thread, so that reading, decompressing and parsing overlap
//! the simulation (issue 19: on a 2-core machine, replaying a gzip trace was about 40 %
//! parsing).
//!
//! [`ReadAhead`] moves a [`TextSource`] to a reader thread, which pulls requests from it and
//! sends them in batches of [`BATCH`] over a bounded queue ([`BATCHES`] in flight, so memory
//! stays bounded and a consumer that stops pulling stops the reader too, blocked, not spinning;
//! a reader that has filled it sleeps until [`LOW`] are left: [`super::handoff`]).
//! Each request travels with the line it came from and the count of records skipped before it,
//! so that [`RequestSource::location`] and [`RequestSource::skipped`] answer exactly as the
//! source itself would after that request. When the source ends — `Ok(None)` or an error — the
//! reader sends that last, after the requests before it, and hands the source back; from then
//! on every call goes to the source itself, on the caller's thread. So the stream of requests,
//! the errors (message, file, line), what is skipped and why a trace is empty, and what a call
//! after an error returns, are those of the source read directly: the thread changes when the
//! work is done, never what it yields. Dropping a `ReadAhead` closes the channel and joins the
//! reader (which stops at its next send, after at most one batch). A panic on the reader thread
//! is re-raised on the consumer's.
//!
//! Whether a trace gets a reader thread: [`wanted`] (`TraceSpec::parse_thread`; unset, when
//! the machine has more than one CPU). Binary VSCSI traces are read on the caller's thread.

use std::thread::JoinHandle;

use super::handoff::{queue, Receiver, Sender};
use super::input::{LineFormat, TextSource};
use super::request::{Request, RequestSource};
use crate::error::{Result, SsdError};

/// Requests per batch: enough that the queue's cost (a lock a batch, a wake-up a refill) is
/// spread thin, small enough (4096 × 48 B) to stay in cache.
pub(crate) const BATCH: usize = 4096;
/// Batches in flight: the reader may run this far ahead of the simulation.
const BATCHES: usize = 8;
/// A reader that has filled the queue sleeps until the simulation has left this many batches
/// in it ([`super::handoff`]): one wake-up for every `BATCHES - LOW` batches, and `LOW`
/// batches (~2 ms of a timed replay, ~4× the reader's time to parse one) to cover the reader's
/// getting back to work.
const LOW: usize = 2;

/// Whether to parse on a second thread: `setting` when given, otherwise when the machine
/// (its CPU affinity and cgroup quota, as the standard library reads them) has more than one
/// CPU — with one, the thread would only add switching.
pub(crate) fn wanted(setting: Option<bool>) -> bool {
    setting.unwrap_or_else(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// A request, the line it came from, and the records skipped before it.
struct Item {
    request: Request,
    line: u64,
    skipped: u64,
}

/// What the reader sends: requests in order and, in its last batch, how the source ended.
struct Batch {
    items: Vec<Item>,
    end: Option<Result<()>>,
}

/// A text source read on its own thread; see the module documentation.
pub(crate) struct ReadAhead<F: LineFormat + 'static> {
    /// The batches from the reader; `None` once it has ended or is being stopped.
    rx: Option<Receiver<Batch>>,
    /// The reader, which returns the source when it has sent its last batch.
    reader: Option<JoinHandle<Option<TextSource<F>>>>,
    /// The source, back from the reader after its end: every call goes to it from then on.
    source: Option<TextSource<F>>,
    items: std::vec::IntoIter<Item>,
    end: Option<Result<()>>,
    file: String,
    description: String,
    /// Line and skipped count as of the last request returned.
    line: u64,
    skipped: u64,
}

impl<F: LineFormat + 'static> ReadAhead<F> {
    /// Starts the reader thread on `source`.
    pub(crate) fn spawn(source: TextSource<F>) -> Result<Self> {
        let file = source.file().to_string();
        let description = source.describe();
        let (tx, rx) = queue(BATCHES, LOW);
        let reader = std::thread::Builder::new()
            .name("ssdlab-trace-reader".into())
            .spawn(move || read(source, tx))
            .map_err(|e| SsdError::io(&file, format!("starting the trace reader thread: {e}")))?;
        Ok(ReadAhead {
            rx: Some(rx),
            reader: Some(reader),
            source: None,
            items: Vec::new().into_iter(),
            end: None,
            file,
            description,
            line: 0,
            skipped: 0,
        })
    }

    /// Waits for the reader, which has sent its last batch, and takes the source back.
    fn take_back(&mut self) -> TextSource<F> {
        self.rx = None;
        let reader = self
            .reader
            .take()
            .expect("the reader runs until its last batch");
        match reader.join() {
            Ok(Some(source)) => source,
            Ok(None) => unreachable!("the reader hands the source back after its last batch"),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The reader thread: pulls requests from `source` into batches until it ends, then returns
/// it; returns `None` early when the consumer has gone (its receiver dropped).
fn read<F: LineFormat>(mut source: TextSource<F>, tx: Sender<Batch>) -> Option<TextSource<F>> {
    loop {
        let mut items = Vec::with_capacity(BATCH);
        let mut end = None;
        while items.len() < BATCH {
            match source.next_request() {
                Ok(Some(request)) => {
                    let (line, skipped) = source.position();
                    items.push(Item {
                        request,
                        line,
                        skipped,
                    });
                }
                Ok(None) => end = Some(Ok(())),
                Err(e) => end = Some(Err(e)),
            }
            if end.is_some() {
                break;
            }
        }
        let last = end.is_some();
        tx.send(Batch { items, end }).ok()?;
        if last {
            return Some(source);
        }
    }
}

impl<F: LineFormat + 'static> RequestSource for ReadAhead<F> {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            if let Some(source) = &mut self.source {
                return source.next_request();
            }
            if let Some(item) = self.items.next() {
                self.line = item.line;
                self.skipped = item.skipped;
                return Ok(Some(item.request));
            }
            if let Some(end) = self.end.take() {
                self.source = Some(self.take_back());
                return end.map(|()| None);
            }
            let rx = self
                .rx
                .as_ref()
                .expect("the reader runs until its last batch");
            match rx.recv() {
                Some(batch) => {
                    self.items = batch.items.into_iter();
                    self.end = batch.end;
                }
                // The reader hung up before its last batch: it panicked (re-raised here).
                None => {
                    let _ = self.take_back();
                    unreachable!("a reader that hangs up early has panicked");
                }
            }
        }
    }

    /// The common case (a parsed request waiting in the current batch) in place; the rest as
    /// `next_request` (docs/speed.md, "The request fetched ahead is written in place").
    fn next_into(&mut self, out: &mut Request) -> Result<bool> {
        if self.source.is_none() {
            if let Some(item) = self.items.next() {
                self.line = item.line;
                self.skipped = item.skipped;
                *out = item.request;
                return Ok(true);
            }
        }
        let next = self.next_request()?;
        Ok(super::request::store(next, out))
    }

    fn describe(&self) -> String {
        self.description.clone()
    }

    fn location(&self) -> Option<(String, u64)> {
        match &self.source {
            Some(source) => source.location(),
            None => (self.line > 0).then(|| (self.file.clone(), self.line)),
        }
    }

    fn skipped(&self) -> u64 {
        match &self.source {
            Some(source) => source.skipped(),
            None => self.skipped,
        }
    }

    /// Known once the source has ended (the only time it is asked: after `Ok(None)`); `None`
    /// before, while the reader may be anywhere ahead.
    fn why_empty(&self) -> Option<String> {
        self.source.as_ref().and_then(|s| s.why_empty())
    }
}

impl<F: LineFormat + 'static> Drop for ReadAhead<F> {
    fn drop(&mut self) {
        // Closing the channel fails the reader's next send (at once, if it waits on a full
        // channel), and it returns.
        self.rx = None;
        if let Some(reader) = self.reader.take() {
            // A panic on the reader while the consumer is going away is not re-raised: it
            // would abort a consumer that is itself unwinding.
            let _ = reader.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::super::input::testutil::fixture;
    use super::super::input::Outcome;
    use super::super::msr::Msr;
    use super::*;

    #[test]
    fn dropping_early_stops_the_reader() {
        // More batches than the channel holds: the reader waits on a full channel when the
        // consumer goes away, and must stop rather than hang the drop.
        let mut text = String::new();
        for i in 0..8 * BATCH {
            let _ = writeln!(text, "{i},hm,0,Read,{},4096,1", (i % 1000) * 4096);
        }
        let p = fixture("long.csv", text.as_bytes(), false);
        for take in [0, 1, BATCH + 1] {
            let mut ahead = ReadAhead::spawn(TextSource::open(&p, Msr, None).unwrap()).unwrap();
            for _ in 0..take {
                ahead.next_request().unwrap().unwrap();
            }
            drop(ahead);
        }
    }

    // Transcripts of direct and read-ahead parsing (errors across batches, cut-short gzip,
    // nothing to replay) are compared in `tests/parse_thread.rs`, through `parse_thread`.

    /// A format that panics on its third line, as a parser bug would.
    struct Boom;

    impl LineFormat for Boom {
        fn name(&self) -> &'static str {
            "boom"
        }
        fn parse(&mut self, line: &str, _: bool) -> std::result::Result<Outcome, String> {
            assert!(!line.starts_with('3'), "boom");
            Ok(Outcome::request(
                1,
                super::super::OpKind::Read,
                0,
                512,
                None,
            ))
        }
    }

    #[test]
    fn a_panic_on_the_reader_is_raised_on_the_consumer() {
        let p = fixture("boom.csv", b"1\n2\n3\n4\n", false);
        let mut ahead = ReadAhead::spawn(TextSource::open(&p, Boom, None).unwrap()).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            while ahead.next_request().unwrap().is_some() {}
        }));
        assert!(r.is_err());
    }
}
