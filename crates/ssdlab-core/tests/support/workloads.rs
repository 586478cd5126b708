//! Minimal request sources for integration tests (independent of `ssdlab_core::trace`'s
//! generators, so that the tests of the engine do not depend on them).

use rand::Rng;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::rng::{stream, SimRng};
use ssdlab_core::sim::{Precondition, Replay, SimOptions, Simulation};
use ssdlab_core::stats::SimResult;
use ssdlab_core::trace::{OpKind, Request, RequestSource, VecSource};
use ssdlab_core::Result;

/// A request at `t_us` µs of `pages` pages of 4 KiB from `page` (no flags).
pub fn page_request(t_us: u64, op: OpKind, page: u64, pages: u64) -> Request {
    const PAGE: u64 = 4096;
    Request {
        arrival_ns: t_us * 1000,
        op,
        offset_bytes: page * PAGE,
        size_bytes: pages * PAGE,
        fragment_follows: false,
        fua: false,
        preflush: false,
        placement: 0,
    }
}

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
            fua: false,
            preflush: false,
            placement: 0,
        }))
    }
    fn describe(&self) -> String {
        "uniform random single-page writes".into()
    }
}

/// Single-page requests every `gap_ns`, `read_pct` % reads, uniform over the logical space.
pub struct Mixed {
    pub rng: SimRng,
    pub left: u64,
    pub t: u64,
    pub gap_ns: u64,
    pub read_pct: u32,
    pub pages: u64,
    pub page: u64,
}

impl Mixed {
    /// `n` requests, `read_pct` % reads, over `pages` pages of `page` bytes (stream "mixed" of
    /// seed 7).
    pub fn new(n: u64, gap_ns: u64, read_pct: u32, pages: u64, page: u64) -> Self {
        Mixed {
            rng: stream(7, "mixed"),
            left: n,
            t: 0,
            gap_ns,
            read_pct,
            pages,
            page,
        }
    }
}

impl RequestSource for Mixed {
    fn next_request(&mut self) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.t += self.gap_ns;
        let op = if self.rng.gen_range(0..100) < self.read_pct {
            OpKind::Read
        } else {
            OpKind::Write
        };
        let lpn = self.rng.gen_range(0..self.pages);
        Ok(Some(Request {
            arrival_ns: self.t,
            op,
            offset_bytes: lpn * self.page,
            size_bytes: self.page,
            fragment_follows: false,
            fua: false,
            preflush: false,
            placement: 0,
        }))
    }
    fn describe(&self) -> String {
        "mixed".into()
    }
}

/// Options of the Tiny-Tail Flash tests: a full sequential fill and one random pass before the
/// run; with `check`, test mode (invariants every 5,000 requests, contents as checksums).
pub fn preconditioned(check: bool) -> SimOptions {
    SimOptions {
        precondition: Some(Precondition {
            sequential: true,
            random_passes: 1.0,
            fill_fraction: 1.0,
        }),
        check_every: if check { 5000 } else { 0 },
        ..SimOptions::default()
    }
}

/// Run `reqs` on `cfg` with `opts` to the end (a failure panics: the tests' devices are valid).
pub fn run_requests(cfg: DeviceConfig, reqs: Vec<Request>, opts: SimOptions) -> SimResult {
    Simulation::new(cfg, opts, Box::new(VecSource::new(reqs)))
        .unwrap()
        .run()
        .unwrap()
}

/// Open-loop replay at the requests' own times, the other options default.
pub fn open_loop() -> SimOptions {
    SimOptions {
        replay: Replay::OpenLoop { time_scale: 1.0 },
        ..SimOptions::default()
    }
}
