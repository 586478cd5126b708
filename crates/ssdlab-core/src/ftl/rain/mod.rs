//! The Tiny-Tail Flash device model (Yan et al., FAST 2017): RAIN parity groups, super-block
//! allocation and stripe-group GC, GC-tolerant reads and flushes, rotating GC.
//!
//! Files, by concept: `device` (the model: construction, the page-service seam, reports),
//! `superblock` (allocation and host stripes), `group_gc` (the group GC state machine),
//! `schedule` (when group GC runs on the time lines: rotating, plane-blocking, forced),
//! `gtr` (GC-tolerant reads), `flush` and `buffer` (the RAIN side of a GC-aware write cache's
//! flush: Tiny-Tail's GC-tolerant flush), `rebuild` (rebuild
//! sets, verification and the parity audit), `logical` (the paper's logical-stripe layout,
//! `rain.layout = "logical"`, where GC is per plane).
//!
//! ## Parity design: super-blocks and stripe-group GC (how parity stays correct under GC)
//! * A **parity group** is the same (chip, die, plane) index on every channel (the paper:
//!   "RAIN ... same chip index across channels"). A **super-block** is the blocks with the same
//!   block index on the N planes of one group. The RAIN layer owns block allocation: free
//!   super-blocks are counted per group.
//! * **Host writes** fill a host super-block stripe by stripe: stripe k is page k of each
//!   member, N − 1 data pages then the parity on channel k mod N (rotating). Host stripes
//!   rotate over the groups.
//! * Pages stay physically present until their **whole super-block** is erased, so a dead
//!   member never breaks its stripe: parity is never rewritten and is never copied by GC (a
//!   parity page is not valid data; it dies with its super-block).
//! * **GC victim = a super-block** (by `gc.victim` over super-blocks; greedy takes, of the N
//!   with the fewest valid pages, the one whose fullest member has the fewest — see
//!   `Rain::pick_victim`; only when its valid pages are under N − 1 members' worth).
//!   Collection is in rounds, one victim per
//!   round, member by member (turn c = channel c): plane c copies its own valid pages
//!   (copy-back) into its member of an open GC super-block of the group (at most two open: copy-
//!   back keeps each page on its plane, so one member fills before the others, and the second
//!   super-block takes its overflow; with one, sealing it at the first full member wasted so much
//!   that GC livelocked).
//! * **GC stripe rule (room is always there for parity).** A copy on channel c joins the oldest
//!   open stripe of that super-block with no page on c and a parity channel ≠ c; otherwise it
//!   opens a stripe whose **parity channel is fixed at creation** (the other member with most
//!   room) and whose **parity slot is reserved** on that member. A member takes a copy only
//!   while written pages + reserved parity slots + 1 ≤ pages per block, so every open stripe's
//!   parity always fits. A super-block none of whose members can take a copy, or the older of
//!   two when a third would be needed, is **sealed**. At its turn, before copying, plane c writes
//!   the parity of every open stripe whose parity channel is c and that is full (N − 1 members)
//!   or in a sealed super-block — a **short stripe** is then closed with the parity of the
//!   members it has (valid parity) — and, where open stripes are protected by their victims,
//!   opened two or more rounds earlier. A copy joins the oldest joinable stripe of any open GC
//!   super-block before opening one (copies of one victim are unevenly spread over its members,
//!   so the next victims' copies fill its stripes).
//! * **Open stripes** (`rain.open_parity`). By default (`ram`) the controller keeps each open
//!   stripe's running parity (the XOR of its pages so far) in RAM, as a RAIN controller's XOR
//!   buffer does, so a page of an open stripe is rebuilt from that parity and the stripe's
//!   other pages; GC stripes then stay open until full or sealed (7.0 of 7 data pages). With
//!   `victim` (rounds 5–11) an open GC stripe's pages are protected by the victim's intact
//!   stripes (a rebuild goes through the page it was copied from) and every stripe opened in
//!   round r closes by the end of round r + 2, short if need be; an open host stripe's pages
//!   cannot be rebuilt.
//! * **Erase rule.** With the parity in RAM a copied victim is erasable at once. Otherwise a
//!   victim copied in round r is erasable once no open stripe was opened in a round ≤ r (its
//!   copies joined only such stripes, so every copy is then protected by its own parity). Plane
//!   c erases its member at its turn (any order; the super-block is freed when all N are
//!   erased). Victims pending erase count as free when deciding whether to pick another.
//! * Parity cost: one page per N − 1 host pages, one per GC stripe (short stripes cost more).
//!   At the `ttflash` preset's 10 % spare, steady state, the extra P/E due to RAIN is +19.1 %
//!   with the parity in RAM and +48.4 % with victims protecting open stripes (the waiting
//!   victims hold free space, and GC stripes close short); `tests/ttflash_parity_cost.rs`.
//! * **Rotating GC** (`rgc`): the group's GC operations run one at a time, on one plane, back
//!   to back, each started only when its plane is free and the engine's clock has reached it
//!   (no future reservation): while plane c collects, every other plane of the group is free
//!   of GC and every read of the group is rebuildable. Without `rgc`, a group's GC runs
//!   eagerly on all its planes in parallel (plane-blocking GC).

mod device;
mod flush;
mod group_gc;
mod group_state;
mod gtr;
mod held;
mod logical;
mod rebuild;
mod schedule;
mod superblock;

pub use device::RainFtl;
pub use group_gc::GcOp;
pub use logical::LogicalRain;
pub use rebuild::Via;
pub use superblock::{HostWrite, Rain};

/// The checksum a host write of `lpn` at `version` leaves in its page (SplitMix64 finalizer).
pub fn page_checksum(lpn: u32, version: u32) -> u64 {
    let mut z = (u64::from(lpn) << 32 | u64::from(version)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}
