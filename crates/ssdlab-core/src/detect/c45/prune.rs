//! Pessimistic error-based pruning (Quinlan 1993 §4.2; C4.5 Release 8 `prune.c`
//! `EstimateErrors`, `stats.c` `AddErrs`): a leaf covering `N` training cases with `E` errors is
//! charged the upper limit of the binomial error rate at confidence `CF`, and a subtree is
//! replaced by a leaf when the leaf's charge is no more than the subtree's plus 0.1.

use super::build::Grown;

/// C4.5's table of normal deviates (`stats.c` `Val`, `Dev`, "from Documenta Geigy Scientific
/// Tables"): `DEV[i]` standard deviations for upper tail probability `VAL[i]`.
const VAL: [f64; 9] = [0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00];
const DEV: [f64; 9] = [4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00];

/// The upper confidence limit of `AddErrs`, for one confidence factor.
#[derive(Debug, Clone, Copy)]
pub(super) struct ErrorBound {
    cf: f64,
    /// `z^2`, `z` interpolated linearly in C4.5's table (for CF = 0.25: z = 0.6925, where the
    /// exact normal deviate is 0.6745; kept as C4.5 has it so that trees match C4.5's).
    coeff: f64,
}

impl ErrorBound {
    /// `cf` in `(0, 1]` (checked by [`super::C45Params::validate`]).
    pub(super) fn new(cf: f64) -> Self {
        let i = VAL
            .iter()
            .position(|&v| cf <= v)
            .unwrap_or(VAL.len() - 1)
            .max(1);
        let z = DEV[i - 1] + (DEV[i] - DEV[i - 1]) * (cf - VAL[i - 1]) / (VAL[i] - VAL[i - 1]);
        ErrorBound { cf, coeff: z * z }
    }

    /// C4.5's `AddErrs(N, e)`: the errors to add to `e` observed errors among `N` cases so that
    /// `e + AddErrs` is the upper limit of the error count at confidence `cf`. The four cases
    /// are C4.5's: no error (the exact binomial bound `N (1 - cf^(1/N))`), fewer than one error
    /// (interpolated), errors within half a case of `N` (`0.67 (N - e)`), and otherwise the
    /// normal approximation with continuity correction
    /// `Pr = (e + 0.5 + z²/2 + sqrt(z² ((e + 0.5)(1 - (e + 0.5)/N) + z²/4))) / (N + z²)`.
    pub(super) fn add_errs(&self, n: f64, e: f64) -> f64 {
        if e < 1e-6 {
            n * (1.0 - (self.cf.ln() / n).exp())
        } else if e < 0.9999 {
            let val0 = n * (1.0 - (self.cf.ln() / n).exp());
            val0 + e * (self.add_errs(n, 1.0) - val0)
        } else if e + 0.5 >= n {
            0.67 * (n - e)
        } else {
            let c = self.coeff;
            let pr =
                (e + 0.5 + c / 2.0 + (c * ((e + 0.5) * (1.0 - (e + 0.5) / n) + c / 4.0)).sqrt())
                    / (n + c);
            n * pr - e
        }
    }
}

/// Subtree replacement bottom-up over a grown tree (children have larger indices than their
/// parent, so a reverse scan sees every subtree before its root). A node's charge as a leaf is
/// `E + AddErrs(N, E)` with `E` its training errors; a split's charge is the sum of its
/// branches'. C4.5 replaces when `leaf <= subtree + 0.1`. (C4.5 also compares with raising the
/// largest branch; not done here, see the module documentation.)
pub(super) fn prune(tree: &mut Grown, bound: &ErrorBound) {
    let mut charge = vec![0.0; tree.nodes.len()];
    for i in (0..tree.nodes.len()).rev() {
        let node = &tree.nodes[i];
        let n = node.cases() as f64;
        let e = node.errors() as f64;
        let as_leaf = e + bound.add_errs(n, e);
        charge[i] = match node.split {
            None => as_leaf,
            Some(s) => {
                let subtree = charge[s.le] + charge[s.gt];
                if as_leaf <= subtree + 0.1 {
                    tree.nodes[i].split = None;
                    as_leaf
                } else {
                    subtree
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_errs_matches_c45_at_cf_25() {
        let b = ErrorBound::new(0.25);
        assert!((b.coeff - 0.6925f64.powi(2)).abs() < 1e-12);
        // No error among 4 cases: 4 (1 - 0.25^(1/4)) = 1.171573.
        assert!((b.add_errs(4.0, 0.0) - 1.171_573).abs() < 1e-6);
        // 1 error among 4: Pr = 0.547347, 4 Pr - 1 = 1.189389.
        assert!((b.add_errs(4.0, 1.0) - 1.189_389).abs() < 1e-5);
        // 2 errors among 6: 1.342584 (worked by hand in tests/detect_c45.rs).
        assert!((b.add_errs(6.0, 2.0) - 1.342_584).abs() < 1e-5);
        // e + 0.5 >= N: 0.67 (N - e).
        assert!((b.add_errs(2.0, 1.5) - 0.335).abs() < 1e-12);
    }

    #[test]
    fn coefficient_interpolates_the_table() {
        // CF = 0.10 sits on the table: z = 1.28.
        assert!((ErrorBound::new(0.10).coeff - 1.28f64.powi(2)).abs() < 1e-12);
        // CF = 1: z = 0, and no error adds nothing.
        assert_eq!(ErrorBound::new(1.0).add_errs(5.0, 0.0), 0.0);
    }
}
