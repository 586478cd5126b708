//! Cost-benefit: maximise age·(1−u)/(2u) — benefit (free space × age of the data) over cost
//! (read + write of the valid fraction u). Rosenblum & Ousterhout, "The design and
//! implementation of a log-structured file system" (SOSP 1991) §3.5; the flash form with cost
//! 2u is Kawaguchi, Nishioka, Motoda (USENIX 1995), and Chiang & Chang's (cited as [2] by
//! Shafaei & Desnoyers). The papers define age on their own clocks; each model supplies it
//! (see the module docs of [`crate::victim`]).

use super::Rule;

pub fn rule() -> Rule {
    Rule::MaxScore(score)
}

/// age·(1−u)/(2u) with u = `valid` / `pages_per_block`; a block with no valid page is free space
/// at no cost (infinity).
#[inline]
pub fn score(valid: u32, pages_per_block: u32, age: f64) -> f64 {
    let u = f64::from(valid) / f64::from(pages_per_block);
    if u == 0.0 {
        f64::INFINITY
    } else {
        age * (1.0 - u) / (2.0 * u)
    }
}
