//! A request source the caller keeps a handle on while a simulation owns it: the simulation
//! pulls requests through one clone, the caller reaches the same source through another — to
//! call [`RequestSource::trim_deleted`] (a GC detector's response, `fstrim`) or read
//! [`RequestSource::host_fs`] between `Simulation::advance` calls. Requests the simulation has
//! already fetched (its one-request lookahead) are served before TRIMs queued later.

use std::sync::{Arc, Mutex, MutexGuard};

use super::fs::FsStats;
use super::request::{Request, RequestSource};
use crate::error::Result;

/// A shared [`RequestSource`]; clones are handles on the same source.
pub struct Shared<S> {
    inner: Arc<Mutex<S>>,
}

impl<S> Clone for Shared<S> {
    fn clone(&self) -> Self {
        Shared {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: RequestSource> Shared<S> {
    pub fn new(source: S) -> Self {
        Shared {
            inner: Arc::new(Mutex::new(source)),
        }
    }

    /// The source itself (e.g. for its own methods, such as `FsSource::fs_stats`).
    pub fn lock(&self) -> MutexGuard<'_, S> {
        // A panic while another handle held the lock is a bug elsewhere; the source's state
        // is still the last consistent one, so use it rather than panic again.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<S: RequestSource> RequestSource for Shared<S> {
    fn next_request(&mut self) -> Result<Option<Request>> {
        self.lock().next_request()
    }
    fn describe(&self) -> String {
        self.lock().describe()
    }
    fn location(&self) -> Option<(String, u64)> {
        self.lock().location()
    }
    fn skipped(&self) -> u64 {
        self.lock().skipped()
    }
    fn trim_deleted(&mut self) -> u64 {
        self.lock().trim_deleted()
    }
    fn host_fs(&self) -> Option<FsStats> {
        self.lock().host_fs()
    }
}
