//! Several flows in one run (`{"kind": "flows", "flows": [...]}`, a workload of workloads):
//! each flow is a tenant with its own workload, replay (open or closed loop, queue depth), LBA
//! range and NVMe priority class, submitting through its own submission queue. MQSim's
//! multi-flow host (Tavakkol et al., FAST 2018, section 3) is the reference: its flows have a
//! workload, a queue depth, a priority class and an address range each.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, IntoStaticStr};

use super::{Replay, WorkloadSpec};
use crate::error::{Result, SsdError};

/// Most flows in one run (MQSim's host allows one per I/O queue pair; NVMe allows 65,535).
pub const MAX_FLOWS: usize = 256;

/// The NVMe priority class of a flow's submission queue (QPRIO of Create I/O Submission Queue).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    EnumIter,
    IntoStaticStr,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub enum Priority {
    Urgent,
    High,
    /// The default: what the Linux driver gives its queues when weighted round robin is on.
    #[default]
    Medium,
    Low,
}

/// Which logical pages a flow addresses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LbaRange {
    /// `"partition"` (the default: flow i of n gets the i-th n-th of the logical space) or
    /// `"shared"` (the whole space, shared with the other shared flows).
    Named(RangeName),
    /// An explicit slice: `{start = 0.5, size = 0.25}`, fractions of the logical space.
    Slice(RangeSlice),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RangeName {
    Partition,
    Shared,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeSlice {
    pub start: f64,
    pub size: f64,
}

impl Default for LbaRange {
    fn default() -> Self {
        LbaRange::Named(RangeName::Partition)
    }
}

/// One flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Its name in the results (default `flow<i>`, from 0).
    #[serde(default)]
    pub name: Option<String>,
    pub workload: WorkloadSpec,
    /// Open or closed loop. Default: as a run of the workload alone replays it (closed loop
    /// when it has no arrival times of its own, open loop at its times otherwise), with the
    /// run's queue depth or time scale when the run's replay is of that mode (else the
    /// default queue depth, or a time scale of 1): `sim::flows`.
    #[serde(default)]
    pub replay: Option<Replay>,
    #[serde(default)]
    pub priority: Priority,
    #[serde(default)]
    pub range: LbaRange,
    /// Its writes' placement identifier on an FDP device (`[fdp]`): a placement handle, and so
    /// reclaim units, of its own. Default: the workload's own (a trace's placement column),
    /// else 0, the default handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<u16>,
}

/// The flows of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowsSpec {
    pub flows: Vec<FlowSpec>,
}

/// A flow's logical pages: `[first, first + pages)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSpan {
    pub first: u64,
    pub pages: u64,
}

/// A flows file (`ssdlab run --flows FILE`): `[[flow]]` tables, each a [`FlowSpec`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FlowsFile {
    flow: Vec<FlowSpec>,
}

impl FlowsSpec {
    /// Read a flows file's TOML text (`origin` names it in errors, with the line); a trace's
    /// relative path is taken from the file's directory.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self> {
        let file: FlowsFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let msg: String = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            let msg: String = msg.chars().take(240).collect();
            match line {
                Some(l) => SsdError::Workload(format!("{origin}:{l}: {msg}")),
                None => SsdError::Workload(format!("{origin}: {msg}")),
            }
        })?;
        let dir = std::path::Path::new(origin)
            .parent()
            .map(|d| d.to_path_buf());
        let mut spec = FlowsSpec { flows: file.flow };
        for f in &mut spec.flows {
            if let (WorkloadSpec::Trace(t), Some(d)) = (&mut f.workload, &dir) {
                if t.path.is_relative() {
                    t.path = d.join(&t.path);
                }
            }
        }
        spec.check().map_err(|e| {
            SsdError::Workload(format!(
                "{origin}: {}",
                e.to_string().trim_start_matches("workload: ")
            ))
        })?;
        Ok(spec)
    }

    /// Flow `i`'s name.
    pub fn name(&self, i: usize) -> String {
        self.flows[i]
            .name
            .clone()
            .unwrap_or_else(|| format!("flow{i}"))
    }

    /// Checks that need no device: a flow count, names, nested flows, ranges and replays.
    /// Errors name the flow and the field (`flows[1] (writer): range.size: …`).
    pub fn check(&self) -> Result<()> {
        let n = self.flows.len();
        if n == 0 || n > MAX_FLOWS {
            return Err(SsdError::Workload(format!(
                "flows: expected 1 to {MAX_FLOWS} flows, got {n}"
            )));
        }
        let mut names = std::collections::HashSet::new();
        for (i, f) in self.flows.iter().enumerate() {
            let bad = |field: &str, m: String| {
                SsdError::Workload(format!("flows[{i}] ({}): {field}: {m}", self.name(i)))
            };
            let name = self.name(i);
            if name.is_empty() || name.len() > 64 {
                return Err(bad("name", "expected 1 to 64 characters".into()));
            }
            if !names.insert(name.clone()) {
                return Err(bad("name", format!("'{name}' names an earlier flow too")));
            }
            if matches!(f.workload, WorkloadSpec::Flows(_)) {
                return Err(bad(
                    "workload",
                    "expected one workload (a trace, synthetic, preset or fs), not flows".into(),
                ));
            }
            match f.replay {
                Some(Replay::OpenLoop { time_scale })
                    if !(time_scale.is_finite() && time_scale > 0.0) =>
                {
                    return Err(bad(
                        "replay.time_scale",
                        format!("expected a positive factor, got {time_scale}"),
                    ))
                }
                Some(Replay::ClosedLoop { queue_depth: 0 }) => {
                    return Err(bad("replay.queue_depth", "expected at least 1".into()))
                }
                _ => {}
            }
            if let LbaRange::Slice(s) = f.range {
                let ok = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
                if !ok(s.start) || s.start >= 1.0 {
                    return Err(bad(
                        "range.start",
                        format!(
                            "expected a fraction of the logical space in [0, 1), got {}",
                            s.start
                        ),
                    ));
                }
                if !ok(s.size) || s.size <= 0.0 || s.start + s.size > 1.0 + 1e-12 {
                    return Err(bad(
                        "range.size",
                        format!(
                            "expected a fraction in (0, {}] (start + size within the space), got {}",
                            1.0 - s.start,
                            s.size
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Each flow's logical pages on a device of `logical_pages`: partitions and slices must
    /// not overlap (a shared flow overlaps everything by design). Every span has a page.
    pub fn spans(&self, logical_pages: u64) -> Result<Vec<PageSpan>> {
        let n = self.flows.len() as u64;
        let mut spans = Vec::with_capacity(self.flows.len());
        for (i, f) in self.flows.iter().enumerate() {
            let span = match f.range {
                LbaRange::Named(RangeName::Shared) => PageSpan {
                    first: 0,
                    pages: logical_pages,
                },
                LbaRange::Named(RangeName::Partition) => {
                    let first = logical_pages * i as u64 / n;
                    let end = logical_pages * (i as u64 + 1) / n;
                    PageSpan {
                        first,
                        pages: end - first,
                    }
                }
                LbaRange::Slice(s) => {
                    let first =
                        ((s.start * logical_pages as f64).floor() as u64).min(logical_pages);
                    let end = (((s.start + s.size) * logical_pages as f64).floor() as u64)
                        .min(logical_pages);
                    PageSpan {
                        first,
                        pages: end.saturating_sub(first),
                    }
                }
            };
            if span.pages == 0 {
                return Err(SsdError::Workload(format!(
                    "flows[{i}] ({}): range: expected at least one page of the device's {logical_pages}, got none",
                    self.name(i)
                )));
            }
            spans.push(span);
        }
        for i in 0..spans.len() {
            for j in 0..i {
                let shared =
                    |k: usize| matches!(self.flows[k].range, LbaRange::Named(RangeName::Shared));
                if shared(i) || shared(j) {
                    continue;
                }
                let (a, b) = (spans[i], spans[j]);
                if a.first < b.first + b.pages && b.first < a.first + a.pages {
                    return Err(SsdError::Workload(format!(
                        "flows[{i}] ({}): range: pages {}..{} overlap flow {} ({}): pages {}..{}; partitions must not overlap (or say range = \"shared\")",
                        self.name(i),
                        a.first,
                        a.first + a.pages,
                        j,
                        self.name(j),
                        b.first,
                        b.first + b.pages
                    )));
                }
            }
        }
        Ok(spans)
    }

    /// One line for the result's `workload` field.
    pub fn describe(&self, parts: &[String]) -> String {
        let each: Vec<String> = parts
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{}: {d}", self.name(i)))
            .collect();
        format!("flows[{}]", each.join("; "))
    }
}
