//! The trace format names (one table), format auto-detection by file name and by sniffing the
//! first bytes, and the factory that opens a raw reader for a path and format.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::blkparse::{device_pair, BlkAction, Blkparse};
use super::csv::{plain_op, PlainCsv};
use super::disksim::{Disksim, Fin1};
use super::fields::{parse_decimal, parse_u64, read_write_word};
use super::fiu::Fiu;
use super::input::{read_head, LineFormat, TextSource};
use super::msr::Msr;
use super::read_ahead::{wanted, ReadAhead};
use super::request::RequestSource;
use super::spc::Spc;
use super::vscsi::{detect_version, VscsiSource};
use super::vscsi_csv::VscsiCsv;
use crate::error::{Result, SsdError};

/// A trace file format. Serialised as its name (`"msr"`, `"vscsi-csv"`, …).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(try_from = "String", into = "String")]
#[strum(serialize_all = "kebab-case")]
pub enum TraceFormat {
    /// Detect the format from the file name, then from its first bytes.
    #[default]
    Auto,
    /// MSR Cambridge CSV: Timestamp (Windows FILETIME), Hostname, DiskNumber, Type, Offset,
    /// Size, ResponseTime.
    Msr,
    /// FIU (SRCMap / IODedup) text: time_ns pid process lba size_blocks R|W major minor \[md5\].
    Fiu,
    /// SPC / UMass ASCII: ASU, LBA, size, opcode, timestamp (s).
    Spc,
    /// DiskSim / SSDsim / MQSim ASCII: time_ns device lba_sectors size_sectors type.
    Disksim,
    /// The Financial1 `fin1` column layout: index time_ns ? asu Read/Write lba size ?.
    Fin1,
    /// blkparse text output (requests from one action, dispatch by default).
    Blkparse,
    /// VMware VSCSI binary traces, versions 1 and 2 (CloudPhysics).
    Vscsi,
    /// The CloudPhysics CSV form of VSCSI traces: version,time,op,size,lbn.
    VscsiCsv,
    /// Plain CSV: time_us,op,offset_bytes,size_bytes.
    Csv,
}

crate::config::impl_registry!(TraceFormat, "trace format", "--format", default);

impl TraceFormat {
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// All names, comma-separated (for error messages and `--help`).
    pub fn all_names() -> String {
        <Self as crate::config::Registry>::names()
    }

    /// Whether records of this format carry a device (disk, ASU, minor) number.
    pub fn has_device(self) -> bool {
        matches!(
            self,
            TraceFormat::Msr
                | TraceFormat::Fiu
                | TraceFormat::Spc
                | TraceFormat::Disksim
                | TraceFormat::Fin1
                | TraceFormat::Blkparse
        )
    }
}

impl std::str::FromStr for TraceFormat {
    type Err = SsdError;
    fn from_str(s: &str) -> Result<Self> {
        use strum::IntoEnumIterator;
        TraceFormat::iter()
            .find(|f| {
                let n = f.name();
                n.eq_ignore_ascii_case(s) || n.replace('-', "_").eq_ignore_ascii_case(s)
            })
            .ok_or_else(|| {
                SsdError::Invalid(format!(
                    "unknown trace format {s:?}; expected one of {}",
                    Self::all_names()
                ))
            })
    }
}

impl TryFrom<String> for TraceFormat {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        s.parse().map_err(|e: SsdError| e.to_string())
    }
}

impl From<TraceFormat> for String {
    fn from(f: TraceFormat) -> String {
        f.name().to_string()
    }
}

impl std::fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Guesses the format of `path`: first by extension (`.vscsi`, `.blkparse`, after removing a
/// `.gz`), then by sniffing the first 4 KiB of content (binary → VSCSI version check; text →
/// header names, separators and column shapes of the first two record lines).
pub fn detect_format(path: &Path) -> Result<TraceFormat> {
    let name = path.display().to_string();
    let base = name
        .strip_suffix(".gz")
        .unwrap_or(&name)
        .to_ascii_lowercase();
    if base.ends_with(".vscsi") {
        return Ok(TraceFormat::Vscsi);
    }
    if base.ends_with(".blkparse") {
        return Ok(TraceFormat::Blkparse);
    }
    let head = read_head(path, 4096)?;
    let fail = |why: &str| {
        SsdError::Invalid(format!(
            "{name}: cannot tell the trace format ({why}); set format to one of {}",
            TraceFormat::all_names()
        ))
    };
    if head.is_empty() {
        return Err(fail("the file is empty"));
    }
    let text = match std::str::from_utf8(&head) {
        Ok(t) => Some(t),
        // The 4 KiB cut may split a UTF-8 sequence: accept a valid prefix of most of it.
        Err(e) if e.valid_up_to() + 4 >= head.len() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).ok()
        }
        Err(_) => None,
    };
    let text = match text {
        Some(t) if !t.contains('\0') => t,
        _ => {
            return detect_version(&head)
                .map(|_| TraceFormat::Vscsi)
                .ok_or_else(|| fail("binary content that is not VSCSI"))
        }
    };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(3)
        .collect();
    let first = lines.first().copied().unwrap_or("").to_ascii_lowercase();
    if first.starts_with("timestamp,hostname") {
        return Ok(TraceFormat::Msr);
    }
    if first.starts_with("version,time,op") {
        return Ok(TraceFormat::VscsiCsv);
    }
    if first.starts_with("time_us,op") {
        return Ok(TraceFormat::Csv);
    }
    // The last full line of the head may be cut; classify on the first two record lines.
    let records: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.starts_with(|c: char| c.is_ascii_alphabetic()))
        .take(2)
        .collect();
    let fits = |f: TraceFormat| !records.is_empty() && records.iter().all(|l| line_fits(f, l));
    for f in [
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::VscsiCsv,
        TraceFormat::Csv,
        TraceFormat::Blkparse,
        TraceFormat::Disksim,
        TraceFormat::Fin1,
        TraceFormat::Fiu,
    ] {
        if fits(f) {
            return Ok(f);
        }
    }
    Err(fail("the first lines match no known layout"))
}

/// Whether one line has the shape of format `f` (used only for sniffing).
fn line_fits(f: TraceFormat, line: &str) -> bool {
    let c: Vec<&str> = line.split(',').map(str::trim).collect();
    let w: Vec<&str> = line.split_whitespace().collect();
    let int = |s: &str| parse_u64(s).is_some();
    let num = |s: &str| parse_decimal(s, 9).is_some();
    match f {
        TraceFormat::Msr => {
            c.len() == 7 && int(c[0]) && read_write_word(c[3]).is_some() && int(c[4]) && int(c[5])
        }
        TraceFormat::Spc => {
            c.len() >= 5
                && int(c[0])
                && int(c[1])
                && int(c[2])
                && matches!(c[3], "r" | "R" | "w" | "W")
                && num(c[4])
        }
        TraceFormat::VscsiCsv => {
            c.len() == 5
                && int(c[0])
                && num(c[1])
                && u16::from_str_radix(c[2], 16).is_ok()
                && int(c[3])
                && int(c[4])
        }
        TraceFormat::Csv => {
            // An optional fifth field: the write's placement identifier (FDP).
            (c.len() == 4 || (c.len() == 5 && int(c[4])))
                && num(c[0])
                && plain_op(c[1]).is_some()
                && int(c[2])
                && int(c[3])
        }
        TraceFormat::Blkparse => {
            w.first().is_some_and(|d| device_pair(d).is_some()) && w.len() >= 7
        }
        TraceFormat::Disksim => {
            w.len() == 5 && w.iter().all(|s| int(s)) && matches!(w[4], "0" | "1")
        }
        TraceFormat::Fin1 => {
            w.len() == 8 && matches!(w[4], "Read" | "Write") && int(w[5]) && int(w[6])
        }
        TraceFormat::Fiu => {
            (8..=9).contains(&w.len())
                && int(w[0])
                && int(w[3])
                && int(w[4])
                && matches!(w[5], "R" | "W")
        }
        TraceFormat::Auto | TraceFormat::Vscsi => false,
    }
}

/// Opens a raw reader (no LBA mapping, no request limit). `Auto` is resolved by
/// [`detect_format`]. A `device` filter on a format without device numbers is an error.
/// `parse_thread` says whether a text format is read and parsed on a second thread
/// (`read_ahead`; `None`: when the machine has more than one CPU) — the same requests and
/// errors either way.
pub fn open_format(
    path: &Path,
    format: TraceFormat,
    device: Option<u32>,
    action: BlkAction,
    parse_thread: Option<bool>,
) -> Result<Box<dyn RequestSource>> {
    let format = if format == TraceFormat::Auto {
        detect_format(path)?
    } else {
        format
    };
    if device.is_some() && !format.has_device() {
        return Err(SsdError::Invalid(format!(
            "{}: format {format} carries no device number; remove the device filter",
            path.display()
        )));
    }
    let thread = wanted(parse_thread);
    match format {
        TraceFormat::Msr => text(path, Msr, device, thread),
        TraceFormat::Fiu => text(path, Fiu, device, thread),
        TraceFormat::Spc => text(path, Spc, device, thread),
        TraceFormat::Disksim => text(path, Disksim, device, thread),
        TraceFormat::Fin1 => text(path, Fin1, device, thread),
        TraceFormat::Blkparse => text(path, Blkparse { action }, device, thread),
        TraceFormat::Vscsi => Ok(Box::new(VscsiSource::open(path)?)),
        TraceFormat::VscsiCsv => text(path, VscsiCsv, device, thread),
        TraceFormat::Csv => text(path, PlainCsv, device, thread),
        TraceFormat::Auto => Err(SsdError::Invalid("format auto was not resolved".into())),
    }
}

/// A text format's reader, on a second thread when `thread` is set.
fn text<F: LineFormat + 'static>(
    path: &Path,
    format: F,
    device: Option<u32>,
    thread: bool,
) -> Result<Box<dyn RequestSource>> {
    let source = TextSource::open(path, format, device)?;
    Ok(if thread {
        Box::new(ReadAhead::spawn(source)?)
    } else {
        Box::new(source)
    })
}

#[cfg(test)]
mod tests {
    use super::super::input::testutil::{fixture, real};
    use super::super::vscsi::tests::v1;
    use super::*;

    #[test]
    fn names_round_trip() {
        use strum::IntoEnumIterator;
        for f in TraceFormat::iter() {
            let n = f.name();
            assert_eq!(n.parse::<TraceFormat>().unwrap(), f);
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{n}\""));
        }
        assert_eq!(
            "VSCSI_CSV".parse::<TraceFormat>().unwrap(),
            TraceFormat::VscsiCsv
        );
        let e = "nope".parse::<TraceFormat>().unwrap_err().to_string();
        assert!(e.contains("msr, fiu, spc"), "{e}");
    }

    #[test]
    fn sniffs_every_text_format_and_binary() {
        let cases: [(&str, &[u8], TraceFormat); 11] = [
            ("a.csv", b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,hm,0,Read,0,512,1\n", TraceFormat::Msr),
            ("b.csv", b"128166385295514663,hm,0,Write,9056014336,2048,2833\n", TraceFormat::Msr),
            ("c.txt", b"0,303567,3584,w,0.000000\n1,55590,3072,w,0.026214\n", TraceFormat::Spc),
            ("d.csv", b"version,time,op,size,lbn\n1,5,2a,512,1\n", TraceFormat::VscsiCsv),
            ("e.csv", b"1,5633898,2a,512,42932745\n", TraceFormat::VscsiCsv),
            ("f.csv", b"10,W,4096,4096\n", TraceFormat::Csv),
            ("g.txt", b"  8,0  3  1  0.0  697  D  W 1 + 8 [x]\n", TraceFormat::Blkparse),
            ("h.trace", b"0 0 303567 7 0\n26214000 1 240840 6 1\n", TraceFormat::Disksim),
            ("i", b"0\t0\t0\t0\tWrite\t303552\t32\t1\n", TraceFormat::Fin1),
            ("j.txt", b"89967404265337 4892 syslogd 904265560 8 W 6 0 531e779ee0ea7e6f\n", TraceFormat::Fiu),
            ("k.txt.gz", b"0 0 303567 7 0\n", TraceFormat::Disksim),
        ];
        for (name, content, want) in cases {
            assert_eq!(
                detect_format(&fixture(name, content, false)).unwrap(),
                want,
                "{name}"
            );
        }
        let mut bin = v1(1, 4096, 0x2a, 8, 5);
        bin.extend(v1(2, 4096, 0x28, 8, 6));
        assert_eq!(
            detect_format(&fixture("trace.bin", &bin, true)).unwrap(),
            TraceFormat::Vscsi
        );
        let e = detect_format(&fixture("z.txt", b"hello world\n", false))
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot tell") && e.contains("vscsi-csv"), "{e}");
    }

    #[test]
    fn device_filter_needs_a_device_column() {
        let p = fixture("q.csv", b"10,W,4096,4096\n", false);
        assert!(
            open_format(&p, TraceFormat::Auto, Some(1), BlkAction::Dispatch, None)
                .err()
                .unwrap()
                .to_string()
                .contains("no device")
        );
    }

    #[test]
    fn real_excerpts_are_detected() {
        for (f, want) in [
            ("cloudphysics/cloudPhysicsIO.vscsi", TraceFormat::Vscsi),
            ("cloudphysics/cloudPhysicsIO.csv", TraceFormat::VscsiCsv),
            ("spc_financial1/example.ascii", TraceFormat::Disksim),
            ("spc_financial1/fin1", TraceFormat::Fin1),
            ("spc_tpcc_websearch/tpcc-small.trace", TraceFormat::Disksim),
            ("msr_cambridge/hm_0_first20.csv", TraceFormat::Msr),
        ] {
            // Each excerpt on its own: a missing one is reported and the others still checked.
            let Some(p) = real(f) else { continue };
            assert_eq!(detect_format(&p).unwrap(), want, "{f}");
        }
    }
}
