//! SPC / UMass Trace Repository ASCII traces (Financial1/2, WebSearch1-3; "SPC Trace File
//! Format Specification", Storage Performance Council, rev. 1.0.1): comma-separated
//! `ASU,LBA,Size,Opcode,Timestamp[,...]`, LBA in 512-byte sectors, Size in bytes, Opcode `r`/`w`
//! (any case), Timestamp in seconds (decimal). Extra trailing fields are ignored. The device
//! is the ASU.

use super::fields::{expected, Fields};
use super::input::{LineFormat, Outcome};
use super::request::OpKind;

const LAYOUT: &str = "ASU,LBA,Size,Opcode,Timestamp";

/// The SPC ASCII line format.
#[derive(Debug, Default)]
pub(crate) struct Spc;

impl LineFormat for Spc {
    fn name(&self) -> &'static str {
        "spc"
    }

    fn parse(&mut self, line: &str, _first: bool) -> Result<Outcome, String> {
        let f = Fields::comma(line);
        f.require(5, LAYOUT)?;
        let asu = f.u32(0, "asu")?;
        let offset_bytes = f.scaled(1, "lba", 512)?;
        let size_bytes = f.u64(2, "size")?;
        let t = f.str(3, "opcode")?;
        let op = match t {
            "r" | "R" => OpKind::Read,
            "w" | "W" => OpKind::Write,
            _ => return Err(expected(3, "opcode", "r or w", t)),
        };
        let arrival_ns = f.decimal(4, "timestamp seconds", 9)?;
        Ok(Outcome::request(
            arrival_ns,
            op,
            offset_bytes,
            size_bytes,
            Some(asu),
        ))
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
    fn parses_and_filters() {
        let p = fixture(
            "s.spc",
            b"0,303567,3584,w,0.000000\n1,55590,3072,R,0.026214\n",
            true,
        );
        let mut s = TextSource::open(&p, Spc, Some(1)).unwrap();
        let r = s.next_request().unwrap().unwrap();
        assert_eq!(
            r,
            Request {
                arrival_ns: 26_214_000,
                op: OpKind::Read,
                offset_bytes: 55_590 * 512,
                size_bytes: 3072,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        assert_eq!(s.next_request().unwrap(), None);
        assert_eq!(s.skipped(), 1);
    }

    #[test]
    fn errors() {
        assert_line_errors(
            "sbad.spc",
            "0,1,8,r,0\n",
            false,
            || Spc,
            &[
                (
                    "0,1,-8,w,0.1",
                    "field 3 (size): expected a non-negative integer, got \"-8\"",
                ),
                (
                    "0,1,8,x,0.1",
                    "field 4 (opcode): expected r or w, got \"x\"",
                ),
                (
                    "0,1,8,w,-0.1",
                    "field 5 (timestamp seconds): expected a non-negative number",
                ),
                ("0,1,8,w", "too few fields"),
            ],
        );
    }
}
