//! Tabular reinforcement learning shared by agents (GC schedulers now, cache agents later): a
//! Q-table with a documented JSON file format, an ε-greedy learner drawing from a seeded stream,
//! and running response-time percentiles (HDR histogram) for percentile-based rewards.

mod percentile;
mod qtable;

pub use percentile::RunningPercentiles;
pub use qtable::{QLearner, QTable, QTABLE_FORMAT};
