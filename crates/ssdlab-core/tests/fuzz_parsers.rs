//! Fuzzing every trace parser on stable Rust: for each format, 10^5 seeded cases
//! (`fuzz::CI_CASES`) of random bytes and of valid lines mutated (bits flipped, bytes inserted
//! or deleted, truncated, fields duplicated, emptied or swapped, huge, negative, NaN and
//! non-UTF-8 values, extra columns), sometimes gzipped; format detection likewise; and the real
//! excerpts' own lines mutated when `../shared/traces` is present. Each case is written to a
//! file and read through to its end through the public entry points (`open_workload` with a
//! random LBA map, device filter, request limit and blkparse action, parsed on a reader thread
//! or not; `trace_info`; now and then a whole simulation). Every case must end in requests or in one error on one line that names
//! the file and line (`path:line: …`; binary records also their byte offset) — never a panic or
//! a hang.
//!
//! CI runs 10^5 cases per parser in release mode (`cargo test --release -p ssdlab-core --test
//! fuzz_parsers`, about 20 s on 2 cores); a longer run: `SSDLAB_FUZZ_CASES=10000000` (and
//! `SSDLAB_FUZZ_SEED=<n>` for other inputs). See `support/fuzz.rs` for the harness and
//! `SSDLAB_FUZZ_CASE=<i>` to replay one reported case.

use std::path::Path;

use crate::support::fuzz;
use crate::support::text_cases::{finish, samples, text_case};
use crate::support::traces;
use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::rng::SimRng;
use ssdlab_core::sim::{Replay, SimOptions, Simulation};
use ssdlab_core::trace::lba_map::LbaMapMode;
use ssdlab_core::trace::{
    open_workload, trace_info, BlkAction, TraceFormat, TraceSpec, WorkloadSpec,
};
use ssdlab_core::SsdError;
use strum::IntoEnumIterator;

/// One VSCSI v1 (32 bytes) or v2 (40 bytes) record with boundary values in every field.
fn vscsi_record(rng: &mut SimRng, v2: bool, out: &mut Vec<u8>) {
    let ops = [
        0x28u16, 0x2a, 0x08, 0x0a, 0x88, 0x8a, 0xa8, 0xaa, 0x12, 0x00,
    ];
    let op = if rng.gen_bool(0.9) {
        ops[rng.gen_range(0..ops.len())]
    } else {
        rng.gen()
    };
    let len = [0u32, 512, 4096, 65536, u32::MAX, rng.gen()][rng.gen_range(0..6)];
    let m = u64::MAX;
    let lbn = [0, 8, 1 << 20, m, m / 512, m / 512 + 1, rng.gen()][rng.gen_range(0..7)];
    let ts = [0, 5, 1 << 40, m, m / 1000, m / 1000 + 1, rng.gen()][rng.gen_range(0..7)];
    let major: u16 = if v2 { 2 } else { 1 };
    let version = match rng.gen_range(0..20) {
        0 => rng.gen(),
        _ => (major << 8) | rng.gen_range(0..4),
    };
    let serial: u32 = rng.gen();
    if v2 {
        out.extend(op.to_le_bytes());
        out.extend(version.to_le_bytes());
        out.extend(serial.to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(1u32.to_le_bytes());
        out.extend(lbn.to_le_bytes());
        out.extend(ts.to_le_bytes());
        out.extend(rng.gen::<u64>().to_le_bytes());
    } else {
        out.extend(serial.to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(1u32.to_le_bytes());
        out.extend(op.to_le_bytes());
        out.extend(version.to_le_bytes());
        out.extend(lbn.to_le_bytes());
        out.extend(ts.to_le_bytes());
    }
}

/// A binary case: a few records (one layout, now and then the other mixed in) with byte
/// mutations, or real records mutated, or random bytes.
fn vscsi_case(rng: &mut SimRng, real: &[u8], out: &mut Vec<u8>) {
    match rng.gen_range(0..10) {
        0 => fuzz::random_bytes(rng, out, 200),
        1..=6 if real.len() >= 32 * 6 => {
            let at = 32 * rng.gen_range(0..real.len() / 32 - 5);
            out.extend_from_slice(&real[at..at + 32 * rng.gen_range(1..=5)]);
            for _ in 0..rng.gen_range(1..=3) {
                fuzz::mutate_bytes(rng, out);
            }
        }
        _ => {
            let v2 = rng.gen_bool(0.4);
            for _ in 0..rng.gen_range(0..=5) {
                let other = rng.gen_range(0..20) == 0;
                vscsi_record(rng, v2 ^ other, out);
            }
            for _ in 0..rng.gen_range(0..=2) {
                fuzz::mutate_bytes(rng, out);
            }
        }
    }
    finish(rng, out);
}

/// The most lines (text) or records (binary) an error may name for `input`; unknown (any)
/// for gzip content.
fn max_position(input: &[u8], format: TraceFormat) -> u64 {
    if input.starts_with(&[0x1f, 0x8b]) {
        return u64::MAX;
    }
    let records = input.len().div_ceil(32).max(1) as u64;
    let lines = input.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    match format {
        TraceFormat::Vscsi => records,
        TraceFormat::Auto => records.max(lines),
        _ => lines,
    }
}

/// The error is one line and names the file and a line (record) of it, as `path:line: …`.
fn located(e: &SsdError, path: &Path, input: &[u8], format: TraceFormat) -> Result<(), String> {
    let text = e.to_string();
    if text.contains(['\n', '\r']) {
        return Err(format!("error on several lines: {text:?}"));
    }
    let file = path.display().to_string();
    let max = max_position(input, format);
    let in_range = |line: u64| {
        if (1..=max).contains(&line) {
            Ok(())
        } else {
            Err(format!("error names line {line} of {max}: {text}"))
        }
    };
    let binary = format == TraceFormat::Vscsi;
    match e {
        SsdError::Trace {
            file: f,
            line,
            message,
        } if *f == file => {
            in_range(*line)?;
            if !text.starts_with(&format!("{file}:{line}: ")) {
                return Err(format!("not of the form path:line: …: {text}"));
            }
            if binary && !message.contains("byte offset") {
                return Err(format!(
                    "binary record error without its byte offset: {text}"
                ));
            }
            Ok(())
        }
        // Errors of the reader beneath the parser (a corrupt gzip stream): the position read to.
        SsdError::Io { file: f, message } if *f == file => {
            let (line_at, offset_at) = ("reading line ", "byte offset ");
            let ok = match format {
                TraceFormat::Vscsi => message.contains(offset_at),
                // Detection reads the start; a file name may decide the format instead.
                TraceFormat::Auto => {
                    message.starts_with("detecting the format from bytes 0..")
                        || message.contains(line_at)
                        || message.contains(offset_at)
                }
                _ => message.contains(line_at) || message.starts_with("byte offset 0: "),
            };
            if ok {
                Ok(())
            } else {
                Err(format!("read error without the position: {text}"))
            }
        }
        // The simulation's checks on a request, prefixed by the request's file and line.
        SsdError::Invalid(m) => {
            let rest = m
                .strip_prefix(&format!("{file}:"))
                .and_then(|r| r.split_once(": "))
                .and_then(|(n, _)| n.parse::<u64>().ok());
            match rest {
                Some(line) => in_range(line),
                None if format == TraceFormat::Auto
                    && m.starts_with(&format!("{file}: cannot tell the trace format")) =>
                {
                    Ok(())
                }
                // A trace that yields no request is refused as a whole (no line is at fault),
                // naming the file and why, unless `allow_empty` (issue 18, item 2).
                None if m.starts_with(&format!(
                    "{file}: expected requests to replay, found none: "
                )) =>
                {
                    Ok(())
                }
                None => Err(format!("error does not name the file and line: {text}")),
            }
        }
        _ => Err(format!("error does not name the file and line: {text}")),
    }
}

/// A random reading of the trace at `path`: format, LBA map, device filter, request limit,
/// blkparse action and whether it is parsed on a second thread.
fn random_spec(rng: &mut SimRng, path: &Path, format: TraceFormat) -> TraceSpec {
    let maps: Vec<LbaMapMode> = LbaMapMode::iter().collect();
    let actions = [BlkAction::Queue, BlkAction::Dispatch, BlkAction::Complete];
    TraceSpec {
        path: path.to_path_buf(),
        format,
        device: (format.has_device() && rng.gen_bool(0.2)).then(|| rng.gen_range(0..3)),
        lba_map: maps[rng.gen_range(0..maps.len())],
        max_requests: rng.gen_bool(0.1).then(|| rng.gen_range(1..4)),
        blkparse_action: actions[rng.gen_range(0..3)],
        allow_empty: rng.gen_bool(0.5),
        // Both ways of reading, whatever the machine (drawn last, so that the spec's other
        // settings are those earlier versions drew for the same case).
        parse_thread: Some(rng.gen_bool(0.5)),
        // Drawn after everything earlier versions drew, for the same reason.
        repeat: if rng.gen_bool(0.2) { 3 } else { 1 },
        repeat_shift: false,
    }
}

/// More requests than any case can hold: a reader yielding this many is looping.
const MAX_REQUESTS: u64 = 1 << 20;

/// Reads the whole trace through one of the entry points. `Ok(true)`: read to its end;
/// `Ok(false)`: a located one-line error; `Err`: a problem.
fn read_through(
    rng: &mut SimRng,
    path: &Path,
    format: TraceFormat,
    input: &[u8],
) -> Result<bool, String> {
    let spec = random_spec(rng, path, format);
    let outcome = match rng.gen_range(0..32) {
        0..=23 => {
            // `dense` does work for every page a request covers (as serving it would), so its
            // cases get a small logical space; the other maps get huge ones too.
            let spaces = [1u64 << 20, 1 << 40, u64::MAX / 16384 * 16384];
            let n = if spec.lba_map == LbaMapMode::Dense {
                1
            } else {
                3
            };
            let logical = spaces[rng.gen_range(0..n)];
            let page = [512u64, 4096, 16384][rng.gen_range(0..3)];
            open_workload(&WorkloadSpec::Trace(spec), logical, page, 0).and_then(|mut src| {
                let mut n = 0u64;
                while src.next_request()?.is_some() {
                    n += 1;
                    if n > MAX_REQUESTS {
                        return Ok(Some(n));
                    }
                }
                let _ = (src.describe(), src.skipped(), src.location());
                Ok(None)
            })
        }
        24..=30 => trace_info(&spec, [1u64, 512, 4096][rng.gen_range(0..3)]).map(|_| None),
        _ => simulate(rng, spec).map(|_| None),
    };
    match outcome {
        Ok(None) => Ok(true),
        Ok(Some(n)) => Err(format!("the reader yielded more than {n} requests: a loop")),
        Err(e) => located(&e, path, input, format).map(|()| false),
    }
}

/// A whole simulation of the trace on the tiny device, timed or not.
fn simulate(rng: &mut SimRng, spec: TraceSpec) -> ssdlab_core::Result<()> {
    let device = DeviceConfig::from_preset("tiny", &[])?;
    let options = SimOptions {
        seed: 1,
        timing: rng.gen_bool(0.5),
        check_every: 1,
        replay: if rng.gen_bool(0.8) {
            Replay::OpenLoop {
                time_scale: [1.0, 0.5, 1e6][rng.gen_range(0..3)],
            }
        } else {
            Replay::ClosedLoop { queue_depth: 4 }
        },
        ..SimOptions::default()
    };
    let (bytes, page) = (
        device.geometry.logical_bytes(),
        u64::from(device.geometry.page_size),
    );
    let source = open_workload(&WorkloadSpec::Trace(spec), bytes, page, 1)?;
    Simulation::new(device, options, source)?.run().map(|_| ())
}

/// Fuzzes `format`: `make` builds each case's content, which is written to one scratch file
/// and read through.
fn fuzz_format(
    format: TraceFormat,
    cases: std::ops::Range<u64>,
    mut make: impl FnMut(&mut SimRng, &mut Vec<u8>),
) {
    let target = format.name();
    let scratch = fuzz::scratch(&format!("case.{target}"));
    let path = &scratch.0;
    let tally = fuzz::run(target, cases, &mut make, |_, input, rng| {
        std::fs::write(path, input).map_err(|e| format!("writing the case: {e}"))?;
        read_through(rng, path, format, input)
    });
    fuzz::assert_clean(&tally);
    // The fuzzing must reach both answers: requests from some cases, errors from many (VSCSI
    // accepts ~8 %: binary records break easily, and a trace with no request left is an error
    // unless allow_empty, drawn for half the cases).
    let accepted = tally.cases - tally.rejected;
    if tally.cases >= 10_000 {
        assert!(
            accepted * 20 > tally.cases && tally.rejected * 10 > tally.cases,
            "{target}: {accepted} accepted, {} rejected of {}: the cases do not reach both",
            tally.rejected,
            tally.cases
        );
    }
}

fn fuzz_text(format: TraceFormat) {
    let (sep, lines) = samples(format);
    fuzz_format(format, fuzz::cases(), |rng, out| {
        text_case(rng, sep, lines, out)
    });
}

macro_rules! text_targets {
    ($($test:ident => $format:ident,)*) => {
        $(
            #[test]
            fn $test() {
                fuzz_text(TraceFormat::$format);
            }
        )*
        /// The formats with a fuzz target of their own (text ones above, VSCSI below).
        const FUZZED: &[TraceFormat] = &[$(TraceFormat::$format,)* TraceFormat::Vscsi];
    };
}

text_targets! {
    fuzz_msr => Msr,
    fuzz_fiu => Fiu,
    fuzz_spc => Spc,
    fuzz_disksim => Disksim,
    fuzz_fin1 => Fin1,
    fuzz_blkparse => Blkparse,
    fuzz_vscsi_csv => VscsiCsv,
    fuzz_csv => Csv,
}

#[test]
fn fuzz_vscsi() {
    fuzz_format(TraceFormat::Vscsi, fuzz::cases(), |rng, out| {
        vscsi_case(rng, &[], out)
    });
}

/// Any format's case, for the format detection.
fn any_case(rng: &mut SimRng, out: &mut Vec<u8>) {
    let formats: Vec<TraceFormat> = TraceFormat::iter()
        .filter(|f| *f != TraceFormat::Auto)
        .collect();
    match formats[rng.gen_range(0..formats.len())] {
        TraceFormat::Vscsi => vscsi_case(rng, &[], out),
        f => {
            let (sep, lines) = samples(f);
            text_case(rng, sep, lines, out)
        }
    }
}

/// Format detection (`format = "auto"`): any format's case under a file name that may or may
/// not give the format away; must be read like the format it is taken for, or refused as one
/// whose format cannot be told.
#[test]
fn fuzz_auto_detection() {
    let names = [
        "case.txt",
        "case.csv",
        "case.vscsi",
        "case.blkparse",
        "case.trace.gz",
        "case",
    ];
    let files: Vec<_> = names
        .iter()
        .map(|n| fuzz::scratch(&format!("auto-{n}")))
        .collect();
    let tally = fuzz::run("auto", fuzz::cases(), any_case, |_, input, rng| {
        let path = &files[rng.gen_range(0..files.len())].0;
        std::fs::write(path, input).map_err(|e| format!("writing the case: {e}"))?;
        read_through(rng, path, TraceFormat::Auto, input)
    });
    fuzz::assert_clean(&tally);
}

/// The real excerpts (`../shared/traces`): their own lines and records mutated, by the format
/// each is in. Skipped, visibly, when the folder is absent.
#[test]
fn fuzz_real_excerpts() {
    let dir = traces::shared("");
    if !dir.is_dir() {
        traces::skipped(&traces::current_test(), &dir);
        return;
    }
    let excerpts = [
        ("msr_cambridge/hm_0_first20.csv", TraceFormat::Msr),
        ("msr_cambridge/rsrch_0_first20.csv", TraceFormat::Msr),
        ("spc_tpcc_websearch/tpcc-small.trace", TraceFormat::Disksim),
        ("spc_tpcc_websearch/wsrch-small.trace", TraceFormat::Disksim),
        ("spc_financial1/example.ascii", TraceFormat::Disksim),
        ("spc_financial1/fin1", TraceFormat::Fin1),
        ("cloudphysics/cloudPhysicsIO.csv", TraceFormat::VscsiCsv),
        ("cloudphysics/cloudPhysicsIO.vscsi", TraceFormat::Vscsi),
    ];
    for (rel, format) in excerpts {
        let p = traces::shared(rel);
        let Ok(bytes) = std::fs::read(&p) else {
            traces::skipped(&traces::current_test(), &p);
            continue;
        };
        let scratch = fuzz::scratch(&format!("real.{}", format.name()));
        let path = &scratch.0;
        let target = format!("real {rel}");
        let check = |_, input: &[u8], rng: &mut SimRng| {
            std::fs::write(path, input).map_err(|e| format!("writing the case: {e}"))?;
            read_through(rng, path, format, input)
        };
        let tally = if format == TraceFormat::Vscsi {
            let head = &bytes[..bytes.len().min(32 * 256)];
            fuzz::run(
                &target,
                fuzz::cases_share(5),
                |rng, out| vscsi_case(rng, head, out),
                check,
            )
        } else {
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().take(256).collect();
            let (sep, _) = samples(format);
            fuzz::run(
                &target,
                fuzz::cases_share(5),
                |rng, out| text_case(rng, sep, &lines, out),
                check,
            )
        };
        fuzz::assert_clean(&tally);
    }
}

#[test]
fn every_format_is_fuzzed() {
    let all: Vec<TraceFormat> = TraceFormat::iter()
        .filter(|f| *f != TraceFormat::Auto)
        .collect();
    for f in &all {
        assert!(
            FUZZED.contains(f),
            "trace format {f} has no fuzz target in this file"
        );
    }
    assert_eq!(all.len(), FUZZED.len());
}
