//! The training data of a C4.5 tree: named numeric features, one row per case, a class label
//! per row; checked before use so that a bad value is an error naming its row and feature.

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};

/// Cases for [`super::Tree::fit`]: `rows[i][j]` is feature `feature_names[j]` of case `i`,
/// `labels[i]` its class (any `u32`; the GC detector uses 0 = no GC, 1 = GC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub feature_names: Vec<String>,
    pub rows: Vec<Vec<f64>>,
    pub labels: Vec<u32>,
}

/// A checked dataset laid out by column, with labels as indices into the sorted distinct
/// classes.
pub(super) struct Columns {
    pub columns: Vec<Vec<f64>>,
    pub class_of: Vec<usize>,
    pub classes: Vec<u32>,
}

impl Dataset {
    /// Checks the shape: at least one feature and one row, unique non-empty feature names, one
    /// label per row, every row as long as `feature_names`, every value finite (C4.5's unknown
    /// values are not supported).
    pub fn validate(&self) -> Result<()> {
        if self.feature_names.is_empty() {
            return Err(SsdError::Invalid(
                "dataset.feature_names: expected at least one feature, found none".into(),
            ));
        }
        for (j, name) in self.feature_names.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(SsdError::Invalid(format!(
                    "dataset.feature_names[{j}]: expected a non-empty name"
                )));
            }
            if self.feature_names[..j].contains(name) {
                return Err(SsdError::Invalid(format!(
                    "dataset.feature_names[{j}]: expected unique names, `{name}` appears twice"
                )));
            }
        }
        if self.rows.is_empty() {
            return Err(SsdError::Invalid(
                "dataset.rows: expected at least one case, found none".into(),
            ));
        }
        if self.labels.len() != self.rows.len() {
            return Err(SsdError::Invalid(format!(
                "dataset.labels: expected one label per row ({}), found {}",
                self.rows.len(),
                self.labels.len()
            )));
        }
        let n = self.feature_names.len();
        for (i, row) in self.rows.iter().enumerate() {
            if row.len() != n {
                return Err(SsdError::Invalid(format!(
                    "dataset.rows[{i}]: expected {n} values (one per feature), found {}",
                    row.len()
                )));
            }
            if let Some(j) = row.iter().position(|v| !v.is_finite()) {
                return Err(SsdError::Invalid(format!(
                    "dataset.rows[{i}].{}: expected a finite number, found {}",
                    self.feature_names[j], row[j]
                )));
            }
        }
        Ok(())
    }

    /// Validates and lays the data out by column.
    pub(super) fn columns(&self) -> Result<Columns> {
        self.validate()?;
        let columns = (0..self.feature_names.len())
            .map(|j| self.rows.iter().map(|r| r[j]).collect())
            .collect();
        let mut classes = self.labels.clone();
        classes.sort_unstable();
        classes.dedup();
        let class_of = self
            .labels
            .iter()
            .map(|l| classes.binary_search(l).unwrap_or(0))
            .collect();
        Ok(Columns {
            columns,
            class_of,
            classes,
        })
    }
}
