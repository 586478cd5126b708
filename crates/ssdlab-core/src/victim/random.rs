//! Random: a uniformly random closed block (Desnoyers, ACM TOS 2014; Van Houdt, SIGMETRICS
//! 2013) — d-choices with d = 1.

use super::Rule;

pub fn rule() -> Rule {
    Rule::Sample { d: 1 }
}
