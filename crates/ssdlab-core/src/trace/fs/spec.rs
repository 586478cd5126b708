//! The `fs` workload's specification (`{"kind": "fs", "personality": "fileserver", "requests":
//! N, …}`): the personality registry, the TRIM mode, the scenario knobs and the optional
//! overrides of a personality's own defaults, with validation naming the field.

use serde::{Deserialize, Serialize};

use super::IO_MAX;
use crate::config::Registry as _;
use crate::error::{Result, SsdError};
use crate::trace::ArrivalSpec;

/// A benchmark the host runs on its file system (see `trace::fs`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum FsPersonality {
    /// fio rw=randwrite bs=512k direct=1 on one file filling the partition, laid out first
    /// (Park & Kim 2018 §III.A's micro benchmark; fio's random map: each block once per pass).
    FioRandwrite,
    /// filebench fileserver.f (Sun 2008): 50 threads create+write whole, append, read whole,
    /// delete and stat files of 128 KiB (gamma 1.5), 80 % preallocated.
    Fileserver,
    /// filebench varmail.f (Sun 2007): 16 threads delete, create+append+fsync, read+append+fsync
    /// and read files of 16 KiB (gamma 1.5), 80 % preallocated.
    Varmail,
    /// iozone -i 0 (write, rewrite) of one file, then delete, repeated with no idle time (Park
    /// & Kim 2018 §V's background churn).
    Iozone,
}

crate::config::impl_registry!(FsPersonality, "fs personality", "fs.personality");

/// The personality's own defaults ([`FsPersonality::defaults`]) are dispatched in `fs/mod.rs`,
/// beside the builders: the spec needs none of the personalities, which all read it.
impl FsPersonality {
    fn is_filebench(self) -> bool {
        matches!(self, FsPersonality::Fileserver | FsPersonality::Varmail)
    }
}

/// When the host tells the device about deleted files.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum TrimMode {
    /// No TRIM on delete: deleted extents stay valid on the device until overwritten or until
    /// the caller trims them (trim_deleted: fstrim, or a GC detector's response).
    #[default]
    None,
    /// ext4's discard mount option: every delete TRIMs the file's extents right after it.
    Discard,
}

crate::config::impl_registry!(TrimMode, "TRIM mode", "fs.trim", default);

/// A personality's defaults, as its source sets them (`api::defaults()["fs"]` lists them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PersonalityDefaults {
    /// Threads (filebench `$nthreads`); `None`: one stream of I/O.
    pub nthreads: Option<u32>,
    /// Bytes per I/O call in KiB (filebench `$iosize`, fio `bs`, iozone's write-back size).
    pub io_kib: u64,
    /// Mean file size in KiB (filebench `$meanfilesize`, gamma-distributed).
    pub mean_file_kib: Option<f64>,
    /// filebench `$meanappendsize` in KiB: `appendfilerand` appends 1 B to this − 1 B.
    pub append_kib: Option<u64>,
    /// The .f file's `$nfiles`, for reference: runs scale the count with `fileset_fraction`.
    pub nfiles: Option<u64>,
    /// The fileset's share of the partition when `fileset_fraction` is not given.
    pub fileset_fraction: Option<f64>,
    /// Fraction of the fileset's files written before the run (filebench `prealloc`).
    pub prealloc: Option<f64>,
    /// iozone: the file's share of the partition when `file_mib` is not given.
    pub file_fraction: Option<f64>,
}

/// An `fs` workload. Fields left out take the defaults; the overrides (`nthreads` …
/// `file_mib`) are refused for a personality that has no such setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsSpec {
    pub personality: FsPersonality,
    /// Data requests (reads and writes) of the personality; prefill, setup and TRIMs are extra.
    pub requests: u64,
    #[serde(default)]
    pub trim: TrimMode,
    /// The first this fraction of the logical space is written once and deleted (not
    /// trimmed unless `trim = "discard"`) before the personality starts: [0, 1).
    #[serde(default, alias = "stale-fraction")]
    pub stale_fraction: f64,
    /// The personality's partition as a fraction of the logical space, after the stale one;
    /// `None`: all the rest.
    #[serde(default, alias = "partition-fraction")]
    pub partition_fraction: Option<f64>,
    /// filebench: the fileset's nominal size (files × mean size) as a fraction of the
    /// partition, which sets the number of files; `None`: the personality's default (0.5).
    #[serde(default, alias = "fileset-fraction")]
    pub fileset_fraction: Option<f64>,
    /// filebench: threads.
    #[serde(default)]
    pub nthreads: Option<u32>,
    /// KiB per I/O call (a multiple of 4, at most 1024).
    #[serde(default, alias = "io-kib")]
    pub io_kib: Option<u64>,
    /// filebench: mean file size in KiB.
    #[serde(default, alias = "mean-file-kib")]
    pub mean_file_kib: Option<f64>,
    /// filebench: appends are 1 B … `append_kib` KiB − 1 B.
    #[serde(default, alias = "append-kib")]
    pub append_kib: Option<u64>,
    /// iozone: the file size in MiB; `None`: a quarter of the partition.
    #[serde(default, alias = "file-mib")]
    pub file_mib: Option<f64>,
    #[serde(default)]
    pub arrival: ArrivalSpec,
}

impl FsSpec {
    /// A spec with every field but `personality` and `requests` at its default.
    pub fn new(personality: FsPersonality, requests: u64) -> Self {
        FsSpec {
            personality,
            requests,
            trim: TrimMode::None,
            stale_fraction: 0.0,
            partition_fraction: None,
            fileset_fraction: None,
            nthreads: None,
            io_kib: None,
            mean_file_kib: None,
            append_kib: None,
            file_mib: None,
            arrival: ArrivalSpec::Closed,
        }
    }

    pub fn validate(&self) -> Result<()> {
        let p = self.personality;
        let check = |field: &str, ok: bool, expected: &str, got: String| -> Result<()> {
            if ok {
                Ok(())
            } else {
                Err(SsdError::Workload(format!(
                    "{field}: expected {expected}, got {got}"
                )))
            }
        };
        let only = |field: &str, given: bool, applies: bool, who: &str| -> Result<()> {
            check(
                field,
                !given || applies,
                &format!("no value for {} (only {who} have it)", p.name()),
                "a value".into(),
            )
        };
        check("requests", self.requests > 0, "> 0", "0".into())?;
        let s = self.stale_fraction;
        check(
            "stale_fraction",
            s.is_finite() && (0.0..1.0).contains(&s),
            "a fraction in [0, 1)",
            s.to_string(),
        )?;
        if let Some(f) = self.partition_fraction {
            check(
                "partition_fraction",
                f.is_finite() && f > 0.0 && f <= 1.0,
                "a fraction in (0, 1]",
                f.to_string(),
            )?;
            check(
                "partition_fraction",
                s + f <= 1.0 + 1e-9,
                &format!("at most 1 - stale_fraction = {}", 1.0 - s),
                f.to_string(),
            )?;
        }
        let fb = p.is_filebench();
        let fb_names = "fileserver, varmail";
        only(
            "fileset_fraction",
            self.fileset_fraction.is_some(),
            fb,
            fb_names,
        )?;
        only("nthreads", self.nthreads.is_some(), fb, fb_names)?;
        only("mean_file_kib", self.mean_file_kib.is_some(), fb, fb_names)?;
        only("append_kib", self.append_kib.is_some(), fb, fb_names)?;
        let iozone = p == FsPersonality::Iozone;
        only("file_mib", self.file_mib.is_some(), iozone, "iozone")?;
        if let Some(f) = self.fileset_fraction {
            check(
                "fileset_fraction",
                f.is_finite() && f > 0.0 && f <= 1.0,
                "a fraction in (0, 1]",
                f.to_string(),
            )?;
        }
        if let Some(n) = self.nthreads {
            check(
                "nthreads",
                (1..=4096).contains(&n),
                "1 to 4096",
                n.to_string(),
            )?;
        }
        if let Some(k) = self.io_kib {
            check(
                "io_kib",
                k >= 4 && k % 4 == 0 && k * 1024 <= IO_MAX,
                "a multiple of 4 from 4 to 1024",
                k.to_string(),
            )?;
        }
        if let Some(m) = self.mean_file_kib {
            check(
                "mean_file_kib",
                m.is_finite() && m > 0.0 && m <= 1048576.0,
                "a size in (0, 1048576] KiB",
                m.to_string(),
            )?;
        }
        if let Some(a) = self.append_kib {
            check(
                "append_kib",
                (1..=1024).contains(&a),
                "1 to 1024",
                a.to_string(),
            )?;
        }
        if let Some(m) = self.file_mib {
            check(
                "file_mib",
                m.is_finite() && m > 0.0,
                "a size > 0 MiB",
                m.to_string(),
            )?;
        }
        self.arrival.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_options_name_their_field_in_one_line() {
        let mut s = FsSpec::new(FsPersonality::Fileserver, 10);
        s.validate().unwrap();
        for (field, edit) in [
            (
                "requests",
                (|s: &mut FsSpec| s.requests = 0) as fn(&mut FsSpec),
            ),
            ("stale_fraction", |s| s.stale_fraction = 1.0),
            ("stale_fraction", |s| s.stale_fraction = f64::NAN),
            ("partition_fraction", |s| s.partition_fraction = Some(0.0)),
            ("partition_fraction", |s| {
                s.stale_fraction = 0.5;
                s.partition_fraction = Some(0.6)
            }),
            ("fileset_fraction", |s| s.fileset_fraction = Some(1.5)),
            ("nthreads", |s| s.nthreads = Some(0)),
            ("io_kib", |s| s.io_kib = Some(6)),
            ("io_kib", |s| s.io_kib = Some(2048)),
            ("mean_file_kib", |s| s.mean_file_kib = Some(-1.0)),
            ("append_kib", |s| s.append_kib = Some(0)),
            ("file_mib", |s| s.file_mib = Some(10.0)),
            ("arrival.iops", |s| {
                s.arrival = ArrivalSpec::Poisson { iops: 0.0 }
            }),
        ] {
            let mut t = s.clone();
            edit(&mut t);
            let e = t.validate().unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("workload: {field}: ")),
                "{field}: {e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
        s.personality = FsPersonality::Iozone;
        s.nthreads = Some(4);
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("nthreads: expected no value for iozone"), "{e}");
    }

    #[test]
    fn json_names_and_defaults() {
        let s: FsSpec = serde_json::from_str(
            r#"{"personality": "fio-randwrite", "requests": 5, "trim": "discard", "stale-fraction": 0.5}"#,
        )
        .unwrap();
        assert_eq!(
            (s.personality, s.trim, s.stale_fraction, s.io_bytes()),
            (
                FsPersonality::FioRandwrite,
                TrimMode::Discard,
                0.5,
                512 << 10
            )
        );
        let e = serde_json::from_str::<FsSpec>(r#"{"personality": "webserver", "requests": 5}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("fileserver") && e.contains("iozone"), "{e}");
        assert!(serde_json::from_str::<FsSpec>(
            r#"{"personality": "iozone", "requests": 5, "colour": 1}"#
        )
        .is_err());
    }
}
