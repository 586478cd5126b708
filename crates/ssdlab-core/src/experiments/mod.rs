//! Each paper's comparison, one module per paper: it runs the configurations and returns a typed
//! result (and its JSON); the Python package only formats it.

pub mod ttflash;
