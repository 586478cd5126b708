//! What each victim policy (`gc.victim`, the [`VictimPolicy`] family) *is*, one file per member:
//! a [`Rule`] saying which closed block to clean. The online FTL (`ftl::victim_index`, which
//! picks the index shape that serves a rule cheaply) and the offline cleaning model
//! (`offline::policies`, which evaluates it over its blocks) both read the rule from here, so
//! the two cannot define a policy differently. The *age* a score uses is each model's own (the
//! FTL: pages written since the block was closed; the offline model: since it was opened).
//!
//! # Adding a victim policy: one file and one line
//!
//! Say, "oldest-first among blocks at most half valid" — anything expressible as a [`Rule`]:
//!
//! 1. **One file**, `victim/my_policy.rs`, with the paper and section in its doc comment and a
//!    reason for every value the paper leaves open:
//!    ```ignore
//!    //! My policy (Author, Venue Year, §N): …
//!    use super::Rule;
//!    pub fn rule() -> Rule {
//!        Rule::MaxScore(|valid, pages_per_block| (benefit, cost))
//!    }
//!    ```
//! 2. **One line**, its variant in the family enum [`VictimPolicy`] (`config/victim.rs`), whose
//!    doc comment's first line is what `ssdlab policies` prints; the kebab-case name comes from
//!    the variant (`MyPolicy` → `my-policy`), and parsing, listing, Python's name list and the
//!    determinism and invariant tests (which iterate the registry) follow from it.
//!
//! The compiler then asks for the member's arm in the `rules!` table below, which names the
//! file (`MyPolicy => my_policy,`): forgetting it does not compile, and
//! `tests/registries.rs` checks that every member has its file here.

mod cost_benefit;
mod d_choices;
mod fifo;
mod greedy;
mod random;

use crate::config::VictimPolicy;

/// Which closed block a policy cleans, in terms every model can evaluate.
#[derive(Debug, Clone, Copy)]
pub enum Rule {
    /// The block with the fewest valid pages (ties: the model's order).
    FewestValid,
    /// The block closed (online) or opened (offline) longest ago.
    Oldest,
    /// The block with the highest [`score`] `age · benefit / cost`, where `(benefit, cost) =
    /// weight(valid, pages_per_block)`; age ≥ 1. The weight depends on the valid count alone, so a
    /// model may tabulate it once per valid count (the FTL's index does, docs/speed.md,
    /// "Cost-benefit's scan on a table of weights") and still round exactly as evaluating it in
    /// full.
    MaxScore(fn(u32, u32) -> (f64, f64)),
    /// Sample `d` candidate blocks uniformly with replacement, clean the one with the fewest
    /// valid pages (d = 1: a uniformly random block).
    Sample { d: u32 },
}

/// A block's score under [`Rule::MaxScore`], from its weight `(benefit, cost)` and age: `age ·
/// benefit / cost`, in that order of operations (a block at cost 0 and positive benefit scores
/// +∞). Every model evaluates scores through this one function, so they round alike.
#[inline]
pub fn score((benefit, cost): (f64, f64), age: f64) -> f64 {
    age * benefit / cost
}

/// `rules! { Variant => file, Variant { field } => file }`: the one table from member to file;
/// each file's `rule` takes the variant's fields.
macro_rules! rules {
    ($($variant:ident $({ $($field:ident),* })? => $file:ident),* $(,)?) => {
        /// The rule of `policy`.
        pub fn rule(policy: VictimPolicy) -> Rule {
            match policy {
                $(VictimPolicy::$variant $({ $($field),* })? => $file::rule($($($field),*)?),)*
            }
        }
        /// The file (under `victim/`) that defines each member, for the registry test.
        pub fn files() -> &'static [(&'static str, &'static str)] {
            &[$((stringify!($variant), stringify!($file))),*]
        }
    };
}

rules! {
    Greedy => greedy,
    CostBenefit => cost_benefit,
    Fifo => fifo,
    Random => random,
    DChoices { d } => d_choices,
}
