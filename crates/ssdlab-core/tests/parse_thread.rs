//! Parsing on a second thread changes nothing a consumer can see (issue 19): every text
//! format's fuzz cases (valid, mutated and random lines, sometimes gzipped, cut short or
//! corrupted; `support::text_cases`) read through `open_trace` with `parse_thread` off and on
//! give the same transcript — each request or error (message, file and line), the location
//! and skipped count after it, why the trace is empty after its end, and what reading on after
//! an error gives. The reader thread's own behaviour (batches, early drop, panics) is tested
//! in `trace::read_ahead`.

mod support;

use std::fmt::Write as _;

use rand::Rng;
use ssdlab_core::trace::{open_trace, TraceFormat, TraceSpec};
use support::fuzz;
use support::text_cases::{samples, text_case};

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

/// Everything a consumer of `spec` sees, up to 64 calls or a second end.
fn transcript(spec: &TraceSpec) -> String {
    let mut src = match open_trace(spec) {
        Ok(s) => s,
        Err(e) => return format!("open: {e}"),
    };
    let mut out = format!("{}\n", src.describe());
    let mut ends = 0;
    for _ in 0..64 {
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
            let direct = transcript(&spec);
            spec.parse_thread = Some(true);
            let ahead = transcript(&spec);
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
