//! FIU SRCMap / IODedup block traces (Verma et al., "SRCMap", EuroSys'10; Koller and
//! Rangaswami, "I/O Deduplication", FAST'10; SNIA IOTTA): whitespace-separated
//! `ts_ns pid process lba size R|W major minor [md5]`, lba and size in 512-byte sectors.
//! The device is the minor number. Process names must not contain blanks.

use super::fields::{expected, read_write_word, Fields};
use super::input::{LineFormat, Outcome};

const LAYOUT: &str = "ts_ns pid process lba size R|W major minor [md5]";

/// The FIU text line format.
#[derive(Debug, Default)]
pub(crate) struct Fiu;

impl LineFormat for Fiu {
    fn name(&self) -> &'static str {
        "fiu"
    }

    fn parse(&mut self, line: &str, _first: bool) -> Result<Outcome, String> {
        let f = Fields::whitespace(line);
        f.require(8, LAYOUT)?;
        if f.len() > 9 {
            return Err(format!(
                "too many fields: expected 8 or 9 ({LAYOUT}), got {}",
                f.len()
            ));
        }
        let arrival_ns = f.u64(0, "timestamp ns")?;
        f.u64(1, "pid")?;
        let offset_bytes = f.scaled(3, "lba", 512)?;
        let size_bytes = f.scaled(4, "size", 512)?;
        let t = f.str(5, "op")?;
        let op = read_write_word(t).ok_or_else(|| expected(5, "op", "R or W", t))?;
        f.u32(6, "major")?;
        let minor = f.u32(7, "minor")?;
        Ok(Outcome::request(
            arrival_ns,
            op,
            offset_bytes,
            size_bytes,
            Some(minor),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::testutil::{assert_line_errors, fixture};
    use super::super::input::TextSource;
    use super::super::request::Request;
    use super::super::request::{OpKind, RequestSource};
    use super::*;

    #[test]
    fn parses_with_and_without_md5() {
        let text = "# comment\n\n89967404265337 4892 syslogd 904265560 8 W 6 0 531e779ee0ea7e6f\n\
                    89967404297000 4892 syslogd 1000 16 R 6 1\n";
        let p = fixture("f.blkparse.gz", text.as_bytes(), false);
        let mut s = TextSource::open(&p, Fiu, Some(0)).unwrap();
        let r = s.next_request().unwrap().unwrap();
        assert_eq!(
            r,
            Request {
                arrival_ns: 89_967_404_265_337,
                op: OpKind::Write,
                offset_bytes: 904_265_560 * 512,
                size_bytes: 4096,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        assert_eq!(s.location(), Some((p.display().to_string(), 3)));
        assert_eq!(s.next_request().unwrap(), None);
        assert_eq!(s.skipped(), 1);
    }

    #[test]
    fn errors() {
        assert_line_errors(
            "fbad.txt",
            "",
            false,
            || Fiu,
            &[
                (
                    "1 2 p 10 -8 W 6 0",
                    "field 5 (size): expected a non-negative integer, got \"-8\"",
                ),
                (
                    "1 2 p 10 8 X 6 0",
                    "field 6 (op): expected R or W, got \"X\"",
                ),
                ("1 2 p 10 8 W 6", "too few fields"),
                ("1 2 p 10 8 W 6 0 md5 extra", "too many fields"),
            ],
        );
    }
}
