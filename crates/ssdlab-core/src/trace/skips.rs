//! What a trace reader read and skipped, so that a trace which yields no request can say why
//! (an empty file, only a header, every record of another device, an opcode that is neither a
//! read nor a write …), and the wrapper that makes such a trace an error unless the user allows
//! it (`allow_empty`).

use std::collections::BTreeSet;

use super::request::{forward_to_inner, Request, RequestSource};
use crate::error::{Result, SsdError};

/// Why a well-formed record yielded no request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// A device (disk, ASU, minor) other than the one the device filter keeps.
    OtherDevice,
    /// blkparse: another action than the one requests are taken from (`blkparse_action`).
    OtherAction,
    /// blkparse: an event that moves no data (flush or barrier only).
    NoData,
    /// An opcode that is neither a read nor a write (a non-data SCSI command).
    UnknownOpcode,
}

const REASONS: usize = 4;

/// Devices listed in a message at most (the count of all is given).
const LISTED_DEVICES: usize = 16;
/// Distinct devices remembered at most.
const KEPT_DEVICES: usize = 4096;

/// Counts of skipped records by reason, where the first of each was, and the devices seen.
#[derive(Debug, Clone, Default)]
pub struct Skips {
    counts: [u64; REASONS],
    first: [Option<String>; REASONS],
    devices: BTreeSet<u32>,
    /// More distinct devices were seen than [`KEPT_DEVICES`].
    devices_capped: bool,
}

impl Skips {
    /// One record skipped for `reason`; `at` says where (called for the first of each reason
    /// only, so it may format freely).
    pub fn add(&mut self, reason: SkipReason, at: impl FnOnce() -> String) {
        let i = reason as usize;
        self.counts[i] += 1;
        if self.first[i].is_none() {
            self.first[i] = Some(at());
        }
    }

    /// One record of `device` skipped by the device filter.
    pub fn other_device(&mut self, device: u32, at: impl FnOnce() -> String) {
        self.add(SkipReason::OtherDevice, at);
        if self.devices.len() < KEPT_DEVICES {
            self.devices.insert(device);
        } else if !self.devices.contains(&device) {
            self.devices_capped = true;
        }
    }

    /// Records skipped in all.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Why nothing was replayed from a file of which `units` lines (text) or records (binary)
    /// were read, with `device` the device filter (if any).
    pub fn explain(&self, units: u64, unit: &str, device: Option<u32>) -> String {
        let total = self.total();
        if total == 0 {
            return match units {
                0 => "the file is empty".to_string(),
                1 => format!("its one {unit} holds no record (a header, comment or blank line)"),
                _ => format!(
                    "its {units} {unit}s hold no record (header, comment or blank lines only)"
                ),
            };
        }
        let mut parts = Vec::new();
        for (i, &n) in self.counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let first = self.first[i].as_deref().unwrap_or("?");
            parts.push(match i {
                0 => {
                    let mut list: Vec<String> = self
                        .devices
                        .iter()
                        .take(LISTED_DEVICES)
                        .map(u32::to_string)
                        .collect();
                    if self.devices.len() > LISTED_DEVICES || self.devices_capped {
                        list.push(format!(
                            "… ({}{} devices)",
                            if self.devices_capped { "over " } else { "" },
                            self.devices.len()
                        ));
                    }
                    let filter = device.map_or("the filter's".to_string(), |d| d.to_string());
                    format!(
                        "{n} of devices other than {filter} (the device filter, --disk); the trace has device{} {}",
                        plural(self.devices.len() as u64),
                        list.join(", ")
                    )
                }
                1 => format!(
                    "{n} of other blktrace actions than blkparse_action keeps (first at {first})"
                ),
                2 => format!("{n} of events without data (first at {first})"),
                _ => format!(
                    "{n} with an opcode that is neither a read nor a write (first at {first})"
                ),
            });
        }
        let all = if total == 1 {
            "its only record was skipped".to_string()
        } else {
            format!("all {total} records were skipped")
        };
        format!("{all}: {}", parts.join("; "))
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A trace that must yield at least one request: the first is read when the source is opened
/// (so an empty trace is refused before a device is built and preconditioned), and a trace
/// with none is an error naming the file and why ([`RequestSource::why_empty`]).
pub(crate) struct NonEmpty {
    inner: Box<dyn RequestSource>,
    first: Option<Request>,
}

impl NonEmpty {
    pub(crate) fn open(mut inner: Box<dyn RequestSource>, file: &str) -> Result<Self> {
        let first = inner.next_request()?;
        if first.is_none() {
            let why = inner
                .why_empty()
                .unwrap_or_else(|| "it yields no request".to_string());
            return Err(SsdError::Invalid(format!(
                "{file}: expected requests to replay, found none: {why}; to run it anyway, pass --allow-empty (allow_empty = true)"
            )));
        }
        Ok(NonEmpty { inner, first })
    }
}

impl RequestSource for NonEmpty {
    fn next_request(&mut self) -> Result<Option<Request>> {
        match self.first.take() {
            Some(r) => Ok(Some(r)),
            None => self.inner.next_request(),
        }
    }
    /// Tested before taken: `Option::take` on the 56-byte request wrote `None` back and moved
    /// the whole option for every request of the trace, not only the first (docs/speed.md
    /// docs/speed.md, "A replay's per-request checks in line").
    fn next_into(&mut self, out: &mut Request) -> Result<bool> {
        if self.first.is_none() {
            return self.inner.next_into(out);
        }
        Ok(super::request::store(self.first.take(), out))
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    forward_to_inner!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explains_each_reason() {
        let s = Skips::default();
        assert_eq!(s.explain(0, "line", None), "the file is empty");
        assert!(s
            .explain(1, "line", None)
            .contains("its one line holds no record"));
        let mut s = Skips::default();
        for d in [3, 1, 3, 2] {
            s.other_device(d, || "line 1".into());
        }
        let e = s.explain(4, "line", Some(99));
        assert!(
            e.contains("all 4 records were skipped: 4 of devices other than 99")
                && e.contains("devices 1, 2, 3"),
            "{e}"
        );
        let mut s = Skips::default();
        s.add(SkipReason::UnknownOpcode, || "record 1".into());
        s.add(SkipReason::UnknownOpcode, || unreachable!());
        s.add(SkipReason::NoData, || "line 7".into());
        let e = s.explain(3, "record", None);
        assert!(
            e.contains("2 with an opcode that is neither a read nor a write (first at record 1)")
                && e.contains("1 of events without data (first at line 7)"),
            "{e}"
        );
        let mut s = Skips::default();
        for d in 0..40 {
            s.other_device(d, String::new);
        }
        assert!(s
            .explain(40, "line", Some(99))
            .contains("15, … (40 devices)"));
    }
}
