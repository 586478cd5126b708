//! `ftl.mapping` and the cached mapping table's settings (`ftl.cmt_*`): whether the FTL holds
//! its whole logical-to-physical map in DRAM (`full`, the default) or caches mappings on demand
//! with translation pages on flash (`cached`: DFTL, Gupta, Kim, Urgaonkar, ASPLOS 2009). The
//! mechanism is `ftl::map::cmt`.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

use super::{FtlConfig, FtlKind, Registry};

/// Where the FTL keeps its logical-to-physical map (`ftl.mapping`).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum MappingKind {
    /// The whole map in DRAM, free to consult (an enterprise drive's 1 GB of DRAM per TB).
    #[default]
    Full,
    /// DFTL (Gupta et al., ASPLOS 2009): a cached mapping table (CMT) of `ftl.cmt_entries`,
    /// translation pages on flash with their own frontier, blocks and GC, the directory (GTD)
    /// in RAM.
    Cached,
}

crate::config::impl_registry!(MappingKind, "mapping scheme", "ftl.mapping", default);

crate::config::impl_try_from_name!(MappingKind);

/// Which cached mapping gives up its entry (`ftl.cmt_policy`). One file each in
/// `ftl/map/cmt/`.
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum CmtPolicy {
    /// Least recently used: DFTL's "segmented LRU array" (a real and a ghost segment, 6,552 and
    /// 1,640 entries in the authors' FlashSim code), whose victims are one LRU list's.
    #[default]
    Lru,
    /// CLOCK (second chance): a reference bit per entry and a sweeping hand, as FEMU's CMT.
    Clock,
}

crate::config::impl_registry!(CmtPolicy, "CMT replacement", "ftl.cmt_policy", default);

crate::config::impl_try_from_name!(CmtPolicy);

/// Bytes of CMT memory per cached entry: a logical and a physical page number of 4 bytes
/// each (DFTL §3: the CMT holds (LPN, PPN) pairs; a translation page holds PPNs only).
pub const CMT_ENTRY_BYTES: u64 = 8;

/// Bytes of a translation page per mapping: one 4-byte physical page number, the entries
/// indexed by their place in the page (DFTL §3.1).
pub const TRANSLATION_ENTRY_BYTES: u32 = 4;

impl FtlConfig {
    /// Is the map cached (`ftl.mapping = "cached"`)?
    pub fn cached_mapping(&self) -> bool {
        self.mapping == MappingKind::Cached
    }

    /// The CMT's capacity in entries, as set (`cmt_entries`, or `cmt_bytes` over
    /// [`CMT_ENTRY_BYTES`]); `None` with the full map.
    pub fn cmt_capacity(&self) -> Option<u64> {
        if !self.cached_mapping() {
            return None;
        }
        self.cmt_entries
            .or_else(|| self.cmt_bytes.map(|b| b / CMT_ENTRY_BYTES))
    }

    /// The mapping settings, alone and with the FTL kind and the mapping unit.
    pub(super) fn check_mapping(&self) -> Result<(), (String, String)> {
        let bad = |f: &str, m: String| Err((format!("ftl.{f}"), m));
        if !self.cached_mapping() {
            for (f, given) in [
                ("cmt_entries", self.cmt_entries.is_some()),
                ("cmt_bytes", self.cmt_bytes.is_some()),
                ("cmt_policy", self.cmt_policy.is_some()),
            ] {
                if given {
                    return bad(
                        f,
                        "a cached mapping table's setting: set ftl.mapping = \"cached\" (this \
                         device's map is held whole)"
                            .into(),
                    );
                }
            }
            return Ok(());
        }
        match (self.cmt_entries, self.cmt_bytes) {
            (Some(_), Some(_)) => {
                return bad(
                    "cmt_bytes",
                    "expected ftl.cmt_entries or ftl.cmt_bytes, not both".into(),
                )
            }
            (None, None) => {
                return bad(
                    "mapping",
                    "a cached map needs its size: set ftl.cmt_entries or ftl.cmt_bytes".into(),
                )
            }
            _ => {}
        }
        let cap = self.cmt_capacity().unwrap_or(0);
        if cap == 0 {
            let f = if self.cmt_entries.is_some() {
                "cmt_entries"
            } else {
                "cmt_bytes"
            };
            return bad(
                f,
                format!(
                    "expected room for at least one mapping ({CMT_ENTRY_BYTES} bytes an entry)"
                ),
            );
        }
        if self.kind != FtlKind::Plain {
            return bad(
                "mapping",
                format!(
                    "a cached map runs on the plain FTL only: the {} FTL moves pages outside \
                     the CMT's bookkeeping ({}), so its results would not count the \
                     translation work; set ftl.kind = \"plain\" or ftl.mapping = \"full\"",
                    self.kind.name(),
                    match self.kind {
                        FtlKind::Hybrid => "its SLC-to-QLC migration",
                        _ => "its stripe-group GC and parity pages",
                    }
                ),
            );
        }
        Ok(())
    }
}
