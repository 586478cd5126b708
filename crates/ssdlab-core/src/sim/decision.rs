//! Decision stepping for outside agents (the Gymnasium environment) through the `external`
//! GC scheduler (see [`crate::gc::ExternalScheduler`] for the protocol).

use super::Simulation;
use crate::error::{Result, SsdError};
use crate::gc::{ExternalScheduler, GcContext, Observation};

impl Simulation {
    fn external_check(&mut self) -> Result<()> {
        if !self.options().timing {
            return Err(SsdError::Invalid(
                "decision stepping needs timing on".into(),
            ));
        }
        if external(&mut self.scheduler).is_none() {
            return Err(SsdError::Invalid(format!(
                "decision stepping needs gc.scheduler = \"external\", not '{}'",
                self.scheduler.name()
            )));
        }
        Ok(())
    }

    /// Serve requests until the next GC decision point; `None` when the workload is over.
    pub fn advance_to_decision(&mut self) -> Result<Option<Observation>> {
        self.external_check()?;
        loop {
            if let Some(o) = external(&mut self.scheduler).and_then(|e| e.pending()) {
                return Ok(Some(o));
            }
            if self.advance(1)? {
                return Ok(None);
            }
        }
    }

    /// Run `copies` partial-GC page copies (or a ready victim's erase) for the pending decision.
    pub fn apply_decision(&mut self, copies: u32) -> Result<()> {
        self.external_check()?;
        let Simulation {
            scheduler,
            ftl,
            res,
            gc_rng,
            ..
        } = self;
        let Some(ext) = external(scheduler) else {
            return Ok(());
        };
        let mut ctx = GcContext {
            ftl,
            res: Some(res),
            rng: gc_rng,
        };
        ext.apply(copies, &mut ctx)
    }
}

/// The scheduler as the external one, if it is.
fn external(s: &mut Box<dyn crate::gc::GcScheduler>) -> Option<&mut ExternalScheduler> {
    s.as_any_mut().downcast_mut::<ExternalScheduler>()
}
