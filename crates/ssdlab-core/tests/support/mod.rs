//! Shared helpers for integration tests.
#![allow(dead_code)] // each test binary uses a different part of the support module
pub mod analytic;
pub mod devices;
pub mod flash;
pub mod fuzz;
pub mod json_run;
pub mod text_cases;
pub mod traces;
pub mod workloads;
