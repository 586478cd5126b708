//! `/proc/diskstats` recordings and the `iostat -x` fields computed from them (issue 13):
//! by-hand expectations on a small recording, sysstat's counter rules, one-line errors, and a
//! real recording against sysstat 12.6.1's own printed output (tests/data/detect/README.md).

use ssdlab_core::detect::diskstats::{append_snapshot, parse_uptime_cs, DiskStats, Recording};
use ssdlab_core::detect::iostat::{series, Interval};

const HAND: &str = "\
# uptime 100.00
   8       0 sda 1000 10 8000 500 2000 100 32000 4000 0 3000 9000 50 5 4000 100 20 40
   8      16 sdb 10 0 80 5 20 0 160 10 0 15 15

# uptime 102.00
   8       0 sda 1200 30 9600 700 2400 200 38400 4800 2 4000 10500 60 5 4800 130 24 48
   8      16 sdb 15 0 120 10 20 0 160 10 0 20 20
";

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn hand_made_interval_of_a_20_field_device() {
    let rec = Recording::parse(HAND, "hand").unwrap();
    assert_eq!(rec.snapshots.len(), 2);
    assert_eq!(rec.snapshots[1].line, 5);
    let iv = &series(&rec, "sda").unwrap()[0];
    // itv = 200 cs. Differences: reads 200, merged 20, sectors 1600, ticks 200; writes 400,
    // merged 100, sectors 6400, ticks 800; io ticks 1000; weighted 1500; discards 10, merged 0,
    // sectors 800, ticks 30; flushes 4, ticks 8.
    assert_eq!(iv.itv_cs, 200);
    let want = [
        ("r/s", 100.0),   // 200 / 2 s
        ("rkB/s", 400.0), // 1600 sectors / 2 s / 2
        ("rrqm/s", 10.0), // 20 / 2 s
        ("%rrqm", 100.0 * 20.0 / 220.0),
        ("r_await", 1.0),  // 200 ms / 200
        ("rareq-sz", 4.0), // 1600 / 200 / 2 kB
        ("w/s", 200.0),
        ("wkB/s", 1600.0),
        ("wrqm/s", 50.0),
        ("%wrqm", 20.0), // 100 / (100 + 400)
        ("w_await", 2.0),
        ("wareq-sz", 8.0),
        ("d/s", 5.0),
        ("dkB/s", 200.0),
        ("drqm/s", 0.0),
        ("%drqm", 0.0),
        ("d_await", 3.0),
        ("dareq-sz", 40.0),
        ("f/s", 2.0),
        ("f_await", 2.0),
        ("aqu-sz", 0.75), // 1500 ms / 2 s / 1000
        ("%util", 50.0),  // 1000 ms busy of 2000
    ];
    let got = iv.columns();
    assert_eq!(got.len(), want.len());
    for ((gn, gv), (wn, wv)) in got.iter().zip(want) {
        assert_eq!(*gn, wn);
        assert!(close(*gv, wv), "{wn}: {gv} != {wv}");
    }
    // nr_ios = 200 + 400 + 10 = 610 over 2 s.
    assert!(close(iv.tps, 305.0));
    assert!(close(iv.kb_s, 2200.0));
    assert!(close(iv.rqm_s, 60.0));
    assert!(close(iv.await_ms, 1030.0 / 610.0));
    assert!(close(iv.avgrq_sz, 8800.0 / 610.0));
    assert!(close(iv.areq_sz, 4400.0 / 610.0));
    // svctm = 500 ms busy per second / 305 I/Os per second.
    assert!(close(iv.svctm, 500.0 / 305.0));
}

#[test]
fn a_14_field_device_has_no_discard_or_flush_columns() {
    let rec = Recording::parse(HAND, "hand").unwrap();
    let iv = &series(&rec, "sdb").unwrap()[0];
    assert!(iv.discard.is_none() && iv.flush.is_none());
    assert_eq!(iv.columns().len(), 14);
    assert!(close(iv.r_s, 2.5) && close(iv.rkb_s, 10.0) && close(iv.r_await, 1.0));
    // No write in the interval: the ratios are 0, as sysstat prints them.
    assert_eq!(
        (iv.w_s, iv.w_await, iv.wareq_sz, iv.wrqm_pct),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert!(close(iv.util_pct, 0.25)); // 5 ms busy of 2000
}

fn line(fields: &str) -> DiskStats {
    DiskStats::parse(&format!("8 0 sda {fields}")).unwrap()
}

#[test]
fn counters_wrap_and_reset_as_sysstat_reads_them() {
    // 32-bit millisecond counters wrap modulo 2^32: 4294967290 -> 10 is 16 ms.
    let a = line("100 0 800 4294967290 0 0 0 0 0 4294967295 0");
    let b = line("116 0 928 10 0 0 0 0 0 15 0");
    let iv = Interval::between(&a, 0, &b, 100).unwrap();
    assert!(close(iv.r_await, 1.0));
    assert!(close(iv.util_pct, 1.6)); // 16 ms of 1000
                                      // A count below 2^32 that decreases wrapped as a 32-bit kernel's: 4294967290 -> 5 is 11.
    let a = line("4294967290 0 8 1 1 0 8 1 0 1 0");
    let b = line("5 0 96 12 2 0 16 2 0 12 0");
    assert!(close(Interval::between(&a, 0, &b, 100).unwrap().r_s, 11.0));
    // One above 2^32 cannot have wrapped: it restarted, and counts from zero.
    let a = line("5000000000 0 8 1 1 0 8 1 0 1 0");
    let b = line("7 0 96 12 2 0 16 2 0 12 0");
    assert!(close(Interval::between(&a, 0, &b, 100).unwrap().r_s, 7.0));
    // Everything went down: sysstat's removed-and-reinserted device, counted from zero.
    let a = line("900 0 9000 10 900 0 9000 10 0 100 0");
    let b = line("30 0 240 3 10 0 80 1 0 5 0");
    let iv = Interval::between(&a, 0, &b, 100).unwrap();
    assert!(close(iv.r_s, 30.0) && close(iv.w_s, 10.0) && close(iv.rkb_s, 120.0));
    // Equal uptimes: sysstat divides by one hundredth of a second.
    let iv = Interval::between(&b, 500, &b, 500).unwrap();
    assert_eq!(iv.itv_cs, 1);
    // The first report: since boot.
    let iv = Interval::since_boot(&b, 1000).unwrap();
    assert!(close(iv.r_s, 3.0) && close(iv.wkb_s, 4.0));
}

#[test]
fn malformed_input_is_one_line_naming_file_and_line() {
    let err = |text: &str| Recording::parse(text, "rec.txt").unwrap_err().to_string();
    let e = err("# uptime 1.00\n 8 0 sda 1 x 3 4 5 6 7 8 9 10 11\n");
    assert_eq!(
        e,
        "rec.txt:2: field 5 (reads merged): expected an unsigned integer, found `x`"
    );
    let e = err("# uptime 1.00\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12\n");
    assert!(
        e.starts_with("rec.txt:2: expected a /proc/diskstats line of 14, 18 or 20 fields"),
        "{e}"
    );
    assert!(e.ends_with("found 15 fields"), "{e}");
    let e = err(" 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
    assert!(
        e.starts_with("rec.txt:1: expected a `# uptime SECONDS` line"),
        "{e}"
    );
    let e = err("# uptime soon\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
    assert!(
        e.starts_with("rec.txt:1: expected an uptime in seconds"),
        "{e}"
    );
    let e = err("# uptime 5.00\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n# uptime 4.00\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
    assert!(
        e.starts_with("rec.txt:3: expected an uptime not below"),
        "{e}"
    );
    let e = err("# uptime 5.00\n");
    assert!(
        e.starts_with("rec.txt:1: expected /proc/diskstats lines"),
        "{e}"
    );
    let e = err("");
    assert!(e.starts_with("rec.txt:1: expected a recording"), "{e}");
    let e =
        err("# uptime 1.00\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
    assert!(
        e.contains("rec.txt:3:") && e.contains("`sda` appears again"),
        "{e}"
    );
    // A 64-bit value in a 32-bit millisecond field.
    let e = DiskStats::parse("8 0 sda 1 2 3 4294967296 5 6 7 8 9 10 11").unwrap_err();
    assert!(
        e.starts_with("field 7 (time spent reading (ms)): expected an unsigned 32-bit"),
        "{e}"
    );
}

#[test]
fn a_missing_device_is_named_with_the_snapshot_and_what_is_there() {
    let rec = Recording::parse(HAND, "hand.txt").unwrap();
    let e = series(&rec, "nvme0n1").unwrap_err().to_string();
    assert_eq!(
        e,
        "hand.txt:1: expected device `nvme0n1` in this snapshot, found only: sda, sdb"
    );
}

#[test]
fn uptime_reads_as_sysstat_reads_it() {
    assert_eq!(parse_uptime_cs("14756.84"), Ok(1_475_684));
    assert_eq!(parse_uptime_cs("12"), Ok(1200));
    assert_eq!(parse_uptime_cs("12.5"), Ok(1250));
    assert_eq!(parse_uptime_cs("12.567"), Ok(1256));
    assert!(parse_uptime_cs("-1.00").is_err() && parse_uptime_cs("1.0x").is_err());
}

#[test]
fn appended_snapshots_read_back() {
    let mut out = String::new();
    let ds = " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n";
    append_snapshot(&mut out, "100.25 7.00\n", ds).unwrap();
    append_snapshot(&mut out, "101.25 7.00\n", ds).unwrap();
    let rec = Recording::parse(&out, "x").unwrap();
    assert_eq!(rec.snapshots[1].uptime_cs, 10125);
    assert!(append_snapshot(&mut out, "1.00", " 8 0 sda 1\n").is_err());
}

// --- Against sysstat's own output -------------------------------------------------------------

fn data(name: &str) -> String {
    let p = format!("{}/tests/data/detect/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// iostat's text output as one `(column, printed value)` list per report for `device`.
fn iostat_reports(text: &str, device: &str) -> Vec<Vec<(String, String)>> {
    let mut header: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.first() {
            Some(&"Device") => header = f[1..].iter().map(|s| s.to_string()).collect(),
            Some(d) if *d == device => {
                assert_eq!(f.len() - 1, header.len(), "{l}");
                out.push(
                    header
                        .iter()
                        .cloned()
                        .zip(f[1..].iter().map(|s| s.to_string()))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    out
}

fn compare(printed: &[Vec<(String, String)>], ours: &[Vec<(&'static str, f64)>]) -> usize {
    assert_eq!(printed.len(), ours.len(), "number of reports");
    let mut n = 0;
    for (k, (p, o)) in printed.iter().zip(ours).enumerate() {
        let names: Vec<&str> = p.iter().map(|(c, _)| c.as_str()).collect();
        let ours_names: Vec<&str> = o.iter().map(|(c, _)| *c).collect();
        assert_eq!(names, ours_names, "report {k}: columns");
        for ((col, text), (_, v)) in p.iter().zip(o) {
            assert_eq!(
                &format!("{v:.2}"),
                text,
                "report {k} column {col}: ours {v}"
            );
            n += 1;
        }
    }
    n
}

#[test]
fn a_real_recording_matches_sysstat_12_6_to_the_printed_digit() {
    let rec = Recording::parse(&data("vda_dd.diskstats"), "vda_dd.diskstats").unwrap();
    assert_eq!(rec.snapshots.len(), 7);
    let first = &rec.snapshots[0];
    let boot = Interval::since_boot(first.device("vda").unwrap(), first.uptime_cs).unwrap();
    let mut reports = vec![boot];
    reports.extend(series(&rec, "vda").unwrap());
    // The recording exercises reads, writes, merges, discards and a flush.
    assert!(reports.iter().any(|r| r.r_s > 1000.0));
    assert!(reports.iter().any(|r| r.w_s > 1000.0));
    assert!(reports[1..]
        .iter()
        .any(|r| r.discard.is_some_and(|d| d.d_s > 0.0)));
    assert!(reports[1..].iter().any(|r| r.wrqm_s > 0.0));

    let full: Vec<_> = reports.iter().map(Interval::columns).collect();
    let n = compare(&iostat_reports(&data("vda_dd.iostat_x.txt"), "vda"), &full);
    assert_eq!(n, 7 * 22);
    let short: Vec<_> = reports.iter().map(Interval::short_columns).collect();
    let n = compare(
        &iostat_reports(&data("vda_dd.iostat_xs.txt"), "vda"),
        &short,
    );
    assert_eq!(n, 7 * 7);
}
