//! SLC-cache policies (`cache.slc`, the [`SlcPolicyKind`] family): how big the SLC region is
//! and which writes go to it, decided from the device's state every decision period. A new
//! policy is one file here plus its variant in `config/cache.rs`; the compiler then asks for its
//! arm in [`build`].
//!
//! The dynamic policies (`ust`, `rl`, `external`) choose among the same discrete settings
//! ([`SIZE_LEVELS`], [`THETA_LEVELS_KIB`]), so a table tuned offline, a Q-table and an outside
//! agent speak one language and results compare setting for setting.

mod dwa;
mod external;
mod fixed;
mod none;
mod rl;
mod ust;

pub use external::ExternalSlc;
pub use rl::{RlState, ACTIONS, RL_ACTIONS, RL_BINS, RL_STATES};

use crate::config::{CacheConfig, SlcPolicyKind};
pub use crate::config::{SIZE_LEVELS, THETA_LEVELS_KIB};
use crate::error::Result;
use crate::rl::QTable;

/// What the device did during one decision period (host page writes since the last decision).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PeriodStats {
    pub host_pages: u64,
    /// Host pages programmed in SLC mode.
    pub slc_pages: u64,
    /// Host page writes whose previous copy sat in an SLC block (the cache caught an overwrite:
    /// the data was hot).
    pub slc_hits: u64,
    /// Write requests that started in the period and their pages.
    pub requests: u64,
    pub request_pages: u64,
    /// The period's write cost (the paper's slide 11): the program time of every host page in its
    /// mode plus the plane time host writes waited for migration and QLC GC, ns.
    pub cost_ns: u64,
}

/// What a policy sees at a decision point (whole device).
#[derive(Debug, Clone, Copy)]
///
/// "Pages" here are mapping units when `ftl.mapping_unit_bytes` is below the page size (the
/// paper's 4 KiB units on 16 KiB pages): the FTL's and the policies' unit of data.
pub struct CacheState {
    pub logical_pages: u64,
    /// Logical pages holding data (written and not trimmed).
    pub mapped_pages: u64,
    pub blocks: u64,
    pub planes: u32,
    pub pages_per_block: u32,
    pub slc_pages_per_block: u32,
    pub page_bytes: u32,
    /// Blocks per plane the device keeps out of either region (the reclaim trigger's free
    /// blocks and the open QLC block).
    pub reserve_per_plane: u32,
    /// Blocks in SLC mode now, and the region's size (the last decision).
    pub slc_blocks: u32,
    pub slc_target: u32,
    pub theta_pages: u64,
    /// Program time of one page in QLC mode per mapping unit it holds, ns (the reward's unit:
    /// what writing one unit costs QLC-only).
    pub qlc_program_ns: u64,
    /// The period that just ended.
    pub period: PeriodStats,
    /// Timing on (off while preconditioning: learning policies do not learn from it).
    pub timed: bool,
}

impl CacheState {
    /// The most blocks an SLC region can have now: whatever the mapped data, were it all in
    /// QLC, and the reserve leave (a block in SLC mode holds no QLC data).
    pub fn free_for_slc(&self) -> u64 {
        let qlc = self.mapped_pages.div_ceil(u64::from(self.pages_per_block));
        self.blocks
            .saturating_sub(qlc)
            .saturating_sub(u64::from(self.reserve_per_plane) * u64::from(self.planes))
    }

    /// Space utilisation: mapped over logical pages.
    pub fn utilisation(&self) -> f64 {
        self.mapped_pages as f64 / self.logical_pages.max(1) as f64
    }

    /// The region of size level `level` ([`SIZE_LEVELS`]) now, in blocks.
    pub fn level_blocks(&self, level: usize) -> u32 {
        let f = SIZE_LEVELS[level.min(SIZE_LEVELS.len() - 1)];
        (self.free_for_slc() as f64 * f).floor() as u32
    }

    /// θ level `level` ([`THETA_LEVELS_KIB`]) in pages (`u64::MAX`: every write).
    pub fn level_theta(&self, level: usize) -> u64 {
        self.theta_pages_of(THETA_LEVELS_KIB[level.min(THETA_LEVELS_KIB.len() - 1)])
    }

    /// θ of `kib` KiB in pages (`u32::MAX` KiB: every write, `u64::MAX` pages).
    pub fn theta_pages_of(&self, kib: u32) -> u64 {
        match kib {
            u32::MAX => u64::MAX,
            kib => (u64::from(kib) * 1024).div_ceil(u64::from(self.page_bytes.max(1))),
        }
    }

    /// The reward of the period that just ended: what it saved per host page against writing
    /// every page in QLC with no waits, in QLC page programs — 1 − cost / (pages × tPROG_qlc).
    /// Positive when the SLC cache paid off (an SLC page with no waits earns
    /// 1 − tPROG_slc / tPROG_qlc), negative when migration and GC waits cost more than it saved.
    /// Measuring against QLC-only rather than from zero is ours: a zero-initialised Q-table
    /// then neither favours nor shuns untried actions. 0 when no host page was written.
    pub fn reward(&self) -> f64 {
        let p = &self.period;
        if p.host_pages == 0 {
            return 0.0;
        }
        1.0 - p.cost_ns as f64 / (p.host_pages as f64 * self.qlc_program_ns.max(1) as f64)
    }
}

/// A policy's decision: the SLC region's size (whole device, blocks), θ (pages: a write
/// request of at most θ pages goes to SLC), and whether a full region migrates before the next
/// SLC write (the paper's simulator) or sends writes straight to QLC (drives with a dynamic
/// cache), migrating in idle time or when the free pool needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub slc_blocks: u32,
    pub theta_pages: u64,
    pub foreground_migration: bool,
}

/// An SLC-cache policy.
pub trait SlcPolicy: Send {
    fn decide(&mut self, s: &CacheState) -> Decision;
    /// The policy's Q-table, if it learns one (`rl`).
    fn q_table(&self) -> Option<&QTable> {
        None
    }
    /// Levels (size, θ) of the current decision, for policies that choose levels.
    fn levels(&self) -> Option<(usize, usize)> {
        None
    }
    /// Start from `table` (pre-training); an error for a policy that keeps none.
    fn set_q_table(&mut self, _table: QTable) -> Result<()> {
        Err(crate::error::SsdError::Invalid(
            "only the 'rl' SLC-cache policy takes a Q-table".into(),
        ))
    }
    /// The outside agent's handle (`external` only).
    fn external(&mut self) -> Option<&mut ExternalSlc> {
        None
    }
}

/// The policy `cfg.slc` names (`theta_pages`: `cache.theta_kib` in pages); errors come from
/// loading `cache.rl.q_table`.
pub fn build(cfg: &CacheConfig, theta_pages: u64, seed: u64) -> Result<Box<dyn SlcPolicy>> {
    Ok(match cfg.policy() {
        SlcPolicyKind::None => Box::new(none::NoCache),
        SlcPolicyKind::Static => Box::new(fixed::Fixed {
            slc_blocks: cfg.slc_blocks,
            theta_pages,
        }),
        SlcPolicyKind::Dwa => Box::new(dwa::Dwa {
            off_fill: cfg.dwa_off_fill,
            static_blocks: cfg.slc_blocks,
            max_dynamic_blocks: cfg.dwa_max_dynamic_blocks,
        }),
        SlcPolicyKind::Ust => Box::new(ust::Ust::new(&cfg.ust_table)),
        SlcPolicyKind::Rl => Box::new(rl::RlSlc::new(&cfg.rl, seed)?),
        SlcPolicyKind::External => Box::new(external::ExternalSlc::new(&cfg.rl)),
    })
}
