//! RAIN parity groups on the time lines: a group is the same (chip, die, plane) index across
//! all channels (Tiny-Tail Flash, Yan et al., FAST 2017: "same chip index across channels").

use super::Resources;

impl Resources {
    /// Planes of `plane`'s parity group (same index on every channel), itself included.
    pub fn group_of(&self, plane: u32) -> impl Iterator<Item = u32> + '_ {
        let k = plane % self.per_channel;
        (0..self.chan_gc_until.len() as u32).map(move |ch| ch * self.per_channel + k)
    }

    /// When every plane of `plane`'s parity group ([`Self::group_of`]) is free, leaving out those
    /// busy with GC at `now` (0 when that leaves none). RAIN's flush asks this about twice a
    /// request; as a loop over the group it costs ~99 instructions a call against the `filter`,
    /// `map`, `max` chain's ~137, whose fold was not inlined (docs/speed.md, "A RAIN group's free
    /// time in one loop").
    #[inline]
    pub fn group_free_at(&self, plane: u32, now: u64) -> u64 {
        let mut at = 0;
        for p in self.group_of(plane) {
            if !self.gc_busy_at(p, now) {
                at = at.max(self.plane_free_at(p));
            }
        }
        at
    }
}
