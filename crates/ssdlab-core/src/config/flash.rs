//! `[flash]`: the flash layer's switches (`flash/`, the time lines): the level a GC step blocks
//! at, and the ideal device whose GC costs no time — both from Tiny-Tail Flash's comparison
//! (Yan et al., FAST 2017, Fig. 4), and both meaningful under any FTL. Program/erase
//! suspension and read priority (issue 60) belong here too.

use serde::{Deserialize, Serialize};

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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashConfig {
    /// GC blocking level (`plane` = TTFlash `pb`; `channel` = the `base` of the comparison).
    #[serde(default)]
    pub gc_blocking: GcBlocking,
    /// Ideal device: GC happens in the FTL but costs no time on the flash (TTFlash's NoGC).
    #[serde(default)]
    pub nogc: bool,
}

impl FlashConfig {
    pub fn is_default(&self) -> bool {
        *self == FlashConfig::default()
    }
}
