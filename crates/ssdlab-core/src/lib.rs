//! # ssdlab-core
//!
//! A trace-driven SSD simulator for garbage-collection research. Pure Rust: no Python here.
//!
//! ```text
//!   workload (trace reader | generator)                      trace/
//!        │ Request (arrival, op, offset, size)
//!        ▼
//!   sim: the replay loop — page ranges, latency, statistics  sim/
//!        │ asks the host interface when each request arrives
//!   ┌── device: the stack of layers, built from config ─────────────────────── device/ ──┐
//!   │ host interface: replay mode (open | closed loop), queue depth            host/      │
//!   │      │ read / write / trim (pages, ready), background(now), after_request           │
//!   │      ▼                                                                              │
//!   │ FTL layer (ftl::FtlLayer): plain | hybrid | rain | zoned (ZNS)           ftl/       │
//!   │   shared: ftl::map (L2P/P2L, blocks, frontiers, victim index, GC steps),            │
//!   │           ftl::gc (GC schedulers), victim/ (victim policies)                        │
//!   │      │ page reads, programs, GC copies and erases                                   │
//!   │      ▼                                                                              │
//!   │ flash layer: plane / die / channel time lines                            flash/     │
//!   └─────────────────────────────────────────────────────────────────────────────────────┘
//!   stats: latency histograms, counters, the result and each layer's section   stats/
//!   config: typed device configuration, policy names (data)                    config/
//! ```
//!
//! `experiments` runs each paper's comparison on top of `sim`; `offline` (offline cleaning) is
//! beside `sim`; `detect` (the host's iostat view and the C4.5 GC detector) is beside `stats`;
//! `api` is the coarse facade for front ends. [`LAYERS`] lists the modules' layers, top to
//! bottom; a module uses only lower layers (checked by `tests/layering.rs`).
//!
//! Data flows one way. `flash` knows nothing of `ftl`; `ftl::map` nothing of `trace`,
//! `ftl::gc` or `sim`; the engine nothing of which layer implementations it runs: a layer
//! reports upward through typed values (its section of the result, `stats::LayerReports`),
//! never by a downcast.
//!
//! ## Determinism contract
//! A simulation is a value ([`sim::Simulation`]); two can run side by side. All randomness comes
//! from [`rng::stream`]: Xoshiro256++ seeded by SplitMix64 from the one simulation seed and the
//! component's name. The core never reads the wall clock. Same configuration, same workload,
//! same seed ⇒ bit-identical results.

/// The git commit the core was built from (`unknown` outside a checkout).
pub const GIT_COMMIT: &str = env!("SSDLAB_GIT_COMMIT");

pub mod api;
pub mod cache;
pub mod config;
pub mod detect;
pub mod device;
pub mod error;
pub mod experiments;
pub mod flash;
pub mod ftl;
pub mod host;
pub mod offline;
pub mod rl;
pub mod rng;
pub mod sim;
pub mod stats;
pub mod trace;
pub mod victim;

pub use error::{Result, SsdError};

/// The layers of the core, top to bottom. A module may use only modules of lower layers (checked
/// by `tests/layering.rs`): data flows one way, and no two modules import each other. Modules of
/// one layer are independent of each other.
pub const LAYERS: &[&[&str]] = &[
    &["api"],
    &["experiments"],
    &["sim", "offline"],
    &["device"],
    &["cache"],
    &["ftl::rain", "ftl::hybrid", "ftl::zoned"],
    &["ftl::plain"],
    &["ftl"],
    &["ftl::gc"],
    &["ftl::map", "flash", "detect", "host"],
    // The result's types sit below the layers that report into them (the flash layer's
    // suspension counters, the FTL's mapping section).
    &["stats"],
    &["rl", "trace", "victim"],
    &["config"],
    &["rng", "error"],
];
