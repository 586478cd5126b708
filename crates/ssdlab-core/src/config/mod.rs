//! Typed device configuration, one section per layer and its parts: `[geometry]` and
//! `[timing]` (the flash), `[flash]` (its switches), `[ftl]` (which FTL, mapping, placement),
//! `[gc]`, `[cache]` (the hybrid FTL's SLC cache), `[rain]` (the RAIN FTL's), `[write_cache]`
//! (the DRAM cache layer), `[host]` (the host interface's arbitration); loaded from TOML with every field validated, named presets shipped
//! in the crate, `section.key=value` overrides, and a one-line error for a key that moved
//! (`renamed`).

mod advice;
mod cache;
mod endurance;
mod fdp;
mod flash;
mod flash_scheduler;
mod geometry;
mod host;
mod mapping;
mod page_types;
mod partial;
mod policy;
mod presets;
mod rain;
mod registry;
mod reliability;
mod renamed;
mod scheduler;
mod stack;
mod suspend;
mod timing;
mod victim;
mod wear_leveling;
mod write_cache;
mod zns;

pub use advice::Advisory;
pub use cache::{
    plane_share, CacheConfig, SlcPolicyKind, SlcRlConfig, UstRow, SIZE_LEVELS, THETA_LEVELS_KIB,
};
pub use endurance::EnduranceConfig;
pub use fdp::{FdpConfig, HandleType, MAX_HANDLES};
pub use flash::{FlashConfig, GcBlocking};
pub use flash_scheduler::{FlashScheduler, DEFAULT_MAX_PASSES};
pub use geometry::{Geometry, MAX_PHYSICAL_PAGES};
pub use host::{Arbitration, HostConfig, MAX_WEIGHT};
pub use mapping::{CmtPolicy, MappingKind, CMT_ENTRY_BYTES, TRANSLATION_ENTRY_BYTES};
pub use page_types::{PageOrder, PageTimes};
pub use partial::{PartialConfig, RlConfig};
pub use policy::{Allocation, FtlConfig, FtlKind, GcConfig, Placement};
pub use presets::{preset, preset_names, PRESETS};
pub use rain::{
    OpenParity, ParitySpace, RainConfig, RainLayout, MAX_RAIN_CHANNELS, MIN_RAIN_CHANNELS,
};
pub(crate) use registry::{impl_registry, impl_try_from_name};
pub use registry::{Family, Member, Registry};
pub use reliability::{
    default_model, rated_endurance, RberModel, ReliabilityConfig, SoftTier, MAX_RETRY_STEPS,
    MAX_SOFT_TIERS,
};
pub use scheduler::SchedulerKind;
pub use stack::MECHANISMS;
pub use suspend::{default_times, SuspendMode, SuspendTimes, DEFAULT_MAX_SUSPENSIONS};
pub use timing::{us_to_ns, CellMode, ModeTiming, OpTimes, Timing, MAX_OP_US, MAX_OVERHEAD_NS};
pub use victim::VictimPolicy;
pub use wear_leveling::WearLevelingConfig;
pub use write_cache::{CacheMode, EvictionKind, FlushPolicy, WriteCacheConfig, MAX_CACHE_MIB};
pub use zns::{ZnsConfig, ZoneHost, ZoneLayout, ZoneShape, MAX_ZONE_PAGES};

use serde::{Deserialize, Serialize};

use crate::error::{Result, SsdError};

/// A whole device: what `ssdlab run --device` names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// Free-text name (the preset name, or the file's).
    #[serde(default)]
    pub name: String,
    pub geometry: Geometry,
    pub timing: Timing,
    #[serde(default)]
    pub ftl: FtlConfig,
    #[serde(default)]
    pub gc: GcConfig,
    /// The flash layer's switches (GC blocking level, the ideal NoGC).
    #[serde(default, skip_serializing_if = "FlashConfig::is_default")]
    pub flash: FlashConfig,
    /// The RAIN FTL's settings (`ftl.kind = "rain"`).
    #[serde(default, skip_serializing_if = "RainConfig::is_default")]
    pub rain: RainConfig,
    /// The hybrid FTL's SLC cache (`ftl.kind = "hybrid"`).
    #[serde(default, skip_serializing_if = "CacheConfig::is_default")]
    pub cache: CacheConfig,
    /// The DRAM write cache between the host interface and the FTL (off by default).
    #[serde(default, skip_serializing_if = "WriteCacheConfig::is_default")]
    pub write_cache: WriteCacheConfig,
    /// The host interface's command arbitration among several flows (`[host]`).
    #[serde(default, skip_serializing_if = "HostConfig::is_default")]
    pub host: HostConfig,
    /// Flexible Data Placement (`[fdp]`; off by default).
    #[serde(default, skip_serializing_if = "FdpConfig::is_default")]
    pub fdp: FdpConfig,
    /// A zoned namespace's zones (`[zns]`; with `ftl.kind = "zoned"` only).
    #[serde(default, skip_serializing_if = "ZnsConfig::is_default")]
    pub zns: ZnsConfig,
    /// Flash errors, ECC and read retries (`[reliability]`; off by default).
    #[serde(default, skip_serializing_if = "ReliabilityConfig::is_default")]
    pub reliability: ReliabilityConfig,
    /// Dynamic and static wear levelling (`[wear_leveling]`; off by default).
    #[serde(default, skip_serializing_if = "WearLevelingConfig::is_default")]
    pub wear_leveling: WearLevelingConfig,
    /// Bad blocks and end of life (`[endurance]`; off by default).
    #[serde(default, skip_serializing_if = "EnduranceConfig::is_default")]
    pub endurance: EnduranceConfig,
}

impl DeviceConfig {
    /// Parse TOML text, apply `section.key=value` overrides, deserialize and validate.
    /// `origin` names the file (or preset) in error messages.
    pub fn from_toml(text: &str, origin: &str, overrides: &[String]) -> Result<Self> {
        let mut value: toml::Value =
            toml::from_str(text).map_err(|e| toml_error(origin, text, &e))?;
        for o in overrides {
            apply_override(&mut value, o)?;
        }
        let what = if overrides.is_empty() {
            origin.to_string()
        } else {
            format!("{origin} (with --set overrides)")
        };
        renamed::check_moved(&value, &what)?;
        // Through serde_path_to_error, so that a bad value names its field (`gc.victim: …`).
        let cfg: DeviceConfig = serde_path_to_error::deserialize(value).map_err(
            |e: serde_path_to_error::Error<toml::de::Error>| {
                let what = if overrides.is_empty() {
                    origin.to_string()
                } else {
                    format!("{origin} (with --set overrides)")
                };
                let path = e.path().to_string();
                let msg = one_line(e.inner().message());
                if path == "." || path.is_empty() {
                    SsdError::config(what, msg)
                } else {
                    SsdError::config(what, format!("{path}: {msg}"))
                }
            },
        )?;
        cfg.validate(origin)?;
        Ok(cfg)
    }

    /// A device from a preset name or TOML text (`origin` names the file), with overrides.
    pub fn load(preset_or_toml: &str, origin: &str, overrides: &[String]) -> Result<Self> {
        if preset(preset_or_toml).is_some() {
            Self::from_preset(preset_or_toml, overrides)
        } else {
            let mut cfg = Self::from_toml(preset_or_toml, origin, overrides)?;
            if cfg.name.is_empty() {
                cfg.name = origin.to_string();
            }
            Ok(cfg)
        }
    }

    /// A shipped preset by name, with overrides.
    pub fn from_preset(name: &str, overrides: &[String]) -> Result<Self> {
        let text = preset(name).ok_or_else(|| {
            SsdError::config(
                "--device",
                format!(
                    "unknown preset '{name}'; expected one of: {}",
                    preset_names().join(", ")
                ),
            )
        })?;
        let mut cfg = Self::from_toml(text, &format!("preset {name}"), overrides)?;
        if cfg.name.is_empty() {
            cfg.name = name.to_string();
        }
        Ok(cfg)
    }

    /// All checks, each naming the field. A configuration that passes them cannot make the
    /// engine panic or overflow: every rule the code relies on (geometry products that fit the
    /// FTL's u32 page numbers, bounded operation times, RAIN's channel masks) is checked here.
    pub fn validate(&self, origin: &str) -> Result<()> {
        let err =
            |(field, msg): (String, String)| SsdError::config(origin, format!("{field}: {msg}"));
        if self.gc.threshold_blocks == 0 {
            return Err(err((
                "gc.threshold_blocks".into(),
                "expected at least 1 free block".into(),
            )));
        }
        self.ftl.check().map_err(err)?;
        let g = &self.geometry;
        g.check_shape().map_err(err)?;
        if self.gc.threshold_blocks >= g.blocks_per_plane {
            return Err(err((
                "gc.threshold_blocks".into(),
                format!(
                    "expected fewer free blocks than geometry.blocks_per_plane ({}), got {}",
                    g.blocks_per_plane, self.gc.threshold_blocks
                ),
            )));
        }
        self.fdp.check(g.planes()).map_err(err)?;
        g.check(u64::from(self.gc.threshold_blocks) + self.frontiers() as u64)
            .map_err(err)?;
        self.timing.check(g.page_size).map_err(err)?;
        self.flash.check().map_err(err)?;
        self.check_page_types().map_err(err)?;
        self.gc.rl.check().map_err(err)?;
        self.gc.partial.check().map_err(err)?;
        if self.ftl.kind == FtlKind::Rain {
            self.rain.check(g.channels).map_err(err)?;
        }
        self.write_cache.check().map_err(err)?;
        self.host.check().map_err(err)?;
        self.check_model().map_err(err)?;
        self.check_mapping_unit().map_err(err)?;
        self.check_zoned().map_err(err)?;
        self.reliability.check().map_err(err)?;
        self.check_reliability().map_err(err)?;
        self.check_wear_leveling().map_err(err)?;
        self.check_endurance().map_err(err)?;
        Ok(())
    }

    /// Settings the device's layers cannot honour are refused, never silently ignored: one
    /// layer's settings given to another's implementation, and the combinations of choices
    /// that do not compose.
    fn check_model(&self) -> std::result::Result<(), (String, String)> {
        let kind = self.ftl.kind;
        if kind != FtlKind::Hybrid && self.cache.slc.is_some() {
            return Err((
                "cache.slc".into(),
                format!(
                    "the SLC cache is the hybrid FTL's: set ftl.kind = \"hybrid\" (this device's \
                     is '{}')",
                    kind.name()
                ),
            ));
        }
        if let Some(m) = self
            .rain
            .first_mechanism()
            .filter(|_| kind != FtlKind::Rain)
        {
            return Err((
                format!("rain.{m}"),
                format!(
                    "a RAIN FTL setting: set ftl.kind = \"rain\" (this device's is '{}')",
                    kind.name()
                ),
            ));
        }
        if kind == FtlKind::Hybrid {
            self.check_hybrid()?;
        }
        if kind == FtlKind::Rain {
            self.check_rain()?;
        }
        if self.rain.rotating_flush && !self.has_gtf() {
            return Err((
                "rain.rotating_flush".into(),
                "rotates the GC-aware flush: needs write_cache.mode = \"write-back\" and \
                 write_cache.flush = \"gc-aware\""
                    .into(),
            ));
        }
        if self.fdp.on() {
            self.check_fdp()?;
        }
        if self.write_cache.on() && self.ftl.placement == Placement::Oracle {
            return Err((
                "ftl.placement".into(),
                "the write cache coalesces and reorders writes, so the oracle's next-write times \
                 do not apply; use another placement or write_cache.mode = \"off\""
                    .into(),
            ));
        }
        Ok(())
    }

    /// FDP: the host's handles place the data, on the plain FTL.
    fn check_fdp(&self) -> std::result::Result<(), (String, String)> {
        if self.ftl.kind != FtlKind::Plain {
            return Err((
                "fdp.handles".into(),
                format!(
                    "FDP is modelled on the plain FTL (ftl.kind = \"plain\"); the '{}' FTL \
                     places pages itself",
                    self.ftl.kind.name()
                ),
            ));
        }
        if self.ftl.placement != Placement::Single {
            return Err((
                "ftl.placement".into(),
                format!(
                    "with FDP the host's placement handles choose each write's frontier (GC has \
                     its own); set ftl.placement = \"single\", got '{}'",
                    self.ftl.placement.name()
                ),
            ));
        }
        Ok(())
    }

    /// Data write frontiers per plane: the placement policy's, or FDP's handles and GC's.
    pub fn data_streams(&self) -> usize {
        if self.fdp.on() {
            self.fdp.streams()
        } else {
            self.ftl.streams()
        }
    }

    /// Write frontiers per plane, the translation pages' own included (`mapping = "cached"`).
    pub fn frontiers(&self) -> usize {
        self.data_streams() + usize::from(self.ftl.cached_mapping())
    }

    /// The RAIN FTL: its GC and placement are its own.
    fn check_rain(&self) -> std::result::Result<(), (String, String)> {
        if self.rain.layout == RainLayout::Logical {
            self.check_logical_parity_room()?;
        }
        let rain = if self.rain.layout == RainLayout::Logical {
            "a RAIN FTL with logical stripes (rain.layout = \"logical\") pins every page to a \
             plane of its stripe and runs its own GC triggers (rotating with rain.rgc)"
        } else {
            "a RAIN FTL (ftl.kind = \"rain\") collects whole super-blocks with its own \
             stripe-group GC (rotating with rain.rgc)"
        };
        if self.gc.scheduler != SchedulerKind::Blocking {
            return Err((
                "gc.scheduler".into(),
                format!(
                    "{rain}; it takes 'blocking' only, got '{}'",
                    self.gc.scheduler.name()
                ),
            ));
        }
        if self.ftl.placement != Placement::Single {
            return Err((
                "ftl.placement".into(),
                format!(
                    "{rain}, writing host data into one super-block stripe at a time; it takes \
                     'single' only"
                ),
            ));
        }
        if self.ftl.allocation != Allocation::RoundRobin {
            return Err((
                "ftl.allocation".into(),
                format!("{rain}, allocating stripes over its groups; it takes 'round-robin' only"),
            ));
        }
        Ok(())
    }

    /// Logical stripes map one parity page per N − 1 user pages: with parity out of the spare
    /// (`rain.parity_space = "spare"`) the flash must still hold them and GC's free blocks.
    fn check_logical_parity_room(&self) -> std::result::Result<(), (String, String)> {
        let p = self.rain_physical();
        let g = &p.geometry;
        let room = u64::from(self.gc.threshold_blocks) + self.data_streams() as u64;
        if g.spare_factor > 0.0 && g.check(room).is_ok() {
            return Ok(());
        }
        Err((
            "rain.parity_space".into(),
            format!(
                "logical stripes map one parity page per {} user pages; out of a spare of {} \
                 they leave the flash no room for GC; use \"extra\" (parity on top) or a spare \
                 well above 1/{}",
                self.geometry.channels.saturating_sub(1),
                self.geometry.spare_factor,
                self.geometry.channels
            ),
        ))
    }

    /// The hybrid SLC/QLC device: what it cannot honour, and whether its blocks can hold the
    /// logical capacity beside the SLC region.
    fn check_hybrid(&self) -> std::result::Result<(), (String, String)> {
        let hybrid = "a hybrid SLC/QLC FTL (ftl.kind = \"hybrid\") reclaims on its own \
                      triggers (cache.free_trigger) and places pages itself";
        if self.gc.scheduler != SchedulerKind::Blocking {
            return Err((
                "gc.scheduler".into(),
                format!(
                    "{hybrid}; it takes 'blocking' only, got '{}'",
                    self.gc.scheduler.name()
                ),
            ));
        }
        if self.ftl.placement != Placement::Single || self.ftl.allocation != Allocation::RoundRobin
        {
            return Err((
                "ftl.placement".into(),
                format!("{hybrid}; it takes placement 'single' and allocation 'round-robin' only"),
            ));
        }
        let g = &self.geometry;
        let c = &self.cache;
        let bits = g.cell_mode.bits_per_cell();
        if g.pages_per_block < bits {
            return Err((
                "geometry.pages_per_block".into(),
                format!("an SLC-mode block holds pages_per_block / {bits} pages; expected at least {bits}"),
            ));
        }
        if c.free_trigger == 0 || c.free_trigger >= g.blocks_per_plane {
            return Err((
                "cache.free_trigger".into(),
                format!(
                    "expected 1 to {} free blocks per plane, got {}",
                    g.blocks_per_plane - 1,
                    c.free_trigger
                ),
            ));
        }
        c.check_policies()?;
        if !(c.dwa_off_fill > 0.0 && c.dwa_off_fill <= 1.0) {
            return Err((
                "cache.dwa_off_fill".into(),
                format!("expected a fill level in (0, 1], got {}", c.dwa_off_fill),
            ));
        }
        let planes = u64::from(g.planes());
        // The static region, or dwa's static part, must fit beside the logical capacity.
        let slc = match c.policy() {
            SlcPolicyKind::Static | SlcPolicyKind::Dwa => u64::from(c.slc_blocks),
            _ => 0,
        };
        // Worst case: the SLC region full of invalid pages while QLC holds every logical page,
        // plus the trigger's free blocks and one open QLC block.
        let per_plane_pages = g.logical_pages().div_ceil(planes);
        let need = slc.div_ceil(planes)
            + per_plane_pages.div_ceil(u64::from(g.pages_per_block))
            + u64::from(c.free_trigger)
            + 2;
        if need > u64::from(g.blocks_per_plane) {
            let room =
                u64::from(g.blocks_per_plane).saturating_sub(need - slc.div_ceil(planes)) * planes;
            return Err((
                "cache.slc_blocks".into(),
                format!(
                    "{} SLC blocks do not fit beside the logical capacity ({} blocks per plane \
                     needed, {} available); expected at most {room} (or more spare)",
                    slc, need, g.blocks_per_plane
                ),
            ));
        }
        Ok(())
    }

    /// Bytes of one mapping unit (the page size unless `ftl.mapping_unit_bytes` is set).
    pub fn unit_bytes(&self) -> u32 {
        self.ftl
            .mapping_unit_bytes
            .unwrap_or(self.geometry.page_size)
    }

    /// Mapping units per flash page (1 unless `ftl.mapping_unit_bytes` is below the page size).
    pub fn units_per_page(&self) -> u32 {
        (self.geometry.page_size / self.unit_bytes().max(1)).max(1)
    }

    /// Logical units exported to the host (the FTL's logical "pages": the engine maps byte
    /// offsets to units).
    pub fn logical_units(&self) -> u64 {
        match self.zoned_logical_pages() {
            Some(pages) => pages,
            None => self.geometry.logical_pages() * u64::from(self.units_per_page()),
        }
    }

    /// `ftl.mapping_unit_bytes`: a power of two from 512 bytes to the page size, the device's
    /// units numbered in 32 bits, and a device model that maps units (not RAIN, whose parity
    /// stripes are whole pages).
    fn check_mapping_unit(&self) -> std::result::Result<(), (String, String)> {
        let Some(u) = self.ftl.mapping_unit_bytes else {
            return Ok(());
        };
        let page = self.geometry.page_size;
        if self.ftl.cached_mapping() && u < page {
            return Err((
                "ftl.mapping_unit_bytes".into(),
                format!(
                    "a cached map (ftl.mapping = \"cached\") maps whole pages: its translation \
                     pages are flash pages, which sub-page units ({u} of {page} bytes) would not \
                     place; leave ftl.mapping_unit_bytes out"
                ),
            ));
        }
        let field = || "ftl.mapping_unit_bytes".to_string();
        if !(u >= 512 && u.is_power_of_two() && u <= page) {
            return Err((
                field(),
                format!(
                    "expected a power of two from 512 bytes up to geometry.page_size ({page}), got {u}"
                ),
            ));
        }
        let units = self
            .geometry
            .physical_pages()
            .saturating_mul(u64::from(page / u));
        if units >= geometry::MAX_PHYSICAL_PAGES {
            return Err((
                field(),
                format!(
                    "{units} units of {u} bytes, but the FTL numbers them in 32 bits (fewer than 2^32 - 1); expected a larger unit or a smaller device"
                ),
            ));
        }
        if u < page && self.ftl.kind == FtlKind::Rain {
            return Err((
                field(),
                "the RAIN FTL protects whole pages with parity; it maps whole pages only".into(),
            ));
        }
        Ok(())
    }

    pub fn op_times(&self) -> OpTimes {
        OpTimes::new(
            &self.timing,
            self.geometry.cell_mode,
            self.geometry.page_size,
        )
    }

    /// The configuration as TOML (for `ssdlab devices --show` and result provenance).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}

/// Apply one `section.key=value` (or `section.sub.key=value`) override. The value is parsed as a
/// TOML value (number, bool, string, array); a bare word is taken as a string.
pub fn apply_override(root: &mut toml::Value, spec: &str) -> Result<()> {
    let bad = |m: String| SsdError::config(format!("--set {spec}"), m);
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| bad("expected section.key=value".into()))?;
    let keys: Vec<&str> = path.trim().split('.').collect();
    if keys.len() < 2 || keys.iter().any(|k| k.is_empty()) {
        return Err(bad("expected section.key=value, e.g. gc.victim=fifo".into()));
    }
    let raw = raw.trim();
    let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let mut node = root;
    for k in &keys[..keys.len() - 1] {
        let table = node
            .as_table_mut()
            .ok_or_else(|| bad(format!("'{k}' is not a section")))?;
        node = table
            .entry(k.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    }
    let table = node
        .as_table_mut()
        .ok_or_else(|| bad(format!("'{}' is not a section", keys[keys.len() - 2])))?;
    // Integers given where the existing field is a float (or the reverse) are coerced.
    let last = keys[keys.len() - 1].to_string();
    let value = match (table.get(&last), parsed) {
        (Some(toml::Value::Float(_)), toml::Value::Integer(i)) => toml::Value::Float(i as f64),
        (_, v) => v,
    };
    table.insert(last, value);
    Ok(())
}

fn toml_error(origin: &str, text: &str, e: &toml::de::Error) -> SsdError {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    match line {
        Some(l) => SsdError::config(format!("{origin}:{l}"), one_line(e.message())),
        None => SsdError::config(origin, one_line(e.message())),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
