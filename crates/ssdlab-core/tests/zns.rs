//! Zoned Namespace devices (issue 62): the zones' rules over seeded random commands, exact
//! timing of an append and a reset, device WAF 1 under the host cleaner with its own WAF
//! reported, the workload writing zones itself (counted or, strict, refused with the trace's
//! line), and bad geometries in one line.

use std::io::Write;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value};
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::ftl::zoned::zones::{ZoneState, Zones};
use ssdlab_core::ftl::zoned::ZonedDevice;

use crate::support::json_run::run;

const ZONED: [&str; 1] = ["ftl.kind=\"zoned\""];

fn zoned(sets: &[&str]) -> DeviceConfig {
    let mut all: Vec<String> = ZONED.iter().map(|s| s.to_string()).collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("tiny", &all).expect("zoned tiny")
}

/// Seeded random zone commands (writes at and off the pointer, appends, opens, closes,
/// finishes, resets) against small limits: the write pointer moves back only on a reset, no
/// write succeeds off it or past the capacity, a failed command changes nothing, and the open
/// and active counts stay within the limits.
#[test]
fn zone_rules_hold_over_random_commands() {
    let cases: u64 = std::env::var("SSDLAB_ZONE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for case in 0..cases {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(case);
        let n = rng.gen_range(1..12u32);
        let cap = rng.gen_range(1..40u32);
        let max_open = rng.gen_range(1..5u32);
        let max_active = max_open + rng.gen_range(0..3u32);
        let mut z = Zones::new(n, cap, max_open, max_active);
        for step in 0..400 {
            let k = rng.gen_range(0..n);
            let before: Vec<(ZoneState, u32)> =
                (0..n).map(|i| (z.state(i), z.write_pointer(i))).collect();
            let failed_before = z.violations.total();
            let what = rng.gen_range(0..10);
            let ok = match what {
                0..=3 => {
                    let wp = z.write_pointer(k);
                    let at = if rng.gen_bool(0.8) {
                        wp
                    } else {
                        rng.gen_range(0..cap)
                    };
                    let len = rng.gen_range(1..4);
                    let r = z.write(k, Some(at), len);
                    if let Ok(first) = r {
                        assert_eq!(first, wp, "case {case} step {step}: wrote off the pointer");
                        assert_eq!(z.write_pointer(k), wp + len);
                        assert!(wp + len <= cap);
                    }
                    r.is_ok()
                }
                4 | 5 => {
                    let wp = z.write_pointer(k);
                    let r = z.write(k, None, 1);
                    if let Ok(first) = r {
                        assert_eq!(first, wp, "case {case}: append not at the pointer");
                    }
                    r.is_ok()
                }
                6 => z.open_zone(k).is_ok(),
                7 => z.close(k).is_ok(),
                8 => z.finish(k).is_ok(),
                _ => {
                    z.reset(k);
                    true
                }
            };
            z.check()
                .unwrap_or_else(|e| panic!("case {case} step {step}: {e}"));
            if !ok {
                assert_eq!(z.violations.total(), failed_before + 1);
                let after: Vec<_> = (0..n).map(|i| (z.state(i), z.write_pointer(i))).collect();
                assert_eq!(
                    before, after,
                    "case {case} step {step}: a failed command moved state"
                );
            }
            for (i, &(_, wp)) in before.iter().enumerate() {
                let reset_here = what == 9 && i as u32 == k;
                assert!(
                    reset_here || z.write_pointer(i as u32) >= wp,
                    "case {case} step {step}: zone {i}'s pointer moved back without a reset"
                );
            }
        }
    }
}

/// The open limit: the oldest implicitly open zone is closed to make room; with every open
/// zone explicitly opened, one more fails.
#[test]
fn too_many_open_zones() {
    let mut z = Zones::new(4, 8, 2, 3);
    z.write(0, None, 1).unwrap();
    z.write(1, None, 1).unwrap();
    z.write(2, None, 1).unwrap();
    assert_eq!(z.state(0), ZoneState::Closed);
    assert_eq!(z.commands.implicit_closes, 1);
    // Three active of three: an empty zone cannot open.
    assert!(z.write(3, None, 1).is_err());
    assert_eq!(z.violations.too_many_active, 1);
    z.open_zone(1).unwrap();
    z.open_zone(2).unwrap();
    assert!(z.open_zone(0).is_err());
    assert_eq!(z.violations.too_many_open, 1);
}

/// Exact timing on an idle device: an append costs one page transfer and program; a reset
/// costs its blocks' erases, in parallel on different planes (striped), one after another on
/// one plane (a die group's zone of four blocks on its die's two planes).
#[test]
fn an_append_costs_one_program_and_a_reset_its_erases() {
    let cfg = zoned(&[]);
    let mut dev = ZonedDevice::new(&cfg).expect("device");
    let t = dev.flash().times();
    let (program, erase, xfer) = (t.program_ns, t.erase_ns, t.transfer_ns);
    let (at, d) = dev.write(3, None, 1, 1_000, true).expect("append");
    assert_eq!(at, 0);
    assert_eq!(
        d.done - 1_000,
        xfer + program,
        "append: one transfer and program"
    );
    // Fill every block of the zone once (4 blocks striped over 4 planes), then reset when idle.
    let blocks = dev.shape().blocks;
    let (_, d) = dev.write(3, None, blocks - 1, d.done, true).expect("fill");
    let r = dev.reset(3, d.done + 10, true);
    assert_eq!(
        r.done - (d.done + 10),
        erase,
        "striped reset: parallel erases"
    );
    assert_eq!(dev.media.block_erases, u64::from(blocks));
    // A reset of a zone that holds one page erases one block.
    let (_, d) = dev.write(5, None, 1, r.done, true).expect("append");
    let before = dev.media.block_erases;
    let r = dev.reset(5, d.done, true);
    assert_eq!(
        (r.done - d.done, dev.media.block_erases - before),
        (erase, 1)
    );
    // Die groups of one die hold a 4-block zone on its die's 2 planes: 2 erases per plane.
    let cfg = zoned(&["zns.layout=\"die-group\"", "zns.zone_size_kib=512"]);
    let mut dev = ZonedDevice::new(&cfg).expect("device");
    let (_, d) = dev.write(0, None, 4, 0, true).expect("fill");
    let r = dev.reset(0, d.done, true);
    assert_eq!(
        r.done - d.done,
        2 * erase,
        "die-group reset: two erases per plane"
    );
}

fn uniform(requests: u64) -> Value {
    json!({"kind": "synthetic", "pattern": "uniform", "requests": requests, "read_fraction": 0.3})
}

/// The host cleaner on a random workload: the device programs exactly what it is sent (device
/// WAF 1), the cleaner's copies are its own WAF, the end-to-end WAF their product; its
/// resets are the device's erases; invariants (the cleaner's pages at the zones' pointers)
/// hold throughout.
#[test]
fn the_cleaner_writes_amplify_and_the_device_does_not() {
    let opts = json!({"seed": 3, "check_every": 97, "precondition": {"random_passes": 1.0}});
    for sets in [
        vec![],
        vec!["ftl.placement=\"hot-cold\""],
        vec![
            "zns.layout=\"die-group\"",
            "zns.zone_size_kib=256",
            "gc.victim=\"cost-benefit\"",
        ],
    ] {
        let mut all = ZONED.to_vec();
        all.extend(sets.iter().copied());
        let r = run("tiny", &all, &uniform(20_000), &opts).expect("zoned run");
        let z = &r["zns"];
        let host = z["host_pages_written"].as_u64().unwrap();
        let copies = z["cleaner_pages_copied"].as_u64().unwrap();
        eprintln!(
            "{sets:?}: host WAF {}, end to end {}",
            z["host_waf"], r["waf"]
        );
        assert_eq!(z["device_waf"].as_f64(), Some(1.0), "{sets:?}");
        assert_eq!(z["device_pages_written"].as_u64().unwrap(), host + copies);
        assert!(copies > 0, "{sets:?}: the cleaner never cleaned");
        let host_waf = z["host_waf"].as_f64().unwrap();
        assert!((host_waf - r["waf"].as_f64().unwrap()).abs() < 1e-12);
        assert_eq!(r["erases"], z["block_erases"]);
        assert_eq!(r["gc_busy_s"].as_f64(), Some(0.0), "no device GC");
        assert_eq!(z["violations"]["off_write_pointer"], 0);
    }
}

fn trace(lines: &[&str]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-zns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zones.csv");
    let mut f = std::fs::File::create(&path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    path
}

/// No host layer: writes at the pointer are served, one off it is counted (or, strict, stops
/// the run naming the trace's line); a trim of a whole zone resets it.
#[test]
fn the_workload_writes_zones_itself() {
    // tiny: a zone is 4 blocks × 32 pages of 4 KiB = 512 KiB.
    let t = trace(&[
        "0,W,0,8192",
        "1000,W,8192,4096",
        "2000,W,65536,4096",
        "3000,R,0,8192",
        "4000,T,0,524288",
        "5000,W,0,4096",
    ]);
    let w = json!({"kind": "trace", "path": t, "format": "csv"});
    let opts = json!({"seed": 1, "check_every": 1});
    let none = ["ftl.kind=\"zoned\"", "zns.host=\"none\""];
    let r = run("tiny", &none, &w, &opts).expect("direct run");
    let z = &r["zns"];
    assert_eq!(z["violations"]["off_write_pointer"], 1);
    assert_eq!(z["commands"]["resets"], 1);
    assert_eq!(z["device_pages_written"], 4);
    assert_eq!(
        r["erases"], 3,
        "the reset erased the 3 blocks the zone's 3 pages were on"
    );
    let strict = ["ftl.kind=\"zoned\"", "zns.host=\"none\"", "zns.strict=true"];
    let e = run("tiny", &strict, &w, &opts).unwrap_err().to_string();
    assert!(
        e.contains("request (write at byte offset 65536, 4096 bytes, arriving at 2000000 ns): zns.strict: write refused"),
        "{e}"
    );
    assert!(e.contains("off the zone's write pointer"), "{e}");
    assert!(!e.contains('\n'));
}

/// Bad zone geometries and combinations: one line naming the field.
#[test]
fn bad_zone_settings_name_their_field() {
    for (sets, field) in [
        (
            vec!["zns.zone_size_kib=200"],
            "zns.zone_size_kib: expected a whole number of 128 KiB",
        ),
        (
            vec!["zns.zone_size_kib=0", "zns.zone_capacity_kib=1000"],
            "zns.zone_capacity_kib",
        ),
        (vec!["zns.max_active=2", "zns.max_open=3"], "zns.max_active"),
        (
            vec!["zns.layout=\"die-group\"", "zns.group_dies=3"],
            "zns.group_dies",
        ),
        (
            vec!["zns.max_open=1", "ftl.placement=\"hot-cold\""],
            "zns.max_open",
        ),
        (vec!["write_cache.mode=\"write-back\""], "write_cache.mode"),
        (vec!["fdp.handles=2"], "fdp.handles"),
        (vec!["gc.scheduler=\"lazyrtgc\""], "gc.scheduler"),
    ] {
        let mut all: Vec<String> = ZONED.iter().map(|s| s.to_string()).collect();
        all.extend(sets.iter().map(|s| s.to_string()));
        let e = DeviceConfig::from_preset("tiny", &all)
            .unwrap_err()
            .to_string();
        assert!(e.contains(field), "{sets:?}: {e}");
        assert!(!e.contains('\n') && e.len() < 400, "{e}");
    }
    let e = DeviceConfig::from_preset("tiny", &["zns.max_open=3".to_string()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("set ftl.kind = \"zoned\""), "{e}");
}

/// Runs of reads or programs take what as many single commands take: on one plane, one after
/// another; on two planes of one channel, their transfers in the order they are ready (here
/// alternating) — and leave the channel as the single commands do (a read on a third plane of
/// the channel after them ends at the same time).
#[test]
fn runs_of_commands_take_the_time_of_single_ones() {
    use ssdlab_core::flash::Resources;
    let cfg = DeviceConfig::from_preset("mqsim-small", &[]).expect("preset");
    for reads in [true, false] {
        // With traffic on the channel first (on another plane of it), and without.
        for (planes, n, traffic) in [
            (1u32, 1u32, true),
            (1, 37, true),
            (2, 1, true),
            (2, 23, true),
            (1, 37, false),
            (3, 19, false),
        ] {
            let (mut one, mut run) = (Resources::new(&cfg), Resources::new(&cfg));
            for r in [&mut one, &mut run].into_iter().filter(|_| traffic) {
                r.read(3, 0);
                r.write(3, 10_000);
            }
            let mut done = 0;
            for _ in 0..n {
                for p in 0..planes {
                    let d = if reads {
                        one.read(p, 5_000)
                    } else {
                        one.write(p, 5_000)
                    };
                    done = done.max(d.done);
                }
            }
            let runs: Vec<(u32, u32)> = (0..planes).map(|p| (p, n)).collect();
            let batch = if reads {
                run.read_runs(&runs, 5_000)
            } else {
                run.write_runs(&runs, 5_000)
            };
            assert_eq!(
                batch, done,
                "reads {reads}, {planes} planes × {n}, traffic {traffic}"
            );
            let after = (one.read(3, 6_000).done, run.read(3, 6_000).done);
            assert_eq!(
                after.0, after.1,
                "reads {reads}, {planes} × {n}, traffic {traffic}"
            );
        }
    }
}
