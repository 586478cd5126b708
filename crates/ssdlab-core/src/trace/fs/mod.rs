//! File-system-like workloads: a small host file system (partitions of 4 KiB blocks in
//! clusters, files as extent lists, next-fit allocation, a set of deleted-but-not-TRIMmed
//! extents — `alloc`) driven by a benchmark *personality* (fio random writes, filebench's
//! `fileserver` and `varmail`, iozone's write/rewrite churn), yielding the block requests the
//! host would send: reads, writes and TRIMs.
//!
//! Built for issue 13 (host-side GC detection, Park & Kim, IJCA 11(5), 2018): §III.A trains the
//! detector on iostat data recorded under fio 512 KiB random writes and filebench `fileserver`
//! and `varmail`; §V fills a 68 GB partition of a 128 GB SSD with fio, `rm`s it (deleted on
//! the host, still valid on the device), and keeps iozone writing and deleting files on the
//! other partitions with no idle time, then compares GC with and without TRIM on detection.
//! The model knows which extents the host has deleted and not yet trimmed, so a caller can
//! TRIM them ([`RequestSource::trim_deleted`]) when it chooses — as the paper's detector does.
//!
//! **Layout.** With `stale_fraction = s` the first `s` of the logical space is a partition of
//! its own holding one file written once sequentially (1 MiB writes) and then deleted — the
//! paper's filled-then-`rm`'d partition. The personality runs on a second partition after it
//! (`partition_fraction` of the space, default all the rest) and never allocates in the stale
//! one, as iozone ran on the other partitions in the paper.
//!
//! **Requests.** Every request is 4 KiB-aligned and within its partition. Data requests are
//! at most the personality's I/O size (≤ 1 MiB) and are split where a file's extents are. TRIMs
//! cover whole clusters and are split at 128 MiB ([`TRIM_MAX`]). `requests` counts the
//! personality's data requests (reads and writes) after its setup; the stale prefill, the
//! personality's setup (fio's layout, filebench's fileset preallocation) and every TRIM are
//! extra, like preconditioning. The stream ends with the `requests`-th data request (TRIMs
//! queued by `trim_deleted` before that are still emitted). Arrival times come from the
//! workload's [`ArrivalSpec`](super::ArrivalSpec) (default `closed`: replayed closed-loop at a
//! queue depth, as fio and filebench keep I/Os outstanding), one per request in order.
//!
//! **Not modelled.** No page cache: every write reaches the device at once and every read
//! reads the device (as if the data set were far larger than RAM); no metadata or journal
//! writes (varmail's `fsync` commits ext4's journal, which is not modelled); mkfs's initial
//! discard (the partition starts as the device was left, e.g. preconditioned).

mod alloc;
mod filebench;
mod fileserver;
mod fio;
mod iozone;
pub mod spec;
pub(super) mod stats;
mod varmail;

use std::collections::VecDeque;

use super::arrival::ArrivalProcess;
use super::request::{OpKind, Request, RequestSource};
use crate::config::Registry as _;
use crate::error::{Result, SsdError};
use crate::rng::{stream, SimRng};
use alloc::{Extent, File, Partition, Seg, FS_BLOCK};
pub use spec::{FsPersonality, FsSpec, PersonalityDefaults, TrimMode};
pub use stats::FsStats;

/// The largest TRIM request: one ext4 block group (32,768 blocks of 4 KiB, the bits of one
/// 4 KiB block bitmap). ext4 issues discards per free extent within a group, both for the
/// `discard` mount option and for `fstrim` (`ext4_trim_all_free` walks group by group), so no
/// discard it sends is larger; ATA DSM TRIM would allow ~2 GiB per command (64 ranges of
/// 65,535 sectors), and the cap only sets how many TRIM requests a large deletion becomes.
pub const TRIM_MAX: u64 = 128 << 20;

/// The largest data request (filebench's default `iosize`; larger I/O is split by the block
/// layer at `max_sectors_kb` in any case).
pub const IO_MAX: u64 = 1 << 20;

/// The stale prefill's request size (the paper's fill, written once sequentially).
const STALE_IO: u64 = 1 << 20;

/// Steps of the personality in a row that queue no request before the source gives up (a
/// fileset too small for its threads can leave every thread waiting).
const MAX_IDLE_STEPS: u64 = 1_000_000;

/// A lazily split transfer: the requests of one I/O call (or one TRIM), in order.
struct Transfer {
    op: OpKind,
    segs: Vec<Seg>,
    seg: usize,
    done: u64,
    /// Requests never cross a multiple of `chunk` in `Seg::logical`.
    chunk: u64,
    counted: bool,
}

impl Transfer {
    fn next(&mut self) -> Option<(u64, u64)> {
        while let Some(s) = self.segs.get(self.seg) {
            if self.done >= s.len {
                self.seg += 1;
                self.done = 0;
                continue;
            }
            let logical = s.logical + self.done;
            let boundary = (logical / self.chunk + 1) * self.chunk;
            let take = (s.len - self.done).min(boundary - logical);
            let at = s.dev + self.done;
            self.done += take;
            return Some((at, take));
        }
        None
    }
}

/// What a personality acts on: its partition and the queue of requests it makes.
pub(crate) struct Host {
    pub part: Partition,
    queue: VecDeque<Transfer>,
    discard: bool,
    /// Whether data requests queued now count toward `requests` (not during setup).
    counted: bool,
}

impl Host {
    /// Grows `file` to `size` bytes; a full partition is an error naming the personality.
    pub fn grow(&mut self, who: &str, file: &mut File, size: u64, hint: &str) -> Result<()> {
        self.part
            .grow(file, size)
            .map_err(|m| SsdError::Workload(format!("{who}: {m}; {hint}")))
    }

    /// Queues the writes of bytes `[from, to)` of `file`, `chunk` bytes per I/O call.
    pub fn write(&mut self, file: &File, from: u64, to: u64, chunk: u64) {
        self.transfer(OpKind::Write, file, from, to, chunk);
    }

    /// Queues the reads of bytes `[from, to)` of `file`, `chunk` bytes per I/O call.
    pub fn read(&mut self, file: &File, from: u64, to: u64, chunk: u64) {
        self.transfer(OpKind::Read, file, from, to, chunk);
    }

    fn transfer(&mut self, op: OpKind, file: &File, from: u64, to: u64, chunk: u64) {
        if to > from {
            self.queue.push_back(Transfer {
                op,
                segs: self.part.segs(file, from, to),
                seg: 0,
                done: 0,
                chunk: chunk.clamp(FS_BLOCK, IO_MAX),
                counted: self.counted,
            });
        }
    }

    /// Deletes `file`: its clusters are freed and become pending, or under `discard` are
    /// TRIMmed right after.
    pub fn delete(&mut self, file: File) {
        for e in self.part.delete(file, self.discard) {
            self.queue.push_back(trim_of(&self.part, e));
        }
    }
}

fn trim_of(part: &Partition, e: Extent) -> Transfer {
    Transfer {
        op: OpKind::Trim,
        segs: vec![part.seg_of(e)],
        seg: 0,
        done: 0,
        chunk: TRIM_MAX,
        counted: false,
    }
}

/// A benchmark driving the host file system, one step (a flowop, a pass, a random write) at
/// a time. Its file is the personality's own; [`build`] is the registry's table.
pub(crate) trait Personality: Send {
    /// Whether it is still setting up (its requests then do not count toward `requests`).
    fn setting_up(&self) -> bool;
    /// Runs the next step, queuing its requests on `host`.
    fn step(&mut self, host: &mut Host) -> Result<()>;
    fn describe(&self) -> String;
    /// Calls `f` with every live file (for invariant checks).
    fn for_each_file(&self, f: &mut dyn FnMut(&File));
}

/// The personality registry: one arm per [`FsPersonality`].
fn build(spec: &FsSpec, part: &Partition, seed: u64) -> Result<Box<dyn Personality>> {
    Ok(match spec.personality {
        FsPersonality::FioRandwrite => Box::new(fio::Fio::new(spec, part, seed)?),
        FsPersonality::Fileserver => Box::new(filebench::Filebench::new(
            &fileserver::PERSONALITY,
            spec,
            part,
            seed,
        )?),
        FsPersonality::Varmail => Box::new(filebench::Filebench::new(
            &varmail::PERSONALITY,
            spec,
            part,
            seed,
        )?),
        FsPersonality::Iozone => Box::new(iozone::Iozone::new(spec, part, seed)?),
    })
}

/// The registry's other table, beside `build`: here rather than in `spec.rs`, so that the
/// spec, which every personality reads, reads none of them.
impl FsPersonality {
    /// The personality's own defaults (from its source; see its file).
    pub fn defaults(self) -> PersonalityDefaults {
        match self {
            FsPersonality::FioRandwrite => fio::DEFAULTS,
            FsPersonality::Fileserver => fileserver::DEFAULTS,
            FsPersonality::Varmail => varmail::DEFAULTS,
            FsPersonality::Iozone => iozone::DEFAULTS,
        }
    }
}

impl FsSpec {
    /// Bytes per I/O call: the spec's `io_kib`, else the personality's default.
    pub fn io_bytes(&self) -> u64 {
        self.io_kib.unwrap_or(self.personality.defaults().io_kib) * 1024
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    StaleWrite,
    StaleDelete,
    Run,
}

/// The request source of an `fs` workload (see the module docs).
pub struct FsSource {
    spec: FsSpec,
    host: Host,
    stale: Option<Partition>,
    stale_file: Option<File>,
    personality: Box<dyn Personality>,
    phase: Phase,
    /// TRIMs queued by `trim_deleted`, served before anything else.
    trims: VecDeque<Transfer>,
    arrival: ArrivalProcess,
    arrival_rng: SimRng,
    counted: u64,
    idle_steps: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl FsSource {
    /// The source of `spec` on a device of `logical_bytes` with pages of `page_size` bytes
    /// (clusters are lcm(4 KiB, page)); personality choices come from
    /// `rng::stream(seed, "workload")` (and `"workload/sizes"` for file sizes), arrival times
    /// from `"workload/arrival"`.
    pub fn new(spec: &FsSpec, logical_bytes: u64, page_size: u64, seed: u64) -> Result<Self> {
        spec.validate()?;
        if page_size == 0 {
            return Err(SsdError::Workload("page_size: expected > 0, got 0".into()));
        }
        let cluster = FS_BLOCK / gcd(FS_BLOCK, page_size) * page_size;
        let all = logical_bytes / cluster;
        let stale_clusters = (all as f64 * spec.stale_fraction).floor() as u64;
        if spec.stale_fraction > 0.0 && stale_clusters == 0 {
            return Err(SsdError::Workload(format!(
                "stale_fraction: expected at least one {cluster} B cluster of the {logical_bytes} B logical space, got {}",
                spec.stale_fraction
            )));
        }
        let fraction = spec.partition_fraction.unwrap_or(1.0 - spec.stale_fraction);
        let clusters = ((all as f64 * fraction).floor() as u64).min(all - stale_clusters);
        if clusters == 0 {
            return Err(SsdError::Workload(format!(
                "partition_fraction: expected a partition of at least one {cluster} B cluster of the {logical_bytes} B logical space, got {fraction}"
            )));
        }
        let part = Partition::new(stale_clusters * cluster, cluster, clusters);
        let personality = build(spec, &part, seed)?;
        Ok(FsSource {
            spec: spec.clone(),
            host: Host {
                part,
                queue: VecDeque::new(),
                discard: spec.trim == TrimMode::Discard,
                counted: false,
            },
            stale: (stale_clusters > 0).then(|| Partition::new(0, cluster, stale_clusters)),
            stale_file: None,
            personality,
            phase: Phase::StaleWrite,
            trims: VecDeque::new(),
            arrival: ArrivalProcess::new(&spec.arrival)?,
            arrival_rng: stream(seed, "workload/arrival"),
            counted: 0,
            idle_steps: 0,
        })
    }

    fn partitions(&self) -> impl Iterator<Item = &Partition> {
        self.stale.iter().chain(std::iter::once(&self.host.part))
    }

    /// What the host file system did so far.
    pub fn fs_stats(&self) -> FsStats {
        let mut s = FsStats::default();
        for p in self.partitions() {
            let c = p.cluster;
            s.capacity_bytes += p.bytes();
            s.live_bytes += (p.clusters - p.free_clusters()) * c;
            s.deleted_bytes += p.deleted * c;
            s.trimmed_bytes += p.trimmed * c;
            s.pending_bytes += p.pending_clusters() * c;
            s.reallocated_bytes += p.reallocated * c;
        }
        s
    }

    /// The device byte ranges `(offset, length)` deleted and not yet trimmed or reallocated.
    pub fn pending_extents(&self) -> Vec<(u64, u64)> {
        self.partitions()
            .flat_map(|p| p.pending().map(|e| p.seg_of(e)))
            .map(|s| (s.dev, s.len))
            .collect()
    }

    /// The device byte ranges `(offset, length)` allocated to live files (the stale file
    /// while it exists included).
    pub fn live_extents(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let p = &self.host.part;
        self.personality.for_each_file(&mut |f| {
            out.extend(
                f.extents
                    .iter()
                    .map(|&e| (p.seg_of(e).dev, p.seg_of(e).len)),
            )
        });
        if let (Some(s), Some(f)) = (&self.stale, &self.stale_file) {
            out.extend(
                f.extents
                    .iter()
                    .map(|&e| (s.seg_of(e).dev, s.seg_of(e).len)),
            );
        }
        out
    }

    /// The personality's partition as device bytes `[start, end)`.
    pub fn partition_range(&self) -> (u64, u64) {
        let p = &self.host.part;
        (p.base, p.base + p.bytes())
    }

    /// The stale partition as device bytes `[0, end)`, if `stale_fraction > 0`.
    pub fn stale_range(&self) -> Option<(u64, u64)> {
        self.stale.as_ref().map(|p| (p.base, p.base + p.bytes()))
    }

    /// The file-system model's invariants (tests): no two live files share a cluster, free
    /// and live clusters make the partition, pending ⊆ free, pending ∩ live = ∅, and
    /// deleted = trimmed + pending + reallocated.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        let mut live = Vec::new();
        self.personality
            .for_each_file(&mut |f| live.extend(f.extents.iter().copied()));
        self.host.part.check(live.iter())?;
        if let Some(s) = &self.stale {
            let stale: Vec<Extent> = self
                .stale_file
                .iter()
                .flat_map(|f| f.extents.iter().copied())
                .collect();
            s.check(stale.iter())?;
        }
        Ok(())
    }

    /// Runs the next step of the stale prefill or of the personality.
    fn step(&mut self) -> Result<()> {
        match self.phase {
            Phase::StaleWrite => {
                if let Some(p) = &mut self.stale {
                    let mut f = File::default();
                    p.grow(&mut f, p.bytes())
                        .map_err(|m| SsdError::Workload(format!("stale_fraction: {m}")))?;
                    let segs = p.segs(&f, 0, f.size);
                    self.host.queue.push_back(Transfer {
                        op: OpKind::Write,
                        segs,
                        seg: 0,
                        done: 0,
                        chunk: STALE_IO,
                        counted: false,
                    });
                    self.stale_file = Some(f);
                }
                self.phase = Phase::StaleDelete;
            }
            Phase::StaleDelete => {
                if let (Some(p), Some(f)) = (&mut self.stale, self.stale_file.take()) {
                    for e in p.delete(f, self.host.discard) {
                        self.host.queue.push_back(trim_of(p, e));
                    }
                }
                self.phase = Phase::Run;
            }
            Phase::Run => {
                self.host.counted = !self.personality.setting_up();
                self.personality.step(&mut self.host)?;
                if self.host.queue.is_empty() {
                    self.idle_steps += 1;
                    if self.idle_steps >= MAX_IDLE_STEPS {
                        return Err(SsdError::Workload(format!(
                            "{}: no request in {MAX_IDLE_STEPS} steps: its threads cannot make progress on this fileset; raise fileset_fraction or lower nthreads",
                            self.spec.personality.name()
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn emit(&mut self, op: OpKind, offset_bytes: u64, size_bytes: u64) -> Request {
        self.idle_steps = 0;
        Request {
            arrival_ns: self.arrival.next_arrival(&mut self.arrival_rng),
            op,
            offset_bytes,
            size_bytes,
            fragment_follows: false,
            fua: false,
            preflush: false,
            placement: 0,
        }
    }
}

impl RequestSource for FsSource {
    fn next_request(&mut self) -> Result<Option<Request>> {
        loop {
            if let Some(t) = self.trims.front_mut() {
                match t.next() {
                    Some((at, len)) => return Ok(Some(self.emit(OpKind::Trim, at, len))),
                    None => {
                        self.trims.pop_front();
                        continue;
                    }
                }
            }
            if self.counted >= self.spec.requests {
                return Ok(None);
            }
            if let Some(t) = self.host.queue.front_mut() {
                match t.next() {
                    Some((at, len)) => {
                        let (op, counted) = (t.op, t.counted && t.op != OpKind::Trim);
                        if counted {
                            self.counted += 1;
                        }
                        return Ok(Some(self.emit(op, at, len)));
                    }
                    None => {
                        self.host.queue.pop_front();
                        continue;
                    }
                }
            }
            self.step()?;
        }
    }

    fn describe(&self) -> String {
        let s = &self.spec;
        let (a, b) = self.partition_range();
        format!(
            "fs {}: {} requests on a {:.1} MiB partition at {:.1} MiB, trim {}, stale {:.0} %, arrivals {}",
            self.personality.describe(),
            s.requests,
            (b - a) as f64 / 1048576.0,
            a as f64 / 1048576.0,
            s.trim.name(),
            s.stale_fraction * 100.0,
            s.arrival
        )
    }

    fn trim_deleted(&mut self) -> u64 {
        let mut bytes = 0;
        let parts = self
            .stale
            .iter_mut()
            .chain(std::iter::once(&mut self.host.part));
        for p in parts {
            for e in p.take_pending() {
                bytes += e.len * p.cluster;
                self.trims.push_back(trim_of(p, e));
            }
        }
        bytes
    }

    fn host_fs(&self) -> Option<FsStats> {
        Some(self.fs_stats())
    }
}
