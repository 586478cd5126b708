//! Cost-benefit: maximise age·(1−u)/(2u) — benefit (free space × age of the data) over cost
//! (read + write of the valid fraction u). Rosenblum & Ousterhout, "The design and
//! implementation of a log-structured file system" (SOSP 1991) §3.5; the flash form with cost
//! 2u is Kawaguchi, Nishioka, Motoda (USENIX 1995), and Chiang & Chang's (cited as \[2\] by
//! Shafaei & Desnoyers). The papers define age on their own clocks; each model supplies it
//! (see the module docs of [`crate::victim`]).

use super::Rule;

pub fn rule() -> Rule {
    Rule::MaxScore(weight)
}

/// Benefit 1−u and cost 2u of a block with u = `valid` / `pages_per_block`, so the score is
/// age·(1−u)/(2u), rounded as the papers' formula is written. A block with no valid page has
/// cost 0: free space at no cost scores +∞ (age ≥ 1, benefit 1).
#[inline]
pub fn weight(valid: u32, pages_per_block: u32) -> (f64, f64) {
    let u = f64::from(valid) / f64::from(pages_per_block);
    (1.0 - u, 2.0 * u)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The papers' formula as written, evaluated in full for each block.
    fn literal(valid: u32, pages_per_block: u32, age: f64) -> f64 {
        let u = f64::from(valid) / f64::from(pages_per_block);
        if u == 0.0 {
            f64::INFINITY
        } else {
            age * (1.0 - u) / (2.0 * u)
        }
    }

    #[test]
    fn the_weighted_score_rounds_as_the_formula() {
        // Bit for bit, for every valid count of several block sizes and ages from 1 to 2^52:
        // the index tabulates the weight and must choose as the formula would.
        for ppb in [1u32, 3, 64, 256, 384, 1024, 2304] {
            for valid in 0..=ppb {
                for k in 0..64u32 {
                    let age = (1u64 << (k % 53)) as f64 + f64::from(k * 7919 % 1000);
                    let (got, want) = (
                        crate::victim::score(weight(valid, ppb), age),
                        literal(valid, ppb, age),
                    );
                    assert_eq!(got.to_bits(), want.to_bits(), "{valid}/{ppb} age {age}");
                }
            }
        }
    }
}
