//! C4.5 decision trees on numeric attributes (Quinlan 1993, "C4.5: Programs for Machine
//! Learning"; the continuous-attribute rules of Quinlan 1996, "Improved use of continuous
//! attributes in C4.5", JAIR 4). The paper's GC detector (Park and Kim §3.2) is a C4.5 tree over
//! iostat attributes, all numeric, so only continuous attributes with binary threshold tests are
//! implemented; a categorical attribute is given as numbers (one 0/1 column per value, or an
//! ordinal code) by the caller.
//!
//! What follows C4.5 Release 8's code (`build.c`, `contin.c`, `info.c`, `prune.c`, `stats.c`):
//! - a node is a leaf when its cases are of one class or fewer than `2 * min_objs`;
//! - each attribute's threshold is the cut with the largest information gain, less the MDL
//!   cost `log2(tries) / |D|` (`split`); attributes compete by gain ratio among those whose
//!   gain is at least the average gain of the candidate tests (`build.c` `FormTree`, `Worth`);
//! - a test must leave at least `min_objs` cases (C4.5's `-m`, default 2) in two branches;
//! - the threshold is the greatest training value not above the midpoint cut, so the printed
//!   tests name values seen in the data (`contin.c` `GreatestValueBelow`);
//! - a subtree no better than a leaf on the training cases is collapsed as it is built;
//! - pessimistic error-based pruning with confidence factor `cf` (C4.5's `-c`, default 25 %)
//!   replaces a subtree by a leaf when the leaf's upper error bound is no worse than the
//!   subtree's plus 0.1 (`prune`).
//!
//! Left out: subtree raising (C4.5 also tries replacing a node by its largest branch; Weka's J48
//! does as well). Replacement alone keeps every leaf's cases its own, which is what the
//! detector's readable rules need; a tree may therefore keep a node C4.5 would have raised.
//! Unknown values are not supported (a NaN is an error), nor are case weights or windowing.
//! C4.5 computes in `float`; this module in `f64`, so exact ties between candidate tests (which
//! go to the first attribute, as in C4.5) can in rare cases resolve differently.

mod build;
mod dataset;
mod model;
mod prune;
mod split;

pub use dataset::Dataset;
pub use model::{Node, Tree, FORMAT};

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};

/// C4.5's tolerance (`Epsilon` in Release 8's `defns.i`): gains within it of the average still
/// compete, and a subtree within it of its leaf's training errors is collapsed.
pub(crate) const EPSILON: f64 = 1e-3;

/// The settings C4.5 exposes that matter for numeric data, at C4.5's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct C45Params {
    /// Minimum cases in at least two branches of a test (C4.5 `-m`, default 2).
    pub min_objs: u32,
    /// Confidence factor of the pessimistic error estimate (C4.5 `-c 25`, as a fraction).
    /// Smaller prunes more.
    pub cf: f64,
    /// Prune after growing (C4.5 always does; off gives the unpruned tree C4.5 also prints).
    pub prune: bool,
}

impl Default for C45Params {
    fn default() -> Self {
        C45Params {
            min_objs: 2,
            cf: 0.25,
            prune: true,
        }
    }
}

impl C45Params {
    /// Checks the ranges C4.5 accepts: `min_objs >= 1`, `0 < cf <= 1`.
    pub fn validate(&self) -> Result<()> {
        if self.min_objs == 0 {
            return Err(SsdError::Invalid(
                "c45.min_objs: expected at least 1 case per branch, found 0".into(),
            ));
        }
        if !(self.cf > 0.0 && self.cf <= 1.0) {
            return Err(SsdError::Invalid(format!(
                "c45.cf: expected a confidence factor in (0, 1] (C4.5's default is 0.25), found {}",
                self.cf
            )));
        }
        Ok(())
    }
}
