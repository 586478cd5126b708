//! The GC detector's attributes (Park and Kim §3.1): per one-second interval, the `iostat -x`
//! device columns the paper kept and the standard deviation of each over the last 50 samples.
//!
//! The paper collected iostat's attributes once a second with 2017-era sysstat (10.x/11.x),
//! whose `iostat -x` device columns are `rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz
//! await r_await w_await svctm %util`; it "included the standard deviation of 50 cumulative
//! values of each attribute", then removed the CPU attributes (the same for every disk of a
//! host, so they cannot tell which disk collects) and the read and write bandwidth (rkB/s,
//! wkB/s: the read side does not cause GC and the write bandwidth depends on external factors
//! such as the block size) but kept the standard deviation of the write bandwidth. The
//! detector's rows are therefore [`feature_names`]: the 11 remaining columns under their
//! sysstat-11 names, then `std_<column>` for those 11 and for `wkB/s`, in iostat's column order
//! (23 in all). The tree the paper learned tests `std_svctm` (§3.2, §4).
//!
//! The values are [`Interval`]'s: `avgrq-sz` is in 512-byte sectors, `avgqu-sz` is sysstat 12's
//! `aqu-sz`, and the combined `await`/`avgrq-sz`/`svctm` count discards as sysstat 12 does
//! (see [`super::iostat`]; on kernels before 4.18 they are exactly sysstat 11's).

use std::collections::VecDeque;

use super::iostat::Interval;
use crate::error::{Result, SsdError};

/// Samples in each standard deviation: the paper's "standard deviation of 50 cumulative values"
/// (§3.1) and "the standard deviation value of the last 50 values" of `svctm` (§4), sampled once
/// a second.
pub const DEFAULT_WINDOW: usize = 50;

/// How a legacy `iostat -x` device column enters the rows: as itself, through its standard
/// deviation, or both.
struct Column {
    name: &'static str,
    value: fn(&Interval) -> f64,
    raw: bool,
    std: bool,
}

/// sysstat 11's `iostat -x` device columns in header order, and what the paper kept of each.
const COLUMNS: [Column; 13] = [
    col("rrqm/s", |i| i.rrqm_s, true, true),
    col("wrqm/s", |i| i.wrqm_s, true, true),
    col("r/s", |i| i.r_s, true, true),
    col("w/s", |i| i.w_s, true, true),
    col("rkB/s", |i| i.rkb_s, false, false),
    col("wkB/s", |i| i.wkb_s, false, true),
    col("avgrq-sz", |i| i.avgrq_sz, true, true),
    col("avgqu-sz", |i| i.aqu_sz, true, true),
    col("await", |i| i.await_ms, true, true),
    col("r_await", |i| i.r_await, true, true),
    col("w_await", |i| i.w_await, true, true),
    col("svctm", |i| i.svctm, true, true),
    col("%util", |i| i.util_pct, true, true),
];

const fn col(name: &'static str, value: fn(&Interval) -> f64, raw: bool, std: bool) -> Column {
    Column {
        name,
        value,
        raw,
        std,
    }
}

/// The prefix of a standard-deviation feature's name (`std_svctm`, `std_wkB/s`).
pub const STD_PREFIX: &str = "std_";

/// Prefix of a coefficient-of-variation attribute (`cv_svctm`: std / mean over the window).
pub const CV_PREFIX: &str = "cv_";

/// Which attributes a detector uses.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(try_from = "String", into = "&'static str")]
#[strum(serialize_all = "kebab-case")]
pub enum FeatureSet {
    /// The paper's 23 (§III.A): the kept 1 s columns and their standard deviations.
    #[default]
    Paper,
    /// An extension, not the paper's: the 12 coefficients of variation (std / mean over the
    /// window; 0 when the mean is 0) of the same columns. `svctm` and the other per-request
    /// times scale with the request size, so a threshold learned on one workload's standard
    /// deviations does not carry to another's (docs/detect.md); a ratio to the window's own
    /// mean does.
    ScaleFree,
}

// `seed`: the paper's set before 2026-12-02 (docs/decisions/interface.md).
crate::config::impl_registry!(
    FeatureSet,
    "detector feature set",
    "detect.features",
    default,
    former = &[("seed", "paper")]
);
crate::config::impl_try_from_name!(FeatureSet);

impl FeatureSet {
    /// The attribute names of this set, in the order rows give them.
    pub fn names(self) -> Vec<String> {
        match self {
            FeatureSet::Paper => feature_names(),
            FeatureSet::ScaleFree => COLUMNS
                .iter()
                .filter(|c| c.std)
                .map(|c| format!("{CV_PREFIX}{}", c.name))
                .collect(),
        }
    }

    /// The set whose names are exactly `names` (a tree's), or an error naming both sets.
    pub fn of_names(names: &[String]) -> Result<FeatureSet> {
        use strum::IntoEnumIterator;
        FeatureSet::iter()
            .find(|s| s.names() == names)
            .ok_or_else(|| {
                // The sets by their ends, not whole: a line of every name is ~600
                // characters (issue 58: no error line over ~300).
                let ends = |s: FeatureSet| {
                    let n = s.names();
                    format!("{} names, {} … {}", n.len(), n[0], n[n.len() - 1])
                };
                let found: Vec<&str> = names.iter().take(4).map(String::as_str).collect();
                let more = if names.len() > 4 { " …" } else { "" };
                SsdError::Invalid(format!(
                    "c45 model: expected the attributes of a detector feature set (paper: {}; \
                     scale-free: {}; ssdlab.detect.feature_names() lists them), found {} names: {}{more}",
                    ends(FeatureSet::Paper),
                    ends(FeatureSet::ScaleFree),
                    names.len(),
                    found.join(" ")
                ))
            })
    }
}

/// sysstat 11's `iostat -x` device columns of an interval, in header order (`rrqm/s` … `%util`,
/// with `rkB/s` and `wkB/s`): the columns the features are taken from.
pub fn legacy_device_columns(iv: &Interval) -> Vec<(&'static str, f64)> {
    COLUMNS.iter().map(|c| (c.name, (c.value)(iv))).collect()
}

/// The detector's attribute names in row order: the 11 kept columns, then `std_<column>` for
/// them and `wkB/s` (see the module documentation).
pub fn feature_names() -> Vec<String> {
    let raw = COLUMNS.iter().filter(|c| c.raw).map(|c| c.name.to_string());
    let std = COLUMNS
        .iter()
        .filter(|c| c.std)
        .map(|c| format!("{STD_PREFIX}{}", c.name));
    raw.chain(std).collect()
}

/// The standard deviation of the last `window` values pushed.
///
/// Population standard deviation (ddof 0) over the last `min(n, window)` values including the
/// newest: the paper does not say which, and its detector applies from the first second, where
/// a sample standard deviation (ddof 1) of one value is undefined; with ddof 0 a first value has
/// deviation 0. (Once the window is full the two differ by the constant factor √(50/49), which a
/// tree trained and applied with the same definition does not notice.)
///
/// Computed afresh from the kept values at every push, O(window): shifted by the oldest value
/// (so a constant series gives exactly 0, however large) and with the corrected two-pass sum
/// (Björck; Chan, Golub and LeVeque 1983), so large values with small spread lose no digits to
/// cancellation, unlike a running sum of squares.
#[derive(Debug, Clone)]
struct RollingStd {
    window: usize,
    values: VecDeque<f64>,
}

impl RollingStd {
    fn new(window: usize) -> RollingStd {
        RollingStd {
            window,
            values: VecDeque::with_capacity(window),
        }
    }

    fn push(&mut self, x: f64) -> f64 {
        if self.values.len() == self.window {
            self.values.pop_front();
        }
        self.values.push_back(x);
        self.std()
    }

    fn std(&self) -> f64 {
        self.mean_std().1
    }

    /// The window's mean and population standard deviation.
    fn mean_std(&self) -> (f64, f64) {
        let Some(&shift) = self.values.front() else {
            return (0.0, 0.0);
        };
        let n = self.values.len() as f64;
        let mean = self.values.iter().map(|x| x - shift).sum::<f64>() / n;
        let (mut ss, mut s) = (0.0, 0.0);
        for x in &self.values {
            let d = (x - shift) - mean;
            ss += d * d;
            s += d;
        }
        (shift + mean, ((ss - s * s / n) / n).max(0.0).sqrt())
    }

    fn clear(&mut self) {
        self.values.clear();
    }
}

/// Turns a stream of intervals into the detector's rows ([`feature_names`] order).
#[derive(Debug, Clone)]
pub struct FeatureWindow {
    window: usize,
    set: FeatureSet,
    /// One per `std_` feature, in row order.
    stds: Vec<RollingStd>,
}

impl FeatureWindow {
    /// Standard deviations over the last `window` samples ([`DEFAULT_WINDOW`] is the paper's).
    /// A window of 0 is an error naming `window`.
    pub fn new(window: usize) -> Result<Self> {
        Self::with_set(window, FeatureSet::Paper)
    }

    /// A window giving the attributes of `set`.
    pub fn with_set(window: usize, set: FeatureSet) -> Result<Self> {
        if window == 0 {
            return Err(SsdError::Invalid(format!(
                "window: expected at least 1 sample per standard deviation (the paper's is \
                 {DEFAULT_WINDOW}), found 0"
            )));
        }
        let n = COLUMNS.iter().filter(|c| c.std).count();
        Ok(FeatureWindow {
            window,
            set,
            stds: (0..n).map(|_| RollingStd::new(window)).collect(),
        })
    }

    pub fn window(&self) -> usize {
        self.window
    }

    /// The row of the next interval: its kept columns, then each standard deviation over the
    /// last `window` intervals including this one.
    pub fn push(&mut self, iv: &super::iostat::Interval) -> Vec<f64> {
        if self.set == FeatureSet::ScaleFree {
            let std_cols = COLUMNS.iter().filter(|c| c.std);
            return std_cols
                .zip(self.stds.iter_mut())
                .map(|(c, s)| {
                    s.push((c.value)(iv));
                    let (mean, sd) = s.mean_std();
                    if mean > 0.0 {
                        sd / mean
                    } else {
                        0.0
                    }
                })
                .collect();
        }
        let mut row: Vec<f64> = COLUMNS
            .iter()
            .filter(|c| c.raw)
            .map(|c| (c.value)(iv))
            .collect();
        let std_cols = COLUMNS.iter().filter(|c| c.std);
        for (c, s) in std_cols.zip(self.stds.iter_mut()) {
            row.push(s.push((c.value)(iv)));
        }
        row
    }

    /// Forgets every sample (the next row's deviations are 0 again).
    pub fn reset(&mut self) {
        self.stds.iter_mut().for_each(RollingStd::clear);
    }
}

/// The rows of a series of intervals (e.g. [`super::iostat::series`] of a recording), with
/// standard deviations over `window` samples.
pub fn rows(intervals: &[Interval], window: usize) -> Result<Vec<Vec<f64>>> {
    let mut w = FeatureWindow::new(window)?;
    Ok(intervals.iter().map(|iv| w.push(iv)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interval whose every field is `v` (the features only read fields).
    fn flat(v: f64) -> Interval {
        Interval {
            device: "sda".into(),
            start_cs: 0,
            end_cs: 100,
            itv_cs: 100,
            r_s: v,
            rkb_s: v,
            rrqm_s: v,
            rrqm_pct: v,
            r_await: v,
            rareq_sz: v,
            w_s: v,
            wkb_s: v,
            wrqm_s: v,
            wrqm_pct: v,
            w_await: v,
            wareq_sz: v,
            discard: None,
            flush: None,
            aqu_sz: v,
            util_pct: v,
            tps: v,
            kb_s: v,
            rqm_s: v,
            await_ms: v,
            areq_sz: v,
            avgrq_sz: v,
            svctm: v,
        }
    }

    fn at(name: &str) -> usize {
        feature_names().iter().position(|n| n == name).unwrap()
    }

    #[test]
    fn names_are_the_papers_attributes_in_a_fixed_order() {
        let names = feature_names();
        assert_eq!(names.len(), 23);
        assert_eq!(
            &names[..11],
            [
                "rrqm/s", "wrqm/s", "r/s", "w/s", "avgrq-sz", "avgqu-sz", "await", "r_await",
                "w_await", "svctm", "%util"
            ]
        );
        assert_eq!(names[11], "std_rrqm/s");
        assert_eq!(names[15], "std_wkB/s");
        assert_eq!(names[21], "std_svctm");
        assert_eq!(names[22], "std_%util");
        assert!(!names
            .iter()
            .any(|n| n == "rkB/s" || n == "wkB/s" || n == "std_rkB/s"));
    }

    #[test]
    fn columns_carry_iostats_names_and_values() {
        // Every name is iostat's own (12.6 columns or the legacy ones) with the same value.
        let mut iv = flat(0.0);
        (iv.rrqm_s, iv.wrqm_s, iv.r_s, iv.w_s, iv.rkb_s, iv.wkb_s) = (1., 2., 3., 4., 5., 6.);
        (iv.avgrq_sz, iv.aqu_sz, iv.await_ms, iv.r_await) = (7., 8., 9., 10.);
        (iv.w_await, iv.svctm, iv.util_pct) = (11., 12., 13.);
        let known: Vec<(&str, f64)> = iv
            .columns()
            .into_iter()
            .chain(iv.legacy_columns())
            .collect();
        for (k, (name, v)) in legacy_device_columns(&iv).into_iter().enumerate() {
            assert_eq!(v, (k + 1) as f64, "{name}");
            assert!(known.contains(&(name, v)), "{name} = {v} not iostat's");
        }
    }

    #[test]
    fn std_is_the_population_std_of_the_last_window_samples() {
        let mut w = FeatureWindow::new(3).unwrap();
        let s = at("std_svctm");
        let r = at("svctm");
        let mut push = |v: f64| {
            let mut iv = flat(0.0);
            iv.svctm = v;
            w.push(&iv)
        };
        // By hand: [2] -> 0; [2, 4] -> mean 3, deviations ±1 -> 1; [2, 4, 9] -> mean 5,
        // squares 9 + 1 + 16 = 26, /3; then the window drops 2: [4, 9, 5] -> mean 6,
        // 4 + 9 + 1 = 14, /3.
        let row = push(2.0);
        assert_eq!((row[r], row[s]), (2.0, 0.0));
        assert_eq!(push(4.0)[s], 1.0);
        assert!((push(9.0)[s] - (26.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((push(5.0)[s] - (14.0f64 / 3.0).sqrt()).abs() < 1e-12);
        // Other columns were constant 0.
        assert_eq!(push(5.0)[at("std_w/s")], 0.0);
    }

    #[test]
    fn reset_forgets_the_window() {
        let mut w = FeatureWindow::new(DEFAULT_WINDOW).unwrap();
        w.push(&flat(1.0));
        assert!(w.push(&flat(3.0))[at("std_wkB/s")] == 1.0);
        w.reset();
        assert_eq!(w.push(&flat(100.0))[at("std_wkB/s")], 0.0);
    }

    #[test]
    fn large_values_lose_no_digits() {
        // A constant series is exactly 0, however large.
        let mut r = RollingStd::new(50);
        for _ in 0..200 {
            assert_eq!(r.push(1e15 + 0.3), 0.0);
        }
        // Welford's example shifted by 1e9: 4, 7, 13, 16 have mean 10 and population variance
        // 22.5; a running sum of squares (~4e18 per term) would keep no significant digit.
        let mut r = RollingStd::new(4);
        let mut last = 0.0;
        for _ in 0..3 {
            for v in [4.0, 7.0, 13.0, 16.0] {
                last = r.push(1e9 + v);
            }
        }
        assert!((last - 22.5f64.sqrt()).abs() < 1e-9, "{last}");
        // The same at 1e12 with a full window of 50 sliding over a ramp: any 50 consecutive
        // integers have population variance (50^2 - 1) / 12.
        let mut r = RollingStd::new(50);
        for k in 0..500 {
            last = r.push(1e12 + f64::from(k));
        }
        assert!((last - (2499.0f64 / 12.0).sqrt()).abs() < 1e-9, "{last}");
    }

    #[test]
    fn a_zero_window_is_refused_by_name() {
        let e = FeatureWindow::new(0).unwrap_err().to_string();
        assert!(e.starts_with("window: expected at least 1"), "{e}");
        assert!(rows(&[], 0).is_err());
    }

    #[test]
    fn a_window_of_one_has_no_spread() {
        let mut w = FeatureWindow::new(1).unwrap();
        w.push(&flat(1.0));
        assert!(w.push(&flat(7.0))[11..].iter().all(|&v| v == 0.0));
    }
}
