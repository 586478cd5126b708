//! C4.5 (Quinlan 1993; Release 8's continuous-attribute rules) on worked examples: Quinlan's
//! weather data with the tree derived by hand, pruning on noisy data, a seeded synthetic set,
//! determinism, the JSON form, and one-line errors for bad input.

use rand::Rng;
use rand_distr::{Distribution, Normal};
use ssdlab_core::detect::c45::{C45Params, Dataset, Node, Tree};
use ssdlab_core::rng;

/// Quinlan's weather ("golf") data with numeric temperature and humidity (C4.5 book ch. 1;
/// Weka's weather.numeric.arff). Outlook is one-hot coded (sunny, overcast, rainy), windy is
/// 0/1, play is the class: no = 0, yes = 1.
fn weather() -> Dataset {
    #[rustfmt::skip]
    let raw: [(&str, f64, f64, bool, u32); 14] = [
        ("sunny", 85.0, 85.0, false, 0),
        ("sunny", 80.0, 90.0, true, 0),
        ("overcast", 83.0, 86.0, false, 1),
        ("rainy", 70.0, 96.0, false, 1),
        ("rainy", 68.0, 80.0, false, 1),
        ("rainy", 65.0, 70.0, true, 0),
        ("overcast", 64.0, 65.0, true, 1),
        ("sunny", 72.0, 95.0, false, 0),
        ("sunny", 69.0, 70.0, false, 1),
        ("rainy", 75.0, 80.0, false, 1),
        ("sunny", 75.0, 70.0, true, 1),
        ("overcast", 72.0, 90.0, true, 1),
        ("overcast", 81.0, 75.0, false, 1),
        ("rainy", 71.0, 91.0, true, 0),
    ];
    let one = |b: bool| if b { 1.0 } else { 0.0 };
    Dataset {
        feature_names: [
            "outlook_sunny",
            "outlook_overcast",
            "outlook_rainy",
            "temperature",
            "humidity",
            "windy",
        ]
        .map(String::from)
        .to_vec(),
        rows: raw
            .iter()
            .map(|&(o, t, h, w, _)| {
                vec![
                    one(o == "sunny"),
                    one(o == "overcast"),
                    one(o == "rainy"),
                    t,
                    h,
                    one(w),
                ]
            })
            .collect(),
        labels: raw.iter().map(|r| r.4).collect(),
    }
}

/// The tree, worked by hand with C4.5 Release 8's rules (gains in bits; `cost` is the MDL
/// charge log2(tries)/|D| of a numeric attribute; a 0/1 column has one cut, so no charge).
///
/// Root, 14 cases (9 yes, 5 no), info = 0.940286:
/// - outlook_overcast: 4 (4 y) | 10 (5 y 5 n): gain 0.940286 - 10/14 * 1 = 0.225997, split info
///   H(4/14) = 0.863121, ratio 0.261838.
/// - outlook_sunny: 5 (2 y 3 n) | 9 (7 y 2 n): gain 0.102243, split info 0.940286, ratio 0.108736.
/// - outlook_rainy: gain 0.003185. windy: 6 (3 y 3 n) | 8 (6 y 2 n): gain 0.048127.
/// - humidity: 7 cuts tried (MinSplit 2), best `<= 80` gains 0.151836 < cost log2(7)/14 =
///   0.200525: no test. temperature: 9 cuts, best gain < cost log2(9)/14 = 0.226423: no test.
/// - average gain of the 4 tests = 0.094888; overcast and sunny reach it; overcast has the
///   larger ratio. Threshold: midpoint 0.5, greatest training value below it: 0.
///
/// Not overcast, 10 cases (5 y 5 n), info 1:
/// - sunny and rainy (mirror images): 5 (2 y 3 n) | 5 (3 y 2 n): gain 0.029049.
/// - windy: 6 (4 y 2 n) | 4 (1 y 3 n): gain 0.124511, split info 0.970951.
/// - humidity: 5 cuts, best `<= 80` (4 y 1 n | 1 y 4 n) gain 0.278072 - log2(5)/10 = 0.045879.
/// - temperature: 6 cuts, best `<= 75` gain 0.236453 < log2(6)/10 = 0.258496: no test.
/// - average gain (0.029049 * 2 + 0.124511 + 0.045879) / 4 = 0.057122: only windy reaches it.
///
/// Not overcast, not windy, 6 cases (4 y 2 n), info 0.918296:
/// - sunny and rainy: 3 (3 y) | 3 (1 y 2 n): gain 0.459148, ratio 0.459148 (a tie: the first
///   attribute, sunny, wins). humidity `<= 80`: 0.459148 - log2(2)/6 = 0.292481. temperature
///   `<= 70`: 0.459148 - log2(3)/6 = 0.194988. Average 0.351441: sunny and rainy reach it.
/// - Branches: not sunny 3 y (a leaf), sunny 1 y 2 n (3 cases < 2 * 2: a leaf "no").
///
/// Not overcast, windy, 4 cases (1 y 3 n): every attribute splits 2 (1 y 1 n) | 2 (2 n), gain
/// 0.311278; sunny wins the tie, but its leaves make 1 error, as many as a leaf "no" makes: the
/// subtree is collapsed while growing (`Errors >= Cases - NoBestClass - Epsilon`).
///
/// Pruning (CF 25 %, AddErrs with z = 0.6925): the not-windy node as a leaf is charged 2 +
/// 1.342584 = 3.342584, its subtree 1.110118 (3, 0 errors) + 2.056863 (3, 1 error) = 3.166981;
/// 3.342584 > 3.166981 + 0.1, so it stays. The not-overcast node: leaf 6.541598 against subtree
/// 3.166981 + 2.189389 = 5.356370, stays; the root: leaf 6.794998 against 5.356370 + 1.171573 =
/// 6.527943, stays.
const WEATHER_TREE: &str = "\
if outlook_overcast <= 0:
    if windy <= 0:
        if outlook_sunny <= 0:
            class 1  # 3 cases
        else:
            class 0  # 3 cases, 1 misclassified
    else:
        class 0  # 4 cases, 1 misclassified
else:
    class 1  # 4 cases
";

#[test]
fn weather_tree_is_the_one_worked_by_hand() {
    let data = weather();
    let tree = Tree::fit(&data, &C45Params::default()).unwrap();
    assert_eq!(tree.to_rules_text(), WEATHER_TREE);
    assert_eq!(
        tree.features_used(),
        vec!["outlook_overcast", "windy", "outlook_sunny"]
    );
    match &tree.nodes()[0] {
        Node::Split {
            feature,
            threshold,
            dist,
            ..
        } => {
            assert_eq!((*feature, *threshold), (1, 0.0));
            assert_eq!(dist, &vec![5, 9]);
        }
        n => panic!("root is a leaf: {n:?}"),
    }
    // Pruning keeps every node here, so the unpruned tree is the same.
    let unpruned = Tree::fit(
        &data,
        &C45Params {
            prune: false,
            ..C45Params::default()
        },
    )
    .unwrap();
    assert_eq!(unpruned.to_rules_text(), WEATHER_TREE);
    // 12 of 14 training cases right (the two misclassified leaves' errors).
    let pred = tree.predict_rows(&data.rows).unwrap();
    let right = pred
        .iter()
        .zip(&data.labels)
        .filter(|(p, l)| p == l)
        .count();
    assert_eq!(right, 12);
}

#[test]
fn thresholds_are_training_values() {
    // The sunny days alone, humidity only: the cut between 70 (2 yes) and 85 (3 no) has gain
    // 0.970951 - log2(2)/5 > 0; its midpoint 77.5 becomes 70, the greatest value below it.
    let d = weather();
    let sunny: Vec<usize> = (0..14).filter(|&i| d.rows[i][0] == 1.0).collect();
    let data = Dataset {
        feature_names: vec!["humidity".into()],
        rows: sunny.iter().map(|&i| vec![d.rows[i][4]]).collect(),
        labels: sunny.iter().map(|&i| d.labels[i]).collect(),
    };
    let tree = Tree::fit(&data, &C45Params::default()).unwrap();
    assert_eq!(
        tree.to_rules_text(),
        "if humidity <= 70:\n    class 1  # 2 cases\nelse:\n    class 0  # 3 cases\n"
    );
}

/// `n` cases: x0 uniform in [0, 1) and the class `x0 > 0.5`, flipped with probability `noise`;
/// b1..b6 random 0/1 columns (a 0/1 column has one cut, so no MDL charge holds growth back on
/// them: the unpruned tree fits the flipped labels with them).
fn noisy(n: usize, noise: f64, seed: u64) -> Dataset {
    let mut r = rng::stream(seed, "c45-noisy");
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for _ in 0..n {
        let x0: f64 = r.gen();
        let mut row = vec![x0];
        row.extend((0..6).map(|_| f64::from(u8::from(r.gen::<bool>()))));
        let mut y = u32::from(x0 > 0.5);
        if r.gen::<f64>() < noise {
            y = 1 - y;
        }
        rows.push(row);
        labels.push(y);
    }
    Dataset {
        feature_names: ["x0", "b1", "b2", "b3", "b4", "b5", "b6"]
            .map(String::from)
            .to_vec(),
        rows,
        labels,
    }
}

#[test]
fn pruning_collapses_subtrees_grown_on_noise() {
    let data = noisy(400, 0.2, 7);
    let full = Tree::fit(
        &data,
        &C45Params {
            prune: false,
            ..C45Params::default()
        },
    )
    .unwrap();
    let pruned = Tree::fit(&data, &C45Params::default()).unwrap();
    // Unpruned, the tree chases the flipped labels through the 0/1 columns (41 leaves with this
    // seed); pruned, what is left is the one real test.
    assert!(full.leaves() > 20, "unpruned {} leaves", full.leaves());
    assert_eq!(pruned.leaves(), 2, "{}", pruned.to_rules_text());
    assert_eq!(pruned.features_used()[0], "x0");
    let Node::Split { threshold, .. } = &pruned.nodes()[0] else {
        panic!("pruned to a leaf");
    };
    assert!((threshold - 0.5).abs() < 0.05, "root threshold {threshold}");
    // A smaller confidence factor prunes at least as hard.
    let harder = Tree::fit(
        &data,
        &C45Params {
            cf: 0.05,
            ..C45Params::default()
        },
    )
    .unwrap();
    assert!(harder.leaves() <= pruned.leaves());
}

#[test]
fn two_gaussian_classes_the_root_tests_the_informative_feature() {
    // 1000 cases: `signal` ~ N(0, 1) for class 0 and N(4, 1) for class 1 (Bayes error
    // Phi(-2) = 2.3 %), three N(0, 1) noise features around it.
    let mut r = rng::stream(2024, "c45-gauss");
    let unit = Normal::new(0.0, 1.0).unwrap();
    let mut rows = Vec::new();
    let mut labels = Vec::new();
    for i in 0..1000 {
        let y = (i % 2) as u32;
        let signal = unit.sample(&mut r) + 4.0 * y as f64;
        rows.push(vec![
            unit.sample(&mut r),
            signal,
            unit.sample(&mut r),
            unit.sample(&mut r),
        ]);
        labels.push(y);
    }
    let data = Dataset {
        feature_names: ["noise_a", "signal", "noise_b", "noise_c"]
            .map(String::from)
            .to_vec(),
        rows,
        labels,
    };
    let tree = Tree::fit(&data, &C45Params::default()).unwrap();
    assert_eq!(tree.features_used()[0], "signal");
    let pred = tree.predict_rows(&data.rows).unwrap();
    let acc = pred
        .iter()
        .zip(&data.labels)
        .filter(|(p, l)| p == l)
        .count() as f64
        / 1000.0;
    assert!(acc >= 0.97, "training accuracy {acc}");
    let Node::Split { threshold, .. } = &tree.nodes()[0] else {
        panic!("a leaf");
    };
    assert!((threshold - 2.0).abs() < 0.5, "root threshold {threshold}");
}

#[test]
fn fitting_is_deterministic_and_json_round_trips() {
    let data = noisy(300, 0.1, 3);
    let a = Tree::fit(&data, &C45Params::default()).unwrap();
    let b = Tree::fit(&data, &C45Params::default()).unwrap();
    let json = a.to_json().unwrap();
    assert_eq!(json, b.to_json().unwrap());
    assert!(json.contains("\"format\": \"ssdlab-c45-v1\""));
    let back = Tree::from_json(&json, "t.json").unwrap();
    assert_eq!(back, a);
    assert_eq!(
        back.predict_rows(&data.rows).unwrap(),
        a.predict_rows(&data.rows).unwrap()
    );
    let dir = std::env::temp_dir().join(format!("ssdlab-c45-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tree.json");
    a.save(&path).unwrap();
    assert_eq!(Tree::load(&path).unwrap(), a);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_data_is_an_error_naming_the_field() {
    let fit = |d: &Dataset| Tree::fit(d, &C45Params::default()).unwrap_err().to_string();
    let mut d = weather();
    d.rows.clear();
    d.labels.clear();
    assert_eq!(
        fit(&d),
        "dataset.rows: expected at least one case, found none"
    );
    let mut d = weather();
    d.rows[3][4] = f64::NAN;
    assert_eq!(
        fit(&d),
        "dataset.rows[3].humidity: expected a finite number, found NaN"
    );
    let mut d = weather();
    d.rows[5].pop();
    assert_eq!(
        fit(&d),
        "dataset.rows[5]: expected 6 values (one per feature), found 5"
    );
    let mut d = weather();
    d.labels.pop();
    assert_eq!(
        fit(&d),
        "dataset.labels: expected one label per row (14), found 13"
    );
    let mut d = weather();
    d.feature_names[5] = "humidity".into();
    assert!(fit(&d).contains("`humidity` appears twice"));
    let e = Tree::fit(
        &weather(),
        &C45Params {
            cf: 0.0,
            ..C45Params::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("c45.cf: expected a confidence factor in (0, 1]"),
        "{e}"
    );

    let tree = Tree::fit(&weather(), &C45Params::default()).unwrap();
    let e = tree.predict(&[1.0, 0.0]).unwrap_err().to_string();
    assert!(e.starts_with("c45 input: expected 6 features"), "{e}");
    let e = tree
        .predict(&[0.0, f64::NAN, 0.0, 70.0, 70.0, 0.0])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "c45 input.outlook_overcast: expected a number, found NaN"
    );
    assert!(tree.check_features(&weather().feature_names).is_ok());
    let e = tree
        .check_features(&["a".to_string()])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("c45 model: expected the features [outlook_sunny"),
        "{e}"
    );
}

#[test]
fn a_model_file_of_the_wrong_shape_is_refused() {
    let tree = Tree::fit(&weather(), &C45Params::default()).unwrap();
    let json = tree.to_json().unwrap();
    let load = |s: &str| Tree::from_json(s, "m.json").unwrap_err().to_string();
    let e = load(&json.replace("ssdlab-c45-v1", "ssdlab-c45-v0"));
    assert_eq!(
        e,
        "m.json: format: expected \"ssdlab-c45-v1\", found \"ssdlab-c45-v0\""
    );
    let e = load(&json.replace("\"feature\": 5", "\"feature\": 9"));
    assert_eq!(
        e,
        "m.json: nodes[1].feature: expected an index below 6 (the number of features), found 9"
    );
    let e = load(&json.replace("\"le\": 1", "\"le\": 0"));
    assert_eq!(
        e,
        "m.json: nodes[0].le: expected a node index in 1..7, found 0"
    );
    let e = load(&json.replacen("\"outlook_sunny\",", "", 1));
    assert!(
        e.starts_with("m.json: nodes[") && e.contains("expected an index below 5"),
        "{e}"
    );
    let e = load(&json.replacen(
        "\"dist\": [\n        5,\n        9\n      ]",
        "\"dist\": [5]",
        1,
    ));
    assert_eq!(
        e,
        "m.json: nodes[0].dist: expected 2 counts (one per class), found 1"
    );
    let e = load(&json.replace("\"kind\": \"leaf\"", "\"kind\": \"twig\""));
    assert!(e.starts_with("m.json:") && e.contains("nodes["), "{e}");
    let e = load("{\"format\": ");
    assert!(e.starts_with("m.json:1: "), "{e}");
    assert!(!e.contains('\n'));
}
