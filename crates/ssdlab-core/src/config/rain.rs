//! `[rain]` section: the RAIN FTL's settings (`ftl.kind = "rain"`; Tiny-Tail Flash, Yan et
//! al., FAST 2017): parity's room and layout, GC-tolerant reads (`gtr`), rotating GC (`rgc`)
//! and ssdlab's two extensions. The paper's other mechanisms are other layers' now: the GC
//! blocking level and the ideal NoGC are the flash layer's (`[flash]`), the GC-tolerant flush
//! the write cache's (`write_cache.flush = "gc-aware"`); `config::stack` composes the paper's
//! stacks across them.

use serde::{Deserialize, Serialize};

use super::{DeviceConfig, FtlKind};

/// Fewest channels a RAIN stripe spans (two data pages and a parity page).
pub const MIN_RAIN_CHANNELS: u32 = 3;
/// Most channels a RAIN stripe spans (per-stripe channel sets are u64 bit masks).
pub const MAX_RAIN_CHANNELS: u32 = 64;

/// Where RAIN's parity pages take their room from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParitySpace {
    /// Provisioned on top (the paper's accounting: "additional P/E cycles due to RAIN", ideally
    /// 1/7, at the same user capacity and utilisation): the RAIN device has ⌈N/(N − 1)⌉ × the
    /// blocks per plane and exports the same logical pages as the plain device, so its data
    /// area is as full as the plain device's whole flash. `geometry` describes the plain
    /// device; the RAIN model builds its enlarged one ([`crate::config::DeviceConfig::rain_physical`]).
    Extra,
    /// Out of the given flash and spare: same physical flash and user capacity as the plain
    /// device, parity raising the utilisation of the rest (docs/ttflash.md: +56–99 % erases at
    /// 40 % spare; a 10 % spare cannot hold it at all).
    Spare,
}

/// How RAIN stripes are laid out, which decides how GC can work under parity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RainLayout {
    /// Physical stripes in super-blocks (ssdlab's default, how RAIN SSDs keep parity without
    /// rewriting it): host pages fill a super-block stripe by stripe, one parity page per
    /// N − 1 data pages, and GC collects whole super-blocks, all N planes of a group together
    /// (`ftl/rain/mod.rs`).
    SuperBlock,
    /// Logical stripes, the paper's SSDsim (its `raid` option, allocation mode 5): stripe s holds
    /// logical pages s·(N − 1) … s·(N − 1) + N − 2, each pinned to one plane of group s mod G,
    /// and a parity page of its own on the remaining plane (rotating). A page never leaves its
    /// plane (GC copies stay on the plane), so every plane collects on its own — per-plane
    /// victims, per-plane GC — and parity stays valid; the price is a parity read-modify-write
    /// on every write that does not cover its whole stripe (`ftl/rain/logical.rs`).
    Logical,
}

/// Where an open stripe's parity is kept while the stripe fills (super-block layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpenParity {
    /// In the controller's RAM, as a running XOR (ssdlab's default): a RAIN controller
    /// accumulates a stripe's parity in an XOR buffer while its pages are programmed, so every
    /// page of an open stripe (host or GC) is rebuildable from that parity and the stripe's
    /// other pages. GC then erases a victim as soon as it is copied, and a GC stripe stays open
    /// until it is full or its super-block is sealed: GC stripes fill (7.0 of 7 data pages
    /// against 6.2) and no victim waits, which at the `ttflash` preset's 10 % spare cuts the
    /// extra P/E due to RAIN from +48 % to +19 % at steady state (docs/ttflash.md, round 12).
    /// It costs one page of RAM per open stripe: about one block's worth of pages per group,
    /// since a victim is copied member by member (`rain.open_gc_stripes_max` reports the peak;
    /// 701 pages, 2.7 MiB, on the preset at 64 pages per block). A power loss loses nothing:
    /// every page the parity covers is on flash, and the parity is recomputed from them. The
    /// paper does not say how its GC keeps copies protected; this is our reading of a RAIN
    /// controller.
    Ram,
    /// Nowhere until the stripe closes (rounds 5–11 of docs/ttflash.md): a GC copy is
    /// protected by the victim's intact stripe (rebuilt through the page it was copied from),
    /// so a victim waits until its copies' stripes close, which they do, short if need be, two
    /// rounds after they open; an open host stripe's pages are not rebuildable.
    Victim,
}

/// `[rain]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RainConfig {
    /// GC-tolerant read: rebuild a page on a GC-busy plane from its stripe when that is sooner.
    #[serde(default)]
    pub gtr: bool,
    /// Rotating GC: at most one plane per parity group collects at a time.
    #[serde(default)]
    pub rgc: bool,
    /// Parallel forced GC (`pfg`; an ssdlab extension, not in the paper): when a host write
    /// finds no group with room, the forced GC runs its operations on all planes of the group
    /// at once (plane-blocking speed) instead of one plane at a time, and reads are not rebuilt
    /// while another plane of their group collects. Trades the rotation guarantee during forced
    /// GC for 8× its bandwidth under write bursts; docs/ttflash.md measures both.
    #[serde(default)]
    pub parallel_forced_gc: bool,
    /// Rotating flush (`rf`; an ssdlab extension, not in the paper): the GTF flush programs a
    /// group's pages (parity included) one at a time, on the same chain as rotating GC (GC
    /// first: a collecting group's pages wait), so that at most one plane per group programs
    /// or collects; and a read whose plane is busy with a host program is rebuilt from its
    /// stripe (as GTR does for GC) when that is sooner. Removes the reads queued behind RAIN's
    /// extra programs, the cause of ttFlash's read p99 above NoGC (docs/ttflash.md, round 9).
    /// Costs flush bandwidth: from a high-water mark (halfway from `flush_at` to full) the
    /// flush programs in parallel again, one program per plane at a time.
    #[serde(default)]
    pub rotating_flush: bool,
    /// Where parity's room comes from (default `extra`: on top, the paper's accounting).
    #[serde(default = "parity_space")]
    pub parity_space: ParitySpace,
    /// Stripe layout (default `super-block`; `logical` is the paper's SSDsim, with per-plane GC).
    #[serde(default = "layout")]
    pub layout: RainLayout,
    /// Where an open stripe's parity is kept (default `ram`; `victim`: rounds 5–11's design,
    /// open GC stripes protected by their victims). Super-block layout only.
    #[serde(default = "open_parity")]
    pub open_parity: OpenParity,
}

fn parity_space() -> ParitySpace {
    ParitySpace::Extra
}
fn layout() -> RainLayout {
    RainLayout::SuperBlock
}
fn open_parity() -> OpenParity {
    OpenParity::Ram
}

impl Default for RainConfig {
    fn default() -> Self {
        RainConfig {
            gtr: false,
            rgc: false,
            parallel_forced_gc: false,
            rotating_flush: false,
            parity_space: parity_space(),
            layout: layout(),
            open_parity: open_parity(),
        }
    }
}

impl RainConfig {
    pub fn is_default(&self) -> bool {
        *self == RainConfig::default()
    }

    /// The first mechanism switched on (`gtr`, `rgc`, `parallel_forced_gc`,
    /// `rotating_flush`), for an error naming it on another FTL; `None` when none is. (The
    /// layout choices — `parity_space`, `layout`, `open_parity` — say how a RAIN FTL would be
    /// laid out, so a device that stacks add RAIN to may carry them: an advisory, not an error.)
    pub fn first_mechanism(&self) -> Option<&'static str> {
        [
            (self.gtr, "gtr"),
            (self.rgc, "rgc"),
            (self.parallel_forced_gc, "parallel_forced_gc"),
            (self.rotating_flush, "rotating_flush"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }

    /// The first layout choice set away from its default (see [`Self::first_mechanism`]).
    pub fn first_layout_choice(&self) -> Option<&'static str> {
        let d = RainConfig::default();
        [
            (self.parity_space != d.parity_space, "parity_space"),
            (self.layout != d.layout, "layout"),
            (self.open_parity != d.open_parity, "open_parity"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }

    /// Field checks of a RAIN FTL's section (`ftl.kind = "rain"`); `channels` is the
    /// device's (a RAIN stripe spans them).
    pub fn check(&self, channels: u32) -> Result<(), (String, String)> {
        // A stripe holds one page per channel: N − 1 data pages and one parity page, so at
        // least 3 channels (2 would be mirroring, which the stripe code does not do). The GC
        // state machine keeps per-stripe sets of channels as bits of a u64, so at most 64.
        if !(MIN_RAIN_CHANNELS..=MAX_RAIN_CHANNELS).contains(&channels) {
            return Err((
                "ftl.kind".into(),
                format!(
                    "a RAIN stripe spans the channels: needs geometry.channels from {MIN_RAIN_CHANNELS} to {MAX_RAIN_CHANNELS}, got {channels}"
                ),
            ));
        }
        if self.parallel_forced_gc && !self.rgc {
            return Err((
                "rain.parallel_forced_gc".into(),
                "changes rotating GC only: needs rain.rgc = true".into(),
            ));
        }
        if self.rotating_flush && !self.gtr {
            return Err((
                "rain.rotating_flush".into(),
                "rotates the GC-aware flush and rebuilds reads behind it: needs rain.gtr = true"
                    .into(),
            ));
        }
        if self.layout == RainLayout::Logical {
            // The rotating flush and parallel forced GC are built on the super-block GC's
            // group chain; the logical layout's GC is per plane.
            for (on, field) in [
                (self.rotating_flush, "rain.rotating_flush"),
                (self.parallel_forced_gc, "rain.parallel_forced_gc"),
            ] {
                if on {
                    return Err((
                        field.into(),
                        "works on the super-block layout only: needs rain.layout = \"super-block\""
                            .into(),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl DeviceConfig {
    /// The flash a RAIN device model is built on. With parity on top (`rain.parity_space =
    /// "extra"`, the default) the blocks per plane grow to ⌈B·N/(N − 1)⌉ and the spare to what
    /// keeps the logical pages (the user capacity) exactly the plain device's, so the data area
    /// — all but one page in N — is as full as the plain device's flash: ttflash-small's 64
    /// blocks become 74 at spare 0.406, the `ttflash` preset's 4096 become 4682 at 0.2127.
    /// With logical stripes (`rain.layout = "logical"`) the FTL also maps one parity page per
    /// stripe, beyond the user's pages (the host still sees only the user's). Otherwise
    /// (`spare` with super-blocks, or no parity) the configuration itself.
    pub fn rain_physical(&self) -> DeviceConfig {
        let mut c = self.clone();
        let extra = self.rain.parity_space == ParitySpace::Extra;
        let logical = self.rain.layout == RainLayout::Logical;
        if !(self.ftl.kind == FtlKind::Rain && (extra || logical)) {
            return c;
        }
        let g = &self.geometry;
        let n = u64::from(g.channels.max(2));
        let user = g.logical_pages();
        if extra {
            let blocks = (u64::from(g.blocks_per_plane) * n).div_ceil(n - 1);
            c.geometry.blocks_per_plane = u32::try_from(blocks).unwrap_or(u32::MAX);
        }
        // The FTL's logical pages: the user's, and with logical stripes one parity page per
        // stripe of N − 1 user pages (parity pages are mapped like data: GC moves them).
        let target = if logical {
            user + user.div_ceil(n - 1)
        } else {
            user
        };
        let physical = c.geometry.physical_pages() as f64;
        // ⌊P'·(1 − s')⌋ = L: s' from L/P', nudged past floating-point rounding either way.
        c.geometry.spare_factor = 1.0 - target as f64 / physical;
        while c.geometry.logical_pages() < target {
            c.geometry.spare_factor -= 1e-12;
        }
        while c.geometry.logical_pages() > target {
            c.geometry.spare_factor += 1e-12;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parity on top: N/(N − 1) the blocks, exactly the plain device's logical pages; `spare`
    /// and plain devices are unchanged.
    #[test]
    fn parity_on_top_keeps_the_user_capacity_exactly() {
        for (preset, blocks) in [("ttflash-small", 74), ("ttflash", 4682)] {
            let mut cfg = DeviceConfig::from_preset(preset, &[]).unwrap();
            assert_eq!(cfg.rain_physical(), cfg, "{preset} without parity");
            cfg.ftl.kind = FtlKind::Rain;
            let p = cfg.rain_physical();
            assert_eq!(p.geometry.blocks_per_plane, blocks, "{preset}");
            assert_eq!(
                p.geometry.logical_pages(),
                cfg.geometry.logical_pages(),
                "{preset}"
            );
            p.validate(preset).unwrap();
            cfg.rain.parity_space = ParitySpace::Spare;
            assert_eq!(
                cfg.rain_physical(),
                cfg,
                "{preset} with parity out of the spare"
            );
        }
        for spare in [0.07, 0.1, 0.28, 0.4, 0.55] {
            let mut cfg = DeviceConfig::from_preset("ttflash-small", &[]).unwrap();
            cfg.geometry.spare_factor = spare;
            cfg.ftl.kind = FtlKind::Rain;
            let p = cfg.rain_physical();
            assert_eq!(
                p.geometry.logical_pages(),
                cfg.geometry.logical_pages(),
                "{spare}"
            );
        }
    }
}
