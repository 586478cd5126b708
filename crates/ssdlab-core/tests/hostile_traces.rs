//! No panic from trace values: traces with extreme offsets, sizes and timestamps (overflowing
//! sums, zero sizes, ranges near 2^64, arrivals centuries apart, time running backwards) are
//! replayed through the public facade with every LBA map, timed and untimed, with the oracle
//! placement (which materialises the workload) and measured by `trace info`. Each must end in a
//! one-line error or a result, never a panic; the cases whose outcome is known are checked too.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::json;
use ssdlab_core::api;

/// Three ordinary requests every hostile file starts with (plain CSV: time_us,op,offset,size).
const GOOD: &str = "0,W,0,4096\n10,W,8192,8192\n20,R,0,4096\n";

const MAX: u64 = u64::MAX;

/// What replaying a file without an LBA map must give, timed and untimed: `Some(text)` = an
/// error containing it, `None` = a result.
type Want = [Option<&'static str>; 2];

/// (name, hostile lines, outcome).
fn cases() -> Vec<(&'static str, String, Want)> {
    vec![
        (
            "offset-plus-size-overflows",
            format!("30,W,{MAX},1\n"),
            [Some("overflows the address range"); 2],
        ),
        (
            "range-ends-at-2^64",
            format!("30,W,{},5\n", MAX - 10),
            [Some("beyond the logical capacity"); 2],
        ),
        (
            "size-2^64-1",
            format!("30,R,0,{MAX}\n"),
            [Some("larger than the logical space"); 2],
        ),
        (
            "zero-size-at-2^64-1",
            format!("30,W,{MAX},0\n"),
            [Some("beyond the logical capacity"); 2],
        ),
        (
            "zero-sizes",
            "30,W,0,0\n31,R,4096,0\n32,T,0,0\n".into(),
            [None; 2],
        ),
        (
            "trim-everything",
            "30,T,0,4096\n31,T,0,6710886\n".into(),
            [None; 2],
        ),
        (
            // 2^64 - 1 ns after the first request: beyond the simulated clock (which only
            // timed runs keep).
            "arrival-centuries-later",
            format!("{}.615,W,0,4096\n", MAX / 1000),
            [
                Some("arrives 18446744073709551615 ns after the first one"),
                None,
            ],
        ),
        (
            "time-runs-backwards",
            "5,W,0,4096\n0,W,4096,4096\n1,R,0,4096\n".into(),
            [None; 2],
        ),
    ]
}

fn fixture(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile-traces");
    std::fs::create_dir_all(&dir).expect("fixture dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

/// One replay of `path` on `tiny` (with `overrides`), timed or not, with an LBA map.
fn replay(
    path: &Path,
    format: &str,
    lba_map: &str,
    timed: bool,
    overrides: &[String],
) -> ssdlab_core::Result<()> {
    let device = api::load_device("tiny", "tiny", overrides)?;
    let workload = api::parse_workload(
        &json!({"kind": "trace", "path": path, "format": format, "lba_map": lba_map}).to_string(),
    )?;
    let options = api::parse_options(
        &json!({"seed": 1, "timing": timed, "replay": {"mode": "open-loop"}, "check_every": 1})
            .to_string(),
    )?;
    let mut sim = api::build_simulation(device, &workload, options)?;
    sim.run().map(|_| ())
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Every way of reading `path`; returns the problems found (panics, multi-line errors, and
/// the no-map outcome when `want` is given).
fn exercise(name: &str, path: &Path, format: &str, want: Option<Want>) -> Vec<String> {
    let mut problems = Vec::new();
    let oracle = vec!["ftl.placement=oracle".to_string()];
    for lba_map in ["none", "dense", "modulo"] {
        for (timed, overrides) in [(true, &vec![]), (false, &vec![]), (true, &oracle)] {
            let what = format!("{name} (lba_map {lba_map}, timed {timed}, {overrides:?})");
            match catch_unwind(AssertUnwindSafe(|| {
                replay(path, format, lba_map, timed, overrides)
            })) {
                Err(p) => problems.push(format!("{what}: PANIC: {}", panic_text(p))),
                Ok(Err(e)) if e.to_string().contains('\n') => {
                    problems.push(format!("{what}: error on several lines: {e}"))
                }
                Ok(r) => {
                    if let (Some(want), "none", true) = (want, lba_map, overrides.is_empty()) {
                        let want = want[usize::from(!timed)];
                        let ok = match (&r, want) {
                            (Ok(()), None) => true,
                            (Err(e), Some(w)) => e.to_string().contains(w),
                            _ => false,
                        };
                        if !ok {
                            problems.push(format!("{what}: expected {want:?}, got {r:?}"));
                        }
                    }
                }
            }
        }
    }
    let spec = json!({"path": path, "format": format}).to_string();
    if let Err(p) = catch_unwind(|| api::trace_stats(&spec, 4096)) {
        problems.push(format!("{name}: trace info: PANIC: {}", panic_text(p)));
    }
    problems
}

#[test]
fn hostile_csv_lines_are_errors_or_results_never_panics() {
    let mut problems = Vec::new();
    for (name, lines, want) in cases() {
        let p = fixture(&format!("{name}.csv"), &format!("{GOOD}{lines}"));
        problems.extend(exercise(name, &p, "csv", Some(want)));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn extreme_fields_of_the_other_formats_never_panic() {
    let m = MAX;
    let texts = [
        (
            "msr",
            format!("0,hm,0,Write,0,4096,1\n{},hm,0,Write,{m},{m},1\n", m / 100),
        ),
        (
            "disksim",
            format!("0 0 0 8 0\n{m} 0 {} {} 0\n", m / 512, m / 512),
        ),
        (
            "fin1",
            format!("0 0 0 0 Write 0 8 1\n1 {m} 0 0 Read {} 0 1\n", m / 512),
        ),
        (
            "spc",
            format!("0,0,4096,w,0\n0,{},{m},r,18446744073.709551615\n", m / 512),
        ),
        (
            "fiu",
            format!("0 1 p 0 8 W 8 0\n{m} 1 p {} {} R 8 0\n", m / 512, m / 512),
        ),
        (
            "vscsi-csv",
            format!(
                "1,0,2a,4096,0\n1,18446744073.709551615,28,{m},{}\n",
                m / 512
            ),
        ),
        (
            "csv",
            format!("0,W,0,4096\n18446744073709551.615,T,{m},{m}\n"),
        ),
    ];
    let mut problems = Vec::new();
    for (format, text) in texts {
        let p = fixture(&format!("extreme.{format}"), &text);
        problems.extend(exercise(format, &p, format, None));
    }
    // VSCSI v1 binary records: serial, length, n_sg, opcode, version, lbn, timestamp (µs).
    let record = |len: u32, op: u16, lbn: u64, ts: u64| {
        let mut r = Vec::with_capacity(32);
        r.extend_from_slice(&1u32.to_le_bytes());
        r.extend_from_slice(&len.to_le_bytes());
        r.extend_from_slice(&1u32.to_le_bytes());
        r.extend_from_slice(&op.to_le_bytes());
        r.extend_from_slice(&0x0100u16.to_le_bytes());
        r.extend_from_slice(&lbn.to_le_bytes());
        r.extend_from_slice(&ts.to_le_bytes());
        r
    };
    for (name, last) in [
        ("lbn-max", record(4096, 0x2a, m, 1)),
        ("ts-max", record(4096, 0x2a, 0, m)),
        ("ts-late", record(4096, 0x28, 0, m / 1000)),
        ("length-max", record(u32::MAX, 0x2a, m / 512 - 1, 2)),
        ("length-zero", record(0, 0x28, m / 512, 2)),
    ] {
        let mut bytes = record(4096, 0x2a, 0, 0);
        bytes.extend(record(4096, 0x28, 8, 1));
        bytes.extend(last);
        let p = fixture(&format!("{name}.vscsi"), "");
        std::fs::write(&p, bytes).expect("write vscsi");
        problems.extend(exercise(name, &p, "vscsi", None));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
