//! The hybrid device as a [`FtlLayer`].

use std::ops::Range;

use rand::Rng;

use super::HybridFtl;
use crate::error::{Result, SsdError};
use crate::flash::OpDone;
use crate::ftl::gc::{GcScheduler, RequestInfo};
use crate::ftl::map::Ftl;
use crate::ftl::{FtlLayer, Precondition, SchedulerCall};
use crate::rl::QTable;
use crate::rng;
use crate::stats::{DecisionPoint, HybridReport, LayerReports, SlcObservation};

impl FtlLayer for HybridFtl {
    /// Sequential fill as large (cold) writes, then random single-page (hot) writes, timing off.
    fn precondition(&mut self, p: &Precondition, seed: u64) -> Result<u64> {
        let n = p.pages(self.base.ftl.logical_pages());
        self.preconditioning = true;
        let mut written = 0u64;
        // Bad blocks on: preconditioning stops at the drive's end of life, like the run.
        let watch = self.base.ftl.endurance_on();
        let mut end = None;
        if p.sequential {
            for lpn in 0..n {
                self.shrunk_this_request = false;
                self.write_page(lpn, u64::MAX, 0, false)?;
                if watch && self.base.ftl.end_of_life() {
                    end = Some(u64::from(lpn) + 1);
                    break;
                }
            }
            written += u64::from(n);
        }
        let mut prng = rng::stream(seed, "precondition");
        let random = (p.random_passes * f64::from(n)).round() as u64;
        for i in 0..random {
            if end.is_some() {
                break;
            }
            let lpn = prng.gen_range(0..n);
            self.shrunk_this_request = false;
            self.write_page(lpn, 1, 0, false)?;
            if watch && self.base.ftl.end_of_life() {
                end = Some(written + i + 1);
            }
        }
        self.base.ftl.reset_counters();
        self.report = HybridReport::default();
        self.decisions.clear();
        self.preconditioning = false;
        Ok(end.unwrap_or(written + random))
    }

    fn background(&mut self, prev_arrival: u64, now: u64) -> Result<()> {
        if self.idle_migration && now > prev_arrival {
            self.idle_migrate(prev_arrival, now)?;
        }
        self.base.res.advance(now);
        Ok(())
    }

    fn read(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        let mut last_page = u32::MAX;
        for lpn in pages {
            if let Some(ppn) = self.base.ftl.read(lpn) {
                if self.base.timed {
                    if !self.base.ftl.read_needs_page(ppn, &mut last_page) {
                        continue;
                    }
                    let rd = self.times[self.mode_of_ppn(ppn) as usize].read_ns;
                    let plane = self.base.ftl.plane_of_ppn(ppn);
                    out.join(self.base.res.read_in(plane, ready, rd));
                }
            }
        }
        Ok(out)
    }

    fn write(&mut self, pages: Range<u32>, ready: u64) -> Result<OpDone> {
        self.write_runs(&[pages], ready)
    }

    /// One request to the SLC policy however many runs it has: θ compares the request's size.
    fn write_runs(&mut self, runs: &[Range<u32>], ready: u64) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        let n: u64 = runs.iter().map(|r| u64::from(r.end - r.start)).sum();
        let timed = self.base.timed;
        self.period.requests += 1;
        self.period.request_pages += n;
        self.shrunk_this_request = false;
        for lpn in runs.iter().flat_map(Clone::clone) {
            out.join(self.write_page(lpn, n, ready, timed)?);
        }
        Ok(out)
    }

    fn trim(&mut self, pages: Range<u32>) -> Result<()> {
        for lpn in pages {
            if self.unmap(lpn) {
                self.mapped -= 1;
            }
        }
        Ok(())
    }

    fn after_request(&mut self, _info: &RequestInfo) -> Result<()> {
        Ok(())
    }

    fn map(&self) -> &Ftl {
        &self.base.ftl
    }

    fn flash(&self) -> &crate::flash::Resources {
        &self.base.res
    }

    fn flash_mut(&mut self) -> &mut crate::flash::Resources {
        &mut self.base.res
    }

    fn check_invariants(&self) -> std::result::Result<(), String> {
        self.check()
    }

    fn free_blocks(&self) -> u64 {
        self.planes.iter().map(|p| p.free.len() as u64).sum()
    }

    fn set_scheduler(&mut self, _s: Box<dyn GcScheduler>) -> Result<()> {
        Err(SsdError::Invalid(
            "the hybrid SLC/QLC device reclaims on its own triggers; it takes no GC scheduler"
                .into(),
        ))
    }

    fn with_scheduler(&mut self, _f: SchedulerCall) -> Result<()> {
        Err(SsdError::Invalid(
            "the hybrid SLC/QLC device has no GC scheduler to step".into(),
        ))
    }

    fn report(&self, out: &mut LayerReports) {
        out.hybrid = Some(self.report());
        out.endurance = self.base.ftl.endurance_report(u64::from(self.page_bytes));
    }

    fn q_table(&self) -> Option<&QTable> {
        HybridFtl::q_table(self)
    }

    fn set_slc_q_table(&mut self, table: QTable) -> Result<()> {
        self.set_q_table(table)
    }

    fn slc_decisions(&self) -> &[DecisionPoint] {
        self.decisions()
    }

    fn slc_pending(&mut self) -> Result<Option<SlcObservation>> {
        if !self.is_external() {
            return Err(SsdError::Invalid(
                "SLC decision stepping needs cache.slc = \"external\"".into(),
            ));
        }
        Ok(HybridFtl::slc_pending(self))
    }

    fn slc_act(&mut self, action: usize) -> Result<()> {
        HybridFtl::slc_act(self, action)
    }
}
