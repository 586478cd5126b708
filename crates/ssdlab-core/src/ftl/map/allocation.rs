//! Where host pages go: the allocator's plane for each host page (static or round-robin
//! striping) and the free-space rule that decides whether a plane can take one before GC.

use super::{Ftl, UNMAPPED};
use crate::config::Allocation;

impl Ftl {
    /// The plane `next_host_plane` would return, without advancing the round-robin cursor.
    #[inline]
    pub fn peek_host_plane(&self, lpn: u32) -> u32 {
        if self.grouped {
            return self.peek_group_plane(lpn);
        }
        match self.allocation {
            Allocation::Static => lpn % self.planes,
            Allocation::RoundRobin => self.stripe_order[self.rr_cursor],
        }
    }

    /// The plane a new host page for `lpn` goes to (with FDP's reclaim groups, a plane of the
    /// group its placement identifier names).
    #[inline]
    pub fn next_host_plane(&mut self, lpn: u32) -> u32 {
        if self.grouped {
            return self.group_plane(lpn);
        }
        let p = self.peek_host_plane(lpn);
        if self.allocation == Allocation::RoundRobin {
            // (A compare, not `%`: this runs once per host page.)
            self.rr_cursor += 1;
            if self.rr_cursor == self.stripe_order.len() {
                self.rr_cursor = 0;
            }
        }
        p
    }

    /// Can `plane` take a host page without GC first? The last free block is kept for GC, and
    /// once GC has taken it (free pool empty, a victim partly copied — partial GC leaves jobs
    /// open between requests) the host may not use the frontier pages the victim's remaining
    /// copies need. With a cached map whose CMT may write translation pages, two blocks are
    /// kept: GC may need one for its data frontier and one for the translation frontier (a
    /// translation block's copies, the batch updates after an erase) in the same run.
    ///
    /// The common case in line, the rest out of line: as one `#[inline]` function, a change
    /// elsewhere in the crate (issue 61's flows) moved it out of line, +5 % instructions on the
    /// bench (docs/speed.md, "Several flows: the single path's inlining restored").
    #[inline(always)]
    pub fn host_can_write(&self, plane: u32) -> bool {
        // Every host frontier must have room or be able to open a block: the stream a page goes
        // to is only known when it is written. Once the free pool is empty, the frontier pages
        // left belong to the GC copies of a partly collected victim (partial GC), not the host.
        let free = self.free[plane as usize].len();
        // Enough free blocks for every frontier and the reserve, whatever the frontiers hold
        // (full ≤ streams): the common case, decided without looking at them. (With the full
        // map: more free blocks than frontiers.)
        if free >= self.room_free {
            return true;
        }
        self.host_can_write_short(plane, free)
    }

    /// [`Self::host_can_write`] with fewer free blocks than frontiers and the reserve.
    #[inline(never)]
    fn host_can_write_short(&self, plane: u32, free: usize) -> bool {
        let reserve = self.room_free - self.room_streams;
        let base = plane as usize * self.streams;
        let host = self.place.host_streams() as usize;
        // With a CMT that may write translation pages, their frontier needs room too.
        let translation = (self.room_streams > self.data_streams).then_some(self.data_streams);
        let full = (0..host)
            .chain(translation)
            .filter(|s| {
                let f = self.frontier[base + s];
                f == UNMAPPED || self.next_page[f as usize] == self.pages_per_block
            })
            .count();
        (full == 0 && free >= reserve) || free >= full + reserve
    }

    /// A plane that can take host page `lpn` now (the fallback when GC cannot free the chosen
    /// one): any plane, or with FDP's reclaim groups one of its group's (a group whose flash
    /// is full of its own valid data has no room, as on a real FDP device).
    pub fn first_writable_plane(&self, lpn: u32) -> Option<u32> {
        let planes = if self.grouped {
            self.group_planes(lpn)
        } else {
            0..self.planes
        };
        planes.into_iter().find(|p| self.host_can_write(*p))
    }
}
