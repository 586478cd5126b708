//! What the FTL tells the flash layer's error model about its blocks (issue 63): which blocks
//! it opened for writing, so that their retention clocks and read counts start again
//! (`flash::errors`). The map knows nothing of time: the device model stamps the blocks it
//! takes with the time it is at.

use super::Ftl;

impl Ftl {
    /// Start logging the blocks frontiers open (the error model on).
    pub fn log_opens(&mut self) {
        self.opened = Some(Vec::new());
    }

    /// The blocks opened since the last call, each with its erase count, to `f`.
    /// Asked at every host read and write: in line when none was opened (most calls; a drain
    /// of an empty list cost ~20 instructions a call).
    #[inline(always)]
    pub fn take_opened(&mut self, mut f: impl FnMut(u32, u32)) {
        if let Some(o) = &mut self.opened {
            if o.is_empty() {
                return;
            }
            for blk in o.drain(..) {
                f(blk, self.erase_count[blk as usize]);
            }
        }
    }
}
