//! Serving one request: arrival time by replay mode, page operations through the FTL and the
//! NAND time lines, GC decision points, latency and counters.

use std::cmp::Reverse;

use super::gc_driver::{GcContext, RequestInfo};
use super::{Replay, Simulation};
use crate::error::{Result, SsdError};
use crate::trace::{OpKind, Request};

/// The latest open-loop arrival, ns after the first request (2^62 ns ≈ 146 years): with every
/// operation time bounded by validation (`config::MAX_OP_US`), the u64 clock cannot overflow.
pub(crate) const MAX_ARRIVAL_NS: u64 = 1 << 62;

impl Simulation {
    /// The page range [first, first + pages) of a request, checked against the logical space.
    pub(crate) fn page_range(&self, req: &Request) -> Result<(u64, u64)> {
        if req.size_bytes == 0 {
            return Ok((req.offset_bytes / self.page_size, 0));
        }
        let first = req.offset_bytes / self.page_size;
        let last = (req.offset_bytes + (req.size_bytes - 1)) / self.page_size;
        if last >= self.logical_pages {
            let at = match self.source_location() {
                Some((f, l)) => format!("{f}:{l}: "),
                None => String::new(),
            };
            return Err(SsdError::Invalid(format!(
                "{at}request at byte offset {} size {} ends beyond the logical capacity ({} bytes); use --lba-map dense|modulo to compact or wrap the footprint",
                req.offset_bytes,
                req.size_bytes,
                self.logical_pages * self.page_size
            )));
        }
        Ok((first, last - first + 1))
    }

    /// The trace time of `req` rebased to the first request and scaled (open loop).
    fn open_loop_at(&mut self, req: &Request, time_scale: f64) -> u64 {
        let origin = *self.origin_ns.get_or_insert(req.arrival_ns);
        let rel = req.arrival_ns.saturating_sub(origin);
        if time_scale == 1.0 {
            rel
        } else {
            (rel as f64 * time_scale) as u64
        }
    }

    /// A timed open-loop arrival later than [`MAX_ARRIVAL_NS`] after the first request (a
    /// corrupt timestamp, or an absurd `time_scale`) is an error naming the request's line:
    /// service times added to it could overflow the u64 clock.
    pub(crate) fn check_arrival(&mut self, req: &Request) -> Result<()> {
        let Replay::OpenLoop { time_scale } = self.options().replay else {
            return Ok(());
        };
        if !self.options().timing {
            return Ok(());
        }
        let t = self.open_loop_at(req, time_scale);
        if t <= MAX_ARRIVAL_NS {
            return Ok(());
        }
        let at = match self.source_location() {
            Some((f, l)) => format!("{f}:{l}: "),
            None => String::new(),
        };
        Err(SsdError::Invalid(format!(
            "{at}request arrives {t} ns after the first one (time_scale {time_scale}), beyond the {MAX_ARRIVAL_NS} ns (146 years) the simulated clock allows; check the trace's timestamps"
        )))
    }

    /// Arrival time of the next request under the replay mode.
    fn arrival_of(&mut self, req: &Request) -> u64 {
        match self.options().replay {
            Replay::OpenLoop { time_scale } => {
                self.open_loop_at(req, time_scale).max(self.last_arrival)
            }
            Replay::ClosedLoop { queue_depth } => {
                if self.inflight.len() >= queue_depth as usize {
                    let Reverse(t) = self.inflight.pop().unwrap_or(Reverse(self.last_arrival));
                    t.max(self.last_arrival)
                } else {
                    self.last_arrival
                }
            }
        }
    }

    pub(crate) fn serve(&mut self, req: Request, first: u64, pages: u64) -> Result<()> {
        if !self.options().timing {
            return self.serve_untimed(&req, first, pages);
        }
        let arrival = self.arrival_of(&req);
        if self.scheduler.wants_idle() && arrival > self.last_arrival {
            let from = self.res.horizon();
            if arrival > from {
                let mut ctx = GcContext {
                    ftl: &mut self.ftl,
                    res: Some(&mut self.res),
                    rng: &mut self.gc_rng,
                };
                self.scheduler.on_idle(from, arrival, &mut ctx)?;
            }
        }
        // Background work due by this arrival, host flushes before GC (GC is the lowest
        // priority), then forget channel reservations that ended.
        if self.rain_path() {
            self.flush_until(arrival)?;
            self.rain_advance(arrival)?;
        }
        self.res.advance(arrival);
        let ready = arrival + self.device().timing.controller_overhead_ns;
        let mut completion = ready;
        let mut blocked = false;
        match req.op {
            OpKind::Read => {
                for lpn in first..first + pages {
                    if let Some(ppn) = self.ftl.read(lpn as u32) {
                        let d = if self.rain_path() {
                            self.read_page_rain(lpn as u32, ppn, ready)?
                        } else {
                            let plane = self.ftl.plane_of_ppn(ppn);
                            self.res.read(plane, ready)
                        };
                        completion = completion.max(d.done);
                        blocked |= d.blocked_by_gc;
                    }
                }
            }
            OpKind::Write if self.rain_path() => {
                for lpn in first..first + pages {
                    let d = self.write_page_rain(lpn as u32, ready)?;
                    completion = completion.max(d.done);
                    blocked |= d.blocked_by_gc;
                }
            }
            OpKind::Trim if self.rain_path() => {
                for lpn in first..first + pages {
                    self.trim_page_rain(lpn as u32);
                }
            }
            OpKind::Write => {
                for lpn in first..first + pages {
                    let plane = self.writable_plane(lpn as u32, ready)?;
                    let hint = self.next_write_hint();
                    self.ftl.write_host_hinted(lpn as u32, plane, hint)?;
                    let d = self.res.write(plane, ready);
                    completion = completion.max(d.done);
                    blocked |= d.blocked_by_gc;
                    let mut ctx = GcContext {
                        ftl: &mut self.ftl,
                        res: Some(&mut self.res),
                        rng: &mut self.gc_rng,
                    };
                    self.scheduler.after_page_write(plane, ready, &mut ctx)?;
                }
            }
            OpKind::Trim => {
                for lpn in first..first + pages {
                    self.ftl.trim(lpn as u32);
                }
            }
        }
        self.latency.record(req.op, completion - arrival);
        self.count(req.op);
        if blocked {
            self.blocked += 1;
        }
        let info = RequestInfo {
            is_write: req.op == OpKind::Write,
            is_read: req.op == OpKind::Read,
            interval_ns: if self.counts.total > 1 {
                arrival - self.last_arrival
            } else {
                0
            },
            arrival_ns: arrival,
            completion_ns: completion,
            pages: pages as u32,
        };
        let mut ctx = GcContext {
            ftl: &mut self.ftl,
            res: Some(&mut self.res),
            rng: &mut self.gc_rng,
        };
        self.scheduler.after_request(&info, &mut ctx)?;
        if let Replay::ClosedLoop { .. } = self.options().replay {
            self.inflight.push(Reverse(completion));
        }
        self.last_arrival = arrival;
        self.last_completion = self.last_completion.max(completion);
        self.sample_timed(arrival);
        Ok(())
    }

    /// The plane for the next host page of `lpn`, running forced GC when the chosen plane is out
    /// of space (whatever the scheduler: a write cannot wait forever).
    fn writable_plane(&mut self, lpn: u32, ready: u64) -> Result<u32> {
        GcContext {
            ftl: &mut self.ftl,
            res: Some(&mut self.res),
            rng: &mut self.gc_rng,
        }
        .host_plane(lpn, ready)
    }

    /// Timing-free service: the FTL and GC only, as fast as the machine allows.
    fn serve_untimed(&mut self, req: &Request, first: u64, pages: u64) -> Result<()> {
        match req.op {
            OpKind::Write if self.rain_path() => {
                for lpn in first..first + pages {
                    self.program_page(lpn as u32, 0, false)?;
                }
            }
            OpKind::Trim if self.rain_path() => {
                for lpn in first..first + pages {
                    self.trim_page_rain(lpn as u32);
                }
            }
            OpKind::Read => {
                for lpn in first..first + pages {
                    self.ftl.read(lpn as u32);
                }
            }
            OpKind::Write => {
                for lpn in first..first + pages {
                    let lpn = lpn as u32;
                    let plane = GcContext {
                        ftl: &mut self.ftl,
                        res: None,
                        rng: &mut self.gc_rng,
                    }
                    .host_plane(lpn, 0)?;
                    let hint = self.next_write_hint();
                    self.ftl.write_host_hinted(lpn, plane, hint)?;
                    if self.ftl.needs_gc(plane) {
                        let mut ctx = GcContext {
                            ftl: &mut self.ftl,
                            res: None,
                            rng: &mut self.gc_rng,
                        };
                        self.scheduler.after_page_write(plane, 0, &mut ctx)?;
                    }
                }
            }
            OpKind::Trim => {
                for lpn in first..first + pages {
                    self.ftl.trim(lpn as u32);
                }
            }
        }
        self.count(req.op);
        self.sample_untimed();
        Ok(())
    }

    #[inline]
    fn count(&mut self, op: OpKind) {
        match op {
            OpKind::Read => self.counts.read += 1,
            OpKind::Write => self.counts.write += 1,
            OpKind::Trim => self.counts.trim += 1,
        }
        self.counts.total += 1;
    }
}
