//! LazyRTGC: Zhang, Chen, Liu, Xue, Shao, "Lazy-RTGC: a real-time lazy garbage collection
//! mechanism with jointly optimizing average and worst performance for NAND flash memory
//! storage systems", ACM TODAES 20(3), 2015 — as Kang et al. (TECS 2017 §2, §5.2) use it: GC
//! starts on a plane when one free block is left (`gc.partial.lazy_trigger_blocks`); the greedy
//! victim is split into partial tasks of α = ⌊t_erase / (t_read + t_program)⌋ valid-page copies
//! plus a final erase task; one task runs after each write request on each such plane (and on
//! any plane whose victim is half collected); reads never trigger GC.

use super::context::{GcContext, GcScheduler, RequestInfo};
use super::partial::{lazyrtgc_quantum, run_action};
use crate::config::DeviceConfig;
use crate::error::Result;

/// The LazyRTGC scheduler.
#[derive(Debug, Clone)]
pub struct LazyRtgc {
    quantum: u32,
    trigger: u32,
    /// The free epoch ([`crate::ftl::map::Ftl::free_epoch`]) at which the last look found no plane
    /// at the trigger and none with a job: while it stands no free count has changed, and a job
    /// starts only here (forced GC finishes the victims it starts), so the look would find the
    /// same (docs/speed.md, "LazyRTGC's per-request look skipped while settled").
    settled: Option<u64>,
}

impl LazyRtgc {
    pub fn new(cfg: &DeviceConfig) -> Self {
        LazyRtgc {
            quantum: lazyrtgc_quantum(&cfg.op_times()),
            trigger: cfg.gc.partial.lazy_trigger_blocks,
            settled: None,
        }
    }
    /// Copies per partial task (α).
    pub fn quantum(&self) -> u32 {
        self.quantum
    }
}

impl GcScheduler for LazyRtgc {
    fn name(&self) -> &'static str {
        "lazyrtgc"
    }
    fn after_page_write(&mut self, _plane: u32, _now: u64, _gc: &mut GcContext) -> Result<()> {
        Ok(())
    }
    fn after_request(&mut self, info: &RequestInfo, gc: &mut GcContext) -> Result<()> {
        if !info.is_write {
            return Ok(());
        }
        let epoch = gc.ftl.free_epoch();
        if self.settled == Some(epoch) {
            return Ok(());
        }
        let mut any = false;
        for p in 0..gc.ftl.planes() {
            if gc.ftl.free_blocks(p) <= self.trigger || gc.ftl.gc_job(p).is_some() {
                run_action(gc, p, self.quantum, info.completion_ns, None)?;
                any = true;
            }
        }
        // No plane acted: no action ran, so the epoch is still the one looked at.
        self.settled = (!any).then_some(epoch);
        Ok(())
    }
}
