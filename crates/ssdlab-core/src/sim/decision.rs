//! Decision stepping for outside agents (the Gymnasium environments): through the `external`
//! GC scheduler (see [`crate::ftl::gc::ExternalScheduler`] for the protocol) and the
//! `external` SLC-cache policy of the hybrid FTL.

use super::Simulation;
use crate::error::{Result, SsdError};
use crate::ftl::gc::Observation;
use crate::stats::SlcObservation;

impl Simulation {
    /// The external scheduler's pending decision, or an error when decision stepping cannot run.
    fn external_pending(&self) -> Result<Option<Observation>> {
        if !self.options().timing {
            return Err(SsdError::Invalid(
                "decision stepping needs timing on".into(),
            ));
        }
        match self.device.ftl().scheduler() {
            Some(s) if s.is_external() => Ok(s.pending_decision()),
            _ => Err(SsdError::Invalid(format!(
                "decision stepping needs gc.scheduler = \"external\", not '{}'",
                self.scheduler_name()
            ))),
        }
    }

    /// Serve requests until the next GC decision point; `None` when the workload is over.
    pub fn advance_to_decision(&mut self) -> Result<Option<Observation>> {
        loop {
            if let Some(o) = self.external_pending()? {
                return Ok(Some(o));
            }
            if self.advance(1)? {
                return Ok(None);
            }
        }
    }

    /// Run `copies` partial-GC page copies (or a ready victim's erase) for the pending decision.
    pub fn apply_decision(&mut self, copies: u32) -> Result<()> {
        self.external_pending()?;
        self.device
            .ftl_mut()
            .with_scheduler(&mut |s, ctx| s.apply_decision(copies, ctx))
    }

    /// Serve requests until the `external` SLC-cache policy owes a decision (checked at request
    /// boundaries); `None` when the workload is over.
    pub fn advance_to_slc_decision(&mut self) -> Result<Option<SlcObservation>> {
        loop {
            if let Some(o) = self.device.ftl_mut().slc_pending()? {
                return Ok(Some(o));
            }
            if self.advance(1)? {
                return Ok(None);
            }
        }
    }

    /// Apply the agent's action (0–8: size and θ each one level down, kept or up) to the pending
    /// SLC decision.
    pub fn apply_slc_action(&mut self, action: usize) -> Result<()> {
        self.device.ftl_mut().slc_act(action)
    }
}
