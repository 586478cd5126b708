//! The streaming GC detector (Park and Kim §4): one device's `/proc/diskstats` snapshots in,
//! per interval the `iostat -x` fields, the detector's attribute row and the tree's verdict out.
//!
//! The paper's detector "measures the svctm value of each SSD every second, and the standard
//! deviation of the last 50 values is applied to the decision tree". Here the caller reads
//! `/proc/uptime` and `/proc/diskstats` together (as sysstat does) at whatever pace it likes and
//! hands both texts to [`Watch::push`], or replays a recording with [`Watch::replay`]; the
//! interval is always the uptime difference, so a late read only makes one interval longer.
//! The first snapshot only primes the detector: a verdict needs an interval (iostat's first,
//! since-boot report says nothing about the present).
//!
//! Classes: a detector tree is fitted on labels [`NO_GC`] (0) and [`GC`] (1), the convention of
//! [`super::c45`]; a tree with any other class is refused, as is one over other features than
//! [`super::features::feature_names`]. An *episode* is a maximal run of consecutive intervals
//! classified GC; [`Step::episode_start`] marks its first interval, so a caller that acts on a
//! detection (the paper issues TRIM) acts once per episode.
//!
//! Pure: no clock, no file or `/proc` access.

use super::c45::Tree;
use super::diskstats::{DiskStats, Recording, Snapshot, PROC_DISKSTATS};
use super::features::{FeatureSet, FeatureWindow};
use super::iostat::Interval;
use crate::error::{Result, SsdError};

/// The class of an interval without GC.
pub const NO_GC: u32 = 0;
/// The class of an interval during GC.
pub const GC: u32 = 1;

/// One interval's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub interval: Interval,
    /// The attribute row, in [`feature_names`](super::features::feature_names) order.
    pub features: Vec<f64>,
    /// The tree's class: [`NO_GC`] or [`GC`].
    pub class: u32,
    /// For a GC interval, the number of its episode (counting from 1 since the detector was
    /// made or reset).
    pub episode: Option<u64>,
    /// Whether this is the first interval of its episode.
    pub episode_start: bool,
}

impl Step {
    pub fn is_gc(&self) -> bool {
        self.class == GC
    }
}

/// A detector for one device (see the module documentation).
#[derive(Debug, Clone)]
pub struct Watch {
    device: String,
    tree: Tree,
    features: FeatureWindow,
    prev: Option<(DiskStats, u64)>,
    episodes: u64,
    in_episode: bool,
}

impl Watch {
    /// A detector of `device` with `tree` and standard deviations over `window` samples. The
    /// tree must be over [`feature_names`](super::features::feature_names) in that order with
    /// classes among [`NO_GC`], [`GC`].
    pub fn new(device: &str, tree: Tree, window: usize) -> Result<Watch> {
        let set = FeatureSet::of_names(tree.feature_names())?;
        if let Some(c) = tree.classes().iter().find(|&&c| c != NO_GC && c != GC) {
            return Err(SsdError::Invalid(format!(
                "c45 model: expected the classes {NO_GC} (no GC) and {GC} (GC), found class {c}"
            )));
        }
        Ok(Watch {
            device: device.to_string(),
            tree,
            features: FeatureWindow::with_set(window, set)?,
            prev: None,
            episodes: 0,
            in_episode: false,
        })
    }

    pub fn device(&self) -> &str {
        &self.device
    }
    pub fn tree(&self) -> &Tree {
        &self.tree
    }
    pub fn window(&self) -> usize {
        self.features.window()
    }

    /// One live snapshot: the texts of `/proc/uptime` and `/proc/diskstats` read together.
    /// `None` for the first (it has no interval yet). A malformed line is an error naming it; a
    /// missing device one listing the devices present.
    pub fn push(&mut self, proc_uptime: &str, proc_diskstats: &str) -> Result<Option<Step>> {
        let snap = Snapshot::from_proc(proc_uptime, proc_diskstats)?;
        self.push_snapshot(&snap, PROC_DISKSTATS)
    }

    /// One parsed snapshot; `origin` names it in errors (a recording's file name, with the
    /// snapshot's line).
    pub fn push_snapshot(&mut self, snap: &Snapshot, origin: &str) -> Result<Option<Step>> {
        let curr = snap.require(&self.device, origin)?;
        let Some((prev, prev_cs)) = self.prev.replace((curr.clone(), snap.uptime_cs)) else {
            return Ok(None);
        };
        let interval = Interval::between(&prev, prev_cs, curr, snap.uptime_cs)?;
        let features = self.features.push(&interval);
        let class = self.tree.predict(&features)?;
        let gc = class == GC;
        let episode_start = gc && !self.in_episode;
        if episode_start {
            self.episodes += 1;
        }
        self.in_episode = gc;
        Ok(Some(Step {
            interval,
            features,
            class,
            episode: gc.then_some(self.episodes),
            episode_start,
        }))
    }

    /// Every interval of a recording, in order.
    pub fn replay(&mut self, rec: &Recording) -> Result<Vec<Step>> {
        let mut out = Vec::with_capacity(rec.snapshots.len().saturating_sub(1));
        for snap in &rec.snapshots {
            out.extend(self.push_snapshot(snap, &rec.origin)?);
        }
        Ok(out)
    }

    /// Forgets the previous snapshot, the standard-deviation windows and the episode count.
    pub fn reset(&mut self) {
        self.prev = None;
        self.features.reset();
        self.episodes = 0;
        self.in_episode = false;
    }
}
