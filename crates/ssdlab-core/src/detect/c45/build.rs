//! Growing a C4.5 tree (Release 8 `build.c` `FormTree`), without recursion: nodes live in one
//! vector, every child after its parent, so post-order passes are reverse scans and a deep
//! tree cannot overflow the stack.

use super::dataset::Columns;
use super::split::{choose, eval_continuous, greatest_value_below};
use super::{C45Params, EPSILON};

/// A binary test: cases with `feature <= threshold` go to `le`, the others to `gt`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Test {
    pub feature: usize,
    pub threshold: f64,
    pub le: usize,
    pub gt: usize,
}

/// A node while growing: the training cases of each class that reach it, and its test.
#[derive(Debug, Clone)]
pub(super) struct GrownNode {
    pub dist: Vec<u64>,
    pub split: Option<Test>,
}

impl GrownNode {
    pub fn cases(&self) -> u64 {
        self.dist.iter().sum()
    }
    /// The most frequent class (the first on ties, as C4.5's `BestClass`).
    pub fn majority(&self) -> usize {
        let mut best = 0;
        for (c, &n) in self.dist.iter().enumerate() {
            if n > self.dist[best] {
                best = c;
            }
        }
        best
    }
    /// Training errors as a leaf.
    pub fn errors(&self) -> u64 {
        self.cases() - self.dist.get(self.majority()).copied().unwrap_or(0)
    }
}

/// A grown tree; node 0 is the root.
#[derive(Debug, Clone)]
pub(super) struct Grown {
    pub nodes: Vec<GrownNode>,
}

/// Grows the tree of `FormTree` on all cases, then collapses every subtree whose training
/// errors are not below its leaf's (less [`EPSILON`]), as `FormTree` does on its way back up.
pub(super) fn grow(data: &Columns, params: &C45Params) -> Grown {
    let n_classes = data.classes.len();
    let min_objs = params.min_objs as f64;
    let sorted_columns: Vec<Vec<f64>> = data
        .columns
        .iter()
        .map(|c| {
            let mut s = c.clone();
            s.sort_by(f64::total_cmp);
            s
        })
        .collect();

    let mut nodes = vec![GrownNode {
        dist: Vec::new(),
        split: None,
    }];
    let all: Vec<u32> = (0..data.class_of.len() as u32).collect();
    let mut stack = vec![(0usize, all)];
    let mut order = Vec::new();
    let mut candidates = Vec::with_capacity(data.columns.len());
    while let Some((at, cases)) = stack.pop() {
        let mut dist = vec![0u64; n_classes];
        for &i in &cases {
            dist[data.class_of[i as usize]] += 1;
        }
        nodes[at].dist = dist;
        let node = &nodes[at];
        if node.errors() == 0 || (cases.len() as f64) < 2.0 * min_objs {
            continue;
        }
        candidates.clear();
        for column in &data.columns {
            candidates.push(eval_continuous(
                column,
                &data.class_of,
                n_classes,
                min_objs,
                &cases,
                &mut order,
            ));
        }
        let Some(feature) = choose(&candidates) else {
            continue;
        };
        let Some(cut) = candidates[feature].map(|c| c.cut) else {
            continue;
        };
        let threshold = greatest_value_below(&sorted_columns[feature], cut);
        let column = &data.columns[feature];
        let (le_cases, gt_cases): (Vec<u32>, Vec<u32>) = cases
            .iter()
            .partition(|&&i| column[i as usize] <= threshold);
        let (le, gt) = (nodes.len(), nodes.len() + 1);
        for _ in 0..2 {
            nodes.push(GrownNode {
                dist: Vec::new(),
                split: None,
            });
        }
        nodes[at].split = Some(Test {
            feature,
            threshold,
            le,
            gt,
        });
        stack.push((gt, gt_cases));
        stack.push((le, le_cases));
    }

    // Collapse bottom-up: a subtree's training errors are the sum of its leaves'.
    let mut errors = vec![0u64; nodes.len()];
    for i in (0..nodes.len()).rev() {
        let as_leaf = nodes[i].errors();
        errors[i] = match nodes[i].split {
            None => as_leaf,
            Some(t) => {
                let subtree = errors[t.le] + errors[t.gt];
                if subtree as f64 >= as_leaf as f64 - EPSILON {
                    nodes[i].split = None;
                    as_leaf
                } else {
                    subtree
                }
            }
        };
    }
    Grown { nodes }
}

/// The nodes reachable from the root, renumbered in pre-order (root 0, then the `le` subtree,
/// then the `gt` subtree), so that pruned-away nodes are dropped.
pub(super) fn compact(tree: &Grown) -> Grown {
    let mut out: Vec<GrownNode> = Vec::new();
    // (old index, slot in `out` of the parent's link to fill: (parent, is_le)).
    let mut stack: Vec<(usize, Option<(usize, bool)>)> = vec![(0, None)];
    while let Some((old, link)) = stack.pop() {
        let new = out.len();
        let node = &tree.nodes[old];
        out.push(GrownNode {
            dist: node.dist.clone(),
            split: node.split,
        });
        if let Some((parent, is_le)) = link {
            if let Some(t) = out[parent].split.as_mut() {
                if is_le {
                    t.le = new;
                } else {
                    t.gt = new;
                }
            }
        }
        if let Some(t) = node.split {
            stack.push((t.gt, Some((new, false))));
            stack.push((t.le, Some((new, true))));
        }
    }
    Grown { nodes: out }
}
