//! Q-table and ε-greedy Q-learner (Sutton & Barto, "Reinforcement Learning", 1998, §6.4–6.5),
//! in the form Kang, Shin, Yoo (TECS 2017) use: Algorithm 1 line 9,
//! Q(s,a) ← (1−α)·Q(s,a) + α·[r + γ·Q(s′,a′)], with a′ the action actually chosen in s′.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};
use crate::rng::{Rng, SimRng};

/// The `format` tag of saved Q-tables.
pub const QTABLE_FORMAT: &str = "ssdlab-qtable-v1";

/// A dense table of Q values, `states × actions`, row-major.
///
/// File format (JSON, `save`/`load`): `{"format": "ssdlab-qtable-v1", "states": S, "actions": A,
/// "action_labels": [...], "values": [[q(0,0), …, q(0,A−1)], …]}` — one row per state;
/// `action_labels` (optional) says what each action means (e.g. page copies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QTable {
    format: String,
    states: usize,
    actions: usize,
    #[serde(default)]
    pub action_labels: Vec<u32>,
    values: Vec<Vec<f64>>,
}

impl QTable {
    /// All-zero table.
    pub fn new(states: usize, actions: usize) -> Self {
        QTable {
            format: QTABLE_FORMAT.into(),
            states,
            actions,
            action_labels: Vec::new(),
            values: vec![vec![0.0; actions]; states],
        }
    }
    pub fn states(&self) -> usize {
        self.states
    }
    pub fn actions(&self) -> usize {
        self.actions
    }
    #[inline]
    pub fn get(&self, s: usize, a: usize) -> f64 {
        self.values[s][a]
    }
    pub fn set(&mut self, s: usize, a: usize, v: f64) {
        self.values[s][a] = v;
    }
    /// The greedy action of `s`; ties go to the lowest index.
    pub fn best(&self, s: usize) -> usize {
        let row = &self.values[s];
        let mut b = 0;
        for (i, v) in row.iter().enumerate() {
            if *v > row[b] {
                b = i;
            }
        }
        b
    }
    /// Number of (state, action) entries that are not zero (table utilisation, as in §6.2).
    pub fn nonzero(&self) -> usize {
        self.values.iter().flatten().filter(|v| **v != 0.0).count()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
    /// Parse and check a table; `origin` names it in errors, with the line and the field
    /// (`q.json:1: Q-table: values[0][0]: invalid type: string "x", expected f64`). A leading
    /// UTF-8 byte-order mark is skipped, as the device loader does.
    pub fn from_json(text: &str, origin: &str) -> Result<Self> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let bad = |line: usize, field: &str, msg: String| {
            let at = if field.is_empty() || field == "." {
                String::new()
            } else {
                format!("{field}: ")
            };
            SsdError::Invalid(format!("{origin}:{line}: Q-table: {at}{msg}"))
        };
        let de = &mut serde_json::Deserializer::from_str(text);
        let t: QTable = serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            let inner = e.into_inner();
            let msg = inner.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            bad(inner.line(), &field, msg)
        })?;
        if t.format != QTABLE_FORMAT {
            return Err(bad(
                1,
                "format",
                format!("'{}', expected '{QTABLE_FORMAT}'", t.format),
            ));
        }
        if t.values.len() != t.states {
            return Err(bad(
                1,
                "values",
                format!("{} rows, expected {} (states)", t.values.len(), t.states),
            ));
        }
        if let Some((i, r)) = t
            .values
            .iter()
            .enumerate()
            .find(|(_, r)| r.len() != t.actions)
        {
            return Err(bad(
                1,
                &format!("values[{i}]"),
                format!("{} numbers, expected {} (actions)", r.len(), t.actions),
            ));
        }
        if t.values.iter().flatten().any(|v| !v.is_finite()) {
            return Err(bad(1, "values", "expected finite numbers".into()));
        }
        Ok(t)
    }
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = path.as_ref();
        std::fs::write(p, self.to_json())
            .map_err(|e| SsdError::Invalid(format!("{}: cannot write Q-table: {e}", p.display())))
    }
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let p = path.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| {
            SsdError::config(p.display().to_string(), format!("cannot read Q-table: {e}"))
        })?;
        Self::from_json(&text, &p.display().to_string())
    }
}

/// Q-learning with ε-greedy action choice from its own seeded stream (`rng::stream(seed, "rl")`).
#[derive(Debug, Clone)]
pub struct QLearner {
    pub table: QTable,
    pub alpha: f64,
    pub gamma: f64,
    rng: SimRng,
}

impl QLearner {
    pub fn new(table: QTable, alpha: f64, gamma: f64, rng: SimRng) -> Self {
        QLearner {
            table,
            alpha,
            gamma,
            rng,
        }
    }

    /// ε-greedy: with probability ε a uniformly random action *other than* the greedy one (the
    /// paper §4: "a random action, which is different from the one selected by the policy"),
    /// otherwise the greedy one.
    pub fn choose(&mut self, s: usize, epsilon: f64) -> usize {
        let best = self.table.best(s);
        let n = self.table.actions();
        if n > 1 && epsilon > 0.0 && self.rng.gen_bool(epsilon.min(1.0)) {
            let r = self.rng.gen_range(0..n - 1);
            if r >= best {
                r + 1
            } else {
                r
            }
        } else {
            best
        }
    }

    /// Q-learning's off-policy form (Watkins 1989; the form Yoo & Shin, HotStorage 2020, slide 8
    /// write): Q(s,a) ← Q(s,a) + α[r + γ·max_a′ Q(s′,a′) − Q(s,a)].
    pub fn update_max(&mut self, s: usize, a: usize, r: f64, s2: usize) {
        let best = self.table.get(s2, self.table.best(s2));
        let q = self.table.get(s, a);
        self.table
            .set(s, a, q + self.alpha * (r + self.gamma * best - q));
    }

    /// Algorithm 1 line 9: Q(s,a) ← (1−α)Q(s,a) + α[r + γQ(s′,a′)].
    pub fn update(&mut self, s: usize, a: usize, r: f64, s2: usize, a2: usize) {
        let target = r + self.gamma * self.table.get(s2, a2);
        let q = (1.0 - self.alpha) * self.table.get(s, a) + self.alpha * target;
        self.table.set(s, a, q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn update_matches_a_hand_computed_example() {
        let mut l = QLearner::new(QTable::new(2, 3), 0.3, 0.8, stream(1, "rl"));
        l.table.set(0, 1, 0.5);
        l.table.set(1, 2, 2.0);
        // (1 − 0.3)·0.5 + 0.3·(1 + 0.8·2.0) = 0.35 + 0.78 = 1.13
        l.update(0, 1, 1.0, 1, 2);
        assert!((l.table.get(0, 1) - 1.13).abs() < 1e-12);
        // Negative reward on a zero entry: 0.3·(−0.5 + 0.8·1.13) = 0.1212
        l.update(1, 0, -0.5, 0, 1);
        assert!((l.table.get(1, 0) - 0.1212).abs() < 1e-12);
        assert_eq!(l.table.best(0), 1);
        // Max form: Q(1,1) = 0 + 0.3·(−1 + 0.8·max(1.13, 0, 0) − 0) = −0.0288
        l.update_max(1, 1, -1.0, 0);
        assert!((l.table.get(1, 1) + 0.0288).abs() < 1e-12);
    }

    #[test]
    fn epsilon_greedy_explores_other_actions_and_is_seeded() {
        let mut t = QTable::new(1, 4);
        t.set(0, 2, 1.0);
        let mut a = QLearner::new(t.clone(), 0.3, 0.8, stream(9, "rl"));
        assert!((0..100).all(|_| a.choose(0, 0.0) == 2));
        let picks: Vec<usize> = (0..4000).map(|_| a.choose(0, 1.0)).collect();
        assert!(picks.iter().all(|p| *p != 2));
        for k in [0, 1, 3] {
            let n = picks.iter().filter(|p| **p == k).count();
            assert!((1200..1500).contains(&n), "action {k}: {n}");
        }
        let mut b = QLearner::new(t.clone(), 0.3, 0.8, stream(9, "rl"));
        let mut c = QLearner::new(t, 0.3, 0.8, stream(9, "rl"));
        let x: Vec<usize> = (0..100).map(|_| b.choose(0, 0.5)).collect();
        let y: Vec<usize> = (0..100).map(|_| c.choose(0, 0.5)).collect();
        assert_eq!(x, y);
    }

    #[test]
    fn json_round_trip_and_errors() {
        let mut t = QTable::new(3, 2);
        t.set(2, 1, -0.25);
        t.set(0, 0, 1.0 / 3.0);
        t.action_labels = vec![0, 4];
        let back = QTable::from_json(&t.to_json(), "x").unwrap();
        assert_eq!(back, t);
        let e = QTable::from_json(
            r#"{"format":"ssdlab-qtable-v1","states":2,"actions":2,"values":[[0,0]]}"#,
            "f.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.json:1: Q-table: values: 1 rows, expected 2 (states)"
        );
        // Issue 58: the field and line of a value of the wrong type; a byte-order mark is skipped.
        let e = QTable::from_json(
            "{\"format\":\"ssdlab-qtable-v1\",\"states\":1,\"actions\":2,\n\"values\":[[0,\"x\"]]}",
            "g.json",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("g.json:2: Q-table: values[0][1]: invalid type: string"),
            "{e}"
        );
        let bom = format!("\u{feff}{}", t.to_json());
        assert_eq!(QTable::from_json(&bom, "x").unwrap(), t);
        assert!(QTable::from_json(
            r#"{"format":"other","states":0,"actions":0,"values":[]}"#,
            "x"
        )
        .is_err());
        let dir = std::env::temp_dir().join(format!("ssdlab-qtable-{}.json", std::process::id()));
        t.save(&dir).unwrap();
        assert_eq!(QTable::load(&dir).unwrap(), t);
        let _ = std::fs::remove_file(&dir);
        assert!(QTable::load("/nonexistent/q.json").is_err());
    }
}
