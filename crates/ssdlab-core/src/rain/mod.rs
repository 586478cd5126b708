//! RAIN parity groups for Tiny-Tail Flash (Yan et al., FAST 2017): stripe-aligned allocation,
//! parity bookkeeping, rebuild sets for GC-tolerant reads, and the GC-tolerant flush buffer.
//!
//! ## Parity design: super-blocks and stripe-group GC (how parity stays correct under GC)
//! * A **parity group** is the same (chip, die, plane) index on every channel (the seed:
//!   "RAIN ... same chip index across channels"). A **super-block** is the blocks with the same
//!   block index on the N planes of one group. The RAIN layer owns block allocation: free
//!   super-blocks are counted per group.
//! * **Host writes** fill a host super-block stripe by stripe: stripe k is page k of each
//!   member, N − 1 data pages then the parity on channel k mod N (rotating). Host stripes
//!   rotate over the groups.
//! * Pages stay physically present until their **whole super-block** is erased, so a dead
//!   member never breaks its stripe: parity is never rewritten and is never copied by GC (a
//!   parity page is not valid data; it dies with its super-block).
//! * **GC victim = a super-block** (greedy on the valid pages of its members). Collection is
//!   member by member: plane c copies its own valid pages (copy-back) into its member of the
//!   group's GC super-block; a copy joins the oldest open GC stripe with no page on that plane.
//!   A GC stripe's parity is written by a plane with no page in it, at that plane's turn, once
//!   the stripe is full or one round old (short stripes then); until then its pages are
//!   protected by the victim's intact stripes (a rebuild goes through the page it was copied
//!   from). The victim's members are erased two rounds later, when every stripe holding its
//!   copies has parity. Parity cost: one page per N − 1 host pages, one per GC stripe.
//! * **Rotating GC** (`rgc`): the group's GC operations run one at a time, on one plane, back
//!   to back, each started only when its plane is free and the engine's clock has reached it
//!   (no future reservation): while plane c collects, every other plane of the group is free
//!   of GC and every read of the group is rebuildable. Without `rgc`, a group's GC runs
//!   eagerly on all its planes in parallel (plane-blocking GC).

mod buffer;
mod experiment;
mod superblock;

pub use buffer::WriteBuffer;
pub use experiment::{compare, device_for, run_stack, StackRun, STACKS};
pub use superblock::{GcOp, HostWrite, Rain, RainStats};

/// The checksum a host write of `lpn` at `version` leaves in its page (SplitMix64 finalizer).
pub fn page_checksum(lpn: u32, version: u32) -> u64 {
    let mut z = (u64::from(lpn) << 32 | u64::from(version)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}
