//! Workload specifications (serde, from JSON or TOML) with range validation. `trace::open`
//! turns one into a request source.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::arrival::ArrivalSpec;
use super::blkparse::BlkAction;
use super::format::TraceFormat;
use super::lba_map::LbaMapMode;
use crate::error::{Result, SsdError};

/// A workload: a trace file, a synthetic generator, a file-system benchmark or several flows,
/// tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSpec {
    Trace(TraceSpec),
    Synthetic(SyntheticSpec),
    /// A named synthetic stand-in (`trace::presets`), e.g. `{"kind": "preset", "name": "home1",
    /// "requests": 100000}`.
    Preset {
        name: String,
        requests: u64,
    },
    /// A benchmark on a host file system (`trace::fs`), e.g. `{"kind": "fs", "personality":
    /// "fileserver", "requests": 20000, "trim": "none", "stale_fraction": 0.5}`.
    Fs(super::fs::FsSpec),
    /// Several flows, each a workload of its own through its own submission queue
    /// (`trace::flows`, run by `sim::flows`): `{"kind": "flows", "flows": [{"name": "reader", "workload": {...},
    /// "replay": {"mode": "closed-loop", "queue_depth": 4}, "priority": "high"}, ...]}`.
    Flows(super::flows::FlowsSpec),
}

fn one_pass() -> u32 {
    1
}

/// A trace file to replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    pub path: PathBuf,
    #[serde(default)]
    pub format: TraceFormat,
    /// Keep only requests of this device (disk number, ASU, minor); formats with one only.
    #[serde(default)]
    pub device: Option<u32>,
    #[serde(default, alias = "lba-map")]
    pub lba_map: LbaMapMode,
    /// Stop after this many requests (counted before LBA mapping splits any).
    #[serde(default, alias = "max-requests")]
    pub max_requests: Option<u64>,
    /// blkparse only: which action to take requests from.
    #[serde(default, alias = "blkparse-action")]
    pub blkparse_action: BlkAction,
    /// Replay a trace that yields no request (an empty file, or every record skipped: by the
    /// device filter, by blkparse action, by opcode) as an empty run. Off: such a trace is an
    /// error naming the file and why nothing was replayed.
    #[serde(default, alias = "allow-empty")]
    pub allow_empty: bool,
    /// Replay the trace this many times back to back (`trace::repeat`): the same addresses,
    /// each pass's arrivals after the previous pass's, a mean inter-arrival gap apart. For
    /// excerpts too short to make GC run. `max_requests` counts over all passes.
    #[serde(default = "one_pass")]
    pub repeat: u32,
    /// With `repeat`: each pass at addresses past the previous pass's (the trace's address
    /// span further), so that every pass writes fresh pages (a write buffer cannot absorb the
    /// later passes); an LBA map `modulo` folds them onto the device.
    #[serde(default, alias = "repeat-shift")]
    pub repeat_shift: bool,
    /// Read and parse a text trace on a second thread (`true`), or on the simulation's
    /// (`false`); unset: on a second thread when the machine has more than one CPU. The same
    /// requests and errors either way (`trace::read_ahead`), so it is left out of the
    /// serialised spec when unset, and a run's setup and identity do not depend on it.
    #[serde(
        default,
        alias = "parse-thread",
        skip_serializing_if = "Option::is_none"
    )]
    pub parse_thread: Option<bool>,
}

impl TraceSpec {
    /// A spec for `path` with every other field at its default.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TraceSpec {
            path: path.into(),
            format: TraceFormat::Auto,
            device: None,
            lba_map: LbaMapMode::None,
            max_requests: None,
            blkparse_action: BlkAction::Dispatch,
            allow_empty: false,
            repeat: 1,
            repeat_shift: false,
            parse_thread: None,
        }
    }

    pub fn validate(&self) -> Result<()> {
        if self.max_requests == Some(0) {
            return Err(SsdError::Workload(
                "max_requests: must be > 0 when given".into(),
            ));
        }
        if self.repeat == 0 {
            return Err(SsdError::Workload(
                "repeat: expected a whole number of passes, at least 1, got 0".into(),
            ));
        }
        if self.repeat_shift && self.repeat == 1 {
            return Err(SsdError::Workload(
                "repeat_shift: applies with repeat ≥ 2 (one pass has nothing to shift)".into(),
            ));
        }
        Ok(())
    }
}

/// Address pattern of a synthetic workload.
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
pub enum Pattern {
    /// Addresses uniformly at random over the footprint.
    #[default]
    Uniform,
    /// Hot/cold: a fraction `hot_write_fraction` of requests go to the first
    /// `hot_space_fraction` of the footprint (uniform within each part).
    #[serde(alias = "hot-cold", alias = "hot_cold")]
    Hotcold,
    /// Zipf popularity with exponent `zipf_theta` (0 is uniform), ranks scattered over the
    /// footprint.
    Zipf,
    /// Addresses in order, wrapping at the end of the footprint.
    Sequential,
}

crate::config::impl_registry!(Pattern, "synthetic pattern", "--workload", default);

/// A synthetic workload. Addresses are `request_pages`-aligned slots within the first
/// `footprint_fraction` of the logical space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSpec {
    #[serde(default)]
    pub pattern: Pattern,
    pub requests: u64,
    /// Fraction of requests that are reads (the rest are writes).
    #[serde(default, alias = "read-fraction")]
    pub read_fraction: f64,
    /// Request size in device pages; requests are aligned to it.
    #[serde(default = "one", alias = "request-pages")]
    pub request_pages: u64,
    /// Only the first this fraction of the logical space is addressed.
    #[serde(default = "one_f", alias = "footprint-fraction")]
    pub footprint_fraction: f64,
    /// hotcold: fraction r of requests that go to the hot space.
    #[serde(default = "hot_w", alias = "hot-write-fraction")]
    pub hot_write_fraction: f64,
    /// hotcold: fraction f of the footprint that is hot.
    #[serde(default = "hot_s", alias = "hot-space-fraction")]
    pub hot_space_fraction: f64,
    /// zipf: exponent θ ≥ 0 (0 is uniform).
    #[serde(default = "theta", alias = "zipf-theta")]
    pub zipf_theta: f64,
    #[serde(default)]
    pub arrival: ArrivalSpec,
    /// Variable request sizes: 4 KiB × (1 + Geometric), with this mean in KiB (≥ 4); `None` =
    /// every request is `request_pages` pages. Offsets stay `request_pages`-aligned; a request
    /// is cut at the end of the footprint.
    #[serde(default, alias = "mean-request-kib")]
    pub mean_request_kib: Option<f64>,
}

fn one() -> u64 {
    1
}
fn one_f() -> f64 {
    1.0
}
fn hot_w() -> f64 {
    0.8
}
fn hot_s() -> f64 {
    0.2
}
fn theta() -> f64 {
    0.99
}

impl SyntheticSpec {
    /// A spec with every field but `pattern` and `requests` at its default.
    pub fn new(pattern: Pattern, requests: u64) -> Self {
        SyntheticSpec {
            pattern,
            requests,
            read_fraction: 0.0,
            request_pages: 1,
            footprint_fraction: 1.0,
            hot_write_fraction: hot_w(),
            hot_space_fraction: hot_s(),
            zipf_theta: theta(),
            arrival: ArrivalSpec::Closed,
            mean_request_kib: None,
        }
    }

    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(SsdError::Workload(m));
        let unit = |name: &str, v: f64| -> Result<()> {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(SsdError::Workload(format!(
                    "{name}: must be in [0, 1], got {v}"
                )))
            }
        };
        if self.requests == 0 {
            return bad("requests: must be > 0".into());
        }
        if self.request_pages == 0 {
            return bad("request_pages: must be > 0".into());
        }
        if let Some(m) = self.mean_request_kib {
            if !(m.is_finite() && m >= 4.0) {
                return bad(format!(
                    "mean_request_kib: must be a finite number >= 4, got {m}"
                ));
            }
        }
        unit("read_fraction", self.read_fraction)?;
        unit("footprint_fraction", self.footprint_fraction)?;
        if self.footprint_fraction == 0.0 {
            return bad("footprint_fraction: must be > 0".into());
        }
        unit("hot_write_fraction", self.hot_write_fraction)?;
        unit("hot_space_fraction", self.hot_space_fraction)?;
        if !(self.zipf_theta.is_finite() && self.zipf_theta >= 0.0) {
            return bad(format!(
                "zipf_theta: must be a finite number >= 0, got {}",
                self.zipf_theta
            ));
        }
        self.arrival.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::super::arrival::IdleDist;
    use super::super::open::{open_trace, open_workload};
    use super::*;

    #[test]
    fn json_and_toml_with_defaults() {
        let w: WorkloadSpec =
            serde_json::from_str(r#"{"kind": "trace", "path": "x.csv", "lba_map": "dense"}"#)
                .unwrap();
        let WorkloadSpec::Trace(t) = w else {
            panic!("not a trace")
        };
        assert_eq!(
            (t.format, t.lba_map, t.blkparse_action),
            (TraceFormat::Auto, LbaMapMode::Dense, BlkAction::Dispatch)
        );
        let w: WorkloadSpec = toml::from_str(
            "kind = \"synthetic\"\npattern = \"hotcold\"\nrequests = 10\n[arrival]\nkind = \"on-off\"\nburst_requests = 8\nburst_interval_us = 5\nidle_mean_us = 1000\nidle = { dist = \"pareto\", shape = 1.5 }\n",
        )
        .unwrap();
        let WorkloadSpec::Synthetic(s) = w else {
            panic!("not synthetic")
        };
        assert_eq!(
            (s.pattern, s.request_pages, s.footprint_fraction),
            (Pattern::Hotcold, 1, 1.0)
        );
        assert!(
            matches!(s.arrival, ArrivalSpec::OnOff { idle: IdleDist::Pareto { shape }, .. } if shape == 1.5)
        );
        s.validate().unwrap();
        let t: TraceSpec =
            toml::from_str("path = \"a\"\nformat = \"vscsi-csv\"\nblkparse_action = \"Q\"\n")
                .unwrap();
        assert_eq!(
            (t.format, t.blkparse_action),
            (TraceFormat::VscsiCsv, BlkAction::Queue)
        );
    }

    #[test]
    fn unknown_fields_and_names_are_errors() {
        for bad in [
            r#"{"kind": "trace", "path": "x", "colour": 1}"#,
            r#"{"kind": "trace", "path": "x", "format": "tarball"}"#,
            r#"{"kind": "synthetic", "requests": 1, "pattern": "spiral"}"#,
            r#"{"kind": "synthetic", "requests": 1, "arrival": {"kind": "poisson", "iops": 1, "x": 2}}"#,
            r#"{"kind": "tape"}"#,
        ] {
            assert!(serde_json::from_str::<WorkloadSpec>(bad).is_err(), "{bad}");
        }
        let e = serde_json::from_str::<WorkloadSpec>(
            r#"{"kind": "trace", "path": "x", "format": "tarball"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("msr, fiu"), "{e}");
    }

    #[test]
    fn open_workload_maps_traces_and_seeds_generators() {
        let p = super::super::input::testutil::fixture(
            "ow.csv",
            b"0,W,1099511627776,4096\n1,W,4096,4096\n2,R,1099511627776,4096\n",
            false,
        );
        let spec: WorkloadSpec = serde_json::from_value(serde_json::json!({
            "kind": "trace", "path": p, "lba_map": "dense", "max_requests": 2
        }))
        .unwrap();
        let mut src = open_workload(&spec, 1 << 20, 4096, 0).unwrap();
        let a = src.next_request().unwrap().unwrap();
        let b = src.next_request().unwrap().unwrap();
        assert_eq!((a.offset_bytes, b.offset_bytes), (0, 4096));
        assert_eq!(src.next_request().unwrap(), None);
        assert_eq!(src.location().unwrap().1, 2);
        let WorkloadSpec::Trace(mut t) = spec else {
            panic!("not a trace")
        };
        t.lba_map = LbaMapMode::None;
        t.max_requests = None;
        let mut src = open_workload(&WorkloadSpec::Trace(t), 1 << 20, 4096, 0).unwrap();
        let e = src.next_request().unwrap_err().to_string();
        assert!(
            e.contains("ow.csv:1: ") && e.contains("--lba-map dense|modulo"),
            "{e}"
        );

        let s = WorkloadSpec::Synthetic(SyntheticSpec::new(Pattern::Zipf, 100));
        let draw = |seed| {
            let mut g = open_workload(&s, 1 << 30, 4096, seed).unwrap();
            (0..100)
                .map(|_| g.next_request().unwrap().unwrap().offset_bytes)
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
    }

    #[test]
    fn validation_names_the_field() {
        let mut s = SyntheticSpec::new(Pattern::Uniform, 10);
        s.read_fraction = 1.5;
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .contains("read_fraction: must be in [0, 1], got 1.5"));
        let mut s = SyntheticSpec::new(Pattern::Uniform, 0);
        assert!(s.validate().unwrap_err().to_string().contains("requests"));
        s.requests = 1;
        s.arrival = ArrivalSpec::OnOff {
            burst_requests: 4.0,
            burst_interval_us: 1.0,
            idle_mean_us: 10.0,
            idle: IdleDist::Pareto { shape: 0.9 },
        };
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .contains("arrival.idle.shape"));
        s.arrival = ArrivalSpec::Poisson { iops: 0.0 };
        assert!(s
            .validate()
            .unwrap_err()
            .to_string()
            .contains("arrival.iops"));
        let mut t = TraceSpec::new("x");
        t.max_requests = Some(0);
        assert!(open_trace(&t)
            .err()
            .unwrap()
            .to_string()
            .contains("max_requests"));
    }
}
