//! Shared helpers for integration tests.
pub mod analytic;
pub mod workloads;
