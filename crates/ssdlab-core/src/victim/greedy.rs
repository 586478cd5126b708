//! Greedy: clean the block with the fewest valid pages — the classic cleaner (Kawaguchi,
//! Nishioka, Motoda, "A flash-memory based file system", USENIX 1995), analysed by Bux &
//! Iliadis (Performance Evaluation 2010) and proven optimal for uniform random writes (Yang et
//! al., cited as \[6\] by Shafaei & Desnoyers). Ties are the model's order: bucket order online
//! (O(1)), lowest block index offline (the paper of the offline work, §II, says nothing).

use super::Rule;

pub fn rule() -> Rule {
    Rule::FewestValid
}
