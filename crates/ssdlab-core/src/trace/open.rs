//! The entry points that turn a workload specification (`trace::spec`) into a request source:
//! [`open_workload`] and, for a trace file alone, [`open_trace`].

use super::format::open_format;
use super::lba_map::LbaMapped;
use super::request::{forward_to_inner, Request, RequestSource};
use super::skips::NonEmpty;
use super::spec::{TraceSpec, WorkloadSpec};
use super::synthetic::Synthetic;
use crate::error::{Result, SsdError};

/// Stops a source after `limit` requests.
struct Take {
    inner: Box<dyn RequestSource>,
    left: u64,
}

impl RequestSource for Take {
    fn next_request(&mut self) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.inner.next_request()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    forward_to_inner!();
}

/// The raw reader of a trace spec: format (auto-detected if `auto`), device filter, blkparse
/// action, `repeat` and `max_requests` applied; addresses as in the file (no LBA mapping).
pub fn open_trace(spec: &TraceSpec) -> Result<Box<dyn RequestSource>> {
    spec.validate()?;
    let src = open_format(
        &spec.path,
        spec.format,
        spec.device,
        spec.blkparse_action,
        spec.parse_thread,
    )?;
    let src = if spec.repeat > 1 {
        let s = spec.clone();
        let again = move || {
            open_format(
                &s.path,
                s.format,
                s.device,
                s.blkparse_action,
                s.parse_thread,
            )
        };
        Box::new(super::repeat::Repeat::new(
            src,
            Box::new(again),
            spec.repeat,
            spec.repeat_shift,
        ))
    } else {
        src
    };
    Ok(match spec.max_requests {
        Some(left) => Box::new(Take { inner: src, left }),
        None => src,
    })
}

/// The request source of a workload on a device of `logical_bytes` with pages of `page_size`:
/// a trace reader wrapped in its LBA map, or a generator (whose addresses are in range by
/// construction), seeded from `seed` through [`crate::rng::stream`]`(seed, "workload")`.
/// A trace that yields no request is an error naming the file and why, here (before any
/// device is built), unless `allow_empty`.
pub fn open_workload(
    spec: &WorkloadSpec,
    logical_bytes: u64,
    page_size: u64,
    seed: u64,
) -> Result<Box<dyn RequestSource>> {
    match spec {
        WorkloadSpec::Trace(t) => {
            let raw = open_trace(t)?;
            let raw: Box<dyn RequestSource> = if t.allow_empty {
                raw
            } else {
                Box::new(NonEmpty::open(raw, &t.path.display().to_string())?)
            };
            Ok(Box::new(LbaMapped::new(
                raw,
                t.lba_map,
                logical_bytes,
                page_size,
            )?))
        }
        WorkloadSpec::Synthetic(s) => {
            Ok(Box::new(Synthetic::new(s, logical_bytes, page_size, seed)?))
        }
        WorkloadSpec::Preset { name, requests } => Ok(Box::new(Synthetic::new(
            &super::presets::stand_in(name, *requests)?,
            logical_bytes,
            page_size,
            seed,
        )?)),
        WorkloadSpec::Fs(f) => Ok(Box::new(super::fs::FsSource::new(
            f,
            logical_bytes,
            page_size,
            seed,
        )?)),
        WorkloadSpec::Flows(_) => Err(SsdError::Workload(
            "flows: several flows run only as a whole simulation (ssdlab run, ssdlab.simulate, \
             sweeps); this command takes one workload"
                .into(),
        )),
    }
}
