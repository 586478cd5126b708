//! DiskSim-style ASCII traces as MQSim (`src/host/IO_Flow_Trace_Based.cpp`) and SSDsim
//! (`ssd.c`, `get_requests`) read them: whitespace-separated `time_ns device lba size type`,
//! lba and size in 512-byte sectors, type 1 = read, 0 = write. Also the `fin1` column layout of
//! the Financial1 excerpt: `index time_ns ? asu Read|Write lba size ?` (lba and size in sectors;
//! the two unnamed columns must be integers and are ignored). The device is column 2 (`device`,
//! resp. `asu`).

use super::fields::{expected, read_write_word, Fields};
use super::input::{LineFormat, Outcome};
use super::request::OpKind;

/// The DiskSim / MQSim / SSDsim ASCII line format.
#[derive(Debug, Default)]
pub(crate) struct Disksim;

impl LineFormat for Disksim {
    fn name(&self) -> &'static str {
        "disksim"
    }

    fn parse(&mut self, line: &str, _first: bool) -> Result<Outcome, String> {
        let f = Fields::whitespace(line);
        f.require(5, "time_ns device lba size type")?;
        let arrival_ns = f.u64(0, "time ns")?;
        let dev = f.u32(1, "device")?;
        let offset_bytes = f.scaled(2, "lba", 512)?;
        let size_bytes = f.scaled(3, "size sectors", 512)?;
        let t = f.str(4, "type")?;
        let op = match t {
            "1" => OpKind::Read,
            "0" => OpKind::Write,
            _ => return Err(expected(4, "type", "1 (read) or 0 (write)", t)),
        };
        Ok(Outcome::request(
            arrival_ns,
            op,
            offset_bytes,
            size_bytes,
            Some(dev),
        ))
    }
}

/// The `fin1` column layout of the Financial1 excerpt.
#[derive(Debug, Default)]
pub(crate) struct Fin1;

impl LineFormat for Fin1 {
    fn name(&self) -> &'static str {
        "fin1"
    }

    fn parse(&mut self, line: &str, _first: bool) -> Result<Outcome, String> {
        let f = Fields::whitespace(line);
        f.require(8, "index time_ns ? asu Read|Write lba size ?")?;
        f.u64(0, "index")?;
        let arrival_ns = f.u64(1, "time ns")?;
        f.u64(2, "unnamed column 3")?;
        let asu = f.u32(3, "asu")?;
        let t = f.str(4, "op")?;
        let op = read_write_word(t).ok_or_else(|| expected(4, "op", "Read or Write", t))?;
        let offset_bytes = f.scaled(5, "lba", 512)?;
        let size_bytes = f.scaled(6, "size sectors", 512)?;
        f.u64(7, "unnamed column 8")?;
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
    use super::super::input::testutil::{assert_line_errors, first_error, fixture, real};
    use super::super::input::TextSource;
    use super::super::request::Request;
    use super::super::request::RequestSource;
    use super::*;

    #[test]
    fn disksim_parses_and_errors() {
        let p = fixture("d.trace", b"0 0 303567 7 0\n78643005 1 55596 6 1\n", false);
        let mut s = TextSource::open(&p, Disksim, None).unwrap();
        assert_eq!(s.next_request().unwrap().unwrap().op, OpKind::Write);
        let r = s.next_request().unwrap().unwrap();
        assert_eq!(
            r,
            Request {
                arrival_ns: 78_643_005,
                op: OpKind::Read,
                offset_bytes: 55_596 * 512,
                size_bytes: 3072,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        assert_line_errors(
            "dbad.trace",
            "",
            true,
            || Disksim,
            &[
                (
                    "0 0 1 -8 0",
                    "field 4 (size sectors): expected a non-negative integer, got \"-8\"",
                ),
                (
                    "0 0 1 8 2",
                    "field 5 (type): expected 1 (read) or 0 (write), got \"2\"",
                ),
                ("0 0 1 8", "too few fields"),
                ("x 0 1 8 0", "field 1 (time ns)"),
            ],
        );
    }

    #[test]
    fn fin1_parses_and_errors() {
        let p = fixture(
            "fin1",
            b"0\t0\t0\t0\tWrite\t303552\t32\t1\n4\t78643000\t0\t1\tRead\t55584\t32\t1\n",
            false,
        );
        let mut s = TextSource::open(&p, Fin1, Some(1)).unwrap();
        let r = s.next_request().unwrap().unwrap();
        assert_eq!(
            r,
            Request {
                arrival_ns: 78_643_000,
                op: OpKind::Read,
                offset_bytes: 55_584 * 512,
                size_bytes: 16_384,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        let p = fixture("fin1bad", b"0\t0\t0\t0\tErase\t303552\t32\t1\n", false);
        let err = first_error(&p, Fin1);
        assert!(
            err.contains("fin1bad:1: field 5 (op): expected Read or Write"),
            "{err}"
        );
    }

    #[test]
    fn real_fin1_has_100_requests() {
        let Some(p) = real("spc_financial1/fin1") else {
            return;
        };
        let mut s = TextSource::open(&p, Fin1, None).unwrap();
        let mut n = 0;
        while s.next_request().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 100);
    }
}
