//! Errors as values: every failure a user can cause is one of these, and its `Display` is one
//! line that names the file, line or field and says what was expected. Panics are bugs.

use thiserror::Error;

/// The one error type of the core. Each variant carries enough context for a one-line message.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SsdError {
    /// A configuration field is missing, unknown, of the wrong type or out of range.
    #[error("config {origin}: {message}")]
    Config { origin: String, message: String },
    /// A trace line or binary record could not be read.
    #[error("{file}:{line}: {message}")]
    Trace {
        file: String,
        line: u64,
        message: String,
    },
    /// An I/O error opening or reading a file.
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    /// A workload specification is invalid.
    #[error("workload: {0}")]
    Workload(String),
    /// The device cannot accept a write (no plane has free space and GC cannot reclaim any).
    #[error("device full: {0}")]
    DeviceFull(String),
    /// Anything else a caller passed that does not fit (e.g. a bad option combination).
    #[error("{0}")]
    Invalid(String),
    /// The device refused a request it must not be sent (a zoned device in strict mode): the
    /// engine puts the request's file:line before the message.
    #[error("{0}")]
    Refused(String),
}

impl SsdError {
    pub fn config(origin: impl Into<String>, message: impl Into<String>) -> Self {
        SsdError::Config {
            origin: origin.into(),
            message: message.into(),
        }
    }
    pub fn trace(file: impl Into<String>, line: u64, message: impl Into<String>) -> Self {
        SsdError::Trace {
            file: file.into(),
            line,
            message: message.into(),
        }
    }
    pub fn io(file: impl Into<String>, err: impl std::fmt::Display) -> Self {
        SsdError::Io {
            file: file.into(),
            message: err.to_string(),
        }
    }
    /// A short machine-readable kind, used by the Python layer to pick an exception class.
    pub fn kind(&self) -> &'static str {
        match self {
            SsdError::Config { .. } => "config",
            SsdError::Trace { .. } => "trace",
            SsdError::Io { .. } => "io",
            SsdError::Workload(_) => "workload",
            SsdError::DeviceFull(_) => "device_full",
            SsdError::Invalid(_) => "invalid",
            SsdError::Refused(_) => "refused",
        }
    }
}

pub type Result<T> = std::result::Result<T, SsdError>;
