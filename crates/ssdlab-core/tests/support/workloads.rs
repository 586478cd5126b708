//! Minimal request sources for integration tests (independent of `ssdlab_core::trace`'s
//! generators, so that the tests of the engine do not depend on them).

use rand::Rng;
use ssdlab_core::rng::{stream, SimRng};
use ssdlab_core::trace::{OpKind, Request, RequestSource};
use ssdlab_core::Result;

/// `n` single-page writes, uniformly random over `pages` logical pages of `page_size` bytes.
pub struct UniformWrites {
    pub rng: SimRng,
    pub left: u64,
    pub pages: u64,
    pub page_size: u64,
}

impl UniformWrites {
    pub fn new(seed: u64, n: u64, pages: u64, page_size: u64) -> Self {
        UniformWrites {
            rng: stream(seed, "test-uniform"),
            left: n,
            pages,
            page_size,
        }
    }
}

impl RequestSource for UniformWrites {
    fn next_request(&mut self) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let lpn = self.rng.gen_range(0..self.pages);
        Ok(Some(Request {
            arrival_ns: 0,
            op: OpKind::Write,
            offset_bytes: lpn * self.page_size,
            size_bytes: self.page_size,
            fragment_follows: false,
        }))
    }
    fn describe(&self) -> String {
        "uniform random single-page writes".into()
    }
}
