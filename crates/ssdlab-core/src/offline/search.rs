//! Depth-first search over cleaning schedules (Shafaei & Desnoyers §III, "We analyze this as a
//! search problem"; §IV-A): exhaustive (every cleanable block at every decision) or pruned
//! (Algorithms 1–3). The model branches and rolls back through its undo log.

use super::future::FutureIndex;
use super::model::Model;
pub use super::prune::Branching;
use super::prune::{candidates, PruneScratch};

/// What a DFS found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DfsOutcome {
    pub best_internal: u64,
    pub best_schedule: Vec<u32>,
    /// Complete schedules (root-to-leaf paths) reached.
    pub explored: u64,
    /// Complete schedules strictly better than Greedy's.
    pub better_than_greedy: u64,
    /// False if `limit` stopped the search before the tree was covered.
    pub complete: bool,
}

struct Dfs<'a> {
    fut: &'a FutureIndex,
    branching: Branching,
    bound: bool,
    limit: u64,
    greedy: u64,
    out: DfsOutcome,
    scratch: PruneScratch,
}

impl Dfs<'_> {
    fn visit(&mut self, m: &mut Model) {
        if self.out.explored >= self.limit {
            self.out.complete = false;
            return;
        }
        let start = m.mark();
        if !m.advance(self.fut) {
            self.out.explored += 1;
            let cost = m.internal_writes();
            if cost < self.greedy {
                self.out.better_than_greedy += 1;
            }
            if cost < self.out.best_internal {
                self.out.best_internal = cost;
                self.out.best_schedule = m.schedule().to_vec();
            }
        } else if !(self.bound && m.internal_writes() >= self.out.best_internal) {
            let mut cands = Vec::new();
            candidates(m, self.fut, self.branching, &mut self.scratch, &mut cands);
            if !matches!(self.branching, Branching::Pruned { .. }) {
                // Fewest valid pages first: good schedules early make the bound cut sooner.
                cands.sort_by_key(|&b| (m.valid(b), b));
            }
            for b in cands {
                let mark = m.mark();
                if m.clean(b) {
                    self.visit(m);
                }
                m.undo_to(mark);
            }
        }
        m.undo_to(start);
    }
}

/// DFS from the model's current state. With `bound`, a branch is cut as soon as its internal
/// writes reach the best complete schedule's (exact: internal writes never decrease), which makes
/// `explored` and `better_than_greedy` counts of the visited part only. `incumbent` seeds the best
/// (e.g. Greedy's cost and schedule, so the result is never worse than Greedy). The recursion
/// depth is the number of cleanings, so this is for small problems.
pub fn dfs(
    m: &mut Model,
    fut: &FutureIndex,
    branching: Branching,
    bound: bool,
    limit: Option<u64>,
    greedy_internal: u64,
    incumbent: (u64, Vec<u32>),
) -> DfsOutcome {
    let was_logging = m.mark();
    m.set_logging(true);
    let mut d = Dfs {
        fut,
        branching,
        bound,
        limit: limit.unwrap_or(u64::MAX),
        greedy: greedy_internal,
        out: DfsOutcome {
            best_internal: incumbent.0,
            best_schedule: incumbent.1,
            explored: 0,
            better_than_greedy: 0,
            complete: true,
        },
        scratch: PruneScratch::default(),
    };
    d.visit(m);
    m.undo_to(was_logging);
    d.out
}
