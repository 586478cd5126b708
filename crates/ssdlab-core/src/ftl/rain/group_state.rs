//! The state of one group's stripe-group GC (`ftl::rain::group_gc` runs it; `ftl::rain::superblock`
//! holds one per group).

use std::collections::VecDeque;

/// No super-block, stripe, victim or page.
pub(super) const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Parity,
    Erase,
    Copy,
    /// No super-block is free for the next copy: close every open stripe short and erase
    /// every victim pending erase, then go on copying (`Rain::gc_op`).
    Drain,
}

/// An open GC stripe and its parity channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OpenGc {
    pub(super) s: u32,
    pub(super) pch: u32,
}

/// One group's GC: its round, turn and phase, the victims waiting for erase, the open GC
/// super-blocks and stripes.
#[derive(Debug, Clone)]
pub(super) struct GroupGc {
    pub(super) active: bool,
    pub(super) round: u64,
    pub(super) turn: u32,
    pub(super) phase: Phase,
    pub(super) victim: u32,
    pub(super) cursor: u32,
    /// Victims copied, waiting for erase: (super-block, round copied, bit mask of erased members).
    pub(super) pending: VecDeque<(u32, u64, u64)>,
    /// The GC super-blocks taking copies, oldest first, each with its room per member: pages
    /// per block − written pages − slots reserved for the parity of its open stripes (a copy
    /// takes one, a new stripe reserves one on its parity channel, a parity page fills its own
    /// reserved slot).
    pub(super) gc_sbs: Vec<(u32, Vec<u32>)>,
    /// Open GC stripes (in `gc_sbs` or in sealed GC super-blocks), oldest first, each with
    /// its parity channel (so that a plane's parity pick reads only its own stripes).
    pub(super) open: Vec<OpenGc>,
    /// Per channel c: the GC stripes that might still take a copy on c, oldest first
    /// (`place_copy`'s index). Every condition for joining is permanent once false while a
    /// stripe is open (a page on c, N − 1 members, its super-block sealed or its member c full,
    /// closed), so stripes that fail it are dropped from the front for good.
    pub(super) joinable: Vec<VecDeque<(u32, u64)>>,
    /// End of the group's last GC operation (rotating GC chains its operations).
    pub(super) clock: u64,
    /// Times this group drained its pipeline (each deepens its reserve, up to a limit).
    pub(super) drains: u32,
}

impl GroupGc {
    /// Idle, for a group over `channels` channels.
    pub(super) fn new(channels: u32) -> Self {
        GroupGc {
            active: false,
            round: 0,
            turn: 0,
            phase: Phase::Parity,
            victim: NONE,
            cursor: 0,
            pending: VecDeque::new(),
            gc_sbs: Vec::new(),
            open: Vec::new(),
            joinable: vec![VecDeque::new(); channels as usize],
            clock: 0,
            drains: 0,
        }
    }
}
