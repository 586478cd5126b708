//! Configurations that validate but are rarely what was meant. Each is an [`Advisory`], which a
//! front end shows as a warning (`ssdlab: warning: <field>: <message>`) while the run goes on:
//! unlike [`DeviceConfig::validate`]'s errors, the device they describe works, only not as its
//! numbers suggest.

use serde::Serialize;

use super::{plane_share, DeviceConfig, Registry, SlcPolicyKind, VictimPolicy};

/// One advisory: the field to look at, and what follows from its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advisory {
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for Advisory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl DeviceConfig {
    /// The advisories of a validated configuration, in a fixed order (none for most).
    pub fn advisories(&self) -> Vec<Advisory> {
        let mut out = Vec::new();
        out.extend(static_region_below_trigger(self));
        out.extend(more_choices_than_blocks(self));
        out.extend(rain_layout_without_rain(self));
        out.extend(cache_holds_the_device(self));
        out.extend(refresh_within_a_day(self));
        out
    }
}

/// Retention refresh of data younger than a day: retention errors grow over days and weeks, so
/// such a refresh moves every block over and over for nothing a drive would see (at 1.7 ms on
/// `tiny`, 7.9 M block moves for 20,000 requests: the patrols' copies overloaded the planes
/// and the run stretched until more patrols came due).
fn refresh_within_a_day(cfg: &DeviceConfig) -> Option<Advisory> {
    let d = cfg.reliability.refresh_days;
    (d > 0.0 && d < 1.0).then(|| Advisory {
        field: "reliability.refresh_days".into(),
        message: format!(
            "data refreshed after {d} days: every block holding data moves at each patrol; \
             expected days to months (retention errors grow over weeks)"
        ),
    })
}

/// A static SLC region that leaves some plane a region of at most `cache.free_trigger` blocks
/// (and more than none): that plane's region is at its trigger whatever it holds (its free
/// blocks are at most its size), so every host write on it migrates an SLC victim first
/// (`ftl::hybrid::reclaim`), and with migration left to idle time none opens a new SLC block. A plane
/// whose share is 0 has no region and never migrates. The shares are the hybrid device's
/// ([`plane_share`]). Noticed on `tiny` with `cache.slc_blocks=8` (2 a plane against the
/// default trigger of 5, NOTES.md): every write migrated, and nothing said so.
fn static_region_below_trigger(cfg: &DeviceConfig) -> Option<Advisory> {
    let c = &cfg.cache;
    if cfg.ftl.kind != crate::config::FtlKind::Hybrid || c.policy() != SlcPolicyKind::Static {
        return None;
    }
    let planes = cfg.geometry.planes();
    let low: Vec<u32> = (0..planes)
        .map(|p| plane_share(c.slc_blocks, planes, p))
        .filter(|&b| b > 0 && b <= c.free_trigger)
        .collect();
    let (&least, &most) = (low.iter().min()?, low.iter().max()?);
    let which = if low.len() as u32 == planes {
        "every plane".to_string()
    } else {
        format!("{} of them", low.len())
    };
    let size = if least == most {
        format!("{least}")
    } else {
        format!("{least}–{most}")
    };
    Some(Advisory {
        field: "cache.slc_blocks".into(),
        message: format!(
            "{} SLC blocks over {planes} planes give {which} {size} block{} of SLC region, at or \
             below cache.free_trigger ({}): such a region is always at its trigger, so every host \
             write there migrates SLC data first; expected more than {} blocks \
             (cache.free_trigger × planes, which may need more spare) or a lower \
             cache.free_trigger",
            c.slc_blocks,
            if most == 1 { "" } else { "s" },
            c.free_trigger,
            u64::from(c.free_trigger) * u64::from(planes),
        ),
    })
}

/// `d-choices` drawing more blocks a victim than a plane has (NOTES.md: any d < 2^32 validates):
/// each GC pick then costs d draws (with replacement) where greedy's index answers at once, and
/// the pick nears greedy's (d = 3 × the plane's blocks leaves any one block undrawn with
/// probability e^−3 ≈ 5 %). Valid, and a study of d may want it, but slow for nothing otherwise:
/// on `mqsim-small` (512 blocks a plane), 1 M timing-free writes as whole `ssdlab run` processes
/// took 0.46 s with greedy (WAF 7.508), 0.99 s with d = 512 and 2.77 s with d = 5,120 (WAF 7.511
/// both; 2026-12-01, the AMD EPYC VM, one run each).
fn more_choices_than_blocks(cfg: &DeviceConfig) -> Option<Advisory> {
    let VictimPolicy::DChoices { d } = cfg.gc.victim else {
        return None;
    };
    let blocks = cfg.geometry.blocks_per_plane;
    (d > blocks).then(|| Advisory {
        field: "gc.victim".into(),
        message: format!(
            "d-choices:d={d} draws more blocks a victim than a plane has ({blocks}): each GC \
             pick costs {d} draws and comes near greedy's, which its index answers at once; \
             expected d at most {blocks}, or gc.victim=greedy"
        ),
    })
}

/// A RAIN layout choice (`rain.parity_space`, `rain.layout`, `rain.open_parity`) on a device
/// whose FTL is not RAIN: it applies when a Tiny-Tail stack makes the FTL RAIN (`ssdlab
/// experiment ttflash`), and does nothing in a plain run — which is what a user who meant a
/// RAIN device but forgot `ftl.kind` would otherwise not be told.
fn rain_layout_without_rain(cfg: &DeviceConfig) -> Option<Advisory> {
    if cfg.ftl.kind == super::FtlKind::Rain {
        return None;
    }
    let f = cfg.rain.first_layout_choice()?;
    Some(Advisory {
        field: format!("rain.{f}"),
        message: format!(
            "a RAIN layout choice on a '{}' FTL: it applies only when the FTL is RAIN (set \
             ftl.kind = \"rain\", or a Tiny-Tail stack does)",
            cfg.ftl.kind.name()
        ),
    })
}

/// A write cache with a slot for every logical page: no page need ever leave DRAM, so a
/// write-back run measures DRAM, not flash (the default 64 MiB on `tiny`, whose logical space
/// is 25.6 MiB).
fn cache_holds_the_device(cfg: &DeviceConfig) -> Option<Advisory> {
    let w = &cfg.write_cache;
    let units = cfg.geometry.logical_bytes() / u64::from(cfg.unit_bytes().max(1));
    if !w.on() || w.slots(cfg.unit_bytes()) < units {
        return None;
    }
    Some(Advisory {
        field: "write_cache.size_mib".into(),
        message: format!(
            "a {} MiB cache holds the whole logical space ({:.1} MiB): written pages need never              reach flash; expected a cache smaller than the device",
            w.size_mib,
            cfg.geometry.logical_bytes() as f64 / 1048576.0
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tiny` with room for a region above the trigger (at its 64 blocks a plane, 20 SLC
    /// blocks fit at most: 5 a plane, the default trigger).
    fn tiny(overrides: &[&str]) -> DeviceConfig {
        let mut o = vec!["geometry.blocks_per_plane=256".to_string()];
        if overrides.iter().any(|s| s.starts_with("cache.")) {
            o.push("ftl.kind=hybrid".into());
        }
        o.extend(overrides.iter().map(|s| s.to_string()));
        crate::api::load_device("tiny", "preset tiny", &o).unwrap()
    }

    fn adv(overrides: &[&str]) -> Vec<Advisory> {
        tiny(overrides).advisories()
    }

    #[test]
    fn a_static_region_at_or_below_the_trigger_is_advised_against() {
        let planes = tiny(&[]).geometry.planes();
        let trigger = tiny(&["cache.slc=static"]).cache.free_trigger;
        // The note's case: 2 blocks a plane, below the default trigger on every plane.
        let small = format!("cache.slc_blocks={}", 2 * planes);
        let a = adv(&["cache.slc=static", &small]);
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a[0].field, "cache.slc_blocks");
        assert!(a[0].message.contains("every plane"), "{}", a[0].message);
        assert!(a[0].to_string().starts_with("cache.slc_blocks: "));
        // Exactly at the trigger on every plane: still always at it.
        let at = format!("cache.slc_blocks={}", trigger * planes);
        assert_eq!(adv(&["cache.slc=static", &at]).len(), 1);
        // One block more leaves all planes but one at the trigger.
        let one_more = format!("cache.slc_blocks={}", trigger * planes + 1);
        let a = adv(&["cache.slc=static", &one_more]);
        let want = format!("over {planes} planes give {} of them", planes - 1);
        assert!(a[0].message.contains(&want), "{}", a[0].message);
        // Above the trigger on every plane: nothing to say.
        let fine = format!("cache.slc_blocks={}", (trigger + 1) * planes);
        assert!(adv(&["cache.slc=static", &fine]).is_empty());
        // Fewer blocks than planes: the planes with none have no region and are not counted.
        let few = format!("cache.slc_blocks={}", planes - 1);
        let a = adv(&["cache.slc=static", &few]);
        let want = format!(
            "over {planes} planes give {} of them 1 block of",
            planes - 1
        );
        assert!(a[0].message.contains(&want), "{}", a[0].message);
        // A lower trigger clears the small region too.
        assert!(adv(&["cache.slc=static", &small, "cache.free_trigger=1"]).is_empty());
    }

    #[test]
    fn d_choices_with_more_draws_than_blocks_is_advised_against() {
        let blocks = tiny(&[]).geometry.blocks_per_plane;
        let many = format!("gc.victim=d-choices:d={}", blocks + 1);
        let a = adv(&[&many]);
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a[0].field, "gc.victim");
        assert!(
            a[0].message.contains(&format!("({blocks})")),
            "{}",
            a[0].message
        );
        let enough = format!("gc.victim=d-choices:d={blocks}");
        assert!(adv(&[&enough]).is_empty());
        assert!(adv(&["gc.victim=d-choices:d=9"]).is_empty());
    }

    #[test]
    fn other_devices_and_policies_have_none() {
        assert!(adv(&[]).is_empty());
        // Policies that size the region themselves, and a static region of no blocks.
        for p in ["none", "dwa", "ust", "rl"] {
            let slc = format!("cache.slc={p}");
            assert!(adv(&[&slc, "cache.slc_blocks=8"]).is_empty(), "{p}");
        }
        assert!(adv(&["cache.slc=static", "cache.slc_blocks=0"]).is_empty());
    }

    #[test]
    fn refresh_within_a_day_is_advised_against() {
        let a = adv(&["reliability.errors=true", "reliability.refresh_days=0.5"]);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].field, "reliability.refresh_days");
        assert!(adv(&["reliability.errors=true", "reliability.refresh_days=30"]).is_empty());
    }

    #[test]
    fn a_cache_that_holds_the_whole_device_is_advised_against() {
        // tiny at 256 blocks a plane: 102 MiB logical.
        let a = adv(&["write_cache.mode=write-back", "write_cache.size_mib=128"]);
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a[0].field, "write_cache.size_mib");
        assert!(a[0].message.contains("(102.4 MiB)"), "{}", a[0].message);
        assert!(adv(&["write_cache.mode=write-back", "write_cache.size_mib=64"]).is_empty());
        // Off, or no DRAM: no cache to advise on.
        assert!(adv(&["write_cache.size_mib=128"]).is_empty());
        assert!(adv(&["write_cache.mode=write-back", "write_cache.size_mib=0"]).is_empty());
    }
}
