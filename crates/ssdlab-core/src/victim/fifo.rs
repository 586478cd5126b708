//! FIFO / least-recently-written (LRW): the block filled (online) or opened (offline) longest
//! ago, i.e. round-robin over the log — modelled by Desnoyers, "Analytic models of SSD write
//! performance" (ACM TOS 2014) §4. `lrw` is accepted as its alias.

use super::Rule;

pub fn rule() -> Rule {
    Rule::Oldest
}
