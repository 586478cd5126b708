//! The memory check before a device model is built: the heap its configuration needs
//! ([`memory_estimate`], from each model's own estimate of its tables) against what the process
//! may still allocate — the smallest of the system's free memory (`MemAvailable`), the cgroup's
//! limit less its usage (v2 `memory.max`, v1 `memory.limit_in_bytes`, the process's cgroup and
//! its ancestors) and the address-space limit (`ulimit -v`, `RLIMIT_AS`) less the process's
//! size. A device that does not fit is refused with one line naming the geometry, instead of
//! being killed by the kernel's OOM killer (or aborting in the allocator) half-way through.
//!
//! `SSDLAB_MEMORY_LIMIT` overrides the figure: `off` skips the check; a size (`64G`, `512M`,
//! `1.5GiB`, bytes) is taken as the memory available. The check reads the machine's state but
//! never changes a result: it only decides whether a simulation is built.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::SimOptions;
use crate::config::DeviceConfig;
use crate::error::{Result, SsdError};
use crate::ftl::map::memory::{bytes, MemoryEstimate};

/// The environment variable that overrides the memory available (`off`, or a size).
pub const MEMORY_LIMIT_ENV: &str = "SSDLAB_MEMORY_LIMIT";

/// The engine's own tables beside the device model's: latency histograms, time lines,
/// sampled series, the workload reader's buffers.
const ENGINE_BYTES: u64 = 512 << 10;

/// The heap a simulation of `cfg` under `opts` needs: the device model's tables (the FTL's,
/// RAIN's or the hybrid model's; test mode's checks when `opts.check_every > 0`) and the
/// engine's. Not included: what a workload holds itself (the `dense` LBA map's table of the
/// trace's distinct pages, the `oracle` placement's materialised workload).
pub fn memory_estimate(cfg: &DeviceConfig, opts: &SimOptions) -> MemoryEstimate {
    let mut e = crate::device::memory_estimate(cfg, opts.check_every > 0);
    e.other_bytes += ENGINE_BYTES;
    e
}

/// Memory the process may still allocate, and where the figure comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Available {
    pub bytes: u64,
    pub source: String,
}

/// What a device must fit in: [`MEMORY_LIMIT_ENV`] when set (`None` for `off`), else
/// [`available_memory`] (`None` where the system does not say).
pub fn memory_budget() -> Result<Option<Available>> {
    match std::env::var(MEMORY_LIMIT_ENV) {
        Ok(v) => {
            let v = v.trim();
            if v.eq_ignore_ascii_case("off") {
                return Ok(None);
            }
            let b = parse_size(v).ok_or_else(|| {
                SsdError::Invalid(format!(
                    "{MEMORY_LIMIT_ENV}: expected off or a size such as 64G, 512M or 1.5GiB, got {v:?}"
                ))
            })?;
            Ok(Some(Available {
                bytes: b,
                source: MEMORY_LIMIT_ENV.to_string(),
            }))
        }
        Err(_) => Ok(available_memory()),
    }
}

/// Refuses `cfg` when its [`memory_estimate`] exceeds the [`memory_budget`]: one line naming
/// the geometry, the estimate and its breakdown, and the memory available.
pub fn check_memory(cfg: &DeviceConfig, opts: &SimOptions) -> Result<()> {
    match memory_budget()? {
        Some(avail) => check_memory_within(cfg, opts, &avail),
        None => Ok(()),
    }
}

/// [`check_memory`] against a given figure of the memory available.
pub fn check_memory_within(cfg: &DeviceConfig, opts: &SimOptions, avail: &Available) -> Result<()> {
    let e = memory_estimate(cfg, opts);
    if e.total() <= avail.bytes {
        return Ok(());
    }
    Err(SsdError::config(
        &cfg.name,
        format!(
            "geometry: this device needs ≈ {} of memory ({}), {} available ({}); shrink the geometry, \
             or set {MEMORY_LIMIT_ENV}=off to build it anyway",
            bytes(e.total()),
            e.breakdown(),
            bytes(avail.bytes),
            avail.source
        ),
    ))
}

/// The smallest of what the system says the process may still allocate (module doc); `None`
/// when it says nothing (no `/proc`).
pub fn available_memory() -> Option<Available> {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let mut found: Vec<Available> = Vec::new();
    let mut offer = |bytes: Option<u64>, source: &str| {
        if let Some(bytes) = bytes {
            found.push(Available {
                bytes,
                source: source.to_string(),
            });
        }
    };
    offer(
        read(Path::new("/proc/meminfo")).and_then(|t| meminfo_available(&t)),
        "MemAvailable",
    );
    let cgroups = read(Path::new("/proc/self/cgroup")).unwrap_or_default();
    let (v2, v1) = cgroup_paths(&cgroups);
    for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
        for dir in cgroup_dirs(Path::new(root), v2.as_deref()) {
            offer(
                cgroup_room(
                    read(&dir.join("memory.max")),
                    read(&dir.join("memory.current")),
                ),
                "cgroup memory.max",
            );
        }
    }
    for dir in cgroup_dirs(Path::new("/sys/fs/cgroup/memory"), v1.as_deref()) {
        offer(
            cgroup_room(
                read(&dir.join("memory.limit_in_bytes")),
                read(&dir.join("memory.usage_in_bytes")),
            ),
            "cgroup memory.limit_in_bytes",
        );
    }
    let limit = read(Path::new("/proc/self/limits")).and_then(|t| address_space_limit(&t));
    let size = read(Path::new("/proc/self/status")).and_then(|t| vm_size(&t));
    offer(
        limit.map(|l| l.saturating_sub(size.unwrap_or(0))),
        "ulimit -v",
    );
    found.into_iter().min_by_key(|a| a.bytes)
}

/// `64G`, `512M`, `1.5GiB`, `2TB`, `1000000` (bytes); units are binary.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let v: f64 = num.parse().ok()?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    let b = v * (1u64 << shift) as f64;
    (v.is_finite() && b < 1.8e19).then_some(b as u64)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn meminfo_available(text: &str) -> Option<u64> {
    kib_field(text, "MemAvailable:")
}

/// `VmSize` of `/proc/self/status`, in bytes.
fn vm_size(text: &str) -> Option<u64> {
    kib_field(text, "VmSize:")
}

fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// The soft `Max address space` of `/proc/self/limits` (`None` when unlimited).
fn address_space_limit(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The process's cgroup path in the v2 hierarchy (`0::/path`) and in v1's memory controller
/// (`N:…memory…:/path`), from `/proc/self/cgroup`.
fn cgroup_paths(text: &str) -> (Option<String>, Option<String>) {
    let (mut v2, mut v1) = (None, None);
    for line in text.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(id), Some(ctrl), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        if id == "0" && ctrl.is_empty() {
            v2 = Some(path.to_string());
        } else if ctrl.split(',').any(|c| c == "memory") {
            v1 = Some(path.to_string());
        }
    }
    (v2, v1)
}

/// `root` joined with `path` and each of its ancestors, and `root` itself (a container sees
/// its own cgroup at the mount's root).
fn cgroup_dirs(root: &Path, path: Option<&str>) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    if let Some(p) = path {
        let mut cur = root.to_path_buf();
        for part in p.split('/').filter(|s| !s.is_empty()) {
            cur = cur.join(part);
            out.push(cur.clone());
        }
    }
    out
}

/// A cgroup's limit less its usage; `None` when unlimited (`max`, or v1's ~2^63) or unread.
fn cgroup_room(limit: Option<String>, usage: Option<String>) -> Option<u64> {
    let limit: u64 = limit?.trim().parse().ok()?;
    if limit >= 1 << 60 {
        return None;
    }
    let usage: u64 = usage.and_then(|u| u.trim().parse().ok()).unwrap_or(0);
    Some(limit.saturating_sub(usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_system_files() {
        let meminfo =
            "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   23729372 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(23_729_372 * 1024));
        assert_eq!(meminfo_available("MemTotal: 1 kB\n"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max address space         unlimited            unlimited            bytes     \n";
        assert_eq!(address_space_limit(limits), None);
        let limits =
            "Max address space         4294967296           unlimited            bytes     \n";
        assert_eq!(address_space_limit(limits), Some(4 << 30));
        assert_eq!(vm_size("Name: x\nVmSize:\t  123 kB\n"), Some(123 * 1024));
        let cg = "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/\n0::/user.slice/x\n";
        assert_eq!(
            cgroup_paths(cg),
            (
                Some("/user.slice/x".into()),
                Some("/process_api/abc".into())
            )
        );
        assert_eq!(
            cgroup_dirs(Path::new("/r"), Some("/a/b")),
            vec![
                PathBuf::from("/r"),
                PathBuf::from("/r/a"),
                PathBuf::from("/r/a/b")
            ]
        );
        assert_eq!(cgroup_room(Some("max\n".into()), Some("5".into())), None);
        assert_eq!(
            cgroup_room(Some("9223372036854771712\n".into()), Some("5".into())),
            None
        );
        assert_eq!(
            cgroup_room(Some("6442450944\n".into()), Some("1073741824\n".into())),
            Some(5 << 30)
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64G"), Some(64 << 30));
        assert_eq!(parse_size("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_size("512 MB"), Some(512 << 20));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("2t"), Some(2 << 40));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("5X"), None);
    }
}
