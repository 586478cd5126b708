//! A program the RAIN FTL holds for a GC-aware flush (`flush`): in RAM until its plane's GC
//! ends, its page keeping its write-cache slot meanwhile. A file of its own so that the FTL's
//! state (`device`) and the flush's code (`flush`) both name it without importing each other.

/// A program the GTF flush holds in RAM until its plane's GC ends: the plane, the host page
/// (`None`: a stripe's parity) and when it was flushed; with logical stripes, a parity program
/// also waits for its read-modify-write's reads on the planes of `reads` (channel bits of its
/// group) that were collecting, done when it is placed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    pub(crate) plane: u32,
    pub(crate) lpn: Option<u32>,
    pub(crate) since: u64,
    pub(crate) reads: u64,
}
