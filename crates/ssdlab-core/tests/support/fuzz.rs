//! A small seeded fuzzing harness on stable Rust, for the parser and loader fuzz tests: case
//! counts from the environment, one reproducible random stream per case, mutations of real
//! lines (fields and bytes), panics caught and reported with the input that caused them, and a
//! watchdog that turns a hang into a failure naming the stuck case.
//!
//! Environment: `SSDLAB_FUZZ_CASES` (cases per target; the default keeps CI under a minute),
//! `SSDLAB_FUZZ_SEED` (a different but still reproducible run), `SSDLAB_FUZZ_CASE` (run only
//! that case index, e.g. to replay a reported failure).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use rand::Rng;
use ssdlab_core::rng::{stream, SimRng};

/// Cases per target in CI (each fuzz target runs at least this many).
pub const CI_CASES: u64 = 100_000;

/// A case that runs longer than this is reported as a hang.
const HANG_AFTER: Duration = Duration::from_secs(20);

pub fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?}: expected a non-negative integer")),
    )
}

/// The cases of a target: `SSDLAB_FUZZ_CASE` alone, else `0..SSDLAB_FUZZ_CASES` (default
/// [`CI_CASES`]).
pub fn cases() -> std::ops::Range<u64> {
    cases_share(1)
}

/// Like [`cases`], for one of `n` targets that share a run's cases (each gets `1/n` of them).
pub fn cases_share(n: u64) -> std::ops::Range<u64> {
    match env_u64("SSDLAB_FUZZ_CASE") {
        Some(i) => i..i + 1,
        None => 0..env_u64("SSDLAB_FUZZ_CASES").unwrap_or(CI_CASES) / n,
    }
}

/// The run's seed (`SSDLAB_FUZZ_SEED`, default fixed).
pub fn run_seed() -> u64 {
    env_u64("SSDLAB_FUZZ_SEED").unwrap_or(0x5eed_f022)
}

/// The random stream of case `i` of `target`: each case is reproducible on its own.
pub fn case_rng(target: &str, i: u64) -> SimRng {
    stream(
        run_seed().wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
        target,
    )
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent on fuzzing threads, whose panics are caught
/// and reported with their input, and defers to the default hook everywhere else.
fn quiet_panics_while_fuzzing() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "<non-text panic>".into())
}

/// Bytes shown as text with escapes (non-UTF-8 and control bytes as `\xNN`), cut to `max`.
pub fn show(bytes: &[u8], max: usize) -> String {
    let cut = &bytes[..bytes.len().min(max)];
    let mut s = String::new();
    for chunk in cut.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => s.push_str("\\n"),
                '\\' => s.push_str("\\\\"),
                c if c.is_control() => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
                c => s.push(c),
            }
        }
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    if bytes.len() > max {
        s.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    s
}

/// What a fuzz target did with its cases.
#[derive(Debug, Default)]
pub struct Tally {
    pub cases: u64,
    /// Cases whose input was rejected (an error, as wanted: one line, located).
    pub rejected: u64,
    pub problems: Vec<String>,
    pub problem_count: u64,
}

/// Runs `check` on every case of `target`. `make` writes case `i`'s input into the buffer from
/// the case's own random stream; `check` gets the input and returns `Ok(true)` for an accepted
/// input, `Ok(false)` for a properly rejected one, or a problem. Panics are caught and become
/// problems; a case running longer than [`HANG_AFTER`] fails the run, naming the case.
pub fn run(
    target: &str,
    cases: std::ops::Range<u64>,
    mut make: impl FnMut(&mut SimRng, &mut Vec<u8>),
    mut check: impl FnMut(u64, &[u8], &mut SimRng) -> Result<bool, String>,
) -> Tally {
    quiet_panics_while_fuzzing();
    let started = Instant::now();
    let current = AtomicU64::new(u64::MAX);
    let input = Mutex::new(Vec::new());
    let done = AtomicBool::new(false);
    let mut tally = Tally::default();
    // A single case (a replay) is shown whole.
    let shown_max = if cases.end - cases.start == 1 {
        usize::MAX
    } else {
        600
    };
    std::thread::scope(|s| {
        s.spawn(|| watchdog(target, &current, &input, &done));
        let mut buf = Vec::with_capacity(1024);
        for i in cases {
            let mut rng = case_rng(target, i);
            buf.clear();
            make(&mut rng, &mut buf);
            {
                let mut shown = input.lock().unwrap();
                shown.clear();
                shown.extend_from_slice(&buf);
            }
            current.store(i, Ordering::Release);
            QUIET.with(|q| q.set(true));
            let out = catch_unwind(AssertUnwindSafe(|| check(i, &buf, &mut rng)));
            QUIET.with(|q| q.set(false));
            tally.cases += 1;
            let problem = match out {
                Ok(Ok(true)) => None,
                Ok(Ok(false)) => {
                    tally.rejected += 1;
                    None
                }
                Ok(Err(p)) => Some(p),
                Err(p) => Some(format!("PANIC: {}", panic_text(p))),
            };
            if let Some(p) = problem {
                tally.problem_count += 1;
                if tally.problems.len() < 12 {
                    tally.problems.push(format!(
                        "{target} case {i} (SSDLAB_FUZZ_CASE={i}): {p}\n    input: \"{}\"",
                        show(&buf, shown_max)
                    ));
                }
            }
        }
        done.store(true, Ordering::Release);
    });
    // Straight to stderr (past the harness's capture): the counts show in every run.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "fuzz {target}: {} cases ({} rejected with a located one-line error) in {:.1} s",
        tally.cases,
        tally.rejected,
        started.elapsed().as_secs_f64()
    );
    tally
}

/// A scratch file for the cases of one target, rewritten for each case: in memory
/// (`/dev/shm`) where there is one, since a million small writes to a disk cost minutes; else
/// under the target's temporary folder. [`Scratch`] removes it when dropped.
pub fn scratch(name: &str) -> Scratch {
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        shm.join(format!("ssdlab-fuzz-{}", std::process::id()))
    } else {
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz")
    };
    std::fs::create_dir_all(&dir).expect("scratch folder");
    Scratch(dir.join(name))
}

/// A scratch file path, removed on drop.
pub struct Scratch(pub std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir(dir); // only once empty: the last target's file gone
        }
    }
}

/// Fails the test when any case found a problem, listing the first ones.
pub fn assert_clean(t: &Tally) {
    assert!(
        t.problem_count == 0,
        "{} of {} cases found problems; the first:\n{}",
        t.problem_count,
        t.cases,
        t.problems.join("\n")
    );
}

fn watchdog(target: &str, current: &AtomicU64, input: &Mutex<Vec<u8>>, done: &AtomicBool) {
    let mut last = (u64::MAX, Instant::now());
    while !done.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(50));
        let now = current.load(Ordering::Acquire);
        if now != last.0 {
            last = (now, Instant::now());
        } else if now != u64::MAX && last.1.elapsed() > HANG_AFTER {
            let shown = show(&input.lock().unwrap(), 600);
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "HANG: {target} case {now} (SSDLAB_FUZZ_CASE={now}) has run for {HANG_AFTER:?}\n    input: \"{shown}\""
            );
            std::process::abort();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mutations.

/// Field values that break parsers: empty, signs, overflowing and boundary integers, NaN and
/// infinities, exponents, hex, Unicode digits and blanks, stray separators.
pub const HOSTILE: &[&str] = &[
    "",
    "-1",
    "-0",
    "0",
    "1",
    "+7",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "36893488147419103232",
    "99999999999999999999999999999999",
    "18446744073709551.615",
    "18446744073.709551615",
    "18446744073.709551616",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "1e309",
    "1e-400",
    "1e19",
    "1.8446744073709552e19",
    "1.8446744073709552e10",
    "-1e3",
    "1E5",
    "0e0",
    "e",
    "1.",
    ".5",
    ".",
    "1.2.3",
    "0x2a",
    "2a",
    "28",
    "ff",
    "١٢٣",
    "\u{ff11}",
    "é",
    "\u{a0}1",
    "\u{feff}0",
    "\u{2028}",
    "1\u{85}",
    " ",
    "\t",
    "#",
    "R",
    "W",
    "T",
    "D",
    "Q",
    "C",
    "+",
    "Read",
    "Write",
    "trim",
    "r",
    "w",
    "WS",
    "FN",
    "8,0",
    "0,0",
    "4294967296,1",
    "[x]",
];

/// Bytes worth inserting: line structure, separators, signs, non-UTF-8 and NUL.
const BYTES: &[u8] = b"\n\r\t ,#+-.e0123456789\x00\xff\xfe\x80\xc3\xe2\x1f\x8b";

fn pick<'a, T>(rng: &mut SimRng, xs: &'a [T]) -> &'a T {
    &xs[rng.gen_range(0..xs.len())]
}

/// A random value for a field: a hostile one, a run of digits, or a random token.
pub fn random_field(rng: &mut SimRng) -> String {
    match rng.gen_range(0..10) {
        0..=5 => pick(rng, HOSTILE).to_string(),
        6..=7 => {
            let n = rng.gen_range(1..=24);
            (0..n)
                .map(|_| char::from(b'0' + rng.gen_range(0..10u8)))
                .collect()
        }
        8 => rng.gen::<u64>().to_string(),
        _ => {
            let n = rng.gen_range(1..=6);
            (0..n)
                .map(|_| char::from(rng.gen_range(0x21..0x7fu8)))
                .collect()
        }
    }
}

/// How a text format separates its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    Comma,
    Blank,
}

/// Mutates one field-separated line: replace, empty, duplicate, delete, swap fields, or add
/// extra columns.
pub fn mutate_fields(rng: &mut SimRng, line: &str, sep: Sep) -> String {
    let mut f: Vec<String> = match sep {
        Sep::Comma => line.split(',').map(str::to_string).collect(),
        Sep::Blank => line.split_whitespace().map(str::to_string).collect(),
    };
    if f.is_empty() {
        f.push(String::new());
    }
    let i = rng.gen_range(0..f.len());
    match rng.gen_range(0..8) {
        0..=2 => f[i] = random_field(rng),
        3 => f[i].clear(),
        4 => {
            let d = f[i].clone();
            f.insert(i, d);
        }
        5 => {
            f.remove(i);
        }
        6 => {
            let j = rng.gen_range(0..f.len());
            f.swap(i, j);
        }
        _ => {
            for _ in 0..rng.gen_range(1..=3) {
                f.push(random_field(rng));
            }
        }
    }
    let joiner = match sep {
        Sep::Comma => ",",
        Sep::Blank => *pick(rng, &[" ", "\t", "  "]),
    };
    f.join(joiner)
}

/// Mutates bytes in place: flip a bit, insert or delete a byte, overwrite one, truncate, or
/// duplicate a slice.
pub fn mutate_bytes(rng: &mut SimRng, b: &mut Vec<u8>) {
    let len = b.len();
    let at = |rng: &mut SimRng, n: usize| if n == 0 { 0 } else { rng.gen_range(0..n) };
    match rng.gen_range(0..7) {
        0 if len > 0 => {
            let i = at(rng, len);
            b[i] ^= 1 << rng.gen_range(0..8);
        }
        1 => {
            let i = at(rng, len + 1);
            let byte = if rng.gen_bool(0.7) {
                *pick(rng, BYTES)
            } else {
                rng.gen()
            };
            b.insert(i, byte);
        }
        2 if len > 0 => {
            b.remove(at(rng, len));
        }
        3 if len > 0 => {
            let i = at(rng, len);
            b[i] = rng.gen();
        }
        4 => b.truncate(at(rng, len + 1)),
        5 if len > 0 => {
            let i = at(rng, len);
            let j = rng.gen_range(i..=len.min(i + 16));
            let dup = b[i..j].to_vec();
            let k = at(rng, len + 1);
            b.splice(k..k, dup);
        }
        _ => b.extend((0..rng.gen_range(1..=8)).map(|_| rng.gen::<u8>())),
    }
}

/// Random bytes: fully random, or drawn from the characters text traces are made of.
pub fn random_bytes(rng: &mut SimRng, out: &mut Vec<u8>, max: usize) {
    let n = rng.gen_range(0..=max);
    if rng.gen_bool(0.5) {
        out.extend((0..n).map(|_| rng.gen::<u8>()));
    } else {
        const TEXT: &[u8] =
            b"0123456789012345678901234567890123456789,,,,    \t\n\n\n.-+eERWTDrwxQC#abc";
        out.extend((0..n).map(|_| *pick(rng, TEXT)));
    }
}

/// Gzips `content` (a few cases exercise the transparent decompression), sometimes cutting the
/// compressed stream short or flipping a byte in it.
pub fn gzip(rng: &mut SimRng, content: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(content).expect("gzip");
    let mut z = enc.finish().expect("gzip");
    match rng.gen_range(0..4) {
        0 => {
            let n = z.len();
            z.truncate(rng.gen_range(2..n));
        }
        1 => mutate_bytes(rng, &mut z),
        _ => {}
    }
    z
}
