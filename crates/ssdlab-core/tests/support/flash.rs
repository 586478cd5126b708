//! Flash-layer helpers for the exact-timing tests of suspension and scheduling.

use ssdlab_core::flash::{OpDone, Resources};

/// A host read of `plane` at `t` (ns), checked against the peek that must foresee it; its end.
pub fn read(res: &mut Resources, plane: u32, t: u64) -> u64 {
    let peek = res.peek_read(plane, t);
    let d: OpDone = res.read(plane, t);
    assert_eq!(peek, d, "peek_read must foresee the read at {t}");
    d.done
}
