//! MSR Cambridge block traces (Narayanan, Donnelly, Rowstron, "Write off-loading", FAST'08;
//! SNIA IOTTA repository): CSV `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601-01-01), Type `Read`/`Write`,
//! Offset and Size in bytes. An optional header line is accepted. The device is DiskNumber.

use super::fields::{looks_like_header, read_write_word, Fields};
use super::input::{LineFormat, Outcome};

const LAYOUT: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

/// The MSR Cambridge CSV line format.
#[derive(Debug, Default)]
pub(crate) struct Msr;

impl LineFormat for Msr {
    fn name(&self) -> &'static str {
        "msr"
    }

    fn parse(&mut self, line: &str, first: bool) -> Result<Outcome, String> {
        let f = Fields::comma(line);
        if first && looks_like_header(f.str(0, "timestamp")?) {
            return Ok(Outcome::Ignore);
        }
        f.require(7, LAYOUT)?;
        let arrival_ns = f.scaled(0, "timestamp", 100)?;
        let disk = f.u32(2, "disk number")?;
        let t = f.str(3, "type")?;
        let op = read_write_word(t)
            .ok_or_else(|| super::fields::expected(3, "type", "Read or Write", t))?;
        let offset_bytes = f.u64(4, "offset")?;
        let size_bytes = f.u64(5, "size")?;
        f.u64(6, "response time")?;
        Ok(Outcome::request(
            arrival_ns,
            op,
            offset_bytes,
            size_bytes,
            Some(disk),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::testutil::{fixture, real};
    use super::super::input::TextSource;
    use super::super::request::Request;
    use super::super::request::{OpKind, RequestSource};
    use super::*;

    fn all(src: &mut dyn RequestSource) -> crate::Result<Vec<Request>> {
        let mut v = Vec::new();
        while let Some(r) = src.next_request()? {
            v.push(r);
        }
        Ok(v)
    }

    #[test]
    fn parses_header_gzip_and_device_filter() {
        let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                    128166385295514663,hm,0,Write,9056014336,2048,2833\n\
                    128166385295514878,hm,1,read,4096,512,2617\n";
        for name in ["m.csv", "m.csv.gz"] {
            let p = fixture(name, text.as_bytes(), false);
            let mut s = TextSource::open(&p, Msr, None).unwrap();
            let v = all(&mut s).unwrap();
            assert_eq!(v.len(), 2);
            assert_eq!(v[0].arrival_ns, 12_816_638_529_551_466_300);
            assert_eq!(
                (v[0].op, v[0].offset_bytes, v[0].size_bytes),
                (OpKind::Write, 9_056_014_336, 2048)
            );
            assert_eq!(v[1].op, OpKind::Read);
            assert_eq!(s.location().unwrap().1, 3);
            let mut s = TextSource::open(&p, Msr, Some(1)).unwrap();
            assert_eq!(all(&mut s).unwrap().len(), 1);
            assert_eq!(s.skipped(), 1);
        }
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases = [
            (
                "1,hm,0,Write,0,-8,1",
                "field 6 (size): expected a non-negative integer, got \"-8\"",
            ),
            (
                "1,hm,0,Erase,0,8,1",
                "field 4 (type): expected Read or Write, got \"Erase\"",
            ),
            ("1,hm,0,Write,0,8", "too few fields: expected 7"),
            ("x1,hm,0,Write,0,8,1", "field 1 (timestamp)"),
        ];
        for (bad, want) in cases {
            let p = fixture(
                "bad.csv",
                format!("1,hm,0,Read,0,512,1\n{bad}\n").as_bytes(),
                false,
            );
            let mut s = TextSource::open(&p, Msr, None).unwrap();
            let err = all(&mut s).unwrap_err().to_string();
            assert!(err.contains("bad.csv:2: ") && err.contains(want), "{err}");
        }
    }

    #[test]
    fn real_first20_files_have_20_rows() {
        for f in [
            "msr_cambridge/hm_0_first20.csv",
            "msr_cambridge/rsrch_0_first20.csv",
        ] {
            let Some(p) = real(f) else { continue };
            let mut s = TextSource::open(&p, Msr, None).unwrap();
            assert_eq!(all(&mut s).unwrap().len(), 20, "{f}");
        }
    }
}
