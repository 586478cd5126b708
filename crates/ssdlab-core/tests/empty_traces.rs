//! A trace that yields no request is an error naming the file and why nothing was replayed —
//! the file is empty, holds only a header, or every record was skipped (by the device filter,
//! listing the devices present; by blkparse action; by an opcode that is neither a read nor a
//! write, with the count and where the first was) — in every one of the nine formats, raised
//! when the simulation is built (before preconditioning). `allow_empty` runs it as an empty
//! run. `trace info` still measures such a file.

use std::path::PathBuf;

use serde_json::{json, Value};
use ssdlab_core::api;

fn fixture(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("empty-traces");
    std::fs::create_dir_all(&dir).expect("fixture dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p
}

fn build(workload: Value) -> ssdlab_core::Result<ssdlab_core::sim::Simulation> {
    let dev = api::load_device("tiny", "tiny", &[]).expect("device");
    let wl = api::parse_workload(&workload.to_string())?;
    let opts = api::parse_options(r#"{"precondition": {"sequential": true}}"#).unwrap();
    api::build_simulation(dev, &wl, opts)
}

/// The error building a simulation of `workload` gives; it must name the file.
fn error(workload: Value) -> String {
    let file = workload["path"].as_str().unwrap().to_string();
    let e = match build(workload) {
        Ok(_) => panic!("{file}: no error"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.starts_with(&format!(
            "{file}: expected requests to replay, found none: "
        )),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    e
}

/// A VSCSI v1 record.
fn v1(cmd: u16) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(1u32.to_le_bytes());
    b.extend(4096u32.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    b.extend(cmd.to_le_bytes());
    b.extend(0x0100u16.to_le_bytes());
    b.extend(8u64.to_le_bytes());
    b.extend(5u64.to_le_bytes());
    b
}

const FORMATS: [&str; 9] = [
    "msr",
    "fiu",
    "spc",
    "disksim",
    "fin1",
    "blkparse",
    "vscsi",
    "vscsi-csv",
    "csv",
];

#[test]
fn an_empty_file_says_so_in_every_format() {
    for format in FORMATS {
        let p = fixture(&format!("empty.{format}"), b"");
        let e = error(json!({"kind": "trace", "path": p, "format": format}));
        assert!(
            e.ends_with(
                "the file is empty; to run it anyway, pass --allow-empty (allow_empty = true)"
            ),
            "{format}: {e}"
        );
    }
    let p = fixture(
        "header-only.csv",
        b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
    );
    let e = error(json!({"kind": "trace", "path": p, "format": "msr"}));
    assert!(e.contains("its one line holds no record"), "{e}");
    let p = fixture("comments.txt", b"# one\n\n# two\n");
    let e = error(json!({"kind": "trace", "path": p, "format": "disksim"}));
    assert!(e.contains("its 3 lines hold no record"), "{e}");
}

#[test]
fn a_device_filter_that_keeps_nothing_lists_the_devices_present() {
    // One record of device 5 and two of device 7 in each format with a device number.
    let lines: [(&str, &str); 6] = [
        ("msr", "128166385295514663,hm,{d},Write,0,4096,100"),
        ("fiu", "89967404265337 4892 syslogd 8 8 W 6 {d}"),
        ("spc", "{d},303567,3584,w,0.000000"),
        ("disksim", "0 {d} 303567 7 0"),
        ("fin1", "0\t0\t0\t{d}\tWrite\t303552\t32\t1"),
        ("blkparse", "  8,{d}  3  1  0.0  697  D  W 1 + 8 [x]"),
    ];
    for (format, line) in lines {
        let text: String = [5, 7, 7]
            .iter()
            .map(|d| line.replace("{d}", &d.to_string()) + "\n")
            .collect();
        let p = fixture(&format!("devices.{format}"), text.as_bytes());
        let e = error(json!({"kind": "trace", "path": p, "format": format, "device": 99}));
        assert!(
            e.contains("all 3 records were skipped: 3 of devices other than 99")
                && e.contains("the trace has devices 5, 7"),
            "{format}: {e}"
        );
        // The device that is there replays.
        let mut sim = build(
            json!({"kind": "trace", "path": p, "format": format, "device": 7,
                                   "lba_map": "modulo"}),
        )
        .unwrap();
        assert_eq!(sim.run().unwrap().requests.total, 2, "{format}");
    }
}

#[test]
fn unknown_opcodes_and_other_actions_are_counted_with_the_first() {
    let mut bin = v1(0x12);
    bin.extend(v1(0x00));
    let p = fixture("opcodes.vscsi", &bin);
    let e = error(json!({"kind": "trace", "path": p, "format": "vscsi"}));
    assert!(
        e.contains("all 2 records were skipped: 2 with an opcode that is neither a read nor a write (first at record 1 at byte offset 0: opcode 0x12)"),
        "{e}"
    );
    let p = fixture("opcode.vscsi", &v1(0x12));
    let e = error(json!({"kind": "trace", "path": p, "format": "vscsi"}));
    assert!(
        e.contains("its only record was skipped: 1 with an opcode"),
        "{e}"
    );
    let p = fixture(
        "opcodes.csv",
        b"version,time,op,size,lbn\n1,5,12,512,1\n1,6,12,512,1\n",
    );
    let e = error(json!({"kind": "trace", "path": p, "format": "vscsi-csv"}));
    assert!(
        e.contains("2 with an opcode that is neither a read nor a write (first at line 2)"),
        "{e}"
    );
    let p = fixture(
        "actions.blkparse",
        b"  8,0  3  1  0.0  697  Q  W 1 + 8 [x]\n  8,0  3  2  0.1  697  D  N 0 + 0 [x]\n",
    );
    let e = error(json!({"kind": "trace", "path": p, "format": "blkparse"}));
    assert!(
        e.contains("1 of other blktrace actions than blkparse_action keeps (first at line 1)")
            && e.contains("1 of events without data (first at line 2)"),
        "{e}"
    );
}

#[test]
fn allow_empty_runs_an_empty_trace_and_trace_info_measures_it() {
    let p = fixture("allowed.vscsi", &v1(0x12));
    let mut sim =
        build(json!({"kind": "trace", "path": p, "format": "vscsi", "allow_empty": true})).unwrap();
    let r = sim.run().unwrap();
    assert_eq!(r.requests.total, 0);
    let info = api::trace_stats(&json!({"path": p, "format": "vscsi"}).to_string(), 4096).unwrap();
    assert_eq!((info.requests, info.skipped), (0, 1));
}
