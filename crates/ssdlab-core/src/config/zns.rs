//! `[zns]`: an NVMe Zoned Namespace device (`ftl.kind = "zoned"`; NVMe Zoned Namespace Command
//! Set 1.1, sections 2.1 "Zoned Namespaces" and 2.3 "Zone Management"). The host writes each
//! zone sequentially at its write pointer (or appends and is told where), and resets a zone to
//! reuse it; the device maps zones onto erase blocks and does no GC.
//!
//! How the specification's parts map onto ssdlab's device (docs/decisions/placement.md):
//! - a **zone** is a fixed set of erase blocks (its size a whole number of blocks); its
//!   **capacity** (the writable part) may be smaller than its size, as on shipping drives;
//! - the **layout** places those blocks: striped one page at a time over blocks on different
//!   channels and dies, or all on the planes of one die group (ConfZNS, Song et al., SYSTOR
//!   2023, section 3, studies both);
//! - **reset** erases the zone's written blocks; **finish** moves the write pointer to the end
//!   without programming (what the specification requires of the state; whether a drive pads
//!   the rest with data is its own business, and we take the cheaper reading);
//! - the **host** side (`host`): a log-structured host translation layer with zone cleaning,
//!   so that block traces run (`cleaner`), or none, the trace then writes zones itself.

use serde::{Deserialize, Serialize};

use super::Registry;
use strum::{EnumIter, EnumMessage, IntoStaticStr};

/// Where a zone's blocks lie (`zns.layout`).
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
pub enum ZoneLayout {
    /// A zone's blocks are on consecutive planes in channel-first order, and its pages go one
    /// to each block in turn: one zone is written with every channel's bandwidth. The default:
    /// what drives that expose large zones do (ConfZNS's "full striping").
    #[default]
    Striped,
    /// A zone's blocks all lie on the planes of one die group (`zns.group_dies` dies), zones
    /// dealt round-robin to the groups: a zone has one group's bandwidth, and zones written at
    /// once run in parallel only if they sit in different groups (ConfZNS's small zones).
    DieGroup,
}

crate::config::impl_registry!(ZoneLayout, "zone layout", "zns.layout", default);
crate::config::impl_try_from_name!(ZoneLayout);

/// What writes the zones (`zns.host`).
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
pub enum ZoneHost {
    /// A log-structured host translation layer with zone cleaning (dm-zoned's reclaim and
    /// ZenFS's zone GC): block writes go to open zones by temperature (`ftl.placement`), and
    /// when free zones run short a victim zone (`gc.victim`) has its valid data read and
    /// appended elsewhere, then is reset. The default: it runs any block trace.
    #[default]
    Cleaner,
    /// No host layer: logical page `p` is page `p mod capacity` of zone `p / capacity`, each
    /// write must land at its zone's write pointer, and a trim of whole zones resets them.
    None,
}

crate::config::impl_registry!(ZoneHost, "zone host", "zns.host", default);
crate::config::impl_try_from_name!(ZoneHost);

/// The `[zns]` section (used with `ftl.kind = "zoned"` only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZnsConfig {
    /// Zone size in KiB, a whole number of erase blocks (0: one block on every plane of the
    /// zone's group — every plane of the device when striped).
    #[serde(default)]
    pub zone_size_kib: u64,
    /// Zone capacity in KiB, at most the size (0: the size). A drive whose zone size is a power
    /// of two for the host's sake exposes less than that as capacity.
    #[serde(default)]
    pub zone_capacity_kib: u64,
    /// The most zones open at once (implicitly or explicitly). 14: Western Digital's ZN540, the
    /// drive most ZNS papers measure.
    #[serde(default = "fourteen")]
    pub max_open: u32,
    /// The most zones active at once (open or closed), at least `max_open`. 14: the ZN540's.
    #[serde(default = "fourteen")]
    pub max_active: u32,
    #[serde(default)]
    pub layout: ZoneLayout,
    /// Dies per group of the `die-group` layout.
    #[serde(default = "one")]
    pub group_dies: u32,
    /// A command against the zone rules stops the run with an error naming the request, instead
    /// of failing alone and being counted.
    #[serde(default)]
    pub strict: bool,
    #[serde(default)]
    pub host: ZoneHost,
    /// The cleaner cleans while fewer zones than this are empty (its `gc.threshold_blocks`,
    /// in zones).
    #[serde(default = "two")]
    pub clean_below_zones: u32,
}

fn fourteen() -> u32 {
    14
}
fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}

impl Default for ZnsConfig {
    fn default() -> Self {
        ZnsConfig {
            zone_size_kib: 0,
            zone_capacity_kib: 0,
            max_open: fourteen(),
            max_active: fourteen(),
            layout: ZoneLayout::default(),
            group_dies: one(),
            strict: false,
            host: ZoneHost::default(),
            clean_below_zones: two(),
        }
    }
}

/// A ZNS geometry resolved against the device's (see [`ZnsConfig::shape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneShape {
    /// Erase blocks per zone.
    pub blocks: u32,
    /// Pages of a zone's size and of its capacity.
    pub size_pages: u32,
    pub capacity_pages: u32,
    /// Planes per group (all of them when striped) and groups.
    pub group_planes: u32,
    pub groups: u32,
    pub zones: u32,
}

/// The most pages a zone may hold (the cleaner's translation numbers a zone's pages in 16
/// bits, as the FTL does a block's).
pub const MAX_ZONE_PAGES: u64 = 65_535;

impl ZnsConfig {
    pub fn is_default(&self) -> bool {
        *self == ZnsConfig::default()
    }

    /// The zones of a device with `g`'s geometry, or the first field that does not fit it.
    pub fn shape(&self, g: &super::Geometry) -> std::result::Result<ZoneShape, (String, String)> {
        let planes = g.planes();
        let group_planes = match self.layout {
            ZoneLayout::Striped => planes,
            ZoneLayout::DieGroup => {
                let dies = g.dies();
                if self.group_dies == 0 || dies % self.group_dies != 0 {
                    return Err((
                        "zns.group_dies".into(),
                        format!(
                            "expected a divisor of the device's {dies} dies, got {}",
                            self.group_dies
                        ),
                    ));
                }
                self.group_dies * g.planes_per_die
            }
        };
        let groups = planes / group_planes;
        let block_kib = u64::from(g.pages_per_block) * u64::from(g.page_size) / 1024;
        let page_kib = f64::from(g.page_size) / 1024.0;
        let blocks = if self.zone_size_kib == 0 {
            u64::from(group_planes)
        } else {
            if block_kib == 0 || self.zone_size_kib % block_kib != 0 {
                return Err((
                    "zns.zone_size_kib".into(),
                    format!(
                        "expected a whole number of {block_kib} KiB erase blocks, got {} KiB",
                        self.zone_size_kib
                    ),
                ));
            }
            self.zone_size_kib / block_kib
        };
        let group_blocks = u64::from(group_planes) * u64::from(g.blocks_per_plane);
        if blocks == 0 || blocks > group_blocks {
            return Err((
                "zns.zone_size_kib".into(),
                format!(
                    "expected at most the {group_blocks} blocks of a zone's group ({} KiB), got \
                     {blocks} blocks",
                    group_blocks * block_kib
                ),
            ));
        }
        let size_pages = blocks * u64::from(g.pages_per_block);
        let capacity_pages = if self.zone_capacity_kib == 0 {
            size_pages
        } else {
            let pages = self.zone_capacity_kib as f64 / page_kib;
            if pages.fract() != 0.0 || pages < 1.0 || pages as u64 > size_pages {
                return Err((
                    "zns.zone_capacity_kib".into(),
                    format!(
                        "expected whole {page_kib} KiB pages, at most the zone size ({} KiB), \
                         got {} KiB",
                        size_pages * u64::from(g.page_size) / 1024,
                        self.zone_capacity_kib
                    ),
                ));
            }
            pages as u64
        };
        if capacity_pages > MAX_ZONE_PAGES {
            return Err((
                "zns.zone_capacity_kib".into(),
                format!(
                    "a zone's capacity is at most {MAX_ZONE_PAGES} pages, got {capacity_pages} \
                     (set zns.zone_capacity_kib or a smaller zns.zone_size_kib)"
                ),
            ));
        }
        let zones = groups as u64 * (group_blocks / blocks);
        Ok(ZoneShape {
            blocks: blocks as u32,
            size_pages: size_pages as u32,
            capacity_pages: capacity_pages as u32,
            group_planes,
            groups,
            zones: zones as u32,
        })
    }

    /// The limits and, with the cleaner, that its open zones fit them and it has room to
    /// clean; `frontiers`: the cleaner's write frontiers (its open zones).
    pub(crate) fn check(
        &self,
        g: &super::Geometry,
        frontiers: usize,
    ) -> std::result::Result<ZoneShape, (String, String)> {
        let shape = self.shape(g)?;
        if self.max_open == 0 {
            return Err(("zns.max_open".into(), "expected at least 1 zone".into()));
        }
        if self.max_active < self.max_open {
            return Err((
                "zns.max_active".into(),
                format!(
                    "expected at least zns.max_open ({}), got {}",
                    self.max_open, self.max_active
                ),
            ));
        }
        if self.host == ZoneHost::Cleaner {
            if frontiers > self.max_open as usize {
                return Err((
                    "zns.max_open".into(),
                    format!(
                        "the cleaner writes {frontiers} zones at once (its host and GC streams, \
                         from ftl.placement), expected zns.max_open of at least that, got {}",
                        self.max_open
                    ),
                ));
            }
            if self.clean_below_zones == 0 {
                return Err((
                    "zns.clean_below_zones".into(),
                    "expected at least 1 zone".into(),
                ));
            }
            let spare = f64::from(shape.zones) * g.spare_factor;
            let need = (self.clean_below_zones as usize + frontiers + 1) as f64;
            if spare < need {
                return Err((
                    "geometry.spare_factor".into(),
                    format!(
                        "the zone cleaner's {spare:.1} spare zones (zones × spare_factor) cannot \
                         hold its {} free zones and {frontiers} open ones: need at least {need}",
                        self.clean_below_zones
                    ),
                ));
            }
        }
        Ok(shape)
    }
}

impl super::DeviceConfig {
    /// A zoned device's zones (`None` on a conventional device; its `[zns]` was checked).
    pub fn zone_shape(&self) -> Option<ZoneShape> {
        if self.ftl.kind != super::FtlKind::Zoned {
            return None;
        }
        self.zns.shape(&self.geometry).ok()
    }

    /// Logical pages a zoned device exports: every zone's capacity with no host layer, and the
    /// cleaner's share of it (less its spare) with one. `None` on a conventional device.
    pub(crate) fn zoned_logical_pages(&self) -> Option<u64> {
        let s = self.zone_shape()?;
        let pages = u64::from(s.zones) * u64::from(s.capacity_pages);
        Some(match self.zns.host {
            ZoneHost::None => pages,
            ZoneHost::Cleaner => ((pages as f64) * (1.0 - self.geometry.spare_factor)) as u64,
        })
    }

    /// The zone cleaner's view of the device, as a configuration its translation layer (a
    /// page-mapped FTL, `ftl::map::Ftl`) is built from: one "plane" whose "blocks" are the
    /// zones, each of the zone capacity's pages, cleaned below `zns.clean_below_zones` free
    /// zones, placed by this device's `ftl.placement`, victims by its `gc.victim`.
    pub fn zone_translation(&self) -> Option<super::DeviceConfig> {
        let s = self.zone_shape()?;
        let mut c = self.clone();
        let g = &mut c.geometry;
        (
            g.channels,
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
        ) = (1, 1, 1, 1);
        g.blocks_per_plane = s.zones;
        g.pages_per_block = s.capacity_pages;
        c.ftl.kind = super::FtlKind::Plain;
        c.gc.threshold_blocks = self.zns.clean_below_zones;
        c.zns = ZnsConfig::default();
        Some(c)
    }

    /// A zoned device: its zones fit the geometry, and the choices it cannot honour are
    /// refused, each with the reason.
    pub(crate) fn check_zoned(&self) -> std::result::Result<(), (String, String)> {
        use super::{FtlKind, SchedulerKind};
        if self.ftl.kind != FtlKind::Zoned {
            if !self.zns.is_default() {
                return Err((
                    "zns".into(),
                    format!(
                        "[zns] configures a zoned device: set ftl.kind = \"zoned\" (this \
                         device's is '{}')",
                        self.ftl.kind.name()
                    ),
                ));
            }
            return Ok(());
        }
        let zoned = "a zoned device (ftl.kind = \"zoned\") does no GC of its own";
        let refuse = |field: &str, why: &str| Err((field.to_string(), format!("{zoned}; {why}")));
        if self.write_cache.on() {
            return refuse(
                "write_cache.mode",
                "a DRAM write cache in front of its zones is not modelled: set \"off\"",
            );
        }
        if self.fdp.on() {
            return refuse(
                "fdp.handles",
                "zones place the data, FDP is for conventional devices",
            );
        }
        if self.ftl.cached_mapping() || self.units_per_page() > 1 {
            return refuse(
                "ftl.mapping",
                "zones map whole pages by address, so a cached map or a mapping unit below the \
                 page does not apply",
            );
        }
        if self.gc.scheduler != SchedulerKind::Blocking {
            return refuse(
                "gc.scheduler",
                "its host cleaner cleans when free zones run short ('blocking' only)",
            );
        }
        if self.ftl.placement == super::Placement::Oracle {
            return refuse(
                "ftl.placement",
                "the cleaner cannot know the next-write times the oracle needs",
            );
        }
        if self.flash.suspend.on() {
            return refuse(
                "flash.suspend",
                "suspending a zone reset's erases is not modelled yet",
            );
        }
        if self.flash.scheduler != super::FlashScheduler::default() {
            return refuse(
                "flash.scheduler",
                "its resets are not queued by a flash scheduler yet: use the default",
            );
        }
        if self.flash.page_types {
            return refuse(
                "flash.page_types",
                "page types are modelled on the plain FTL only",
            );
        }
        let frontiers = match self.zns.host {
            ZoneHost::Cleaner => self.data_streams(),
            ZoneHost::None => 0,
        };
        self.zns.check(&self.geometry, frontiers)?;
        if let Some(t) = self
            .zone_translation()
            .filter(|_| self.zns.host == ZoneHost::Cleaner)
        {
            t.validate("the zone cleaner's view of the zones")
                .map_err(|e| ("zns".to_string(), e.to_string()))?;
        }
        Ok(())
    }
}
