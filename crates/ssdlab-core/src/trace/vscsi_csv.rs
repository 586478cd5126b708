//! The CloudPhysics VSCSI traces in CSV form, as published with libCacheSim
//! (`data/cloudPhysicsIO.csv`): header `version,time,op,size,lbn`, time in seconds (decimal),
//! op the SCSI opcode in hex (`2a` write, `28` read; the table of [`super::vscsi::scsi_op`]),
//! size in bytes, lbn in 512-byte sectors. Other opcodes are skipped and counted.

use super::fields::{expected, looks_like_header, Fields};
use super::input::{LineFormat, Outcome};
use super::skips::SkipReason;
use super::vscsi::scsi_op;

/// The VSCSI CSV line format.
#[derive(Debug, Default)]
pub(crate) struct VscsiCsv;

impl LineFormat for VscsiCsv {
    fn name(&self) -> &'static str {
        "vscsi-csv"
    }

    fn parse(&mut self, line: &str, first: bool) -> Result<Outcome, String> {
        let f = Fields::comma(line);
        if first && looks_like_header(f.str(0, "version")?) {
            return Ok(Outcome::Ignore);
        }
        f.require(5, "version,time,op,size,lbn")?;
        f.u64(0, "version")?;
        let arrival_ns = f.decimal(1, "time seconds", 9)?;
        let o = f.str(2, "op")?;
        let code = u16::from_str_radix(o.trim_start_matches("0x"), 16)
            .map_err(|_| expected(2, "op", "a hexadecimal SCSI opcode", o))?;
        let size_bytes = f.u64(3, "size")?;
        let offset_bytes = f.scaled(4, "lbn", 512)?;
        match scsi_op(code) {
            Some(op) => Ok(Outcome::request(
                arrival_ns,
                op,
                offset_bytes,
                size_bytes,
                None,
            )),
            None => Ok(Outcome::Skip(SkipReason::UnknownOpcode)),
        }
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
    fn parses_skips_and_errors() {
        let p = fixture("c.csv", b"version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633899,12,36,0\n1,5633899.5,28,4096,8\n", false);
        let mut s = TextSource::open(&p, VscsiCsv, None).unwrap();
        let a = s.next_request().unwrap().unwrap();
        assert_eq!(
            a,
            Request {
                arrival_ns: 5_633_898_000_000_000,
                op: OpKind::Write,
                offset_bytes: 42_932_745 * 512,
                size_bytes: 512,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        let b = s.next_request().unwrap().unwrap();
        assert_eq!((b.op, b.arrival_ns), (OpKind::Read, 5_633_899_500_000_000));
        assert_eq!(s.skipped(), 1);
        assert_line_errors(
            "cbad.csv",
            "1,5,28,512,1\n",
            false,
            || VscsiCsv,
            &[
                (
                    "1,5,zz,512,1",
                    "field 3 (op): expected a hexadecimal SCSI opcode, got \"zz\"",
                ),
                (
                    "1,5,2a,-8,1",
                    "field 4 (size): expected a non-negative integer, got \"-8\"",
                ),
                ("1,5,2a,8", "too few fields"),
            ],
        );
    }
}
