//! Decision stepping for outside agents (the Gymnasium environment) through the `external`
//! GC scheduler (see [`crate::ftl::gc::ExternalScheduler`] for the protocol).

use super::Simulation;
use crate::error::{Result, SsdError};
use crate::ftl::gc::{ExternalScheduler, Observation};
use crate::ftl::hybrid::{HybridFtl, SlcObservation};

impl Simulation {
    /// The external scheduler's pending decision, or an error when decision stepping cannot run.
    fn external_pending(&self) -> Result<Option<Observation>> {
        if !self.options().timing {
            return Err(SsdError::Invalid(
                "decision stepping needs timing on".into(),
            ));
        }
        let ext = self
            .model
            .scheduler()
            .and_then(|s| s.as_any().downcast_ref::<ExternalScheduler>());
        match ext {
            Some(e) => Ok(e.pending()),
            None => Err(SsdError::Invalid(format!(
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
        self.model.with_scheduler(&mut |s, ctx| match s
            .as_any_mut()
            .downcast_mut::<ExternalScheduler>()
        {
            Some(ext) => ext.apply(copies, ctx),
            None => Ok(()),
        })
    }

    fn hybrid_mut(&mut self) -> Result<&mut HybridFtl> {
        self.model
            .as_any_mut()
            .downcast_mut::<HybridFtl>()
            .ok_or_else(|| {
                SsdError::Invalid(
                    "SLC decision stepping needs a hybrid device with cache.slc = \"external\""
                        .into(),
                )
            })
    }

    /// Serve requests until the `external` SLC-cache policy owes a decision (checked at request
    /// boundaries); `None` when the workload is over.
    pub fn advance_to_slc_decision(&mut self) -> Result<Option<SlcObservation>> {
        loop {
            let h = self.hybrid_mut()?;
            if !h.is_external() {
                return Err(SsdError::Invalid(
                    "SLC decision stepping needs cache.slc = \"external\"".into(),
                ));
            }
            if let Some(o) = h.slc_pending() {
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
        self.hybrid_mut()?.slc_act(action)
    }
}
