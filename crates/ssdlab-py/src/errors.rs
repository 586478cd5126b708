//! Core errors → Python exceptions, one class per kind, all under `SsdlabError`.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;
use ssdlab_core::SsdError;

create_exception!(
    _core,
    SsdlabError,
    PyException,
    "Base class of every ssdlab error."
);
create_exception!(
    _core,
    ConfigError,
    SsdlabError,
    "Invalid device configuration or option."
);
create_exception!(
    _core,
    TraceError,
    SsdlabError,
    "A trace line or record could not be read."
);
create_exception!(
    _core,
    WorkloadError,
    SsdlabError,
    "Invalid workload specification or address."
);
create_exception!(
    _core,
    DeviceFullError,
    SsdlabError,
    "The device cannot accept a write."
);

pub fn to_py(e: SsdError) -> PyErr {
    let msg = e.to_string();
    match e {
        SsdError::Config { .. } => ConfigError::new_err(msg),
        SsdError::Trace { .. } | SsdError::Io { .. } => TraceError::new_err(msg),
        SsdError::Workload(_) | SsdError::Invalid(_) | SsdError::Refused(_) => {
            WorkloadError::new_err(msg)
        }
        SsdError::DeviceFull(_) => DeviceFullError::new_err(msg),
    }
}
