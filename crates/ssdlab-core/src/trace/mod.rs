//! Workloads: streaming trace readers (one file per format; text formats share the streaming
//! loop of `input` and, on a machine with a second CPU, are parsed on a reader thread by
//! `read_ahead`), synthetic generators, file-system-like workloads (`fs`), and the mapping of
//! trace addresses onto the device's logical space.

mod arrival;
mod blkparse;
mod csv;
mod disksim;
mod fields;
mod fiu;
pub mod flows;
mod format;
pub mod fs;
mod handoff;
mod info;
mod input;
pub mod lba_map;
mod msr;
mod open;
pub mod presets;
mod read_ahead;
mod repeat;
mod replay;
pub mod request;
mod skips;
mod spc;
pub mod spec;
pub mod synthetic;
mod vscsi;
mod vscsi_csv;

pub use arrival::{ArrivalSpec, IdleDist};
pub use blkparse::BlkAction;
pub use flows::{FlowSpec, FlowsSpec, LbaRange, PageSpan, Priority};
pub use format::{detect_format, open_format, TraceFormat};
pub use fs::{FsPersonality, FsSource, FsSpec, FsStats, TrimMode};
pub use info::{trace_info, TraceInfo};
pub use lba_map::{LbaMapMode, LbaMapped};
pub use open::{open_trace, open_workload};
pub use replay::Replay;
pub use request::{OpKind, Request, RequestSource, VecSource};
pub use skips::{SkipReason, Skips};
pub use spec::{Pattern, SyntheticSpec, TraceSpec, WorkloadSpec};
pub use synthetic::Synthetic;
