//! Opening trace files (gzip-transparent) and reading them line by line, with the line numbers
//! every error names; plus [`TextSource`], the one streaming loop all text formats share (run
//! on a reader thread by `read_ahead` when the machine has a second CPU; its results are the
//! same).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use super::fields::trim;
use super::request::{OpKind, Request, RequestSource};
use super::skips::{SkipReason, Skips};
use crate::error::{Result, SsdError};

/// The two magic bytes that open every gzip member (RFC 1952, section 2.3.1).
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Opens `path` for streaming. The content is decompressed on the fly when the file starts with
/// the gzip magic (multi-member gzip, as `cat a.gz b.gz` makes, is read whole). A non-empty
/// file whose name ends in `.gz` must start with it. Nothing is loaded beyond the read buffer.
pub(crate) fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| SsdError::io(&name, e))?;
    let mut raw = BufReader::with_capacity(1 << 16, file);
    let head = raw.fill_buf().map_err(|e| SsdError::io(&name, e))?;
    let gz = head.starts_with(&GZIP_MAGIC);
    let bom = head.starts_with(UTF8_BOM);
    if name.ends_with(".gz") && !gz && !head.is_empty() {
        return Err(SsdError::io(
            &name,
            "byte offset 0: the name ends in .gz but the content does not start with the gzip \
             magic bytes 1f 8b; rename the file or compress it",
        ));
    }
    // A UTF-8 byte-order mark (spreadsheet exports of CSV traces start with one) is not part
    // of the first line: skipped, as the device loader skips it. Byte offsets of binary
    // formats are unaffected: a VSCSI trace does not start with these bytes.
    if bom {
        raw.consume(UTF8_BOM.len());
        return Ok(Box::new(raw));
    }
    if gz {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(raw),
        )))
    } else {
        Ok(Box::new(raw))
    }
}

/// Reads up to `max` leading bytes of the (decompressed) content, for format sniffing.
pub(crate) fn read_head(path: &Path, max: usize) -> Result<Vec<u8>> {
    let name = path.display().to_string();
    let input = open_input(path)?;
    let mut head = Vec::with_capacity(max);
    input.take(max as u64).read_to_end(&mut head).map_err(|e| {
        SsdError::io(
            &name,
            format!("detecting the format from bytes 0..{max}: {e}"),
        )
    })?;
    Ok(head)
}

/// A text input read one line at a time. Blank lines and lines whose first non-blank character
/// is `#` are skipped (they still count for line numbers). Lines must be UTF-8.
pub(crate) struct LineInput {
    reader: Box<dyn BufRead + Send>,
    /// The last line read, line ending included. Its bytes are read into this `String`'s own
    /// allocation and validated as UTF-8 once, as they become the `String` again (the line
    /// returned is a slice of it, so it is not validated a second time).
    line: String,
    line_no: u64,
    file: String,
}

impl LineInput {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        Ok(LineInput {
            reader: open_input(path)?,
            line: String::with_capacity(256),
            line_no: 0,
            file: path.display().to_string(),
        })
    }

    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// Lines read so far (blank and comment lines included).
    pub(crate) fn lines(&self) -> u64 {
        self.line_no
    }

    /// The next non-blank, non-comment line (without its line ending and the blanks around it,
    /// as `str::trim` removes them) and its 1-based number.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>> {
        let (start, end) = loop {
            let mut buf = std::mem::take(&mut self.line).into_bytes();
            buf.clear();
            let n = self.reader.read_until(b'\n', &mut buf).map_err(|e| {
                SsdError::io(
                    &self.file,
                    format!("reading line {}: {e}", self.line_no + 1),
                )
            })?;
            if n == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            self.line = String::from_utf8(buf).map_err(|_| {
                SsdError::trace(&self.file, self.line_no, "line is not valid UTF-8 text")
            })?;
            // The line ending first, so that the common line needs no further trimming.
            let body = self.line.strip_suffix('\n').unwrap_or(&self.line);
            let body = body.strip_suffix('\r').unwrap_or(body);
            let t = trim(body);
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            // `t` is a slice of `self.line`: its place there, to return it after the loop.
            let start = t.as_ptr() as usize - self.line.as_ptr() as usize;
            break (start, start + t.len());
        };
        Ok(Some((self.line_no, &self.line[start..end])))
    }
}

/// What a text format makes of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A request, with the device number of formats that carry one.
    Request(Request, Option<u32>),
    /// Not a record at all (a header line, a blkparse summary line): not counted.
    Ignore,
    /// A well-formed record that yields no request (another action, a non-data opcode): counted
    /// in [`RequestSource::skipped`], by reason.
    Skip(SkipReason),
}

impl Outcome {
    /// A request, with the device number of formats that carry one.
    pub(crate) fn request(
        arrival_ns: u64,
        op: OpKind,
        offset_bytes: u64,
        size_bytes: u64,
        device: Option<u32>,
    ) -> Self {
        Outcome::Request(
            Request {
                arrival_ns,
                op,
                offset_bytes,
                size_bytes,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            },
            device,
        )
    }
}

/// One text trace format: parses a line into an [`Outcome`], or says which field is wrong.
pub(crate) trait LineFormat: Send {
    /// The format's name, as `format = "..."` spells it.
    fn name(&self) -> &'static str;
    /// Parses one non-blank, non-comment line. `first` is true for the first such line of the
    /// file (where formats that allow a header accept it).
    fn parse(&mut self, line: &str, first: bool) -> std::result::Result<Outcome, String>;
}

/// The streaming loop shared by all text formats: reads lines, parses them, applies the device
/// filter, counts skipped records and remembers the line of the last request.
pub(crate) struct TextSource<F: LineFormat> {
    input: LineInput,
    fmt: F,
    device: Option<u32>,
    first: bool,
    last_line: u64,
    skips: Skips,
}

impl<F: LineFormat> TextSource<F> {
    pub(crate) fn open(path: &Path, fmt: F, device: Option<u32>) -> Result<Self> {
        Ok(TextSource {
            input: LineInput::open(path)?,
            fmt,
            device,
            first: true,
            last_line: 0,
            skips: Skips::default(),
        })
    }
}

impl<F: LineFormat> TextSource<F> {
    pub(crate) fn file(&self) -> &str {
        self.input.file()
    }

    /// The line of the last request returned (0 before the first) and the records skipped so
    /// far: what [`RequestSource::location`] and [`RequestSource::skipped`] say, without
    /// allocating (the reader thread of `read_ahead` takes both after every request).
    pub(crate) fn position(&self) -> (u64, u64) {
        (self.last_line, self.skips.total())
    }
}

impl<F: LineFormat> RequestSource for TextSource<F> {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            let Some((no, line)) = self.input.next_line()? else {
                return Ok(None);
            };
            let first = std::mem::replace(&mut self.first, false);
            match self.fmt.parse(line, first) {
                Err(msg) => return Err(SsdError::trace(self.input.file(), no, msg)),
                Ok(Outcome::Ignore) => {}
                Ok(Outcome::Skip(reason)) => self.skips.add(reason, || format!("line {no}")),
                Ok(Outcome::Request(req, dev)) => {
                    if let (Some(want), Some(got)) = (self.device, dev) {
                        if want != got {
                            self.skips.other_device(got, || format!("line {no}"));
                            continue;
                        }
                    }
                    self.last_line = no;
                    return Ok(Some(req));
                }
            }
        }
    }

    fn describe(&self) -> String {
        match self.device {
            Some(d) => format!("{} ({}, device {d})", self.input.file(), self.fmt.name()),
            None => format!("{} ({})", self.input.file(), self.fmt.name()),
        }
    }

    fn location(&self) -> Option<(String, u64)> {
        (self.last_line > 0).then(|| (self.input.file().to_string(), self.last_line))
    }

    fn skipped(&self) -> u64 {
        self.skips.total()
    }

    fn why_empty(&self) -> Option<String> {
        Some(self.skips.explain(self.input.lines(), "line", self.device))
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Fixture files for the parser tests: plain or gzip, in a per-test temporary folder.
    use std::io::Write;
    use std::path::PathBuf;

    /// Writes `content` to a fresh file named `name` under the system temp folder; gzips it
    /// when `name` ends in `.gz` or `gzip` is set.
    pub(crate) fn fixture(name: &str, content: &[u8], gzip: bool) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-trace-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        let bytes = if gzip || name.ends_with(".gz") {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(content).expect("gzip");
            enc.finish().expect("gzip")
        } else {
            content.to_vec()
        };
        std::fs::write(&path, bytes).expect("write fixture");
        path
    }

    /// The error of the first line of `path` that `format` rejects (its message names the file
    /// and line); panics when every line parses.
    pub(crate) fn first_error<F: super::LineFormat + 'static>(
        path: &std::path::Path,
        format: F,
    ) -> String {
        use super::super::request::RequestSource;
        let mut s = super::TextSource::open(path, format, None).expect("open fixture");
        loop {
            match s.next_request() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("{}: every line parsed", path.display()),
                Err(e) => return e.to_string(),
            }
        }
    }

    /// For each `(bad, want)`: a file `name` of the lines `good` (each ending in a newline)
    /// then `bad` is rejected at `bad`'s line, with a message naming the file and line and
    /// containing `want`.
    pub(crate) fn assert_line_errors<F: super::LineFormat + 'static>(
        name: &str,
        good: &str,
        gzip: bool,
        format: impl Fn() -> F,
        cases: &[(&str, &str)],
    ) {
        let at = format!("{name}:{}: ", good.lines().count() + 1);
        for (bad, want) in cases {
            let p = fixture(name, format!("{good}{bad}\n").as_bytes(), gzip);
            let err = first_error(&p, format());
            assert!(err.contains(&at) && err.contains(want), "{err}");
        }
    }

    /// Where the real trace excerpt `rel` lives, or `None` when it is absent — then the calling
    /// test is reported skipped (see [`skipped`]), so that a missing excerpt is seen.
    pub(crate) fn real(rel: &str) -> Option<PathBuf> {
        let p = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/traces"
        ))
        .join(rel);
        if p.exists() {
            Some(p)
        } else {
            skipped(&p);
            None
        }
    }

    /// Reports the current test skipped: `SKIPPED: <test>: <path> not present`, written straight
    /// to the process's stderr — past the test harness's capture, which swallows `eprintln!`
    /// of passing tests — so the skip shows in every `cargo test` run.
    pub(crate) fn skipped(path: &std::path::Path) {
        let current = std::thread::current();
        let test = current.name().unwrap_or("<unnamed test>");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {test}: {} not present",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::fixture;
    use super::*;

    /// Issue 58: a CSV exported with a byte-order mark reads as without it, and its format is
    /// detected from its first line.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                    128166372003061629,hm,0,Write,3154152448,4096,2000\n";
        let plain = fixture("plain.csv", text.as_bytes(), false);
        let bom = fixture(
            "bom.csv",
            [UTF8_BOM, text.as_bytes()].concat().as_slice(),
            false,
        );
        let mut a = String::new();
        open_input(&bom).unwrap().read_to_string(&mut a).unwrap();
        assert_eq!(a, text);
        assert_eq!(
            super::super::format::detect_format(&bom).unwrap(),
            super::super::format::detect_format(&plain).unwrap()
        );
    }
}
