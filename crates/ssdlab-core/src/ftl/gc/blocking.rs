//! On-demand blocking GC, the baseline every partial scheduler is measured against.

use super::context::{GcContext, GcScheduler};
use crate::error::Result;

/// On-demand blocking GC (Kang et al. TECS 2017 §2, the "page-level" baseline): when a plane's
/// free pool falls below the threshold, collect whole victims until it is restored. The plane is
/// busy for every copy and erase, so requests queued behind it wait.
#[derive(Debug, Default)]
pub struct BlockingGc;

impl GcScheduler for BlockingGc {
    fn name(&self) -> &'static str {
        "blocking"
    }
    fn on_demand_only(&self) -> bool {
        true
    }
    fn after_page_write(&mut self, plane: u32, now: u64, gc: &mut GcContext) -> Result<()> {
        if gc.ftl.needs_gc(plane) {
            gc.collect_until_threshold(plane, now)?;
        }
        Ok(())
    }
}
