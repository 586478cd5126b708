//! The inputs on which the fuzzers (`fuzz_parsers.rs`, `fuzz_config.rs`) found an error that
//! did not say where it was, each kept as a case with the message it now gives: one line that
//! names the file and line (binary records: the record and its byte offset).

use std::path::{Path, PathBuf};

use ssdlab_core::config::DeviceConfig;
use ssdlab_core::sim::{SimOptions, Simulation};
use ssdlab_core::trace::lba_map::LbaMapMode;
use ssdlab_core::trace::{open_workload, TraceFormat, TraceSpec, WorkloadSpec};

fn fixture(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-regressions");
    std::fs::create_dir_all(&dir).expect("fixture folder");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p
}

/// A VSCSI v1 record: serial, length, n_sg, opcode, version, lbn, timestamp (µs).
fn v1(len: u32, op: u16, lbn: u64, ts: u64) -> Vec<u8> {
    let mut r = Vec::with_capacity(32);
    r.extend(7u32.to_le_bytes());
    r.extend(len.to_le_bytes());
    r.extend(1u32.to_le_bytes());
    r.extend(op.to_le_bytes());
    r.extend(0x0100u16.to_le_bytes());
    r.extend(lbn.to_le_bytes());
    r.extend(ts.to_le_bytes());
    r
}

/// The first error reading `path` as `format` through an LBA map `none` on `logical` bytes.
fn first_error(path: &Path, format: TraceFormat, logical: u64) -> String {
    let spec = TraceSpec {
        format,
        lba_map: LbaMapMode::None,
        ..TraceSpec::new(path)
    };
    let e = open_workload(&WorkloadSpec::Trace(spec), logical, 4096, 0).and_then(|mut src| {
        while src.next_request()?.is_some() {}
        Ok(())
    });
    let e = e.expect_err("the input must be refused").to_string();
    assert!(!e.contains('\n'), "several lines: {e:?}");
    e
}

fn assert_says(e: &str, path: &Path, what: &str) {
    let want = format!("{}{what}", path.display());
    assert!(e.starts_with(&want), "expected {want:?}…, got {e:?}");
}

#[test]
fn vscsi_values_that_overflow_name_record_and_byte_offset() {
    // Was `…:1: record 1: value too large`.
    let p = fixture("lbn.vscsi", &v1(4096, 0x2a, u64::MAX, 0));
    let e = first_error(&p, TraceFormat::Vscsi, 1 << 40);
    assert_says(
        &e,
        &p,
        ":1: record 1 at byte offset 0: lbn 18446744073709551615 × 512 bytes does not fit in 64 bits",
    );
    let mut b = v1(4096, 0x2a, 0, 0);
    b.extend(v1(4096, 0x28, 0, u64::MAX));
    let p = fixture("ts.vscsi", &b);
    let e = first_error(&p, TraceFormat::Vscsi, 1 << 40);
    assert_says(
        &e,
        &p,
        ":2: record 2 at byte offset 32: timestamp 18446744073709551615 µs in ns does not fit",
    );
}

#[test]
fn a_file_that_is_no_vscsi_trace_names_byte_offset_0() {
    // Was `…:1: not a VSCSI trace: …`, a record number that reads like a line number.
    let p = fixture("junk.vscsi", b"0,W,0,4096\n");
    let e = first_error(&p, TraceFormat::Vscsi, 1 << 40);
    assert_says(
        &e,
        &p,
        ":1: record 1 at byte offset 0: not a VSCSI trace: neither a v1 version field",
    );
}

#[test]
fn errors_downstream_of_a_binary_trace_name_the_record_and_byte_offset() {
    // Was `…:2: address range …`: the LBA map's and the simulation's errors gave the record
    // number alone, as if it were a line.
    let mut b = v1(4096, 0x2a, 0, 0);
    b.extend(v1(4096, 0x2a, 1 << 30, 1));
    let p = fixture("beyond.vscsi", &b);
    let e = first_error(&p, TraceFormat::Vscsi, 1 << 20);
    assert_says(
        &e,
        &p,
        ":2: record 2 at byte offset 32: address range 549755813888..549755817984 reaches beyond",
    );
    // A timed run refuses an arrival centuries after the first (the simulation's own check).
    let mut b = v1(4096, 0x2a, 0, 0);
    b.extend(v1(4096, 0x28, 8, 1));
    b.extend(v1(4096, 0x28, 8, u64::MAX / 1000));
    let p = fixture("late.vscsi", &b);
    let device = DeviceConfig::from_preset("tiny", &[]).unwrap();
    let (bytes, page) = (device.geometry.logical_bytes(), 4096);
    let spec = WorkloadSpec::Trace(TraceSpec {
        format: TraceFormat::Vscsi,
        ..TraceSpec::new(&p)
    });
    let source = open_workload(&spec, bytes, page, 1).unwrap();
    let e = Simulation::new(device, SimOptions::default(), source)
        .and_then(|mut s| s.run())
        .expect_err("a late arrival is refused")
        .to_string();
    assert_says(
        &e,
        &p,
        ":3: record 3 at byte offset 64: request arrives 18446744073709551000 ns after the first one",
    );
}

#[test]
fn gzip_errors_name_where_they_happen() {
    // A plain text file named `.gz`: was `…: invalid gzip header`, on the first read.
    let p = fixture("plain.csv.gz", b"0,W,0,4096\n");
    let e = first_error(&p, TraceFormat::Csv, 1 << 40);
    assert_says(
        &e,
        &p,
        ": byte offset 0: the name ends in .gz but the content does not start with the gzip magic",
    );
    // A gzip stream cut short: was `…: reading after line 0: …`.
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, b"0,W,0,4096\n1,W,4096,4096\n").unwrap();
    let z = enc.finish().unwrap();
    let p = fixture("cut.csv", &z[..z.len() / 2]);
    let e = first_error(&p, TraceFormat::Csv, 1 << 40);
    assert_says(&e, &p, ": reading line 1: ");
    // The same, sniffed for its format: was `…: corrupt deflate stream` with no position.
    let e = first_error(&p, TraceFormat::Auto, 1 << 40);
    assert_says(&e, &p, ": detecting the format from bytes 0..4096: ");
    // A byte flipped early in the deflate data (200 bytes into the file): named as what it is.
    // With `miniz_oxide` (flate2's default backend, used before 2026-11-27) the stream inflated
    // to garbage, refused at line 17 as "too few fields"; `zlib-rs` reports the corrupt stream
    // on the first read.
    let text: String = (0..20_000u64)
        .map(|i| format!("{},W,{},4096\n", i * 7, (i * 7_919 % 100_003) * 4096))
        .collect();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
    let mut z = enc.finish().unwrap();
    z[200] ^= 0x55;
    let p = fixture("flipped.csv", &z);
    let e = first_error(&p, TraceFormat::Csv, 1 << 40);
    assert_says(&e, &p, ": reading line 1: corrupt deflate stream");
    let e = first_error(&p, TraceFormat::Auto, 1 << 40);
    assert_says(
        &e,
        &p,
        ": detecting the format from bytes 0..4096: corrupt deflate stream",
    );
}
