//! RAIN with logical stripes (`rain.layout = "logical"`): the layout of the paper's simulator
//! (Yan et al., FAST 2017; their SSDsim's `raid` option with static allocation, mode 5), where
//! every plane collects on its own.
//!
//! * **Stripes are logical.** Stripe s holds the user pages s·(N − 1) … s·(N − 1) + N − 2 and a
//!   parity page of its own (logical page U + s, beyond the U user pages). Its group is
//!   s mod G (the same (chip, die, plane) index on every channel, as with super-blocks); its
//!   parity channel rotates, (s div G) mod N; data page k is on channel k, or k + 1 from the
//!   parity channel on. Every page is pinned to its plane.
//! * **Parity stays valid under any GC.** GC copies a page within its plane (the FTL's GC
//!   frontier is per plane), so a stripe's members stay on distinct channels whatever a plane
//!   collects: victims are chosen per plane by `gc.victim`, GC runs per plane as `gc.scheduler`
//!   decides (plane- or channel-blocking), and nothing has to be synchronized across a group.
//!   The super-block layout cannot do this: a physical stripe breaks as soon as one member's
//!   block is erased, so it collects all N planes of a group together (docs/ttflash.md).
//! * **The price is the read-modify-write.** A write that covers its whole stripe computes the
//!   parity from the new data; any other write reads the old data and the old parity first and
//!   programs the new parity after both reads (the paper's "subtractive" update; its `calc_parity`
//!   also considers reading the other members instead, which costs more reads for one dirty
//!   page, the common case — we always take the subtractive one). One parity program per
//!   stripe written, so random single-page writes double the programs; the paper's "ideally 1/7"
//!   needs whole stripes (its buffer's entries are stripes; ours groups the pages of one
//!   request, or of one GTF flush unit, by stripe).
//! * **Rotating GC** (`rgc`) is the paper's rule: at most one plane per group collects at a
//!   time, first come first served (a victim in progress always finishes; the next plane that
//!   needs GC takes the turn, round-robin over the channels), chained on the group's own clock
//!   through idle time. A plane with no room for a host page collects at once (forced), turn or
//!   not: a write cannot wait forever (the paper has no forced GC; its planes run out of pages).

use super::device::RainFtl;
use super::page_checksum;
use crate::error::{Result, SsdError};
use crate::flash::OpDone;
use crate::ftl::map::{Ftl, GcStep};
use crate::stats::RainStats;

const NONE: u32 = u32::MAX;

/// Placement of the logical stripes, page versions (test mode), the counters and rotating GC's
/// per-group state.
pub struct LogicalRain {
    n: u32,
    groups: u32,
    /// User logical pages (the FTL maps one parity page per stripe beyond them).
    user: u32,
    /// Test mode: the version of every user page (its checksum is `page_checksum`).
    version: Option<Vec<u32>>,
    pub(super) stats: RainStats,
    /// Rotating GC, per group: the plane collecting (NONE: none), when its last step ends, the
    /// channels whose plane waits for the turn (bit c), and the channel to look at first.
    holder: Vec<u32>,
    clock: Vec<u64>,
    waiting: Vec<u64>,
    next: Vec<u32>,
}

impl LogicalRain {
    pub fn new(channels: u32, groups: u32, user: u32, check: bool) -> Self {
        let g = groups as usize;
        LogicalRain {
            n: channels,
            groups,
            user,
            version: check.then(|| vec![0; user as usize]),
            stats: RainStats::default(),
            holder: vec![NONE; g],
            clock: vec![0; g],
            waiting: vec![0; g],
            next: vec![0; g],
        }
    }
    pub fn user_pages(&self) -> u32 {
        self.user
    }
    pub fn stripe(&self, lpn: u32) -> u32 {
        lpn / (self.n - 1)
    }
    fn plane(&self, g: u32, c: u32) -> u32 {
        c * self.groups + g
    }
    fn parity_channel(&self, s: u32) -> u32 {
        (s / self.groups) % self.n
    }
    /// The plane user page `lpn` is pinned to.
    pub fn data_plane(&self, lpn: u32) -> u32 {
        let s = self.stripe(lpn);
        let k = lpn % (self.n - 1);
        let c = if k < self.parity_channel(s) { k } else { k + 1 };
        self.plane(s % self.groups, c)
    }
    /// Stripe `s`'s parity page (a logical page of the FTL) and its plane.
    pub fn parity(&self, s: u32) -> (u32, u32) {
        let plane = self.plane(s % self.groups, self.parity_channel(s));
        (self.user + s, plane)
    }
    /// Stripe `s`'s user pages.
    pub fn members(&self, s: u32) -> std::ops::Range<u32> {
        let first = s * (self.n - 1);
        first..(first + self.n - 1).min(self.user)
    }
    /// The pages to XOR to rebuild user page `lpn`: the other mapped members of its stripe and
    /// its parity (none when the parity was never written).
    pub fn rebuild_set(&self, ftl: &Ftl, lpn: u32, out: &mut Vec<u32>) -> bool {
        out.clear();
        let s = self.stripe(lpn);
        let Some(p) = ftl.l2p_of(self.parity(s).0) else {
            return false;
        };
        out.extend(
            self.members(s)
                .filter(|&m| m != lpn)
                .filter_map(|m| ftl.l2p_of(m)),
        );
        out.push(p);
        true
    }
    /// Test mode: XOR the rebuild set of `lpn` (at `ppn`) and compare with what the host wrote.
    pub fn verify_rebuild(&mut self, ftl: &Ftl, lpn: u32, ppn: u32, set: &[u32]) -> Result<()> {
        let Some(v) = &self.version else {
            return Ok(());
        };
        super::rebuild::check_rebuild(ftl, lpn, ppn, v[lpn as usize], set, 0)?;
        self.stats.rebuilds_verified += 1;
        Ok(())
    }
    /// Test mode: every mapped user page rebuilds to what the host wrote. Returns (pages
    /// verified, 0: no page is ever unprotected).
    pub fn audit(&mut self, ftl: &Ftl) -> Result<(u64, u64)> {
        if self.version.is_none() {
            return Ok((0, 0));
        }
        let mut set = Vec::new();
        let mut ok = 0;
        for lpn in 0..self.user {
            let Some(ppn) = ftl.l2p_of(lpn) else { continue };
            if !self.rebuild_set(ftl, lpn, &mut set) {
                return Err(SsdError::Invalid(format!(
                    "RAIN bug (logical stripes): page {lpn} is mapped but its stripe has no parity"
                )));
            }
            self.verify_rebuild(ftl, lpn, ppn, &set)?;
            ok += 1;
        }
        Ok((ok, 0))
    }
    /// The checksum of the next version of `lpn` (test mode; 0 otherwise).
    fn next_checksum(&mut self, lpn: u32) -> u64 {
        match &mut self.version {
            Some(v) => {
                v[lpn as usize] += 1;
                page_checksum(lpn, v[lpn as usize])
            }
            None => 0,
        }
    }
}

impl RainFtl {
    fn lrain(&self) -> &LogicalRain {
        self.lrain.as_ref().expect("logical stripes")
    }
    fn lrain_mut(&mut self) -> &mut LogicalRain {
        self.lrain.as_mut().expect("logical stripes")
    }

    /// Program user pages `lpns` at `ready`, each run of pages of one stripe with one parity
    /// update. `lpns` is sorted by the caller when it may hold several pages of a stripe apart.
    pub(super) fn program_logical(
        &mut self,
        lpns: &[u32],
        ready: u64,
        timed: bool,
    ) -> Result<OpDone> {
        let mut out = OpDone::at(ready);
        let mut i = 0;
        while i < lpns.len() {
            let s = self.lrain().stripe(lpns[i]);
            let mut j = i + 1;
            while j < lpns.len() && self.lrain().stripe(lpns[j]) == s {
                j += 1;
            }
            out.join(self.program_stripe_run(s, &lpns[i..j], ready, timed)?);
            i = j;
        }
        Ok(out)
    }

    /// Write user pages `run` of stripe `s` and update its parity: the data programs from
    /// `ready`; the parity program after the reads of the old data and the old parity unless
    /// the run covers the whole stripe.
    fn program_stripe_run(
        &mut self,
        s: u32,
        run: &[u32],
        ready: u64,
        timed: bool,
    ) -> Result<OpDone> {
        let l = self.lrain();
        let (plpn, pplane) = l.parity(s);
        let whole = run.len() == l.members(s).len();
        for &lpn in run {
            let plane = self.lrain().data_plane(lpn);
            self.logical_room(plane, ready, timed)?;
        }
        self.logical_room(pplane, ready, timed)?;
        let mut d = OpDone::at(ready);
        let mut parity_ready = ready;
        let mut delta = 0u64;
        // Under GTF, the read-modify-write's reads on collecting planes wait in RAM with the
        // parity program (read when it is placed, after the reads queued behind that GC).
        let mut deferred = 0u64;
        let rmw = timed && !whole;
        for &lpn in run {
            let plane = self.lrain().data_plane(lpn);
            let old = self.base.ftl.l2p_of(lpn);
            let read = rmw && !self.defer_read(old, ready, &mut deferred);
            delta ^= self.old_for_parity(old, ready, read, &mut parity_ready);
            let ppn = self.base.ftl.write_host(lpn, plane)?;
            let c = self.lrain_mut().next_checksum(lpn);
            self.base.ftl.set_content(ppn, c);
            delta ^= c;
            if timed {
                d.join(self.program_or_hold(plane, Some(lpn), ready));
            }
        }
        let old_parity = self.base.ftl.l2p_of(plpn);
        let read = rmw && !self.defer_read(old_parity, ready, &mut deferred);
        delta ^= self.old_for_parity(old_parity, ready, read, &mut parity_ready);
        self.base.ftl.write_parity_lpn(plpn, pplane, delta)?;
        let st = &mut self.lrain_mut().stats;
        st.host_stripes += 1;
        st.host_parity_writes += 1;
        if deferred != 0 {
            self.held.push(super::held::Held {
                plane: pplane,
                lpn: None,
                since: parity_ready,
                reads: deferred,
            });
        } else if timed {
            d.join(self.program_or_hold(pplane, None, parity_ready));
        }
        for &lpn in run {
            let plane = self.lrain().data_plane(lpn);
            self.logical_gc_after(plane, ready, timed)?;
        }
        self.logical_gc_after(pplane, ready, timed)?;
        Ok(d)
    }

    /// Under the GTF flush (`holding`), is the old page `old` on a plane collecting at `ready`?
    /// Then its read is deferred: its channel's bit is set in `deferred`.
    fn defer_read(&self, old: Option<u32>, ready: u64, deferred: &mut u64) -> bool {
        let Some(o) = old else { return false };
        let plane = self.base.ftl.plane_of_ppn(o);
        if !(self.holding && self.base.res.gc_busy_at(plane, ready)) {
            return false;
        }
        *deferred |= 1 << (plane / self.lrain().groups);
        true
    }

    /// The old version of a page the parity update takes out (`old`, if mapped): its content
    /// (test mode; 0 otherwise), and with `read` its read from `ready`, which the parity program
    /// waits for (`parity_ready`).
    fn old_for_parity(
        &mut self,
        old: Option<u32>,
        ready: u64,
        read: bool,
        parity_ready: &mut u64,
    ) -> u64 {
        let Some(o) = old else { return 0 };
        if read {
            let at = self.base.res.read(self.base.ftl.plane_of_ppn(o), ready);
            *parity_ready = (*parity_ready).max(at.done);
        }
        self.base.ftl.content(o).unwrap_or(0)
    }

    /// Room for a page on `plane`: forced GC there when the host cannot write (turn or not).
    fn logical_room(&mut self, plane: u32, ready: u64, timed: bool) -> Result<()> {
        if self.base.ftl.host_can_write(plane) {
            return Ok(());
        }
        let g = (plane % self.lrain().groups) as usize;
        let holds = self.lrain().holder[g] == plane;
        let from = if holds {
            ready.max(self.lrain().clock[g])
        } else {
            ready
        };
        self.lrain_mut().stats.forced_gc += 1;
        let done = self.base.gc_context(timed).collect_for_host(plane, from)?;
        if holds {
            let l = self.lrain_mut();
            l.clock[g] = done;
            if !self.base.ftl.needs_gc(plane) && self.base.ftl.gc_job(plane).is_none() {
                self.lrain_mut().holder[g] = NONE;
            }
        }
        if self.base.ftl.host_can_write(plane) {
            Ok(())
        } else {
            Err(SsdError::DeviceFull(format!(
                "RAIN (logical stripes): plane {plane} has no room for its pages after forced GC"
            )))
        }
    }

    /// GC after a page was programmed on `plane`: the scheduler's decision point, or under
    /// rotating GC (timed) the plane's turn request and its group's chain up to `ready`.
    fn logical_gc_after(&mut self, plane: u32, ready: u64, timed: bool) -> Result<()> {
        if !(timed && self.rcfg.rgc) {
            return self.base.after_page_write(plane, ready, timed);
        }
        if self.base.ftl.needs_gc(plane) {
            let l = self.lrain_mut();
            let g = plane % l.groups;
            l.waiting[g as usize] |= 1 << (plane / l.groups);
            self.logical_advance_group(g, ready)?;
        }
        Ok(())
    }

    /// Rotating GC with logical stripes: every group's chain up to `now`.
    pub(super) fn logical_advance(&mut self, now: u64) -> Result<()> {
        if !self.rcfg.rgc || self.lrain.is_none() {
            return Ok(());
        }
        for g in 0..self.lrain().groups {
            let l = self.lrain();
            if l.holder[g as usize] != NONE || l.waiting[g as usize] != 0 {
                self.logical_advance_group(g, now)?;
            }
        }
        Ok(())
    }

    /// Group `g`'s rotating GC up to `now`: the holder's unit steps one after another, each
    /// only once its plane is free and the chain's clock has reached it (never reserved ahead of
    /// `now`); when its victim is erased the turn passes to the next waiting plane.
    fn logical_advance_group(&mut self, g: u32, now: u64) -> Result<()> {
        let gi = g as usize;
        loop {
            if self.lrain().holder[gi] == NONE && !self.logical_next_holder(g) {
                return Ok(());
            }
            let plane = self.lrain().holder[gi];
            let start = self.lrain().clock[gi].max(self.base.res.plane_free_at(plane));
            if start > now {
                return Ok(());
            }
            let (step, done) = self.base.gc_context(true).step(plane, start)?;
            let again = matches!(step, GcStep::Erase { .. }) && self.base.ftl.needs_gc(plane);
            let l = self.lrain_mut();
            l.clock[gi] = done;
            if !matches!(step, GcStep::Copy { .. }) {
                l.holder[gi] = NONE;
                if again {
                    l.waiting[gi] |= 1 << (plane / l.groups);
                }
            }
        }
    }

    /// Give group `g`'s turn to the next waiting plane that still needs GC (round-robin over
    /// the channels); false when none does.
    fn logical_next_holder(&mut self, g: u32) -> bool {
        let gi = g as usize;
        let n = self.lrain().n;
        for d in 0..n {
            let c = (self.lrain().next[gi] + d) % n;
            if self.lrain().waiting[gi] >> c & 1 == 0 {
                continue;
            }
            let plane = self.lrain().plane(g, c);
            let l = self.lrain_mut();
            l.waiting[gi] &= !(1 << c);
            if self.base.ftl.needs_gc(plane) || self.base.ftl.gc_job(plane).is_some() {
                let l = self.lrain_mut();
                l.holder[gi] = plane;
                l.next[gi] = (c + 1) % n;
                return true;
            }
        }
        false
    }

    /// Trim with logical stripes: the page leaves its stripe, so the parity is rewritten
    /// without it (untimed, as trims are; counted as a parity page).
    pub(super) fn trim_logical(&mut self, lpn: u32) -> Result<()> {
        let Some(old) = self.base.ftl.l2p_of(lpn) else {
            return Ok(());
        };
        let gone = self.base.ftl.content(old).unwrap_or(0);
        self.base.ftl.trim(lpn);
        let (plpn, pplane) = self.lrain().parity(self.lrain().stripe(lpn));
        let parity = self
            .base
            .ftl
            .l2p_of(plpn)
            .and_then(|p| self.base.ftl.content(p))
            .unwrap_or(0);
        self.logical_room(pplane, 0, false)?;
        self.base
            .ftl
            .write_parity_lpn(plpn, pplane, parity ^ gone)?;
        self.lrain_mut().stats.host_parity_writes += 1;
        Ok(())
    }
}
