//! `[flash]`: the flash layer's switches (`flash/`, the time lines): the level a GC step blocks
//! at, and the ideal device whose GC costs no time — both from Tiny-Tail Flash's comparison
//! (Yan et al., FAST 2017, Fig. 4), and both meaningful under any FTL; and program/erase
//! suspension (`suspend`, `max_suspensions`: `config::suspend`); the order a die serves its
//! queue in (`scheduler`, `max_passes`: `config::flash_scheduler`); and whether pages take the
//! times of their type (`page_types`: `config::page_types`).

use serde::{Deserialize, Serialize};

use super::flash_scheduler::{FlashScheduler, DEFAULT_MAX_PASSES};
use super::suspend::{SuspendMode, DEFAULT_MAX_SUSPENSIONS};

/// Which resource a GC unit step occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcBlocking {
    /// Only the plane being collected (TTFlash "plane-blocking GC", seed Fig. 4c). This is what
    /// the engine always did, so it is the default.
    #[default]
    Plane,
    /// The whole channel of the collected plane: its bus is reserved for the duration of every
    /// copy and erase, so no other plane of the channel can transfer (seed Fig. 4b,
    /// "channel-blocked"). TTFlash's `base` is SSDsim, whose GC holds the channel while it moves
    /// a block; we model that coarser level for `base`.
    Channel,
}

/// The `[flash]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashConfig {
    /// GC blocking level (`plane` = TTFlash `pb`; `channel` = the `base` of the comparison).
    #[serde(default)]
    pub gc_blocking: GcBlocking,
    /// Ideal device: GC happens in the FTL but costs no time on the flash (TTFlash's NoGC).
    #[serde(default)]
    pub nogc: bool,
    /// Which operations a host read suspends (`none`, `erase`, `program-erase`).
    #[serde(default, skip_serializing_if = "is_none")]
    pub suspend: SuspendMode,
    /// Suspensions one program or erase allows; a read finding it at the cap waits.
    #[serde(
        default = "default_max_suspensions",
        skip_serializing_if = "is_default_max"
    )]
    pub max_suspensions: u32,
    /// Which queued operations a host operation passes (`fcfs`, `read-first`,
    /// `preemptible-gc`).
    #[serde(default, skip_serializing_if = "is_fcfs")]
    pub scheduler: FlashScheduler,
    /// Passes one queued operation allows; then it is served in turn.
    #[serde(
        default = "default_max_passes",
        skip_serializing_if = "is_default_passes"
    )]
    pub max_passes: u32,
    /// Pages take the read and program times of their type (`timing.<mode>.page_read_us`,
    /// `page_program_us`, `page_order`); off, every page takes its cell mode's mean times.
    #[serde(default, skip_serializing_if = "is_false")]
    pub page_types: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_fcfs(s: &FlashScheduler) -> bool {
    *s == FlashScheduler::Fcfs
}
fn default_max_passes() -> u32 {
    DEFAULT_MAX_PASSES
}
fn is_default_passes(n: &u32) -> bool {
    *n == DEFAULT_MAX_PASSES
}

fn is_none(m: &SuspendMode) -> bool {
    !m.on()
}
fn default_max_suspensions() -> u32 {
    DEFAULT_MAX_SUSPENSIONS
}
fn is_default_max(n: &u32) -> bool {
    *n == DEFAULT_MAX_SUSPENSIONS
}

impl Default for FlashConfig {
    fn default() -> Self {
        FlashConfig {
            gc_blocking: GcBlocking::Plane,
            nogc: false,
            suspend: SuspendMode::None,
            max_suspensions: DEFAULT_MAX_SUSPENSIONS,
            scheduler: FlashScheduler::Fcfs,
            max_passes: DEFAULT_MAX_PASSES,
            page_types: false,
        }
    }
}

impl FlashConfig {
    pub fn is_default(&self) -> bool {
        *self == FlashConfig::default()
    }

    /// Field checks: suspension and the schedulers need plane-blocking GC (channel-blocking GC
    /// holds the bus a read must cross) and a cap of at least one; a scheduler does not
    /// combine with suspension yet (docs/decisions/flash.md).
    pub fn check(&self) -> Result<(), (String, String)> {
        self.check_scheduler()?;
        if !self.suspend.on() {
            return Ok(());
        }
        if self.gc_blocking == GcBlocking::Channel {
            return Err((
                "flash.suspend".into(),
                "expected flash.gc_blocking = \"plane\" with suspension: channel-blocking GC \
                 holds the channel a suspending read must cross"
                    .into(),
            ));
        }
        if self.max_suspensions == 0 {
            return Err((
                "flash.max_suspensions".into(),
                "expected at least 1 (for no suspension, set flash.suspend = \"none\")".into(),
            ));
        }
        Ok(())
    }
}

impl FlashConfig {
    fn check_scheduler(&self) -> Result<(), (String, String)> {
        if self.scheduler == FlashScheduler::Fcfs {
            return Ok(());
        }
        let key = || "flash.scheduler".to_string();
        if self.gc_blocking == GcBlocking::Channel {
            return Err((
                key(),
                "expected flash.gc_blocking = \"plane\" with a scheduler other than fcfs: \
                 channel-blocking GC holds the channel a passing operation must cross"
                    .into(),
            ));
        }
        if self.suspend.on() {
            return Err((
                key(),
                "expected flash.suspend = \"none\" with a scheduler other than fcfs (passing \
                 and suspension together are not modelled yet)"
                    .into(),
            ));
        }
        if self.max_passes == 0 {
            return Err((
                "flash.max_passes".into(),
                "expected at least 1 (for no passing, set flash.scheduler = \"fcfs\")".into(),
            ));
        }
        Ok(())
    }
}
