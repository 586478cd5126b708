//! Fuzzing the TOML device loader (`DeviceConfig::from_toml`, with `--set` overrides) on stable
//! Rust: 10^5 seeded cases (`fuzz::CI_CASES`) from every shipped preset's TOML (as shipped and
//! in its full serialised form), and 10^5 from small devices of every device model, with lines
//! mutated — values replaced by hostile ones (negative, huge, NaN, infinite, wrong types,
//! unknown policy names, bad parameters) or nudged past the edges validation guards, lines
//! deleted, duplicated, swapped or moved to another section, sections added, bytes flipped —
//! plus random bytes and random overrides. Every case must load or fail with one line naming a
//! TOML line (`config fuzz.toml:12: …`), a field (`config fuzz.toml: gc.victim: …`) or the
//! override (`config --set gc.victim=x: …`), never panic. A small device that loads is then
//! simulated for a short random workload: what validation accepts must run.
//!
//! CI: `cargo test --release -p ssdlab-core --test integration fuzz_config::` (about 30 s on 2 cores); a
//! longer run: `SSDLAB_FUZZ_CASES=10000000` (see `support/fuzz.rs`).

use std::collections::BTreeSet;

use crate::support::fuzz;
use rand::Rng;
use ssdlab_core::api;
use ssdlab_core::config::{DeviceConfig, FtlKind, Registry, SlcPolicyKind, PRESETS};
use ssdlab_core::rng::SimRng;
use ssdlab_core::sim::{check_memory, SimOptions, Simulation};
use ssdlab_core::trace::{OpKind, Request, VecSource};
use ssdlab_core::SsdError;
use strum::IntoEnumIterator;

const ORIGIN: &str = "fuzz.toml";

/// Hostile TOML values: out of range, overflowing, special floats, wrong types, odd strings.
const VALUES: &[&str] = &[
    "-1",
    "0",
    "1",
    "2",
    "3",
    "-0.0",
    "0.5",
    "0.999999",
    "1.0",
    "1e309",
    "1e-320",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "4294967295",
    "4294967296",
    "65535",
    "65536",
    "18446744073709551615",
    "0x10",
    "0o7",
    "0b1",
    "1_000",
    "true",
    "false",
    "\"\"",
    "\"x\"",
    "\"-1\"",
    "'tlc'",
    "\"\\u0000\"",
    "[]",
    "[1, 2]",
    "[-1]",
    "[nan]",
    "[[]]",
    "{}",
    "{ read_us = -1.0 }",
    "{ read_us = nan, program_us = 1.0, erase_us = 1.0 }",
    "{ read_us = 1e300, program_us = 1e300, erase_us = 1e300 }",
    "1979-05-27T07:32:00Z",
    "\"d-choices\"",
    "\"d-choices:d=0\"",
    "\"d-choices:d=1\"",
    "\"d-choices:d=18446744073709551615\"",
    "\"d-choices:d=\"",
    "\"d-choices:x=3\"",
    "\"windowed:w=0\"",
];

/// The texts cases start from: each preset as shipped, and as its full serialised form (every
/// field, the defaults written out).
fn seeds() -> Vec<String> {
    let mut v = Vec::new();
    for (name, text) in PRESETS {
        v.push(text.to_string());
        let cfg = DeviceConfig::from_preset(name, &[]).expect("shipped preset loads");
        v.push(cfg.to_toml());
    }
    v
}

/// Small devices, simulated when they still load after mutation: each preset shrunk (its own
/// sections kept), and the tiny device as every device model (Tiny-Tail Flash variants, the
/// hybrid device with each SLC-cache policy, the zoned device).
fn small_seeds() -> Vec<String> {
    let shrink = [
        "geometry.channels=4",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=48",
        "geometry.pages_per_block=8",
        "geometry.spare_factor=0.3",
    ];
    let mut variants: Vec<(&str, Vec<String>)> = PRESETS
        .iter()
        .map(|(n, _)| {
            let hybrid =
                DeviceConfig::from_preset(n, &[]).is_ok_and(|c| c.ftl.kind == FtlKind::Hybrid);
            let fit = ["cache.slc_blocks=8", "cache.dwa_max_dynamic_blocks=16"];
            let fit = if hybrid { &fit[..] } else { &[] };
            (*n, fit.iter().map(|s| s.to_string()).collect())
        })
        .collect();
    // RAIN parity takes one page of each 4-channel stripe: more spare.
    for rain in [
        &["ftl.kind=\"rain\""][..],
        &[
            "write_cache.mode=\"write-back\"",
            "write_cache.flush=\"gc-aware\"",
        ],
        &["ftl.kind=\"rain\"", "rain.gtr=true", "rain.rgc=true"],
        &[
            "write_cache.mode=\"write-through\"",
            "write_cache.eviction=\"cflru\"",
        ],
    ] {
        let sets = rain.iter().chain(&["geometry.spare_factor=0.45"]);
        variants.push(("tiny", sets.map(|s| s.to_string()).collect()));
    }
    for p in SlcPolicyKind::iter() {
        variants.push((
            "tiny",
            vec![
                "ftl.kind=\"hybrid\"".into(),
                format!("cache.slc=\"{}\"", p.name()),
                "geometry.cell_mode=\"qlc\"".into(),
                "cache.slc_blocks=8".into(),
            ],
        ));
    }
    // A zoned device as a seed of its own: found only by mutation, it was simulated or not
    // as the material's other fields moved the draws (a new config field hid it once).
    // Its zone size given, so that `[zns]` is in the material too (four planes of 8-page
    // blocks: 128 KiB, the default).
    variants.push((
        "tiny",
        vec!["ftl.kind=\"zoned\"".into(), "zns.zone_size_kib=128".into()],
    ));
    let mut v = Vec::new();
    for (name, extra) in variants {
        let sets: Vec<String> = shrink.iter().map(|s| s.to_string()).chain(extra).collect();
        let cfg = DeviceConfig::from_preset(name, &sets)
            .unwrap_or_else(|e| panic!("{name} shrunk with {sets:?}: {e}"));
        assert!(cfg.geometry.physical_pages() <= SIMULATE_PAGES);
        v.push(cfg.to_toml());
    }
    v
}

/// Every `key = value` line and `[section]` header of the seeds, and every registry member's
/// name as a quoted value: material to move between sections and files.
struct Material {
    lines: Vec<String>,
    values: Vec<String>,
    /// Top-level fields of a device configuration (`geometry`, `gc`, …).
    sections: BTreeSet<String>,
    /// `section.key` paths for `--set` overrides.
    paths: Vec<String>,
}

fn material(seeds: &[String]) -> Material {
    let mut lines = BTreeSet::new();
    let mut sections = BTreeSet::new();
    let mut paths = BTreeSet::new();
    for s in seeds {
        let mut section = String::new();
        for l in s
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            lines.insert(l.to_string());
            if let Some(h) = l.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
                section = h.to_string();
                sections.insert(h.split('.').next().unwrap_or(h).to_string());
            } else if let Some((k, _)) = l.split_once('=') {
                let k = k.trim();
                if section.is_empty() {
                    sections.insert(k.to_string());
                } else {
                    paths.insert(format!("{section}.{k}"));
                }
            }
        }
    }
    // Every top-level section of a configuration, also those no seed writes out (at their
    // defaults): serde lists them when it refuses an unknown one.
    let refusal = DeviceConfig::load("[no_such_section]\nx = 1\n", ORIGIN, &[])
        .expect_err("an unknown section is refused")
        .to_string();
    if let Some((_, names)) = refusal.split_once("expected one of ") {
        sections.extend(names.split('`').skip(1).step_by(2).map(str::to_string));
    }
    assert!(sections.contains("endurance"), "{refusal}");
    let mut values: Vec<String> = VALUES.iter().map(|v| v.to_string()).collect();
    for f in api::registries() {
        for m in f.members {
            values.push(format!("\"{}\"", m.name));
        }
    }
    Material {
        lines: lines.into_iter().collect(),
        values,
        sections,
        paths: paths.into_iter().collect(),
    }
}

fn pick<'a, T>(rng: &mut SimRng, xs: &'a [T]) -> &'a T {
    &xs[rng.gen_range(0..xs.len())]
}

/// A number near `old` (or `old` itself if it is no number): the edges validation must catch.
fn nudge(rng: &mut SimRng, old: &str) -> String {
    if let Ok(i) = old.parse::<i64>() {
        let v = match rng.gen_range(0..8) {
            0 => i.saturating_add(1),
            1 => i.saturating_sub(1),
            2 => i.saturating_mul(2),
            3 => i / 2,
            4 => i.saturating_mul(1000),
            5 => 0,
            6 => 1,
            _ => -i,
        };
        v.to_string()
    } else if let Ok(f) = old.parse::<f64>() {
        let v = match rng.gen_range(0..8) {
            0 => f * 0.5,
            1 => f * 2.0,
            2 => f + 0.1,
            3 => f - 0.1,
            4 => f * 1e6,
            5 => 0.0,
            6 => 1.0,
            _ => -f,
        };
        format!("{v:?}")
    } else {
        old.to_string()
    }
}

/// One line-level mutation of a TOML text held as lines.
fn mutate_lines(rng: &mut SimRng, m: &Material, lines: &mut Vec<String>) {
    if lines.is_empty() {
        lines.push(String::new());
    }
    let i = rng.gen_range(0..lines.len());
    match rng.gen_range(0..10) {
        0..=4 => {
            // A new value for a key: hostile, near the old one, or random.
            if let Some((k, old)) = lines[i].split_once('=') {
                let v = match rng.gen_range(0..10) {
                    0..=3 => pick(rng, &m.values).clone(),
                    4..=8 => nudge(rng, old.trim()),
                    _ => fuzz::random_field(rng),
                };
                lines[i] = format!("{}= {v}", k);
            }
        }
        5 => {
            lines.remove(i);
        }
        6 => {
            let d = lines[i].clone();
            lines.insert(rng.gen_range(0..=lines.len()), d);
        }
        7 => {
            let j = rng.gen_range(0..lines.len());
            lines.swap(i, j);
        }
        8 => lines.insert(i, pick(rng, &m.lines).clone()),
        _ => {
            let s = pick(
                rng,
                &["[bogus]", "[[geometry]]", "[gc.partial.extra]", "[]", "["],
            );
            lines.insert(i, s.to_string());
        }
    }
}

/// A random `--set` override: a real path with a hostile value, or a malformed one.
fn random_override(rng: &mut SimRng, m: &Material) -> String {
    match rng.gen_range(0..8) {
        0 => pick(
            rng,
            &[
                "gc",
                "=",
                "gc.=1",
                ".x=1",
                "gc..victim=1",
                "a.b.c.d=1",
                "name.x=1",
                "geometry.page_size",
            ],
        )
        .to_string(),
        1 => format!("{}={}", pick(rng, &m.paths), fuzz::random_field(rng)),
        _ => format!("{}={}", pick(rng, &m.paths), pick(rng, &m.values)),
    }
}

/// A case: `text` then `\0`-separated overrides (so the harness can show and replay it).
fn make_case(rng: &mut SimRng, seeds: &[String], m: &Material, out: &mut Vec<u8>) {
    if rng.gen_range(0..20) == 0 {
        fuzz::random_bytes(rng, out, 300);
    } else {
        let mut lines: Vec<String> = pick(rng, seeds).lines().map(str::to_string).collect();
        let n = *pick(rng, &[1, 1, 1, 2, 2, 3, 4]);
        for _ in 0..n {
            mutate_lines(rng, m, &mut lines);
        }
        out.extend_from_slice(lines.join("\n").as_bytes());
        if rng.gen_range(0..8) == 0 {
            for _ in 0..rng.gen_range(1..=3) {
                fuzz::mutate_bytes(rng, out);
            }
        }
    }
    out.retain(|&b| b != 0);
    if rng.gen_range(0..5) == 0 {
        for _ in 0..rng.gen_range(1..=3) {
            out.push(0);
            out.extend_from_slice(random_override(rng, m).as_bytes());
        }
    }
}

/// The error is one line and names a TOML line, a field or the override.
fn located(e: &SsdError, text: &str, m: &Material) -> Result<(), String> {
    let shown = e.to_string();
    if shown.contains(['\n', '\r']) {
        return Err(format!("error on several lines: {shown:?}"));
    }
    let SsdError::Config { origin, message } = e else {
        return Err(format!("not a configuration error: {shown}"));
    };
    if origin.starts_with("--set ") {
        return Ok(());
    }
    if let Some(line) = origin.strip_prefix(&format!("{ORIGIN}:")) {
        let max = text.matches('\n').count() as u64 + 1;
        return match line.parse::<u64>() {
            Ok(l) if (1..=max).contains(&l) => Ok(()),
            _ => Err(format!("names line {line} of {max}: {shown}")),
        };
    }
    if origin != ORIGIN && origin != &format!("{ORIGIN} (with --set overrides)") {
        return Err(format!("names another origin: {shown}"));
    }
    // `section.key[…]: …`, or serde's "missing field `x`" / "unknown field `x`".
    let field = message.split_once(": ").map(|(f, _)| f).unwrap_or("");
    let top = field.split(['.', '[']).next().unwrap_or("");
    let is_path = !field.is_empty()
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.[]-".contains(c))
        && m.sections.contains(top);
    if is_path || message.contains(" field `") {
        Ok(())
    } else {
        Err(format!("names no TOML line or field: {shown}"))
    }
}

/// A short random workload within the logical space of a device that loaded (enough writes for
/// GC on the small seeds): must run and leave the FTL consistent — validation promises that
/// what it accepts runs — or report the device full (a RAIN device whose spare does not cover
/// its parity livelocks once the footprint is large: that depends on the workload, so it is a
/// run-time answer, on one line). `Ok(true)`: the run ended with the device full.
fn simulate(rng: &mut SimRng, cfg: DeviceConfig) -> Result<bool, String> {
    let logical = cfg.logical_units();
    let unit = u64::from(cfg.unit_bytes());
    let n = (logical * 2).min(600);
    let mut t = 0u64;
    let reqs: Vec<Request> = (0..n)
        .map(|_| {
            t += rng.gen_range(0..50_000);
            let pages = rng.gen_range(1..=4u64).min(logical);
            Request {
                arrival_ns: t,
                op: *pick(
                    rng,
                    &[
                        OpKind::Write,
                        OpKind::Write,
                        OpKind::Write,
                        OpKind::Read,
                        OpKind::Trim,
                    ],
                ),
                offset_bytes: rng.gen_range(0..=logical - pages) * unit,
                size_bytes: pages * unit,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        })
        .collect();
    let options = SimOptions {
        seed: rng.gen(),
        timing: rng.gen_bool(0.7),
        check_every: 200,
        ..SimOptions::default()
    };
    // A device bigger than this machine's memory is refused when it is built, on one line
    // (`sim::check_memory`): an answer that depends on the machine, not a validation gap (any
    // positive `write_cache.size_mib` up to 1 TiB validates).
    if let Err(e) = check_memory(&cfg, &options) {
        let msg = e.to_string();
        return match msg.contains('\n') {
            true => Err(format!("the memory refusal is not one line: {msg}")),
            false => Ok(false),
        };
    }
    let run = Simulation::new(cfg, options, Box::new(VecSource::new(reqs))).and_then(|mut s| {
        s.run()?;
        s.ftl()
            .check_invariants()
            .map_err(|e| SsdError::Invalid(format!("FTL invariants broken: {e}")))
    });
    match run {
        Ok(()) => Ok(false),
        Err(e @ SsdError::DeviceFull(_)) if !e.to_string().contains('\n') => Ok(true),
        Err(e) => Err(format!(
            "the loaded device fails a short random workload: {e}"
        )),
    }
}

/// Devices up to this many physical pages are simulated after loading.
const SIMULATE_PAGES: u64 = 1 << 12;

/// Fuzzes the loader from `seeds`; each device that loads and has at most [`SIMULATE_PAGES`]
/// pages is simulated. Returns the device models simulated.
fn fuzz_toml(
    target: &str,
    seeds: &[String],
    m: &Material,
) -> (fuzz::Tally, u64, BTreeSet<&'static str>) {
    let mut simulated = 0u64;
    let mut full = 0u64;
    let mut models = BTreeSet::new();
    let tally = fuzz::run(
        target,
        fuzz::cases(),
        |rng, out| make_case(rng, seeds, m, out),
        |_, input, rng| {
            let text = String::from_utf8_lossy(input);
            let mut parts = text.split('\0');
            let toml = parts.next().unwrap_or("");
            let overrides: Vec<String> = parts.map(str::to_string).collect();
            match DeviceConfig::from_toml(toml, ORIGIN, &overrides) {
                Ok(cfg) => {
                    if cfg.geometry.physical_pages() <= SIMULATE_PAGES {
                        simulated += 1;
                        models.insert(cfg.ftl.kind.name());
                        full += u64::from(simulate(rng, cfg)?);
                    }
                    Ok(true)
                }
                Err(e) => located(&e, toml, m).map(|()| false),
            }
        },
    );
    fuzz::assert_clean(&tally);
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "fuzz {target}: {simulated} loaded devices simulated, {full} of them ended full"
    );
    if tally.cases >= 10_000 {
        let loaded = tally.cases - tally.rejected;
        assert!(
            loaded * 10 > tally.cases,
            "{target}: only {loaded} of {} cases loaded: the cases miss the valid side",
            tally.cases
        );
    }
    (tally, simulated, models)
}

/// The shipped presets, as shipped and in full (large devices: loaded, not simulated).
#[test]
fn fuzz_preset_toml() {
    let seeds = seeds();
    fuzz_toml(
        "preset-toml",
        &seeds,
        &material(&[seeds.clone(), small_seeds()].concat()),
    );
}

/// Small devices of every model: loaded, and simulated when they load.
#[test]
fn fuzz_small_device_toml() {
    let small = small_seeds();
    let (tally, simulated, models) = fuzz_toml(
        "small-device-toml",
        &small,
        &material(&[seeds(), small.clone()].concat()),
    );
    if tally.cases >= 10_000 {
        assert!(
            simulated * 10 > tally.cases,
            "only {simulated} of {} cases simulated",
            tally.cases
        );
        for kind in FtlKind::iter() {
            assert!(
                models.contains(kind.name()),
                "no {} device was simulated",
                kind.name()
            );
        }
    }
}
