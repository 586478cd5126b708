//! Serving one request: arrival time by replay mode, the page range through the device model,
//! the GC decision point after it, latency and counters.

use super::{Replay, Simulation};
use crate::error::{Result, SsdError};
use crate::flash::OpDone;
use crate::ftl::gc::RequestInfo;
use crate::host::MAX_ARRIVAL_NS;
use crate::trace::{OpKind, Request};

impl Simulation {
    /// The page range [first, first + pages) of a request, checked against the logical space
    /// (and a write's placement identifier against an FDP device's). Forced in line: the FDP
    /// check made LLVM call it, ~30 instructions a request (docs/speed.md,
    /// "FDP off: the plain path kept; FDP on: 0.83–0.88×").
    #[inline(always)]
    pub(crate) fn page_range(&self, req: &Request) -> Result<(u64, u64)> {
        // Checked as the request is read, so that the error names its line.
        if u32::from(req.placement) >= self.placement_limit && req.op == OpKind::Write {
            return Err(self.bad_placement(req));
        }
        if req.size_bytes == 0 {
            return Ok((self.page_of(req.offset_bytes), 0));
        }
        let first = self.page_of(req.offset_bytes);
        let last = self.page_of(req.offset_bytes + (req.size_bytes - 1));
        if last >= self.logical_pages {
            return Err(self.beyond_capacity(req));
        }
        Ok((first, last - first + 1))
    }

    /// The page holding byte `b`.
    #[inline]
    pub(super) fn page_of(&self, b: u64) -> u64 {
        if self.page_shift < 32 {
            b >> self.page_shift
        } else {
            b / self.page_size
        }
    }

    /// A write whose placement identifier the FDP device does not have.
    #[cold]
    #[inline(never)]
    fn bad_placement(&self, req: &Request) -> SsdError {
        let at = self.source_at();
        SsdError::Invalid(format!(
            "{at}{}",
            placement_message(self.placement_limit, req.placement)
        ))
    }

    #[cold]
    #[inline(never)]
    fn beyond_capacity(&self, req: &Request) -> SsdError {
        let at = self.source_at();
        SsdError::Invalid(format!(
            "{at}request at byte offset {} size {} ends beyond the logical capacity ({} bytes); use --lba-map dense|modulo to compact or wrap the footprint",
            req.offset_bytes,
            req.size_bytes,
            self.logical_pages * self.page_size
        ))
    }

    /// Reads the further fragments of the host request whose first fragment is `req` (which
    /// says one follows: [`Request::fragment_follows`]): their page runs into
    /// `next_split_runs`, their bytes into `req`. `req.fragment_follows` then says whether the
    /// request has runs there.
    #[inline(never)]
    pub(crate) fn gather_fragments(&mut self, req: &mut Request) -> Result<()> {
        self.next_split_runs.clear();
        let mut follows = req.fragment_follows;
        while follows {
            let Some(f) = self.source.next_request()? else {
                break;
            };
            let run = self.page_range(&f)?;
            self.next_split_runs.push(run);
            req.size_bytes = req.size_bytes.saturating_add(f.size_bytes);
            follows = f.fragment_follows;
        }
        req.fragment_follows = !self.next_split_runs.is_empty();
        Ok(())
    }

    /// A timed open-loop arrival later than [`MAX_ARRIVAL_NS`] after the first request (a
    /// corrupt timestamp, or an absurd `time_scale`) is an error naming the request's line:
    /// service times added to it could overflow the u64 clock. Returns the request's open-loop
    /// time (0 when not timed open loop), which [`Self::serve`] is given back: computed once.
    pub(crate) fn check_arrival(&mut self, arrival_ns: u64) -> Result<u64> {
        let Replay::OpenLoop { time_scale } = self.options().replay else {
            return Ok(0);
        };
        if !self.options().timing {
            return Ok(0);
        }
        let t = self.host.open_loop_at(arrival_ns);
        if t <= MAX_ARRIVAL_NS {
            return Ok(t);
        }
        let at = self.source_at();
        Err(SsdError::Invalid(format!(
            "{at}request arrives {t} ns after the first one (time_scale {time_scale}), beyond the {MAX_ARRIVAL_NS} ns (146 years) the simulated clock allows; check the trace's timestamps"
        )))
    }

    /// The request's pages through the device model, `ready` after arrival (0 untimed).
    #[inline(always)]
    fn serve_pages(&mut self, req: &Request, first: u64, pages: u64, ready: u64) -> Result<OpDone> {
        if req.fragment_follows || req.fua || req.preflush {
            return self.serve_runs(req, first, pages, ready);
        }
        let range = first as u32..(first + pages) as u32;
        match req.op {
            OpKind::Read => self.device.read(range, ready),
            OpKind::Write => self.device.write(range, ready, req.placement),
            OpKind::Trim => self.device.trim(range, ready),
            OpKind::Flush => self.device.flush(ready),
        }
    }

    /// A request an LBA map split (its first run, the others in `split_runs`), or one with a
    /// preflush or FUA: all its runs from `ready`, as one request (a split write is one write
    /// to the device); a preflush first flushes the device's write cache.
    #[inline(never)]
    fn serve_runs(&mut self, req: &Request, first: u64, pages: u64, ready: u64) -> Result<OpDone> {
        let ready = if req.preflush {
            self.device.flush(ready)?.done
        } else {
            ready
        };
        let range = |(first, pages): (u64, u64)| first as u32..(first + pages) as u32;
        let split = if req.fragment_follows {
            &self.split_runs[..]
        } else {
            &[]
        };
        let runs: Vec<_> = std::iter::once(range((first, pages)))
            .chain(split.iter().copied().map(range))
            .collect();
        match req.op {
            OpKind::Read => {
                let mut out = OpDone::at(ready);
                for r in runs {
                    out.join(self.device.read(r, ready)?);
                }
                Ok(out)
            }
            OpKind::Write => self.device.write_runs(&runs, ready, req.fua, req.placement),
            OpKind::Trim => {
                let mut out = OpDone::at(ready);
                for r in runs {
                    out.join(self.device.trim(r, ready)?);
                }
                Ok(out)
            }
            OpKind::Flush => self.device.flush(ready),
        }
    }

    /// Serve a host request: `req` with its first page run; a request an LBA map split
    /// (`req.fragment_follows`) has its other runs in `split_runs`. `open_at`: what
    /// [`Self::check_arrival`] returned for it. Returns its completion time (0 untimed, or when
    /// the power was cut before it arrived). Always in line: with a second caller (several
    /// flows, `sim::flows`) LLVM made it a call, +5 % instructions a request on the bench
    /// (docs/speed.md, "Several flows: the single path's inlining restored").
    #[inline(always)]
    pub(crate) fn serve(
        &mut self,
        req: Request,
        first: u64,
        pages: u64,
        open_at: u64,
    ) -> Result<u64> {
        if !self.opts.timing {
            // Timing-free service: the FTL and GC only, as fast as the machine allows.
            if let Err(e) = self.serve_pages(&req, first, pages, 0) {
                return Err(located(e, &req));
            }
            self.count(req.op);
            self.sample_untimed();
            return Ok(0);
        }
        let arrival = self.host.arrival(open_at);
        if arrival > self.power_cut_ns {
            self.finish()?;
            return Ok(0);
        }
        self.device.background(self.host.last_arrival(), arrival)?;
        if let Some(h) = &mut self.iostat {
            self.device.flash_mut().take_gc_log(&mut self.gc_steps);
            h.advance_to(arrival, &mut self.gc_steps)?;
        }
        let ready = arrival + self.cfg.timing.controller_overhead_ns;
        let explain = self.rec.breakdown.is_some() && req.op == OpKind::Read;
        if explain {
            self.device.flash_mut().begin_read(ready);
        }
        let d = match self.serve_pages(&req, first, pages, ready) {
            Ok(d) => d,
            Err(e) => return Err(located(e, &req)),
        };
        let completion = d.done;
        // A command that waited in its submission queue (several flows) counts from submission.
        self.rec
            .latency
            .record(req.op, completion - arrival + self.wait_ns);
        if explain {
            self.explain_read(completion - arrival, ready - arrival);
        }
        if let Some(h) = &mut self.iostat {
            h.add(req.op, req.size_bytes, arrival, completion);
        }
        self.count(req.op);
        if d.blocked_by_gc {
            self.rec.blocked += 1;
        }
        let info = RequestInfo {
            is_write: req.op == OpKind::Write,
            is_read: req.op == OpKind::Read,
            interval_ns: if self.rec.counts.total > 1 {
                arrival - self.host.last_arrival()
            } else {
                0
            },
            arrival_ns: arrival,
            completion_ns: completion,
            pages: self.request_pages(&req, pages) as u32,
        };
        self.device.after_request(&info)?;
        self.host.completed(arrival, completion);
        self.sample_timed(arrival);
        Ok(completion)
    }

    /// A read request's latency into the breakdown, split as its critical page's parts.
    #[cold]
    fn explain_read(&mut self, latency: u64, controller: u64) {
        let parts = self.device.flash_mut().read_parts().unwrap_or_default();
        // (Beyond its flash parts, a read's time is the write cache's DRAM.)
        debug_assert!(controller + parts.total() <= latency);
        if let Some(b) = &mut self.rec.breakdown {
            b.add(latency, controller, parts);
        }
    }

    /// All pages of a request whose first run has `first_run` pages.
    #[inline]
    fn request_pages(&self, req: &Request, first_run: u64) -> u64 {
        if req.fragment_follows {
            first_run + self.split_runs.iter().map(|r| r.1).sum::<u64>()
        } else {
            first_run
        }
    }

    #[inline]
    fn count(&mut self, op: OpKind) {
        let c = &mut self.rec.counts;
        match op {
            OpKind::Read => c.read += 1,
            OpKind::Write => c.write += 1,
            OpKind::Trim => c.trim += 1,
            OpKind::Flush => c.flush += 1,
        }
        c.total += 1;
    }
}

/// What a placement identifier `p` beyond the device's `ids` is told (a trace's line or a
/// flow's spec).
pub(super) fn placement_message(ids: u32, p: u16) -> String {
    format!(
        "placement: expected a placement identifier below {ids} (fdp.handles × fdp.reclaim_groups), got {p}"
    )
}

/// A request the device refused, named before the reason: its operation, byte offset, size
/// and arrival (the reader has already fetched the next request, so its file:line would name
/// that one).
#[cold]
#[inline(never)]
fn located(e: SsdError, req: &Request) -> SsdError {
    match e {
        SsdError::Refused(m) => SsdError::Refused(format!(
            "request ({} at byte offset {}, {} bytes, arriving at {} ns): {m}",
            req.op.name(),
            req.offset_bytes,
            req.size_bytes,
            req.arrival_ns
        )),
        e => e,
    }
}
