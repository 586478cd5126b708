//! # ssdlab-core
//!
//! A trace-driven SSD simulator for garbage-collection research. Pure Rust: no Python here.
//!
//! ```text
//!   workload (trace reader | generator)          trace/
//!        │ Request (arrival, op, offset, size)
//!        ▼
//!   sim: split into page operations, replay      sim/     (open loop | closed loop | timing-free)
//!        │ lpn                          ▲ decision points (before/after request, idle, thresholds)
//!        ▼                              │
//!   ftl: L2P/P2L, blocks, frontiers    gc/      victim policies + GC schedulers (unit steps)
//!        │                             rl/      tabular Q-learning shared by agents
//!        │ physical page / block op
//!        ▼
//!   nand: plane / die / channel time lines       nand/
//!        │ completion times
//!        ▼
//!   stats: HDR latency histograms, counters, time series     stats/
//! ```
//!
//! Data flows one way. `nand` knows nothing of `ftl`; `ftl` nothing of `trace` or `sim`.
//!
//! ## Determinism contract
//! A simulation is a value ([`sim::Simulation`]); two can run side by side. All randomness comes
//! from [`rng::stream`]: Xoshiro256++ seeded by SplitMix64 from the one simulation seed and the
//! component's name. The core never reads the wall clock. Same configuration, same workload,
//! same seed ⇒ bit-identical results.

pub mod api;
pub mod config;
pub mod error;
pub mod experiments;
pub mod ftl;
pub mod gc;
pub mod nand;
pub mod offline;
pub mod rain;
pub mod rl;
pub mod rng;
pub mod sim;
pub mod stats;
pub mod trace;

pub use error::{Result, SsdError};

/// The layers of the core, top to bottom. A module may use only modules of lower layers (checked
/// by `tests/layering.rs`): data flows one way, and no two modules import each other. Modules of
/// one layer are independent of each other.
pub const LAYERS: &[&[&str]] = &[
    &["api"],
    &["experiments"],
    &["sim", "offline"],
    &["rain"],
    &["gc"],
    &["ftl", "nand", "stats"],
    &["rl", "trace"],
    &["config"],
    &["rng", "error"],
];
