//! Cases for the text trace parsers: built-in valid lines of each format and the mutations
//! that make fuzz cases of them (shared by `fuzz_parsers` and `parse_thread`).

use rand::Rng;
use ssdlab_core::rng::SimRng;
use ssdlab_core::trace::TraceFormat;

use super::fuzz::{self, Sep};

/// Built-in valid lines of each text format (header, comment and summary lines included where
/// the format has them), so that the mutation fuzzing needs no files from outside.
pub fn samples(format: TraceFormat) -> (Sep, &'static [&'static str]) {
    match format {
        TraceFormat::Msr => (
            Sep::Comma,
            &[
                "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
                "128166385295514663,hm,0,Write,9056014336,2048,2833",
                "128166385295514878,hm,1,Read,4096,512,2617",
                "128166386018254410,rsrch,0,write,0,65536,1254",
            ],
        ),
        TraceFormat::Fiu => (
            Sep::Blank,
            &[
                "89967404265337 4892 syslogd 904265560 8 W 6 0 531e779ee0ea7e6f",
                "89967404297000 4892 syslogd 1000 16 R 6 1",
                "# comment",
            ],
        ),
        TraceFormat::Spc => (
            Sep::Comma,
            &[
                "0,303567,3584,w,0.000000",
                "1,55590,3072,R,0.026214",
                "0,1,8,r,0,extra,fields",
                "2,7,512,W,1e-3",
            ],
        ),
        TraceFormat::Disksim => (
            Sep::Blank,
            &[
                "0 0 303567 7 0",
                "78643005 1 55596 6 1",
                "26214000 1 240840 6 1",
            ],
        ),
        TraceFormat::Fin1 => (
            Sep::Blank,
            &[
                "0\t0\t0\t0\tWrite\t303552\t32\t1",
                "4\t78643000\t0\t1\tRead\t55584\t32\t1",
            ],
        ),
        TraceFormat::Blkparse => (
            Sep::Blank,
            &[
                "  8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [kjournald]",
                "  8,0    3        3     0.000002500   697  D  WS 223490 + 8 [kjournald]",
                "  8,0    3        4     0.000003000   697  D   R 100 + 16 [cat]",
                "  8,0    3        5     0.000004000   697  D   D 4096 + 2048 [fstrim]",
                "  8,0    3        6     0.000005000   697  D  FN [kworker]",
                "  8,0    3        7     0.000433541     0  C  WS 223490 + 8 [0]",
                "  8,0    3        8     0.000500000   697  m   N cfq697 sl_used=2 disp=1",
                "CPU3 (8,0):",
                " Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB",
                "Events (8,0): 8 entries",
            ],
        ),
        TraceFormat::VscsiCsv => (
            Sep::Comma,
            &[
                "version,time,op,size,lbn",
                "1,5633898,2a,512,42932745",
                "1,5633899,12,36,0",
                "1,5633899.5,28,4096,8",
                "1,5633900,0x88,8192,16",
            ],
        ),
        TraceFormat::Csv => (
            Sep::Comma,
            &[
                "time_us,op,offset_bytes,size_bytes",
                "1.5,W,4096,8192",
                "2,trim,0,4096",
                "3,r,0,512",
            ],
        ),
        TraceFormat::Vscsi | TraceFormat::Auto => unreachable!("not a text format"),
    }
}

/// A text case: mostly a few valid or mutated lines, sometimes random bytes, now and then the
/// whole content mutated again or gzipped.
pub fn text_case(rng: &mut SimRng, sep: Sep, lines: &[&str], out: &mut Vec<u8>) {
    if rng.gen_range(0..20) == 0 {
        fuzz::random_bytes(rng, out, 300);
        return;
    }
    for k in 0..rng.gen_range(1..=5) {
        let base = lines[rng.gen_range(0..lines.len())];
        let mut line = base.as_bytes().to_vec();
        match rng.gen_range(0..10) {
            0..=3 => {}
            4..=6 => {
                let mut s = base.to_string();
                for _ in 0..rng.gen_range(1..=2) {
                    s = fuzz::mutate_fields(rng, &s, sep);
                }
                line = s.into_bytes();
            }
            7..=8 => {
                for _ in 0..rng.gen_range(1..=3) {
                    fuzz::mutate_bytes(rng, &mut line);
                }
            }
            _ => {
                line = fuzz::mutate_fields(rng, base, sep).into_bytes();
                fuzz::mutate_bytes(rng, &mut line);
            }
        }
        if k > 0 || rng.gen_bool(0.9) {
            out.extend_from_slice(&line);
        }
        match rng.gen_range(0..10) {
            0 => out.extend_from_slice(b"\r\n"),
            1 => {}
            _ => out.push(b'\n'),
        }
    }
    if rng.gen_range(0..10) == 0 {
        fuzz::mutate_bytes(rng, out);
    }
    finish(rng, out);
}

/// Gzips one case in twenty (sometimes cut short or corrupted).
pub fn finish(rng: &mut SimRng, out: &mut Vec<u8>) {
    if rng.gen_range(0..20) == 0 {
        let z = fuzz::gzip(rng, out);
        *out = z;
    }
}
