//! Choosing a node's test: the best threshold of each numeric attribute (C4.5 Release 8
//! `contin.c` `EvalContinuousAtt`, with the MDL correction of Quinlan 1996 §2), then the best
//! attribute by gain ratio among those of at least average gain (`build.c` `FormTree`, `Worth`).

use super::EPSILON;

/// C4.5's `Log`: log2, with 0 for arguments `<= 0` (so `0 log 0 = 0`).
fn log2(x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else {
        x.log2()
    }
}

/// C4.5's `TotalInfo`: `N log2 N - sum n log2 n` over the counts (`N` their sum), i.e. `N` times
/// the entropy of the distribution, in bits.
pub(super) fn total_info(counts: &[f64]) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for &c in counts {
        sum += c * log2(c);
        n += c;
    }
    n * log2(n) - sum
}

/// The best test on one attribute: information gain (MDL cost already subtracted), the split
/// information of its two branches, and the midpoint cut between the two values it separates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Candidate {
    pub gain: f64,
    pub info: f64,
    pub cut: f64,
}

/// Values closer than this are not separated by a cut (`contin.c`: `Val[i] < Val[i+1] - 1E-5`).
const SAME_VALUE: f64 = 1e-5;

/// C4.5's `EvalContinuousAtt` for an attribute without unknown values.
///
/// The cases are sorted by value; a cut between neighbours of different value is tried when
/// both sides hold at least `MinSplit` cases, where `MinSplit = 0.1 * |D| / classes` clamped to
/// `[min_objs, 25]` (Release 8; `classes` counts the classes of the whole training set). A cut's
/// gain is `info(D) - sum |D_i|/|D| info(D_i)` (`info.c` `ComputeGain`, which also asks for
/// `min_objs` cases in both branches). The attribute's test is the cut of largest gain, and its
/// gain is charged `log2(tries) / |D|`, `tries` the number of cuts tried: Quinlan 1996 §2 writes
/// the cost as `log2(N - 1) / |D|` for `N` distinct values, and Release 8's code (followed here,
/// as by Weka's J48) counts the cuts the `MinSplit` rule leaves. An attribute whose best gain
/// does not exceed that cost offers no test (`None`).
///
/// `order` is scratch space; `cases` the row indices at this node.
pub(super) fn eval_continuous(
    column: &[f64],
    class_of: &[usize],
    n_classes: usize,
    min_objs: f64,
    cases: &[u32],
    order: &mut Vec<u32>,
) -> Option<Candidate> {
    let items = cases.len() as f64;
    if items < 2.0 * min_objs {
        return None;
    }
    order.clear();
    order.extend_from_slice(cases);
    order.sort_by(|&a, &b| {
        column[a as usize]
            .total_cmp(&column[b as usize])
            .then(a.cmp(&b))
    });

    let mut low = vec![0.0; n_classes];
    let mut high = vec![0.0; n_classes];
    for &i in order.iter() {
        high[class_of[i as usize]] += 1.0;
    }
    let base_info = total_info(&high) / items;
    let mut min_split = 0.10 * items / n_classes as f64;
    if min_split <= min_objs {
        min_split = min_objs;
    } else if min_split > 25.0 {
        min_split = 25.0;
    }

    // (gain, split info, position) of every cut tried.
    let mut tried: Vec<(f64, f64, usize)> = Vec::new();
    let mut low_items = 0.0;
    for k in 0..order.len() - 1 {
        let c = class_of[order[k] as usize];
        low_items += 1.0;
        low[c] += 1.0;
        high[c] -= 1.0;
        if low_items < min_split {
            continue;
        }
        if low_items > items - min_split {
            break;
        }
        let (v, next) = (column[order[k] as usize], column[order[k + 1] as usize]);
        if v < next - SAME_VALUE {
            let high_items = items - low_items;
            let reasonable = (low_items >= min_objs) as u8 + (high_items >= min_objs) as u8;
            let gain = if reasonable < 2 {
                -EPSILON
            } else {
                base_info - (total_info(&low) + total_info(&high)) / items
            };
            let info = total_info(&[low_items, high_items]) / items;
            tried.push((gain, info, k));
        }
    }

    let thresh_cost = log2(tried.len() as f64) / items;
    let mut best: Option<(f64, f64, usize)> = None;
    let mut best_val = 0.0;
    for &(gain, info, k) in &tried {
        let val = gain - thresh_cost;
        if val > best_val {
            best_val = val;
            best = Some((val, info, k));
        }
    }
    best.map(|(gain, info, k)| Candidate {
        gain,
        info,
        cut: (column[order[k] as usize] + column[order[k + 1] as usize]) / 2.0,
    })
}

/// C4.5's attribute choice (`FormTree` with `Worth` under the gain-ratio criterion): the average
/// gain is taken over the attributes that offer a test; among those whose gain is at least that
/// average (less [`EPSILON`]) and whose split information exceeds [`EPSILON`], the one of
/// largest gain ratio wins, the first attribute on ties. Returns the attribute's index.
pub(super) fn choose(candidates: &[Option<Candidate>]) -> Option<usize> {
    let offered: Vec<f64> = candidates
        .iter()
        .flatten()
        .filter(|c| c.gain > -EPSILON)
        .map(|c| c.gain)
        .collect();
    let av_gain = if offered.is_empty() {
        1e6
    } else {
        offered.iter().sum::<f64>() / offered.len() as f64
    };
    let mut best = None;
    let mut best_val = -EPSILON;
    for (a, c) in candidates.iter().enumerate() {
        let Some(c) = c else { continue };
        if c.gain <= -EPSILON {
            continue;
        }
        let worth = if c.gain >= av_gain - EPSILON && c.info > EPSILON {
            c.gain / c.info
        } else {
            -EPSILON
        };
        if worth > best_val {
            best_val = worth;
            best = Some(a);
        }
    }
    best
}

/// C4.5's `GreatestValueBelow`: the largest training value of the attribute not above `cut`
/// (`sorted` holds the attribute's training values in ascending order). The cut always lies
/// above some training value, so there is one; `cut` itself otherwise.
pub(super) fn greatest_value_below(sorted: &[f64], cut: f64) -> f64 {
    let n = sorted.partition_point(|&v| v <= cut);
    if n == 0 {
        cut
    } else {
        sorted[n - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_info_is_n_times_entropy() {
        assert_eq!(total_info(&[4.0, 0.0]), 0.0);
        assert!((total_info(&[2.0, 2.0]) - 4.0).abs() < 1e-12);
        // 9 yes / 5 no: 14 * 0.940286 bits.
        assert!((total_info(&[9.0, 5.0]) / 14.0 - 0.940_286).abs() < 1e-6);
    }

    #[test]
    fn threshold_is_a_training_value() {
        let v = [64.0, 65.0, 70.0, 75.0, 80.0];
        assert_eq!(greatest_value_below(&v, 77.5), 75.0);
        assert_eq!(greatest_value_below(&v, 70.0), 70.0);
    }
}
