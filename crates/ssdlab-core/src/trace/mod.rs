//! Workloads: streaming trace readers (one file per format), synthetic generators, and the
//! mapping of trace addresses onto the device's logical space.

pub mod request;

pub use request::{OpKind, Request, RequestSource, VecSource};
