//! d-choices: sample d closed blocks uniformly with replacement and clean the one with the
//! fewest valid pages — Van Houdt, "A mean field model for a class of garbage collection
//! algorithms in flash-based solid state drives" (SIGMETRICS 2013) §3. d is the user's
//! (`d-choices:d=N`, N ≥ 1); the paper studies a range and fixes none.

use super::Rule;

pub fn rule(d: u32) -> Rule {
    Rule::Sample { d }
}
