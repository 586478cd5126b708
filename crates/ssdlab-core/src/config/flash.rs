//! `[flash]`: the flash layer's switches (`flash/`, the time lines): the level a GC step blocks
//! at, and the ideal device whose GC costs no time — both from Tiny-Tail Flash's comparison
//! (Yan et al., FAST 2017, Fig. 4), and both meaningful under any FTL; and program/erase
//! suspension (`suspend`, `max_suspensions`: `config::suspend`).

use serde::{Deserialize, Serialize};

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
        }
    }
}

impl FlashConfig {
    pub fn is_default(&self) -> bool {
        *self == FlashConfig::default()
    }

    /// Field checks: suspension needs plane-blocking GC (channel-blocking GC holds the bus a
    /// read must cross) and a cap of at least one.
    pub fn check(&self) -> Result<(), (String, String)> {
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
