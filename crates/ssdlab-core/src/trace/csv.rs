//! ssdlab's own plain CSV: `time_us,op,offset_bytes,size_bytes`, op one of `R`/`W`/`T` or
//! `read`/`write`/`trim`, `F`/`flush` (a cache flush command; its offset and size are not
//! used) or `WF`/`write-fua` (a write with force unit access), any case; time in microseconds
//! (decimal allowed, kept to the nanosecond). An optional header line (first field starting
//! with a letter) is accepted.
//!
//! An optional fifth field, `placement`, is the write's placement identifier (NVMe FDP's
//! reclaim group and placement handle as one number, `config::FdpConfig`: 0 when absent, the
//! default handle); only a device with `[fdp]` honours it, and one beyond its handles is an
//! error naming the line.

use super::fields::{expected, looks_like_header, Fields};
use super::input::{LineFormat, Outcome};
use super::request::OpKind;

/// The plain CSV line format.
#[derive(Debug, Default)]
pub(crate) struct PlainCsv;

/// `R`/`W`/`T`/`F`/`WF`, `read`/`write`/`trim`/`flush`/`write-fua`, any case: the operation and
/// whether it is a FUA write.
pub(crate) fn plain_op(s: &str) -> Option<(OpKind, bool)> {
    match s.to_ascii_lowercase().as_str() {
        "r" | "read" => Some((OpKind::Read, false)),
        "w" | "write" => Some((OpKind::Write, false)),
        "t" | "trim" => Some((OpKind::Trim, false)),
        "f" | "flush" => Some((OpKind::Flush, false)),
        "wf" | "write-fua" => Some((OpKind::Write, true)),
        _ => None,
    }
}

/// What the op field may be.
const OPS: &str = "one of R, W, T, F, WF, read, write, trim, flush, write-fua";

impl LineFormat for PlainCsv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn parse(&mut self, line: &str, first: bool) -> Result<Outcome, String> {
        let f = Fields::comma(line);
        if first && looks_like_header(f.str(0, "time_us")?) {
            return Ok(Outcome::Ignore);
        }
        let placement = if f.len() == 5 {
            let v = f.u64(4, "placement")?;
            u16::try_from(v).map_err(|_| {
                expected(
                    4,
                    "placement",
                    "a placement identifier from 0 to 65535",
                    f.str(4, "placement").unwrap_or(""),
                )
            })?
        } else {
            f.require_exactly(4, "time_us,op,offset_bytes,size_bytes[,placement]")?;
            0
        };
        let arrival_ns = f.decimal(0, "time_us", 3)?;
        let o = f.str(1, "op")?;
        let (op, fua) = plain_op(o).ok_or_else(|| expected(1, "op", OPS, o))?;
        let offset_bytes = f.u64(2, "offset_bytes")?;
        let size_bytes = f.u64(3, "size_bytes")?;
        if op == OpKind::Flush {
            return Ok(Outcome::request(arrival_ns, op, 0, 0, None));
        }
        let mut out = Outcome::request(arrival_ns, op, offset_bytes, size_bytes, None);
        if let Outcome::Request(r, _) = &mut out {
            r.fua = fua;
            r.placement = placement;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::testutil::{assert_line_errors, fixture};
    use super::super::input::TextSource;
    use super::super::request::Request;
    use super::super::request::RequestSource;
    use super::*;

    #[test]
    fn parses_and_errors() {
        let p = fixture(
            "p.csv.gz",
            b"time_us,op,offset_bytes,size_bytes\n1.5,W,4096,8192\n2,trim,0,4096\n3,r,0,512\n",
            false,
        );
        let mut s = TextSource::open(&p, PlainCsv, None).unwrap();
        assert_eq!(
            s.next_request().unwrap().unwrap(),
            Request {
                arrival_ns: 1500,
                op: OpKind::Write,
                offset_bytes: 4096,
                size_bytes: 8192,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        assert_eq!(s.next_request().unwrap().unwrap().op, OpKind::Trim);
        assert_eq!(s.next_request().unwrap().unwrap().op, OpKind::Read);
        assert_eq!(s.next_request().unwrap(), None);
        assert_line_errors(
            "pbad.csv",
            "0,R,0,1\n",
            false,
            || PlainCsv,
            &[
                (
                    "1,W,0,-8",
                    "field 4 (size_bytes): expected a non-negative integer, got \"-8\"",
                ),
                (
                    "1,X,0,8",
                    "field 2 (op): expected one of R, W, T, F, WF, read, write, trim, flush, write-fua, got \"X\"",
                ),
                ("1,W,0", "too few fields"),
                ("1,W,0,4096,7,1", "too many fields: expected 4"),
                (
                    "1,W,0,4096,70000",
                    "field 5 (placement): expected a placement identifier from 0 to 65535",
                ),
                ("1,W,zero,8", "field 3 (offset_bytes)"),
            ],
        );
        // A header is only accepted on the first line.
        let p = fixture(
            "p2.csv",
            b"0,R,0,1\ntime_us,op,offset_bytes,size_bytes\n",
            false,
        );
        let mut s = TextSource::open(&p, PlainCsv, None).unwrap();
        s.next_request().unwrap();
        assert!(s
            .next_request()
            .unwrap_err()
            .to_string()
            .contains("p2.csv:2: field 1 (time_us)"));
    }
}
