//! RAIN parity groups for Tiny-Tail Flash (Yan et al., FAST 2017): stripe-aligned allocation,
//! parity bookkeeping, rebuild sets for GC-tolerant reads, and the GC-tolerant flush buffer.
//!
//! ## Parity design (how parity stays correct under GC)
//! * A **parity group** is the same (chip, die, plane) index `k` on every channel (the seed:
//!   "RAIN ... same chip index across channels"). Host pages are allocated stripe by stripe:
//!   stripe `i` sits in group `i mod groups`, its parity on channel `i mod channels` (rotating),
//!   its N − 1 data pages on the other channels in order (7 + 1 on the `ttflash` preset).
//! * The parity page is a physical page mapped as a pseudo logical page
//!   (`logical_pages + slot`), so it consumes space and GC copies it like data; its location is
//!   always the L2P entry.
//! * Stripes are **logical**: membership is by stripe id (logical page → stripe; parity slot →
//!   stripe). GC copies stay in their plane, so wherever GC moves a member or the parity, the
//!   stripe's pages stay on distinct planes (channels) of one group, and a page is rebuilt from
//!   its co-members' *current* locations through the maps. GC moves never break a stripe.
//! * Parity covers what was written, so an overwritten or trimmed member stays in it as a
//!   **dead member**: its old physical page (still readable until erased) joins the rebuild
//!   set. When GC erases a dead member of a closed live stripe, the stripe's parity is stale
//!   until it is **rewritten** (new parity = old parity XOR the dead page, read by GC before the
//!   erase; one parity program on the parity's plane, counted as a parity write:
//!   `reparity_writes`). A stale stripe is not used for rebuilds. A stripe whose members are all
//!   dead is retired (parity invalidated, slot freed).
//! * The P/E cost of parity is the parity programs (stripe closes and rewrites) plus the GC
//!   copies and erases they cause: ≈ 1/(N − 1) of host writes for the closes (seed: "Ideally
//!   1/7 ≈ 15 %") plus one program per rewrite, which the seed does not model.

mod buffer;
mod experiment;
mod stripes;

pub use buffer::WriteBuffer;
pub use experiment::{compare, device_for, run_stack, StackRun, STACKS};
pub use stripes::{Rain, RainStats};

/// The checksum a host write of `lpn` at `version` leaves in its page (SplitMix64 finalizer).
pub fn page_checksum(lpn: u32, version: u32) -> u64 {
    let mut z = (u64::from(lpn) << 32 | u64::from(version)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}
