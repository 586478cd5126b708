//! Parsing on a second thread changes nothing a consumer can see (issue 19): every text
//! format's fuzz cases (valid, mutated and random lines, sometimes gzipped, cut short or
//! corrupted; `support::text_cases`) read through `open_trace` with `parse_thread` off and on
//! give the same transcript — each request or error (message, file and line), the location
//! and skipped count after it, why the trace is empty after its end, and what reading on after
//! an error gives. Also MSR traces of several reader batches with errors across them, cut-short
//! gzip, and traces with nothing to replay. The reader thread's own behaviour (early drop,
//! panics) is tested in `trace::read_ahead`.

use std::fmt::Write as _;

use crate::support::fuzz;
use crate::support::text_cases::{samples, text_case};
use rand::Rng;
use ssdlab_core::trace::{open_trace, TraceFormat, TraceSpec};

const TEXT_FORMATS: [TraceFormat; 8] = [
    TraceFormat::Msr,
    TraceFormat::Fiu,
    TraceFormat::Spc,
    TraceFormat::Disksim,
    TraceFormat::Fin1,
    TraceFormat::Blkparse,
    TraceFormat::VscsiCsv,
    TraceFormat::Csv,
];

/// Everything a consumer of `spec` sees, up to `calls` calls or a second end.
fn transcript(spec: &TraceSpec, calls: usize) -> String {
    let mut src = match open_trace(spec) {
        Ok(s) => s,
        Err(e) => return format!("open: {e}"),
    };
    let mut out = format!("{}\n", src.describe());
    let mut ends = 0;
    for _ in 0..calls {
        let r = src.next_request();
        let _ = match &r {
            Ok(Some(q)) => write!(out, "{q:?}"),
            Ok(None) => write!(out, "end"),
            Err(e) => write!(out, "error {e}"),
        };
        let _ = writeln!(out, " at {:?}, {} skipped", src.location(), src.skipped());
        match r {
            Ok(Some(_)) => {}
            Ok(None) => {
                let _ = writeln!(out, "why empty: {:?}", src.why_empty());
                ends += 1;
                if ends == 2 {
                    break;
                }
            }
            Err(_) => {}
        }
    }
    out
}

#[test]
fn both_ways_read_the_same() {
    let scratch = fuzz::scratch("parse_thread.case");
    let path = &scratch.0;
    let (mut cases, mut errors) = (0u64, 0u64);
    for format in TEXT_FORMATS {
        let (sep, lines) = samples(format);
        // A share of the fuzz run's cases: each costs a thread start, and the parsers' own
        // fuzzing (`fuzz_parsers`, half of its cases on a reader thread) covers the rest.
        for i in fuzz::cases_share(50) {
            let mut rng = fuzz::case_rng(&format!("parse_thread {}", format.name()), i);
            let mut input = Vec::new();
            text_case(&mut rng, sep, lines, &mut input);
            std::fs::write(path, &input).expect("writing the case");
            let mut spec = TraceSpec {
                format,
                device: (format.has_device() && rng.gen_bool(0.3)).then(|| rng.gen_range(0..3)),
                ..TraceSpec::new(path)
            };
            spec.parse_thread = Some(false);
            let direct = transcript(&spec, 64);
            spec.parse_thread = Some(true);
            let ahead = transcript(&spec, 64);
            assert!(
                direct == ahead,
                "{} case {i} ({}): parsed directly:\n{direct}\non a reader thread:\n{ahead}",
                format.name(),
                fuzz::show(&input, 200)
            );
            cases += 1;
            errors += u64::from(direct.contains("\nerror "));
        }
    }
    // The cases reach both outcomes, so the comparison covers errors as well as requests.
    assert!(
        errors * 10 > cases && errors * 10 < cases * 9,
        "{errors} of {cases}"
    );
}

/// The reader's batch of lines (`trace::read_ahead`): the traces below span several batches.
const BATCH: usize = 4096;

/// The transcript of MSR trace `path` (disk filter `device`) read directly, after checking that
/// a reader thread gives the same.
fn same_both_ways(path: &std::path::Path, device: Option<u32>, calls: usize) -> String {
    let mut spec = TraceSpec {
        format: TraceFormat::Msr,
        device,
        ..TraceSpec::new(path)
    };
    spec.parse_thread = Some(false);
    let want = transcript(&spec, calls);
    spec.parse_thread = Some(true);
    let got = transcript(&spec, calls);
    if got != want {
        let i = want.lines().zip(got.lines()).position(|(a, b)| a != b);
        panic!(
            "{}: first difference at line {i:?} of {} / {}",
            path.display(),
            want.lines().count(),
            got.lines().count()
        );
    }
    want
}

fn fixture(name: &str, content: &[u8]) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parse_thread");
    std::fs::create_dir_all(&dir).expect("fixture folder");
    let p = dir.join(name);
    std::fs::write(&p, content).expect("fixture");
    p
}

fn gzipped(content: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(content).expect("gzip");
    enc.finish().expect("gzip")
}

/// An MSR trace of `n` records with a header, comments, blank lines, records of disk 1
/// (skipped by a filter on disk 0), and the `bad` records malformed.
fn msr_trace(n: usize, bad: &[usize]) -> String {
    let mut t = String::from("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n");
    for i in 0..n {
        let _ = match i {
            _ if bad.contains(&i) => writeln!(t, "{i},hm,0,Erase,0,4096,1"),
            _ if i % 97 == 0 => writeln!(t, "# comment {i}"),
            _ if i % 101 == 0 => writeln!(t, "   "),
            _ => writeln!(
                t,
                "{},hm,{},{},{},4096,{i}",
                1_000_000 + i,
                u8::from(i % 13 == 0),
                if i % 3 == 0 { "Read" } else { "Write" },
                (i % 1000) * 4096
            ),
        };
    }
    t
}

#[test]
fn errors_across_batches_read_the_same() {
    let bad = [2 * BATCH + 5, 2 * BATCH + 6, 3 * BATCH - 1];
    let text = msr_trace(3 * BATCH + 17, &bad);
    for (name, content) in [
        ("ahead.csv", text.clone().into_bytes()),
        ("ahead.csv.gz", gzipped(text.as_bytes())),
    ] {
        let p = fixture(name, &content);
        for device in [None, Some(0)] {
            let t = same_both_ways(&p, device, 4 * BATCH);
            // The errors are there, each after the requests before its line, and reading
            // went on after them to the end.
            let line = bad[0] + 2;
            assert!(
                t.contains(&format!("error {}:{line}: field 4 (type)", p.display())),
                "{name}"
            );
            assert_eq!(t.matches("error ").count(), bad.len(), "{name}");
            assert_eq!(t.matches("\nend at ").count(), 2, "{name}");
        }
    }
}

#[test]
fn truncated_gzip_and_empty_traces_read_the_same() {
    let gz = gzipped(msr_trace(2 * BATCH, &[]).as_bytes());
    // Named without .gz: read as gzip by its magic bytes.
    let cut = fixture("cut.csv", &gz[..gz.len() * 3 / 5]);
    let t = same_both_ways(&cut, None, 4 * BATCH);
    assert!(t.contains("error ") && t.contains("reading line"), "{t}");
    // Only other disks, and only a header: nothing is replayed, and both say why.
    let other = fixture("other.csv", b"1,hm,1,Read,0,512,1\n2,hm,2,Read,0,512,1\n");
    let t = same_both_ways(&other, Some(0), 10);
    assert!(t.contains("all 2 records were skipped"), "{t}");
    let header = fixture("header.csv", b"Timestamp,Hostname,DiskNumber\n");
    let t = same_both_ways(&header, None, 10);
    assert!(t.contains("holds no record"), "{t}");
}
