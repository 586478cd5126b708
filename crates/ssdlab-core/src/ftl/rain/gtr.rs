//! GC-tolerant read (GTR; Yan et al., FAST 2017, the paper's slides: "XOR to reconstruct page
//! blocked by GC"): a read whose plane is busy with GC is rebuilt from the rest of its stripe
//! when that is sooner. With the rotating flush (`rain.rotating_flush`, an ssdlab extension) a
//! read whose plane is busy with a host program is rebuilt the same way.

use super::device::RainFtl;
use super::rebuild::Via;
use crate::error::Result;
use crate::flash::OpDone;

impl RainFtl {
    /// A host read of one mapped page at `ppn` (a write cache above served the pages it
    /// holds): rebuilt from its stripe (GTR) when its plane is busy with GC (or, with the
    /// rotating flush, a host program) and that is sooner, or from its plane.
    pub(super) fn read_page_rain(&mut self, lpn: u32, ppn: u32, ready: u64) -> Result<OpDone> {
        let plane = self.base.ftl.plane_of_ppn(ppn);
        let gc_busy = self.base.res.gc_busy_at(plane, ready);
        let program_busy =
            !gc_busy && self.rcfg.rotating_flush && self.program_busy_at(plane, ready);
        if self.rcfg.gtr && (gc_busy || program_busy) {
            // Planes of the read's group executing GC work now (a GC operation reserved for
            // later — a forced chain reserves the group's operations plane after plane — is
            // not executing). Rotating GC allows one; parallel forced GC more, and then the
            // read waits on its own plane (its stripe members would wait too).
            let collecting = self
                .base
                .res
                .group_of(plane)
                .filter(|&q| self.base.res.gc_collecting_at(q, ready))
                .count();
            if self.rcfg.parallel_forced_gc && collecting > 1 {
                if let Some(st) = self.rain_stats_mut() {
                    st.rebuild_refused_group_collecting += 1;
                }
                return Ok(self.base.res.read(plane, ready));
            }
            let mut set = std::mem::take(&mut self.rebuild_scratch);
            let rebuilt = self.try_rebuild(lpn, ppn, ready, program_busy, collecting > 1, &mut set);
            self.rebuild_scratch = set;
            if let Some(d) = rebuilt? {
                return Ok(d);
            }
        }
        Ok(self.base.res.read(plane, ready))
    }

    /// Rebuild the page at `ppn` (user page `lpn`) from its stripe if that is sooner than
    /// reading it (None otherwise), with either layout's rebuild set; counted and, in test
    /// mode, verified.
    fn try_rebuild(
        &mut self,
        lpn: u32,
        ppn: u32,
        ready: u64,
        program_busy: bool,
        two_collecting: bool,
        set: &mut Vec<u32>,
    ) -> Result<Option<OpDone>> {
        let plane = self.base.ftl.plane_of_ppn(ppn);
        let via = match (&self.rain, &self.lrain) {
            (Some(r), _) => r.rebuild_set(ppn, set),
            (None, Some(l)) => l
                .rebuild_set(&self.base.ftl, lpn, set)
                .then_some(Via::Parity),
            (None, None) => return Ok(None),
        };
        let Some(st) = self.rain_stats_mut() else {
            return Ok(None);
        };
        let Some(via) = via else {
            st.rebuild_unavailable += 1;
            return Ok(None);
        };
        let res = &self.base.res;
        let normal = res.peek_read(plane, ready);
        let t = set
            .iter()
            .map(|&m| res.peek_read(self.base.ftl.plane_of_ppn(m), ready).done)
            .max()
            .unwrap_or(ready);
        if t >= normal.done {
            if let Some(st) = self.rain_stats_mut() {
                st.rebuild_not_sooner += 1;
            }
            return Ok(None);
        }
        let mut d = OpDone::at(ready);
        self.base.res.set_rebuilding(true);
        for &m in set.iter() {
            let o = self.base.res.read(self.base.ftl.plane_of_ppn(m), ready);
            d.join(o);
        }
        self.base.res.set_rebuilding(false);
        if let Some(st) = self.rain_stats_mut() {
            st.rebuilt_reads += 1;
            st.rebuilds_via_origin += u64::from(via == Via::Origin);
            st.rebuilds_via_ram_parity += u64::from(via == Via::Ram);
            st.rebuilt_program_blocked += u64::from(program_busy);
            // Two planes of the group collecting: rotating GC forbids it.
            if two_collecting {
                st.rebuild_while_group_collecting += 1;
            }
        }
        match (&mut self.rain, &mut self.lrain) {
            (Some(r), _) => r.verify_rebuild(&self.base.ftl, ppn, set)?,
            (None, Some(l)) => l.verify_rebuild(&self.base.ftl, lpn, ppn, set)?,
            (None, None) => {}
        }
        Ok(Some(d))
    }
}
