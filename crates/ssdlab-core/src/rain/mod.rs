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
//! * Parity covers what the member pages physically hold, live or dead. A member stays
//!   physically present until its block is erased; so a stripe is **retired** (its parity
//!   invalidated, its slot freed) when either every data member has been overwritten/trimmed, or
//!   the block of any data member is erased (GC moved or dropped it). A data page moved by GC
//!   therefore loses protection (until rewritten); a read is rebuilt only from an intact stripe,
//!   never from a guess. This is sound by construction and costs no extra flash writes; its
//!   price is that GC-moved (cold) data is unprotected — measured as `rebuild_unavailable`.
//! * The P/E cost of parity is the parity programs themselves plus the GC copies and erases they
//!   cause; with full stripes it is ≈ 1/(N − 1) of host writes (seed: "Ideally 1/7 ≈ 15 %").

mod buffer;
mod experiment;
mod stripes;

pub use buffer::WriteBuffer;
pub use experiment::{device_for, run_stack, StackRun, STACKS};
pub use stripes::{Rain, RainStats};

/// The checksum a host write of `lpn` at `version` leaves in its page (SplitMix64 finalizer).
pub fn page_checksum(lpn: u32, version: u32) -> u64 {
    let mut z = (u64::from(lpn) << 32 | u64::from(version)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}
