//! `/proc/diskstats` lines and recorded sequences of them.
//!
//! A line is `major minor name` and then the counters of the kernel's
//! Documentation/admin-guide/iostats.rst (and ABI/testing/procfs-diskstats): 11 fields until
//! kernel 4.18 (14 in all), 4 more for discards from 4.18 (18), 2 more for flushes from 5.5
//! (20). Times are milliseconds printed as 32-bit unsigned integers (they wrap after ~49.7
//! days); I/O, merge and sector counts are `unsigned long` (64-bit on 64-bit kernels).
//!
//! A recorded sequence (issue 13) is snapshots of `/proc/diskstats`, each preceded by a line
//! `# uptime SECONDS`, the first field of `/proc/uptime` read just before (sysstat's iostat reads
//! `/proc/uptime` and then the counters, and measures intervals by the uptime difference).
//! Blank lines and other `#` lines are ignored. `scripts/record_diskstats.sh` writes one.

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};

/// Fields 15-18 (kernel 4.18+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Discards {
    /// Discards completed successfully.
    pub ios: u64,
    /// Discards merged.
    pub merges: u64,
    /// Sectors discarded.
    pub sectors: u64,
    /// Time spent discarding (ms).
    pub ticks: u32,
}

/// Fields 19-20 (kernel 5.5+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Flushes {
    /// Flush requests completed successfully.
    pub ios: u64,
    /// Time spent flushing (ms).
    pub ticks: u32,
}

/// One device's line. Field numbers are procfs-diskstats' (1-3 are major, minor, name).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiskStats {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    /// 4: reads completed successfully.
    pub rd_ios: u64,
    /// 5: reads merged.
    pub rd_merges: u64,
    /// 6: sectors read (512 bytes each, whatever the device's sector size).
    pub rd_sectors: u64,
    /// 7: time spent reading (ms).
    pub rd_ticks: u32,
    /// 8: writes completed.
    pub wr_ios: u64,
    /// 9: writes merged.
    pub wr_merges: u64,
    /// 10: sectors written.
    pub wr_sectors: u64,
    /// 11: time spent writing (ms).
    pub wr_ticks: u32,
    /// 12: I/Os currently in progress.
    pub in_flight: u32,
    /// 13: time spent doing I/Os (ms): wall time with at least one I/O in flight.
    pub io_ticks: u32,
    /// 14: weighted time spent doing I/Os (ms): the integral of `in_flight` over time.
    pub time_in_queue: u32,
    /// 15-18, when the kernel prints them.
    pub discards: Option<Discards>,
    /// 19-20, when the kernel prints them.
    pub flushes: Option<Flushes>,
}

const FIELD_NAMES: [&str; 20] = [
    "major number",
    "minor number",
    "device name",
    "reads completed",
    "reads merged",
    "sectors read",
    "time spent reading (ms)",
    "writes completed",
    "writes merged",
    "sectors written",
    "time spent writing (ms)",
    "I/Os currently in progress",
    "time spent doing I/Os (ms)",
    "weighted time spent doing I/Os (ms)",
    "discards completed",
    "discards merged",
    "sectors discarded",
    "time spent discarding (ms)",
    "flush requests completed",
    "time spent flushing (ms)",
];

impl DiskStats {
    /// Parses one line. The error is the message only (`field 5 (reads merged): …`); callers
    /// prefix the file and line. More than 20 fields are accepted and the extra ignored, as
    /// sysstat does (its `sscanf` reads 20), so that a later kernel's additions do not break
    /// reading; 15-17 or 19 fields are not a form any kernel prints and are refused.
    pub fn parse(line: &str) -> std::result::Result<DiskStats, String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        if !(f.len() == 14 || f.len() == 18 || f.len() >= 20) {
            return Err(format!(
                "expected a /proc/diskstats line of 14, 18 or 20 fields (kernels before 4.18, \
                 4.18+, 5.5+), found {} fields",
                f.len()
            ));
        }
        let u64_at = |k: usize| -> std::result::Result<u64, String> {
            f[k].parse::<u64>().map_err(|_| {
                format!(
                    "field {} ({}): expected an unsigned integer, found `{}`",
                    k + 1,
                    FIELD_NAMES[k],
                    f[k]
                )
            })
        };
        let u32_at = |k: usize| -> std::result::Result<u32, String> {
            f[k].parse::<u32>().map_err(|_| {
                format!(
                    "field {} ({}): expected an unsigned 32-bit integer, found `{}`",
                    k + 1,
                    FIELD_NAMES[k],
                    f[k]
                )
            })
        };
        let discards = if f.len() >= 18 {
            Some(Discards {
                ios: u64_at(14)?,
                merges: u64_at(15)?,
                sectors: u64_at(16)?,
                ticks: u32_at(17)?,
            })
        } else {
            None
        };
        let flushes = if f.len() >= 20 {
            Some(Flushes {
                ios: u64_at(18)?,
                ticks: u32_at(19)?,
            })
        } else {
            None
        };
        Ok(DiskStats {
            major: u32_at(0)?,
            minor: u32_at(1)?,
            name: f[2].to_string(),
            rd_ios: u64_at(3)?,
            rd_merges: u64_at(4)?,
            rd_sectors: u64_at(5)?,
            rd_ticks: u32_at(6)?,
            wr_ios: u64_at(7)?,
            wr_merges: u64_at(8)?,
            wr_sectors: u64_at(9)?,
            wr_ticks: u32_at(10)?,
            in_flight: u32_at(11)?,
            io_ticks: u32_at(12)?,
            time_in_queue: u32_at(13)?,
            discards,
            flushes,
        })
    }

    /// All counters zero, with the same optional field groups as `like` (the "previous sample"
    /// of a report since boot).
    pub fn zero_like(like: &DiskStats) -> DiskStats {
        DiskStats {
            major: like.major,
            minor: like.minor,
            name: like.name.clone(),
            discards: like.discards.map(|_| Discards::default()),
            flushes: like.flushes.map(|_| Flushes::default()),
            ..DiskStats::default()
        }
    }
}

/// `/proc/uptime`'s first field in hundredths of a second, as sysstat's `read_uptime` takes it
/// (`%lu.%lu`: seconds and the two printed decimals). One decimal is read as tenths and more
/// than two are cut to two (the kernel always prints two).
pub fn parse_uptime_cs(text: &str) -> std::result::Result<u64, String> {
    let bad = || format!("expected an uptime in seconds like `14756.84`, found `{text}`");
    let (sec, frac) = text.split_once('.').unwrap_or((text, ""));
    if sec.is_empty() || !sec.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let sec: u64 = sec.parse().map_err(|_| bad())?;
    let cs = match frac.len() {
        0 => 0,
        1 => 10 * frac.parse::<u64>().map_err(|_| bad())?,
        _ => frac[..2].parse::<u64>().map_err(|_| bad())?,
    };
    sec.checked_mul(100)
        .and_then(|s| s.checked_add(cs))
        .ok_or_else(bad)
}

/// One snapshot of a recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// `/proc/uptime` in hundredths of a second.
    pub uptime_cs: u64,
    /// The line of the `# uptime` header in the recording (1-based); 0 for a snapshot read
    /// live ([`Snapshot::from_proc`]).
    pub line: u64,
    pub devices: Vec<DiskStats>,
}

impl Snapshot {
    pub fn device(&self, name: &str) -> Option<&DiskStats> {
        self.devices.iter().find(|d| d.name == name)
    }

    /// `name`'s line, or an error naming the snapshot (`origin:line` for a recording, `origin`
    /// alone for a snapshot read live) and the devices it has.
    pub fn require(&self, name: &str, origin: &str) -> Result<&DiskStats> {
        self.device(name).ok_or_else(|| {
            let names: Vec<&str> = self.devices.iter().map(|d| d.name.as_str()).collect();
            let found = if names.is_empty() {
                "found no device".to_string()
            } else {
                format!("found only: {}", names.join(", "))
            };
            if self.line > 0 {
                SsdError::trace(
                    origin,
                    self.line,
                    format!("expected device `{name}` in this snapshot, {found}"),
                )
            } else {
                SsdError::Invalid(format!("{origin}: expected device `{name}`, {found}"))
            }
        })
    }

    /// One snapshot read live: `proc_uptime` and `proc_diskstats` are the texts of
    /// `/proc/uptime` and `/proc/diskstats` read together (uptime first, as sysstat does).
    /// Errors name `/proc/uptime`, or `/proc/diskstats` and the line. `line` is 0 (not from a
    /// file).
    pub fn from_proc(proc_uptime: &str, proc_diskstats: &str) -> Result<Snapshot> {
        let up = proc_uptime.split_whitespace().next().unwrap_or("");
        let uptime_cs =
            parse_uptime_cs(up).map_err(|m| SsdError::Invalid(format!("{PROC_UPTIME}: {m}")))?;
        let mut snap = Snapshot {
            uptime_cs,
            line: 0,
            devices: Vec::new(),
        };
        for (k, l) in proc_diskstats.lines().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            let line = k as u64 + 1;
            let d = DiskStats::parse(l).map_err(|m| SsdError::trace(PROC_DISKSTATS, line, m))?;
            snap.add(d)
                .map_err(|m| SsdError::trace(PROC_DISKSTATS, line, m))?;
        }
        Ok(snap)
    }

    /// Adds a device line; a second line of the same device is refused.
    fn add(&mut self, d: DiskStats) -> std::result::Result<(), String> {
        if self.device(&d.name).is_some() {
            return Err(format!(
                "expected each device once per snapshot, `{}` appears again",
                d.name
            ));
        }
        self.devices.push(d);
        Ok(())
    }
}

/// The names errors give the live files.
pub const PROC_UPTIME: &str = "/proc/uptime";
pub const PROC_DISKSTATS: &str = "/proc/diskstats";

/// A recorded `/proc/diskstats` sequence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Where it was read from (for error messages).
    pub origin: String,
    pub snapshots: Vec<Snapshot>,
}

const UPTIME_TAG: &str = "# uptime";

impl Recording {
    /// Parses a recording; errors read `origin:line: expected …`.
    pub fn parse(text: &str, origin: &str) -> Result<Recording> {
        let mut snapshots: Vec<Snapshot> = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            let line = k as u64 + 1;
            let t = raw.trim();
            if let Some(rest) = t.strip_prefix(UPTIME_TAG) {
                if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
                    continue; // `# uptimes…`: a comment.
                }
                let value = rest.split_whitespace().next().unwrap_or("");
                let uptime_cs =
                    parse_uptime_cs(value).map_err(|m| SsdError::trace(origin, line, m))?;
                if let Some(prev) = snapshots.last() {
                    if prev.devices.is_empty() {
                        return Err(SsdError::trace(
                            origin,
                            prev.line,
                            "expected /proc/diskstats lines after `# uptime`, found none",
                        ));
                    }
                    if uptime_cs < prev.uptime_cs {
                        return Err(SsdError::trace(
                            origin,
                            line,
                            format!(
                                "expected an uptime not below the previous snapshot's ({}.{:02} s at line {}), found {value}",
                                prev.uptime_cs / 100,
                                prev.uptime_cs % 100,
                                prev.line
                            ),
                        ));
                    }
                }
                snapshots.push(Snapshot {
                    uptime_cs,
                    line,
                    devices: Vec::new(),
                });
                continue;
            }
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let Some(snap) = snapshots.last_mut() else {
                return Err(SsdError::trace(
                    origin,
                    line,
                    "expected a `# uptime SECONDS` line before the first /proc/diskstats line",
                ));
            };
            let d = DiskStats::parse(t).map_err(|m| SsdError::trace(origin, line, m))?;
            snap.add(d).map_err(|m| SsdError::trace(origin, line, m))?;
        }
        match snapshots.last() {
            None => Err(SsdError::trace(
                origin,
                1,
                "expected a recording (`# uptime SECONDS` then /proc/diskstats), found no snapshot",
            )),
            Some(s) if s.devices.is_empty() => Err(SsdError::trace(
                origin,
                s.line,
                "expected /proc/diskstats lines after `# uptime`, found none",
            )),
            Some(_) => Ok(Recording {
                origin: origin.to_string(),
                snapshots,
            }),
        }
    }

    /// Reads and parses a recording file.
    pub fn read(path: &std::path::Path) -> Result<Recording> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SsdError::io(&name, e))?;
        Recording::parse(&text, &name)
    }

    /// The device names of the first snapshot (for messages and listings).
    pub fn device_names(&self) -> Vec<String> {
        self.snapshots
            .first()
            .map(|s| s.devices.iter().map(|d| d.name.clone()).collect())
            .unwrap_or_default()
    }
}

/// Appends one snapshot in the recording format: `# uptime` with the first field of
/// `proc_uptime` (the text of `/proc/uptime`), then `proc_diskstats` as read. Both are checked,
/// so that a recording written this way always reads back.
pub fn append_snapshot(out: &mut String, proc_uptime: &str, proc_diskstats: &str) -> Result<()> {
    Snapshot::from_proc(proc_uptime, proc_diskstats)?;
    let up = proc_uptime.split_whitespace().next().unwrap_or("");
    out.push_str(UPTIME_TAG);
    out.push(' ');
    out.push_str(up);
    out.push('\n');
    out.push_str(proc_diskstats);
    if !proc_diskstats.ends_with('\n') {
        out.push('\n');
    }
    Ok(())
}
