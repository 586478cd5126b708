//! A fitted C4.5 tree as a value: fitting, prediction, the attributes it uses, readable rules,
//! and its JSON form (`format: "ssdlab-c45-v1"`), checked on load.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::build::{compact, grow, Grown};
use super::prune::{prune, ErrorBound};
use super::{C45Params, Dataset};
use crate::error::{Result, SsdError};

/// The `format` tag of a saved tree; a file with another tag is refused.
pub const FORMAT: &str = "ssdlab-c45-v1";

/// One node. `dist[k]` counts the training cases of class `classes[k]` that reached it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Node {
    Leaf {
        class: u32,
        dist: Vec<u64>,
    },
    /// Cases with `features[feature] <= threshold` go to node `le`, the others to node `gt`.
    Split {
        feature: usize,
        threshold: f64,
        le: usize,
        gt: usize,
        dist: Vec<u64>,
    },
}

impl Node {
    pub fn dist(&self) -> &[u64] {
        match self {
            Node::Leaf { dist, .. } | Node::Split { dist, .. } => dist,
        }
    }
}

/// A C4.5 tree over named numeric features. Node 0 is the root; every child has a larger
/// index than its parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tree {
    format: String,
    feature_names: Vec<String>,
    classes: Vec<u32>,
    params: C45Params,
    nodes: Vec<Node>,
}

impl Tree {
    /// Fits a tree to `data` with `params` (see the module documentation for the algorithm).
    pub fn fit(data: &Dataset, params: &C45Params) -> Result<Tree> {
        params.validate()?;
        let columns = data.columns()?;
        let mut grown = grow(&columns, params);
        if params.prune {
            prune(&mut grown, &ErrorBound::new(params.cf));
        }
        let grown = compact(&grown);
        Ok(Tree {
            format: FORMAT.to_string(),
            feature_names: data.feature_names.clone(),
            classes: columns.classes.clone(),
            params: *params,
            nodes: to_nodes(&grown, &columns.classes),
        })
    }

    pub fn feature_names(&self) -> &[String] {
        &self.feature_names
    }
    /// The distinct training labels, ascending.
    pub fn classes(&self) -> &[u32] {
        &self.classes
    }
    pub fn params(&self) -> &C45Params {
        &self.params
    }
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    pub fn leaves(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n, Node::Leaf { .. }))
            .count()
    }

    /// The class of one case; `x` holds the features in [`Tree::feature_names`] order.
    pub fn predict(&self, x: &[f64]) -> Result<u32> {
        if x.len() != self.feature_names.len() {
            return Err(SsdError::Invalid(format!(
                "c45 input: expected {} features ({}), found {}",
                self.feature_names.len(),
                self.feature_names.join(", "),
                x.len()
            )));
        }
        let mut at = 0;
        // A checked tree reaches a leaf in fewer steps than it has nodes.
        for _ in 0..self.nodes.len() {
            match &self.nodes[at] {
                Node::Leaf { class, .. } => return Ok(*class),
                Node::Split {
                    feature,
                    threshold,
                    le,
                    gt,
                    ..
                } => {
                    let v = x[*feature];
                    if v.is_nan() {
                        return Err(SsdError::Invalid(format!(
                            "c45 input.{}: expected a number, found NaN",
                            self.feature_names[*feature]
                        )));
                    }
                    at = if v <= *threshold { *le } else { *gt };
                }
            }
        }
        Err(SsdError::Invalid(
            "c45 tree: no leaf reached (a malformed tree)".into(),
        ))
    }

    /// The class of every row.
    pub fn predict_rows(&self, rows: &[Vec<f64>]) -> Result<Vec<u32>> {
        rows.iter()
            .enumerate()
            .map(|(i, r)| {
                self.predict(r)
                    .map_err(|e| SsdError::Invalid(format!("rows[{i}]: {e}")))
            })
            .collect()
    }

    /// The features the tree tests, each once, in the order a pre-order walk meets them (the
    /// root's first).
    pub fn features_used(&self) -> Vec<String> {
        let mut seen = vec![false; self.feature_names.len()];
        let mut out = Vec::new();
        let mut stack = vec![0usize];
        while let Some(at) = stack.pop() {
            if let Some(Node::Split {
                feature, le, gt, ..
            }) = self.nodes.get(at)
            {
                if !seen[*feature] {
                    seen[*feature] = true;
                    out.push(self.feature_names[*feature].clone());
                }
                stack.push(*gt);
                stack.push(*le);
            }
        }
        out
    }

    /// The tree as nested `if feature <= threshold:` / `else:` rules, one leaf per line with
    /// its training cases and misclassified cases, e.g.
    ///
    /// ```text
    /// if humidity <= 75:
    ///     class 1  # 2 cases
    /// else:
    ///     class 0  # 3 cases, 1 misclassified
    /// ```
    pub fn to_rules_text(&self) -> String {
        enum Step {
            Node(usize, usize),
            Else(usize),
        }
        let mut out = String::new();
        let mut stack = vec![Step::Node(0, 0)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Else(depth) => {
                    let _ = writeln!(out, "{}else:", "    ".repeat(depth));
                }
                Step::Node(at, depth) => {
                    let pad = "    ".repeat(depth);
                    match &self.nodes[at] {
                        Node::Leaf { class, dist } => {
                            let n: u64 = dist.iter().sum();
                            let right = self
                                .classes
                                .iter()
                                .position(|c| c == class)
                                .and_then(|k| dist.get(k).copied())
                                .unwrap_or(0);
                            let _ = if n == right {
                                writeln!(out, "{pad}class {class}  # {n} cases")
                            } else {
                                writeln!(
                                    out,
                                    "{pad}class {class}  # {n} cases, {} misclassified",
                                    n - right
                                )
                            };
                        }
                        Node::Split {
                            feature,
                            threshold,
                            le,
                            gt,
                            ..
                        } => {
                            let name = &self.feature_names[*feature];
                            let _ = writeln!(out, "{pad}if {name} <= {threshold}:");
                            stack.push(Step::Node(*gt, depth + 1));
                            stack.push(Step::Else(depth));
                            stack.push(Step::Node(*le, depth + 1));
                        }
                    }
                }
            }
        }
        out
    }

    /// The tree as pretty JSON (the form [`Tree::from_json`] reads).
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map_err(|e| SsdError::Invalid(format!("c45 tree: cannot write JSON: {e}")))
    }

    /// Reads a tree written by [`Tree::to_json`]; `origin` (a file name) prefixes errors.
    /// Refuses another `format` tag and any tree whose shape does not hold together.
    pub fn from_json(text: &str, origin: &str) -> Result<Tree> {
        let mut de = serde_json::Deserializer::from_str(text);
        let tree: Tree = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let line = e.inner().line() as u64;
            let path = e.path().to_string();
            let msg = e.inner().to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            if path == "." || path.is_empty() {
                SsdError::trace(origin, line, msg)
            } else {
                SsdError::trace(origin, line, format!("{path}: {msg}"))
            }
        })?;
        de.end().map_err(|e| {
            SsdError::trace(origin, e.line() as u64, "expected nothing after the tree")
        })?;
        tree.check()
            .map_err(|m| SsdError::Invalid(format!("{origin}: {m}")))?;
        Ok(tree)
    }

    pub fn save(&self, path: &std::path::Path) -> Result<()> {
        let name = path.display().to_string();
        std::fs::write(path, self.to_json()? + "\n").map_err(|e| SsdError::io(&name, e))
    }

    pub fn load(path: &std::path::Path) -> Result<Tree> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SsdError::io(&name, e))?;
        Tree::from_json(&text, &name)
    }

    /// Checks that data with these feature names (in this order) fits the tree.
    pub fn check_features(&self, names: &[String]) -> Result<()> {
        if names != self.feature_names.as_slice() {
            return Err(SsdError::Invalid(format!(
                "c45 model: expected the features [{}] in this order, the data has [{}]",
                self.feature_names.join(", "),
                names.join(", ")
            )));
        }
        Ok(())
    }

    /// The shape rules of a tree: the format tag, features and classes, and nodes whose
    /// features, classes and children exist, every child after its parent and reached once.
    fn check(&self) -> std::result::Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "format: expected \"{FORMAT}\", found \"{}\"",
                self.format
            ));
        }
        if self.feature_names.is_empty() {
            return Err("feature_names: expected at least one feature".into());
        }
        if self.classes.is_empty() || self.classes.windows(2).any(|w| w[0] >= w[1]) {
            return Err("classes: expected distinct labels in ascending order".into());
        }
        self.params.validate().map_err(|e| e.to_string())?;
        if self.nodes.is_empty() {
            return Err("nodes: expected at least the root".into());
        }
        let mut parents = vec![0u32; self.nodes.len()];
        for (i, node) in self.nodes.iter().enumerate() {
            if node.dist().len() != self.classes.len() {
                return Err(format!(
                    "nodes[{i}].dist: expected {} counts (one per class), found {}",
                    self.classes.len(),
                    node.dist().len()
                ));
            }
            match node {
                Node::Leaf { class, .. } => {
                    if !self.classes.contains(class) {
                        return Err(format!(
                            "nodes[{i}].class: expected one of {:?}, found {class}",
                            self.classes
                        ));
                    }
                }
                Node::Split {
                    feature,
                    threshold,
                    le,
                    gt,
                    ..
                } => {
                    if *feature >= self.feature_names.len() {
                        return Err(format!(
                            "nodes[{i}].feature: expected an index below {} (the number of features), found {feature}",
                            self.feature_names.len()
                        ));
                    }
                    if !threshold.is_finite() {
                        return Err(format!(
                            "nodes[{i}].threshold: expected a finite number, found {threshold}"
                        ));
                    }
                    for (what, child) in [("le", *le), ("gt", *gt)] {
                        if child <= i || child >= self.nodes.len() {
                            return Err(format!(
                                "nodes[{i}].{what}: expected a node index in {}..{}, found {child}",
                                i + 1,
                                self.nodes.len()
                            ));
                        }
                        parents[child] += 1;
                    }
                }
            }
        }
        if let Some(i) = (1..self.nodes.len()).find(|&i| parents[i] != 1) {
            return Err(format!(
                "nodes[{i}]: expected exactly one parent, found {}",
                parents[i]
            ));
        }
        Ok(())
    }
}

fn to_nodes(grown: &Grown, classes: &[u32]) -> Vec<Node> {
    grown
        .nodes
        .iter()
        .map(|n| match n.split {
            None => Node::Leaf {
                class: classes.get(n.majority()).copied().unwrap_or(0),
                dist: n.dist.clone(),
            },
            Some(t) => Node::Split {
                feature: t.feature,
                threshold: t.threshold,
                le: t.le,
                gt: t.gt,
                dist: n.dist.clone(),
            },
        })
        .collect()
}
