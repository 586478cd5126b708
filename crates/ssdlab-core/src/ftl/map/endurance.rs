//! Bad blocks and end of life (`[endurance]`, issue 63; `config::endurance` has the model and
//! its sources): factory-bad blocks drawn at build, grown-bad blocks retired at their erase (at
//! `retire_pe` P/E cycles, or by a seeded failure), and the end of the drive's life when a plane
//! keeps too few good blocks for its data and GC's reserve, or when a failed erase would leave
//! its plane no free block (then the block serves on, so that the request in flight completes).
//! A worn block whose retirement would empty its plane's free pool serves one more cycle.
//! A retired block is `Bad`: in no pool, frontier or index, never allocated again.

use rand::Rng;

use super::{BlockState, Ftl};
use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::rng::{self, SimRng};
use crate::stats::EnduranceReport;

/// Bad blocks' state and counts.
#[derive(Debug, Clone)]
pub struct Endurance {
    retire_pe: u32,
    initial_pe: u32,
    fail_p: f64,
    /// A block's chance that one of its programs fails (1 − (1 − p)^pages), and the blocks
    /// found so, to retire at their erase.
    program_fail_p: f64,
    program_failed: Vec<bool>,
    program_failures: u64,
    program_pages_moved: u64,
    rng: SimRng,
    /// Good blocks per plane.
    good: Vec<u32>,
    /// Blocks a plane keeps free of data at the least: its GC threshold, its frontiers, two.
    reserve: u32,
    factory: u64,
    worn: u64,
    failed: u64,
    /// Host pages written before the last reset of the counters (preconditioning), so that the
    /// end of life is counted over the drive's whole life.
    host_pages_before: u64,
    /// Host pages the drive had been written at its end of life.
    end_of_life: Option<u64>,
}

impl Ftl {
    /// Turn bad blocks on (`[endurance]`), their draws from `seed`'s `endurance` stream: the
    /// factory-bad blocks leave the free pools now. An error if a plane is left too few good
    /// blocks for its share of the logical space.
    pub fn enable_endurance(&mut self, cfg: &DeviceConfig, seed: u64) -> Result<()> {
        let e = &cfg.endurance;
        if !e.on() {
            return Ok(());
        }
        let mut rng = rng::stream(seed, "endurance");
        let mut good = vec![self.blocks_per_plane; self.planes as usize];
        let mut factory = 0;
        if e.factory_bad_fraction > 0.0 {
            for blk in 0..self.state.len() as u32 {
                if rng.gen_bool(e.factory_bad_fraction) {
                    self.state[blk as usize] = BlockState::Bad;
                    good[self.plane_of_block(blk) as usize] -= 1;
                    factory += 1;
                }
            }
            for f in &mut self.free {
                f.retain(|&b| self.state[b as usize] == BlockState::Free);
            }
            self.free_epoch += 1;
        }
        // The end of life keeps two blocks more than GC needs to run at all, which is what a
        // device must have at build.
        let reserve = self.gc_threshold + self.streams as u32 + 2;
        let share = u64::from(self.logical_pages).div_ceil(u64::from(self.planes));
        let need = share.div_ceil(u64::from(self.pages_per_block)) + u64::from(reserve) - 2;
        if let Some((p, &g)) = good.iter().enumerate().find(|(_, &g)| u64::from(g) < need) {
            return Err(SsdError::config(
                cfg.name.clone(),
                format!(
                    "endurance.factory_bad_fraction: {factory} factory-bad blocks leave plane {p} \
                     {g} good blocks, fewer than its share of the logical space and GC's \
                     threshold and frontiers need ({need}): lower the fraction or raise geometry.spare_factor"
                ),
            ));
        }
        let p = e.program_fail_probability;
        if p > 0.0 {
            self.enable_reclaim(false);
        }
        self.endurance = Some(Box::new(Endurance {
            retire_pe: e.retire_pe,
            initial_pe: cfg.reliability.initial_pe,
            fail_p: e.erase_fail_probability,
            program_fail_p: 1.0 - (1.0 - p).powf(f64::from(self.pages_per_block)),
            program_failed: if p > 0.0 {
                vec![false; self.state.len()]
            } else {
                Vec::new()
            },
            program_failures: 0,
            program_pages_moved: 0,
            rng,
            good,
            reserve,
            factory,
            worn: 0,
            failed: 0,
            host_pages_before: 0,
            end_of_life: None,
        }));
        Ok(())
    }

    /// Whether the erase of `blk` (just counted) retires it: worn to `retire_pe`, or failed.
    /// A retired block is `Bad` and the caller keeps it out of the pool; the end of life is
    /// noted when its plane keeps too few good blocks. `pool_empty`: its plane has no other
    /// free block (the FTL's pool, or the allocating layer's); `pe`: its P/E cycles now.
    #[inline(never)]
    pub(super) fn retires(&mut self, blk: u32, pool_empty: bool, pe: u32) -> bool {
        let plane = self.plane_of_block(blk) as usize;
        let Some(e) = self.endurance.as_deref_mut() else {
            return false;
        };
        let worn = e.retire_pe > 0 && pe.saturating_add(e.initial_pe) >= e.retire_pe;
        // One draw per erase whatever happens, so that the stream does not depend on wear.
        let failed = e.fail_p > 0.0 && e.rng.gen_bool(e.fail_p);
        let program_failed = e.program_failed.get(blk as usize).is_some_and(|&f| f);
        let failed = failed || program_failed;
        // Past the end of life nothing more is retired: the request in flight finishes on the
        // blocks there are (a dying drive still completes the command it holds), and the run
        // ends after it.
        if !(worn || failed) || e.end_of_life.is_some() {
            return false;
        }
        // The plane's last free block: retiring it would leave GC no block to copy into. A
        // worn block serves one more cycle and retires at its next erase; a failed erase there
        // ends the drive's life (the block serves on only to finish the request in flight).
        if pool_empty {
            // A block whose program failed serves on too, its flag kept: its data moved, it is
            // known bad, and the next erase with another free block retires it. Unless the
            // plane could not go on without it: then the life ends here (else the plane's
            // flagged blocks could fill with its data and pass it round, none ever retired).
            let short = program_failed && {
                let good = e.good[plane].saturating_sub(1);
                let reserve = e.reserve;
                !self.plane_holds(plane, good, reserve)
            };
            let e = self.endurance.as_deref_mut().expect("on");
            if !(worn || program_failed) || short {
                e.end_of_life = Some(e.host_pages_before + self.counters.host_pages_written);
            }
            return false;
        }
        if program_failed {
            e.program_failed[blk as usize] = false;
            e.program_failures += 1;
        } else if worn {
            e.worn += 1;
        } else {
            e.failed += 1;
        }
        e.good[plane] -= 1;
        self.state[blk as usize] = BlockState::Bad;
        if e.end_of_life.is_none() {
            let (good, reserve) = (e.good[plane], e.reserve);
            if !self.plane_holds(plane, good, reserve) {
                let e = self.endurance.as_deref_mut().expect("on");
                e.end_of_life = Some(e.host_pages_before + self.counters.host_pages_written);
            }
        }
        true
    }

    /// Whether `good` blocks of `plane` hold its valid pages and `reserve` blocks more.
    fn plane_holds(&self, plane: usize, good: u32, reserve: u32) -> bool {
        let first = plane * self.blocks_per_plane as usize;
        let valid: u64 = self.valid[first..first + self.blocks_per_plane as usize]
            .iter()
            .map(|&v| u64::from(v))
            .sum();
        let ppb = u64::from(self.pages_per_block);
        u64::from(good) * ppb >= valid + u64::from(reserve) * ppb
    }

    /// A block closed (`[endurance]` on): whether one of its programs failed (one draw, when
    /// program failures are on); if so its data is queued to move and it retires at its erase.
    #[cold]
    #[inline(never)]
    pub(super) fn program_check(&mut self, blk: u32) {
        let Some(e) = self.endurance.as_deref_mut() else {
            return;
        };
        if e.program_failed.is_empty() || e.end_of_life.is_some() {
            return;
        }
        if e.rng.gen_bool(e.program_fail_p) {
            e.program_failed[blk as usize] = true;
            self.queue_failed(blk);
        }
    }

    /// Count `pages` moved off a block whose program failed.
    pub(super) fn count_program_move(&mut self, pages: u32) {
        if let Some(e) = self.endurance.as_deref_mut() {
            e.program_pages_moved += u64::from(pages);
        }
    }

    /// Whether `blk` failed a program and waits to retire.
    pub(super) fn program_failed(&self, blk: u32) -> bool {
        self.endurance
            .as_ref()
            .and_then(|e| e.program_failed.get(blk as usize))
            .is_some_and(|&f| f)
    }

    /// A layer that allocates blocks itself keeps `blocks` free of data on each plane at the
    /// least (its triggers, frontiers and fixed regions), instead of the plain FTL's reserve.
    pub fn set_endurance_reserve(&mut self, blocks: u32) {
        if let Some(e) = &mut self.endurance {
            e.reserve = blocks;
        }
    }

    /// Whether block `blk` is bad (retired or factory-bad).
    #[inline]
    pub fn is_bad(&self, blk: u32) -> bool {
        self.state[blk as usize] == BlockState::Bad
    }

    /// Whether bad blocks are on (`[endurance]`).
    #[inline(always)]
    pub fn endurance_on(&self) -> bool {
        self.endurance.is_some()
    }

    /// Whether the drive has reached the end of its life.
    #[inline(always)]
    pub fn end_of_life(&self) -> bool {
        self.endurance
            .as_ref()
            .is_some_and(|e| e.end_of_life.is_some())
    }

    /// Carry the host pages written so far over a reset of the counters.
    pub(super) fn carry_host_pages(&mut self) {
        let written = self.counters.host_pages_written;
        if let Some(e) = &mut self.endurance {
            e.host_pages_before += written;
        }
    }

    /// Bad blocks' report, if on (`unit_bytes`: bytes a mapping unit).
    pub fn endurance_report(&self, unit_bytes: u64) -> Option<EnduranceReport> {
        let e = self.endurance.as_ref()?;
        let good: u64 = e.good.iter().map(|&g| u64::from(g)).sum();
        let data = u64::from(self.logical_pages).div_ceil(u64::from(self.pages_per_block));
        Some(EnduranceReport {
            factory_bad_blocks: e.factory,
            worn_out_blocks: e.worn,
            failed_blocks: e.failed,
            program_failed_blocks: e.program_failures,
            program_failed_pages_moved: e.program_pages_moved,
            good_blocks: good,
            spare_blocks: good.saturating_sub(data),
            host_bytes_written: (e.host_pages_before + self.counters.host_pages_written)
                * unit_bytes,
            end_of_life_host_bytes: e.end_of_life.map(|p| p * unit_bytes),
        })
    }
}
