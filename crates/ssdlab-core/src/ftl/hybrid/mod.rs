//! The hybrid SLC/QLC device with an SLC cache (Yoo & Shin, "Reinforcement Learning-Based SLC
//! Cache Technique for Enhancing SSD Write Performance", HotStorage 2020; `[cache]`): the third
//! device model, built on a [`PlainFtl`] (its FTL, time lines and random streams) the way the
//! RAIN model is. It allocates blocks itself through the FTL's narrow handle:
//!
//! - any erased block can be opened in SLC mode (`pages_per_block / bits per cell` pages, SLC
//!   timings) or in the native QLC mode; its mode changes only when it is erased;
//! - the SLC region's size is the policy's (`cache.slc`, in blocks, spread over the planes); it
//!   comes out of free space, so logical capacity never changes;
//! - hot/cold separation by request size (slide 5, after LAST 2008): a write request of at most
//!   θ goes to SLC, a larger one to QLC;
//! - migration (slide 4): when the SLC region's free blocks fall to `cache.free_trigger` (slide
//!   12: ≤ 5), SLC victims' valid pages are rewritten into QLC and the SLC blocks erased back to
//!   the free pool; QLC GC on the same trigger for the free pool. Both run as unit steps on the
//!   plane's time line before the host write that needs them, and count in WAF;
//! - optionally (`cache.idle_migration`), migration in idle time, on the plane's own time line.
//!
//! Victims in either region follow `gc.victim` through the FTL's shared victim index (units
//! are (block, mode) pairs, grouped by (mode, plane)).
//!
//! With a mapping unit below the page size (`ftl.mapping_unit_bytes`; the paper's 4 KiB units
//! on 16 KiB pages) "pages" below are mapping units: θ, the region's blocks and the reward
//! count units, a flash page is programmed when its last unit is written (SLC and QLC alike)
//! and a host unit that does not fill its page is acknowledged once placed, after the reclaim
//! it waited for (the write buffer of `ftl::plain::PlainFtl`).

mod model;
mod reclaim;
mod region;
pub mod slc;

pub use crate::stats::{DecisionPoint, HybridReport, SlcObservation};
pub use region::Mode;
pub use slc::{RL_ACTIONS, RL_STATES, SIZE_LEVELS, THETA_LEVELS_KIB};

use crate::config::{CellMode, DeviceConfig, OpTimes, SlcPolicyKind};
use crate::error::{Result, SsdError};
use crate::flash::OpDone;
use crate::ftl::map::UnitLayout;
use crate::ftl::plain::PlainFtl;
use crate::rng::{self, SimRng};
use region::{Layout, Plane, SlcWear, NONE};
use slc::{CacheState, Decision, PeriodStats, SlcPolicy};

/// The hybrid SLC/QLC device.
pub struct HybridFtl {
    base: PlainFtl,
    lay: Layout,
    planes: Vec<Plane>,
    /// The mode of every block while in use.
    modes: Vec<Mode>,
    /// Array times per mode (index: `Mode as usize`).
    times: [OpTimes; 2],
    /// Requests of at most this many pages (units) go to SLC (the policy's).
    theta_pages: u64,
    /// Bytes of a mapping unit (the page size unless `ftl.mapping_unit_bytes`).
    page_bytes: u32,
    policy: Box<dyn SlcPolicy>,
    /// Host page writes between two decisions of the policy (one SLC block per plane).
    period_pages: u64,
    since_decision: u64,
    /// Logical pages holding data.
    mapped: u64,
    /// Valid pages (units) on each plane.
    plane_valid: Vec<u64>,
    /// A plane holding this many valid pages more than the planes' mean takes no host write
    /// while another has room: half a plane's spare.
    crowd_slack: u64,
    /// The policy never changes the region's size (`none`, `static`).
    fixed_region: bool,
    /// Migrate on the trigger before a host write (the paper's simulator), or write straight to
    /// QLC when the region is full and migrate only in idle time or under space pressure.
    foreground_migration: bool,
    trigger: u32,
    idle_migration: bool,
    cursor: u32,
    rng: SimRng,
    report: HybridReport,
    /// The current decision period's figures, and every decision of the measured run.
    period: PeriodStats,
    decisions: Vec<DecisionPoint>,
    /// Writes are the precondition's (timing off, not measured).
    preconditioning: bool,
    /// The request being written has already migrated a block of an over-size region.
    shrunk_this_request: bool,
    /// SLC-mode erases weighed apart (`endurance.slc_retire_pe`), if set.
    slc_wear: Option<SlcWear>,
}

impl HybridFtl {
    pub fn new(cfg: &DeviceConfig, seed: u64, timed: bool, check: bool) -> Result<Self> {
        let mut base = PlainFtl::new(cfg, seed, timed, check, None)?;
        let g = &cfg.geometry;
        let c = &cfg.cache;
        let planes = g.planes();
        let bpp = g.blocks_per_plane;
        let total = planes * bpp;
        base.ftl.hand_over_allocation(UnitLayout {
            groups: 2 * planes,
            units_per_group: bpp,
            unit_of_block: (0..total).map(|b| Mode::Qlc as u32 * total + b).collect(),
        });
        let k = cfg.units_per_page();
        let base_logical = base.ftl.logical_pages();
        let lay = Layout {
            planes,
            bpp,
            ppb: g.pages_per_block * k,
            slc_ppb: g.pages_per_block / g.cell_mode.bits_per_cell() * k,
        };
        let unit = u64::from(cfg.unit_bytes());
        let theta = (u64::from(c.theta_kib) * 1024).div_ceil(unit);
        let period =
            u64::from(lay.slc_ppb) * u64::from(planes) * u64::from(c.decision_period_blocks);
        // Bad blocks: a plane keeps free of data its trigger's blocks, its two open blocks, two
        // more (as the plain FTL), and its share of the static SLC region (`cache.slc_blocks`,
        // out of over-provisioning whatever the wear).
        let static_slc = match c.policy() {
            SlcPolicyKind::Static | SlcPolicyKind::Dwa => c.slc_blocks.div_ceil(planes),
            _ => 0,
        };
        base.ftl
            .set_endurance_reserve(c.free_trigger + 2 + 2 + static_slc);
        let mut d = HybridFtl {
            planes: (0..planes)
                .map(|p| Plane::new(p * bpp, bpp, &base.ftl))
                .collect(),
            base,
            modes: vec![Mode::Qlc; total as usize],
            times: [
                OpTimes::new(&cfg.timing, CellMode::Slc, g.page_size),
                OpTimes::new(&cfg.timing, g.cell_mode, g.page_size),
            ],
            theta_pages: theta,
            page_bytes: cfg.unit_bytes(),
            policy: slc::build(c, theta, seed)?,
            period_pages: period,
            since_decision: 0,
            mapped: 0,
            plane_valid: vec![0; planes as usize],
            crowd_slack: (u64::from(bpp) * u64::from(lay.ppb))
                .saturating_sub(u64::from(base_logical).div_ceil(u64::from(planes)))
                / 2,
            foreground_migration: true,
            fixed_region: matches!(c.policy(), SlcPolicyKind::Static | SlcPolicyKind::None),
            trigger: c.free_trigger,
            idle_migration: c.idle_migration,
            cursor: 0,
            rng: rng::stream(seed, "hybrid-victim"),
            report: HybridReport::default(),
            period: PeriodStats::default(),
            decisions: Vec::new(),
            preconditioning: false,
            shrunk_this_request: false,
            slc_wear: (cfg.endurance.slc_retire_pe > 0)
                .then(|| SlcWear::new(total, cfg.endurance.retire_pe, cfg.endurance.slc_retire_pe)),
            lay,
        };
        d.decide();
        Ok(d)
    }

    /// Ask the policy for the SLC region's size and θ, and apply its decision.
    fn decide(&mut self) {
        let state = self.cache_state();
        let d = self.policy.decide(&state);
        self.apply(d);
        self.since_decision = 0;
        self.period = PeriodStats::default();
        let point = self.decision_point(d);
        self.decisions.push(point);
    }

    /// What a policy sees now (the period so far).
    fn cache_state(&self) -> CacheState {
        CacheState {
            logical_pages: u64::from(self.base.ftl.logical_pages()),
            mapped_pages: self.mapped,
            blocks: u64::from(self.lay.planes) * u64::from(self.lay.bpp)
                - self.planes.iter().map(|p| u64::from(p.bad)).sum::<u64>(),
            planes: self.lay.planes,
            pages_per_block: self.lay.ppb,
            slc_pages_per_block: self.lay.slc_ppb,
            page_bytes: self.page_bytes,
            reserve_per_plane: self.trigger + 2,
            slc_blocks: self.planes.iter().map(|p| p.in_mode[0]).sum(),
            slc_target: self.planes.iter().map(|p| p.slc_target).sum(),
            theta_pages: self.theta_pages,
            qlc_program_ns: self.times[Mode::Qlc as usize].program_ns
                / u64::from(self.base.ftl.units_per_page()),
            period: self.period,
            timed: self.base.timed && !self.preconditioning,
        }
    }

    /// Take decision `d`: θ, migration mode, and the region spread over the planes (evenly, the
    /// remainder on the first planes). A region smaller than its blocks in use is brought down
    /// by migration at the next writes.
    fn apply(&mut self, d: Decision) {
        self.theta_pages = d.theta_pages;
        self.foreground_migration = d.foreground_migration;
        let n = self.lay.planes;
        for (p, plane) in self.planes.iter_mut().enumerate() {
            plane.slc_target = crate::config::plane_share(d.slc_blocks, n, p as u32);
        }
    }

    /// The series point of decision `d`, taken now.
    fn decision_point(&self, d: Decision) -> DecisionPoint {
        let unit = u64::from(self.page_bytes);
        DecisionPoint {
            host_pages: self.report.slc_host_pages + self.report.qlc_host_pages,
            utilisation: self.mapped as f64 / f64::from(self.base.ftl.logical_pages().max(1)),
            slc_blocks: d.slc_blocks,
            theta_kib: d.theta_pages.checked_mul(unit).map_or(0, |b| b / 1024),
        }
    }

    /// The policy's decisions during the measured run (one per decision period).
    pub fn decisions(&self) -> &[DecisionPoint] {
        &self.decisions
    }

    /// Start the `rl` policy from `table` (pre-training).
    pub fn set_q_table(&mut self, table: crate::rl::QTable) -> Result<()> {
        self.policy.set_q_table(table)
    }

    /// The `rl` policy's Q-table.
    pub fn q_table(&self) -> Option<&crate::rl::QTable> {
        self.policy.q_table()
    }

    /// Whether an outside agent decides (`cache.slc = "external"`).
    pub fn is_external(&mut self) -> bool {
        self.policy.external().is_some()
    }

    /// `external` policy: the decision the outside agent owes, if one is due.
    pub fn slc_pending(&mut self) -> Option<SlcObservation> {
        self.policy.external().and_then(|e| e.pending())
    }

    /// `external` policy: apply the agent's `action` (0–8) to the pending decision.
    pub fn slc_act(&mut self, action: usize) -> Result<()> {
        if action >= slc::RL_ACTIONS {
            return Err(SsdError::config(
                "action",
                format!("expected 0 to {}, got {action}", slc::RL_ACTIONS - 1),
            ));
        }
        let Some(ext) = self.policy.external() else {
            return Err(SsdError::Invalid(
                "SLC decision stepping needs cache.slc = \"external\"".into(),
            ));
        };
        if let Some(d) = ext.act(action) {
            // The agent's setting replaces the one kept at the decision point (one point per
            // period in the series).
            self.apply(d);
            let point = self.decision_point(d);
            match self.decisions.last_mut() {
                Some(last) => *last = point,
                None => self.decisions.push(point),
            }
        }
        Ok(())
    }

    /// The report, with the current SLC region.
    pub fn report(&self) -> HybridReport {
        HybridReport {
            slc_blocks: self.planes.iter().map(|p| p.in_mode[0]).sum(),
            slc_target: self.planes.iter().map(|p| p.slc_target).sum(),
            ..self.report
        }
    }

    /// The mode of the block holding physical page `ppn`.
    pub fn mode_of_ppn(&self, ppn: u32) -> Mode {
        self.modes[(ppn / self.lay.ppb) as usize]
    }

    /// The plane of the next host page: the planes in turn, a crowded one passed over. Ours:
    /// with GC per plane, turns alone let a plane fill with valid data when the host overwrites
    /// some planes' pages more than others' (small writes aligned to a page: their first unit
    /// always on the same planes), until that plane had no victim with an invalid page and the
    /// run ended full on a drive with spare left. A plane more than `crowd_slack` pages above
    /// the planes' mean is passed over; a balanced workload never is (results as before).
    fn next_plane(&mut self) -> u32 {
        let n = self.lay.planes;
        let limit = self.mapped / u64::from(n) + self.crowd_slack;
        let mut plane = self.cursor;
        for _ in 1..n {
            if self.plane_valid[plane as usize] < limit {
                break;
            }
            plane = (plane + 1) % n;
        }
        self.cursor = (plane + 1) % n;
        plane
    }

    /// Unmap `lpn` (a trim); whether it held data.
    pub(super) fn unmap(&mut self, lpn: u32) -> bool {
        let Some(old) = self.base.ftl.l2p_of(lpn) else {
            return false;
        };
        self.plane_valid[self.base.ftl.plane_of_ppn(old) as usize] -= 1;
        self.base.ftl.trim(lpn)
    }

    /// Program host page `lpn` of a request of `req_pages` pages at `ready`.
    fn write_page(&mut self, lpn: u32, req_pages: u64, ready: u64, timed: bool) -> Result<OpDone> {
        if self.since_decision >= self.period_pages {
            self.decide();
        }
        self.since_decision += 1;
        match self.base.ftl.l2p_of(lpn) {
            None => self.mapped += 1,
            Some(old) => {
                if self.mode_of_ppn(old) == Mode::Slc {
                    self.period.slc_hits += 1;
                }
                self.plane_valid[self.base.ftl.plane_of_ppn(old) as usize] -= 1;
            }
        }
        let plane = self.next_plane();
        self.plane_valid[plane as usize] += 1;
        let rec = self.reclaim(plane, ready, timed)?;
        let p = &self.planes[plane as usize];
        // SLC takes the page if its open block has room, or if the region may open another
        // block (below its size, and the pool above the trigger QLC GC needs).
        let open = p.open[Mode::Slc as usize];
        let has_room = open != NONE && self.base.ftl.written_pages(open) < self.lay.slc_ppb;
        // Without foreground migration (the policy's choice) a region at its trigger takes no
        // new block: the write goes straight to QLC, as drives do once their cache is full.
        let room_left = if self.foreground_migration {
            p.slc_free() > 0
        } else {
            p.slc_free() > self.trigger
        };
        let hot = req_pages <= self.theta_pages
            && (has_room || (room_left && p.free.len() as u32 > self.trigger));
        let pl = &mut self.planes[plane as usize];
        let ftl = &mut self.base.ftl;
        let slc = if hot {
            pl.room(ftl, &self.lay, Mode::Slc, &mut self.modes)
        } else {
            None
        };
        let (blk, mode) = match slc {
            Some(b) => (b, Mode::Slc),
            None => match pl.room(ftl, &self.lay, Mode::Qlc, &mut self.modes) {
                Some(b) => (b, Mode::Qlc),
                None => {
                    return Err(SsdError::DeviceFull(format!(
                        "hybrid device, plane {plane}: no free block for a host write"
                    )))
                }
            },
        };
        let ppn = ftl.external().write_host(lpn, blk)?;
        pl.close_if_full(ftl, &self.lay, mode);
        let programs = ftl.completes_page(ppn);
        let start = ready.max(rec.end);
        let d = if timed && programs {
            self.base
                .res
                .write_in(plane, start, self.times[mode as usize].program_ns)
        } else if timed {
            // Into the write buffer: acknowledged once placed (after the reclaim it waited for).
            OpDone::at(start)
        } else {
            OpDone::at(ready)
        };
        let r = &mut self.report;
        // The page's latency split so that the parts add up: the plane time of the migration
        // and GC steps it waited for, the rest (queueing included) to its program's mode.
        let rest = (d.done - ready).saturating_sub(rec.migration_ns + rec.gc_ns);
        r.migration_wait_ns += rec.migration_ns;
        r.gc_wait_ns += rec.gc_ns;
        match mode {
            Mode::Slc => {
                r.slc_host_pages += 1;
                r.slc_write_ns += rest;
            }
            Mode::Qlc => {
                r.qlc_host_pages += 1;
                r.qlc_write_ns += rest;
            }
        }
        let pd = &mut self.period;
        pd.host_pages += 1;
        pd.slc_pages += u64::from(mode == Mode::Slc);
        let program = if programs {
            self.times[mode as usize].program_ns
        } else {
            0
        };
        pd.cost_ns += program + rec.migration_ns + rec.gc_ns;
        let waited = rec.migration_ns + rec.gc_ns > 0;
        Ok(OpDone {
            done: d.done,
            blocked_by_gc: d.blocked_by_gc || waited,
        })
    }

    /// Check the hybrid device's own invariants (and the FTL's): every block is free, open or
    /// closed in exactly one mode; per-mode counts add up; no SLC block holds more than an SLC
    /// block's pages.
    pub fn check(&self) -> std::result::Result<(), String> {
        self.base.ftl.check_invariants()?;
        let mut seen = 0u64;
        for (i, p) in self.planes.iter().enumerate() {
            let used: u32 = p.in_mode.iter().sum::<u32>() + p.bad;
            if used as usize + p.free.len() != self.lay.bpp as usize {
                return Err(format!(
                    "plane {i}: {} free + {used} in use or bad ≠ {} blocks",
                    p.free.len(),
                    self.lay.bpp
                ));
            }
            let first = i as u32 * self.lay.bpp;
            let bad = (first..first + self.lay.bpp)
                .filter(|&b| self.base.ftl.is_bad(b))
                .count();
            if bad != p.bad as usize {
                return Err(format!("plane {i}: {bad} bad blocks, {} counted", p.bad));
            }
            if self.fixed_region && p.in_mode[Mode::Slc as usize] > p.slc_target {
                return Err(format!(
                    "plane {i}: {} SLC blocks, above the region's {}",
                    p.in_mode[Mode::Slc as usize],
                    p.slc_target
                ));
            }
            for &b in &p.free {
                if self.base.ftl.written_pages(b) != 0 {
                    return Err(format!("free block {b} is not erased"));
                }
            }
            seen += used as u64 + p.free.len() as u64;
            let valid: u64 = self.base.ftl.valid[first as usize..(first + self.lay.bpp) as usize]
                .iter()
                .map(|&v| u64::from(v))
                .sum();
            if valid != self.plane_valid[i] {
                return Err(format!(
                    "plane {i}: {valid} valid pages, {} counted",
                    self.plane_valid[i]
                ));
            }
        }
        for (b, m) in self.modes.iter().enumerate() {
            if *m == Mode::Slc && self.base.ftl.written_pages(b as u32) > self.lay.slc_ppb {
                return Err(format!(
                    "SLC block {b} holds more than {} pages",
                    self.lay.slc_ppb
                ));
            }
        }
        if seen != self.modes.len() as u64 {
            return Err("block counts do not add up".into());
        }
        Ok(())
    }
}
