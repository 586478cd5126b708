//! VMware VSCSI binary traces as published by CloudPhysics (Waldspurger et al., "Efficient MRC
//! Construction with SHARDS", FAST'15), record layouts as libCacheSim's vscsi reader
//! (`libCacheSim/traceReader/customizedReader/vscsi.h`) documents them. All little-endian:
//!
//! * v1, 32 bytes: `u32 serial, u32 length_bytes, u32 n_sg, u16 scsi_opcode, u16 version,
//!   u64 lbn (512 B), u64 timestamp_us`, version's high byte 1;
//! * v2, 40 bytes: `u16 scsi_opcode, u16 version, u32 serial, u32 length_bytes, u32 n_sg,
//!   u64 lbn (512 B), u64 timestamp_us, u64 response_time`, version's high byte 2.
//!
//! The version is taken from the first two records (v2 checked first, as libCacheSim does);
//! every later record must carry the same version. SCSI READ(6/10/12/16) = 0x08/0x28/0xa8/0x88
//! are reads, WRITE(6/10/12/16) = 0x0a/0x2a/0xaa/0x8a writes; other opcodes are skipped and
//! counted. The CSV form of the same data is [`super::vscsi_csv`].

use std::io::Read;
use std::path::Path;

use super::input::open_input;
use super::request::{OpKind, Request, RequestSource};
use super::skips::{SkipReason, Skips};
use crate::error::{Result, SsdError};

/// The SCSI opcode → operation table shared with the CSV form (SBC-3 opcode assignments).
pub(crate) fn scsi_op(code: u16) -> Option<OpKind> {
    match code {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(OpKind::Read),
        0x0a | 0x2a | 0xaa | 0x8a => Some(OpKind::Write),
        _ => None,
    }
}

/// Which record layout a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VscsiVersion {
    V1,
    V2,
}

impl VscsiVersion {
    fn record_len(self) -> usize {
        match self {
            VscsiVersion::V1 => 32,
            VscsiVersion::V2 => 40,
        }
    }
    fn version_at(self) -> usize {
        match self {
            VscsiVersion::V1 => 14,
            VscsiVersion::V2 => 2,
        }
    }
    fn major(self) -> u8 {
        match self {
            VscsiVersion::V1 => 1,
            VscsiVersion::V2 => 2,
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).map_or(0, |s| {
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        u64::from_le_bytes(a)
    })
}

/// Detects the version from up to two leading records; `None` when neither layout fits.
pub(crate) fn detect_version(head: &[u8]) -> Option<VscsiVersion> {
    [VscsiVersion::V2, VscsiVersion::V1].into_iter().find(|v| {
        let n = v.record_len();
        head.len() >= n
            && (0..2)
                .filter(|k| head.len() >= (k + 1) * n)
                .all(|k| (u16_at(head, k * n + v.version_at()) >> 8) as u8 == v.major())
    })
}

/// A streaming VSCSI binary reader.
pub(crate) struct VscsiSource {
    input: Box<dyn Read + Send>,
    file: String,
    version: VscsiVersion,
    record: u64,
    buf: [u8; 40],
    skips: Skips,
}

impl VscsiSource {
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let mut input = open_input(path)?;
        let mut head = [0u8; 80];
        let got = fill(&mut input, &mut head)
            .map_err(|e| SsdError::io(&file, format!("record 1 at byte offset 0: {e}")))?;
        let version = if got == 0 {
            VscsiVersion::V1 // an empty file is an empty trace
        } else {
            detect_version(&head[..got]).ok_or_else(|| {
                SsdError::trace(&file, 1, format!(
                    "record 1 at byte offset 0: not a VSCSI trace: neither a v1 version field (0x01nn at byte 14 of 32-byte records) nor a v2 one (0x02nn at byte 2 of 40-byte records) in the first {} bytes",
                    got
                ))
            })?
        };
        let input: Box<dyn Read + Send> =
            Box::new(std::io::Cursor::new(head[..got].to_vec()).chain(input));
        Ok(VscsiSource {
            input,
            file,
            version,
            record: 0,
            buf: [0; 40],
            skips: Skips::default(),
        })
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

impl RequestSource for VscsiSource {
    fn next_request(&mut self) -> Result<Option<Request>> {
        let n = self.version.record_len();
        loop {
            let offset = self.record * n as u64;
            let got = fill(&mut self.input, &mut self.buf[..n]).map_err(|e| {
                SsdError::io(
                    &self.file,
                    format!("record {} at byte offset {offset}: {e}", self.record + 1),
                )
            })?;
            if got == 0 {
                return Ok(None);
            }
            self.record += 1;
            if got < n {
                return Err(SsdError::trace(
                    &self.file,
                    self.record,
                    format!(
                        "truncated record {} at byte offset {offset}: {got} of {n} bytes",
                        self.record
                    ),
                ));
            }
            let b = &self.buf[..n];
            let ver = u16_at(b, self.version.version_at());
            if (ver >> 8) as u8 != self.version.major() {
                return Err(SsdError::trace(&self.file, self.record, format!(
                    "record {} at byte offset {offset}: version field {ver:#06x}, expected {:#04x}nn like the first records",
                    self.record, self.version.major())));
            }
            let (cmd, len, lbn, ts) = match self.version {
                VscsiVersion::V1 => (u16_at(b, 12), u32_at(b, 4), u64_at(b, 16), u64_at(b, 24)),
                VscsiVersion::V2 => (u16_at(b, 0), u32_at(b, 8), u64_at(b, 16), u64_at(b, 24)),
            };
            let Some(op) = scsi_op(cmd) else {
                let record = self.record;
                self.skips.add(SkipReason::UnknownOpcode, || {
                    format!("record {record} at byte offset {offset}: opcode {cmd:#04x}")
                });
                continue;
            };
            let too_big = |what: String| {
                SsdError::trace(
                    &self.file,
                    self.record,
                    format!(
                        "record {} at byte offset {offset}: {what} does not fit in 64 bits",
                        self.record
                    ),
                )
            };
            let offset_bytes = lbn
                .checked_mul(512)
                .ok_or_else(|| too_big(format!("lbn {lbn} × 512 bytes")))?;
            let arrival_ns = ts
                .checked_mul(1000)
                .ok_or_else(|| too_big(format!("timestamp {ts} µs in ns")))?;
            return Ok(Some(Request {
                arrival_ns,
                op,
                offset_bytes,
                size_bytes: u64::from(len),
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }));
        }
    }

    fn describe(&self) -> String {
        format!("{} (vscsi v{})", self.file, self.version.major())
    }

    fn location(&self) -> Option<(String, u64)> {
        (self.record > 0).then(|| (self.file.clone(), self.record))
    }

    fn record_label(&self) -> Option<String> {
        let at = self.record.checked_sub(1)? * self.version.record_len() as u64;
        Some(format!("record {} at byte offset {at}", self.record))
    }

    fn skipped(&self) -> u64 {
        self.skips.total()
    }

    fn why_empty(&self) -> Option<String> {
        Some(self.skips.explain(self.record, "record", None))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::input::testutil::fixture;
    use super::*;

    pub(crate) fn v1(serial: u32, len: u32, cmd: u16, lbn: u64, ts: u64) -> Vec<u8> {
        let mut b = Vec::with_capacity(32);
        b.extend(serial.to_le_bytes());
        b.extend(len.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(cmd.to_le_bytes());
        b.extend(0x0100u16.to_le_bytes());
        b.extend(lbn.to_le_bytes());
        b.extend(ts.to_le_bytes());
        b
    }

    fn v2(serial: u32, len: u32, cmd: u16, lbn: u64, ts: u64) -> Vec<u8> {
        let mut b = Vec::with_capacity(40);
        b.extend(cmd.to_le_bytes());
        b.extend(0x0200u16.to_le_bytes());
        b.extend(serial.to_le_bytes());
        b.extend(len.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(lbn.to_le_bytes());
        b.extend(ts.to_le_bytes());
        b.extend(77u64.to_le_bytes());
        b
    }

    fn read_all(s: &mut VscsiSource) -> Result<Vec<Request>> {
        let mut v = Vec::new();
        while let Some(r) = s.next_request()? {
            v.push(r);
        }
        Ok(v)
    }

    #[test]
    fn v1_and_v2_plain_and_gzip() {
        type Enc = fn(u32, u32, u16, u64, u64) -> Vec<u8>;
        for (enc, ver) in [(v1 as Enc, VscsiVersion::V1), (v2 as Enc, VscsiVersion::V2)] {
            let mut bytes = enc(1, 4096, 0x2a, 8, 5);
            bytes.extend(enc(2, 512, 0x12, 0, 6)); // INQUIRY: skipped
            bytes.extend(enc(3, 8192, 0x88, 16, 7));
            for gz in [false, true] {
                let p = fixture("t.vscsi", &bytes, gz);
                let mut s = VscsiSource::open(&p).unwrap();
                assert_eq!(s.version, ver);
                let v = read_all(&mut s).unwrap();
                assert_eq!(
                    v,
                    vec![
                        Request {
                            arrival_ns: 5000,
                            op: OpKind::Write,
                            offset_bytes: 4096,
                            size_bytes: 4096,
                            fragment_follows: false,
                            fua: false,
                            preflush: false,
                            placement: 0,
                        },
                        Request {
                            arrival_ns: 7000,
                            op: OpKind::Read,
                            offset_bytes: 8192,
                            size_bytes: 8192,
                            fragment_follows: false,
                            fua: false,
                            preflush: false,
                            placement: 0,
                        },
                    ]
                );
                assert_eq!(s.skipped(), 1);
                assert_eq!(s.location().unwrap().1, 3);
            }
        }
    }

    #[test]
    fn truncated_and_bad_records_are_errors() {
        let mut bytes = v1(1, 4096, 0x2a, 8, 5);
        bytes.extend(v1(2, 4096, 0x2a, 8, 5));
        bytes.extend(&v1(3, 4096, 0x2a, 8, 5)[..20]);
        let p = fixture("trunc.vscsi", &bytes, false);
        let mut s = VscsiSource::open(&p).unwrap();
        let err = read_all(&mut s).unwrap_err().to_string();
        assert!(
            err.contains("trunc.vscsi:3: truncated record 3 at byte offset 64: 20 of 32 bytes"),
            "{err}"
        );

        let mut bytes = v1(1, 4096, 0x2a, 8, 5);
        bytes.extend(v1(2, 4096, 0x2a, 8, 5));
        let mut bad = v1(3, 4096, 0x2a, 8, 5);
        bad[15] = 7;
        bytes.extend(bad);
        let p = fixture("ver.vscsi", &bytes, false);
        let err = read_all(&mut VscsiSource::open(&p).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ver.vscsi:3: record 3 at byte offset 64: version field 0x0700"),
            "{err}"
        );

        let p = fixture("junk.vscsi", &[0xffu8; 100], false);
        assert!(VscsiSource::open(&p)
            .err()
            .unwrap()
            .to_string()
            .contains("not a VSCSI trace"));
    }
}
