//! filebench's fileset and flowop engine (filebench 1.5, `fileset.c`, `flowop_library.c`),
//! shared by the filebench personalities: a personality is its flowop list and defaults
//! (`fileserver.rs`, `varmail.rs`).
//!
//! **Fileset.** `nfiles` entries, each with a size drawn once (filebench's `fse_size`) from a
//! gamma distribution of mean `$meanfilesize` and shape 1.5 (the .f files' `cvar-gamma`
//! `gamma:1.5`, also `cvars/cvar-gamma.c`'s default; scale = mean / shape). `nfiles` is scaled
//! to the partition: nfiles × mean = `fileset_fraction` × partition. The .f files' fixed counts
//! (10,000 × 128 KiB = 1.25 GiB; 1,000 × 16 KiB = 16 MiB) mean nothing next to a simulated
//! device of a few GiB or a TiB; the default 0.5 keeps about 40 % of the partition live (80 %
//! preallocated) so appends and the gamma tail never fill it, while the other half gives the
//! rotating allocator room, so deleted files linger stale on the device for a while — the
//! regime where TRIM matters. Before the run each entry exists with probability `prealloc`
//! (0.8; filebench's `prealloc=80`) and those files are written whole (setup: not counted).
//!
//! **Flowops.** `createfile` takes an entry that does not exist, `openfile`/`deletefile`/
//! `statfile` one that does, never one another thread holds open (filebench's `FSE_BUSY`); a
//! thread whose pick finds none waits (filebench blocks on `fs_idle_files_cv`) — here it does
//! not advance and another thread runs. filebench walks a rotor over the entries; we pick
//! uniformly at random (seeded): the same mix, without tying which file is read to which was
//! deleted by index order. `writewholefile` writes the entry's size in `$iosize` calls;
//! `appendfilerand` appends a uniform 0 … `$meanappendsize` − 1 bytes (`fb_random64(iosize,
//! round 1)`: despite its name the mean append is half `$meanappendsize`) and skips 0;
//! `readwholefile` reads the file in `$iosize` calls; `closefile` releases it; `fsync` and
//! `statfile` make no request (no metadata or journal model).
//!
//! **Threads.** filebench runs `$nthreads` threads of the flowop list concurrently. Here each
//! step draws one of `nthreads` virtual threads uniformly at random (seeded) and runs its next
//! flowop; the flowop's requests are queued together, in order (a closed-loop replay at a
//! queue depth keeps several outstanding, as the threads do).

use rand::Rng;
use rand_distr::{Distribution, Gamma};

use super::alloc::{File, Partition};
use super::spec::{FsSpec, PersonalityDefaults};
use super::{Host, Personality};
use crate::error::{Result, SsdError};
use crate::rng::{stream, SimRng};

/// The gamma shape of filebench's file sizes (see the module docs).
pub(crate) const GAMMA_SHAPE: f64 = 1.5;

/// The most files the model holds (≈ 100 B each); a scaled fileset beyond it is an error.
const MAX_FILES: u64 = 4_000_000;

/// One filebench flowop (`flowop_library.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flowop {
    CreateFile,
    WriteWholeFile,
    AppendFileRand,
    OpenFile,
    ReadWholeFile,
    CloseFile,
    DeleteFile,
    StatFile,
    Fsync,
}

/// A filebench personality: its name, flowop list (one thread's loop) and defaults.
pub(crate) struct FilebenchPersonality {
    pub name: &'static str,
    pub flowops: &'static [Flowop],
    pub defaults: PersonalityDefaults,
}

/// A set of entry indexes with O(1) insert, remove and uniform pick.
#[derive(Debug, Clone)]
struct PickSet {
    items: Vec<u32>,
    pos: Vec<u32>,
}

impl PickSet {
    fn new(n: usize) -> Self {
        PickSet {
            items: Vec::new(),
            pos: vec![u32::MAX; n],
        }
    }
    fn insert(&mut self, e: u32) {
        if self.pos[e as usize] == u32::MAX {
            self.pos[e as usize] = self.items.len() as u32;
            self.items.push(e);
        }
    }
    fn remove(&mut self, e: u32) {
        let p = self.pos[e as usize];
        if p != u32::MAX {
            self.items.swap_remove(p as usize);
            if let Some(&moved) = self.items.get(p as usize) {
                self.pos[moved as usize] = p;
            }
            self.pos[e as usize] = u32::MAX;
        }
    }
    /// Takes a uniformly random member out of the set.
    fn take(&mut self, rng: &mut SimRng) -> Option<u32> {
        if self.items.is_empty() {
            return None;
        }
        let e = self.items[rng.gen_range(0..self.items.len())];
        self.remove(e);
        Some(e)
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Thread {
    pc: usize,
    fd: Option<u32>,
}

/// What the flowops did (bytes as requested by the benchmark, before 4 KiB rounding).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    pub creates: u64,
    pub create_bytes: u64,
    pub appends: u64,
    pub append_bytes: u64,
    pub reads: u64,
    pub read_bytes: u64,
    pub deletes: u64,
}

/// A running filebench personality.
pub(crate) struct Filebench {
    p: &'static FilebenchPersonality,
    sizes: Vec<u64>,
    files: Vec<Option<File>>,
    idle_exist: PickSet,
    idle_absent: PickSet,
    threads: Vec<Thread>,
    io: u64,
    append: u64,
    mean_file: f64,
    rng: SimRng,
    /// Entries still to preallocate (setup) from `setup_next`.
    setup_next: usize,
    prealloc: Vec<bool>,
    pub(crate) tally: Tally,
}

impl Filebench {
    pub fn new(
        p: &'static FilebenchPersonality,
        spec: &FsSpec,
        part: &Partition,
        seed: u64,
    ) -> Result<Self> {
        let d = &p.defaults;
        let mean_kib = spec.mean_file_kib.or(d.mean_file_kib).unwrap_or(128.0);
        let mean = mean_kib * 1024.0;
        let fraction = spec.fileset_fraction.or(d.fileset_fraction).unwrap_or(0.5);
        let nfiles = ((fraction * part.bytes() as f64 / mean).round() as u64).max(1);
        if nfiles > MAX_FILES {
            return Err(SsdError::Workload(format!(
                "fileset_fraction: expected a fileset of at most {MAX_FILES} files, got {nfiles} ({fraction} of the {:.0} MiB partition at {mean_kib} KiB per file); lower fileset_fraction or raise mean_file_kib",
                part.bytes() as f64 / 1048576.0
            )));
        }
        let n = nfiles as usize;
        let gamma = Gamma::new(GAMMA_SHAPE, mean / GAMMA_SHAPE)
            .map_err(|e| SsdError::Workload(format!("mean_file_kib: {e}")))?;
        let mut sizes_rng = stream(seed, "workload/sizes");
        let sizes: Vec<u64> = (0..n)
            .map(|_| gamma.sample(&mut sizes_rng).round() as u64)
            .collect();
        let share = d.prealloc.unwrap_or(0.8);
        let prealloc: Vec<bool> = (0..n).map(|_| sizes_rng.gen_bool(share)).collect();
        let nthreads = spec.nthreads.or(d.nthreads).unwrap_or(1) as usize;
        Ok(Filebench {
            p,
            sizes,
            files: vec![None; n],
            idle_exist: PickSet::new(n),
            idle_absent: PickSet::new(n),
            threads: vec![Thread::default(); nthreads],
            io: spec.io_bytes(),
            append: spec.append_kib.or(d.append_kib).unwrap_or(16) * 1024,
            mean_file: mean,
            rng: stream(seed, "workload"),
            setup_next: 0,
            prealloc,
            tally: Tally::default(),
        })
    }

    /// The fileset's entry sizes (bytes).
    #[cfg(test)]
    pub fn sizes(&self) -> &[u64] {
        &self.sizes
    }

    fn grow(&self, host: &mut Host, file: &mut File, size: u64) -> Result<()> {
        host.grow(
            self.p.name,
            file,
            size,
            "lower fileset_fraction or mean_file_kib",
        )
    }

    /// Runs flowop `op` for thread `t`; returns false when the thread must wait.
    fn run(&mut self, host: &mut Host, t: usize, op: Flowop) -> Result<bool> {
        let fd = self.threads[t].fd;
        match op {
            Flowop::CreateFile => {
                let Some(e) = self.idle_absent.take(&mut self.rng) else {
                    return Ok(false);
                };
                self.files[e as usize] = Some(File::default());
                self.threads[t].fd = Some(e);
            }
            Flowop::OpenFile => {
                let Some(e) = self.idle_exist.take(&mut self.rng) else {
                    return Ok(false);
                };
                self.threads[t].fd = Some(e);
            }
            Flowop::CloseFile => {
                if let Some(e) = self.threads[t].fd.take() {
                    self.idle_exist.insert(e);
                }
            }
            Flowop::DeleteFile => {
                let Some(e) = self.idle_exist.take(&mut self.rng) else {
                    return Ok(false);
                };
                if let Some(f) = self.files[e as usize].take() {
                    host.delete(f);
                }
                self.idle_absent.insert(e);
                self.tally.deletes += 1;
            }
            Flowop::WriteWholeFile => {
                if let Some(e) = fd {
                    let size = self.sizes[e as usize];
                    let mut f = self.files[e as usize].take().unwrap_or_default();
                    let target = size.max(f.size);
                    let r = self.grow(host, &mut f, target);
                    if r.is_ok() {
                        host.write(&f, 0, size, self.io);
                        self.tally.creates += 1;
                        self.tally.create_bytes += size;
                    }
                    self.files[e as usize] = Some(f);
                    r?;
                }
            }
            Flowop::AppendFileRand => {
                let n = self.rng.gen_range(0..self.append);
                if let (Some(e), true) = (fd, n > 0) {
                    let mut f = self.files[e as usize].take().unwrap_or_default();
                    let old = f.size;
                    let r = self.grow(host, &mut f, old + n);
                    if r.is_ok() {
                        host.write(&f, old, old + n, self.io);
                        self.tally.appends += 1;
                        self.tally.append_bytes += n;
                    }
                    self.files[e as usize] = Some(f);
                    r?;
                }
            }
            Flowop::ReadWholeFile => {
                if let Some(f) = fd.and_then(|e| self.files[e as usize].as_ref()) {
                    host.read(f, 0, f.size, self.io);
                    self.tally.reads += 1;
                    self.tally.read_bytes += f.size;
                }
            }
            Flowop::StatFile | Flowop::Fsync => {}
        }
        Ok(true)
    }
}

impl Personality for Filebench {
    fn setting_up(&self) -> bool {
        self.setup_next < self.sizes.len()
    }

    fn step(&mut self, host: &mut Host) -> Result<()> {
        if self.setting_up() {
            let e = self.setup_next;
            self.setup_next += 1;
            if self.prealloc[e] {
                let mut f = File::default();
                self.grow(host, &mut f, self.sizes[e])?;
                host.write(&f, 0, f.size, self.io);
                self.files[e] = Some(f);
                self.idle_exist.insert(e as u32);
            } else {
                self.idle_absent.insert(e as u32);
            }
            return Ok(());
        }
        let t = self.rng.gen_range(0..self.threads.len());
        let ops = self.p.flowops;
        let op = ops[self.threads[t].pc];
        if self.run(host, t, op)? {
            self.threads[t].pc = (self.threads[t].pc + 1) % ops.len();
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "{} ({} files of {:.0} KiB mean, {} threads, {} KiB I/O, appends < {} KiB)",
            self.p.name,
            self.sizes.len(),
            self.mean_file / 1024.0,
            self.threads.len(),
            self.io / 1024,
            self.append / 1024
        )
    }

    fn for_each_file(&self, f: &mut dyn FnMut(&File)) {
        self.files.iter().flatten().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fileserver, varmail, FsPersonality, FsSource, FsSpec};
    use super::*;
    use crate::trace::{OpKind, RequestSource};

    #[test]
    fn pick_sets_insert_remove_and_pick_each_member() {
        let mut s = PickSet::new(5);
        for e in [4, 1, 3] {
            s.insert(e);
        }
        s.insert(1);
        s.remove(4);
        let mut rng = stream(1, "t");
        let mut got = vec![s.take(&mut rng).unwrap(), s.take(&mut rng).unwrap()];
        got.sort();
        assert_eq!(got, [1, 3]);
        assert_eq!(s.take(&mut rng), None);
    }

    /// One run of `p` on a 1 GiB partition: the personality's tally and the request bytes.
    fn run(
        p: &'static FilebenchPersonality,
        personality: FsPersonality,
        n: u64,
    ) -> (Tally, u64, u64, usize) {
        let spec = FsSpec::new(personality, n);
        let part = Partition::new(0, 4096, (1 << 30) / 4096);
        let mut fb = Filebench::new(p, &spec, &part, 3).unwrap();
        let mut host = Host {
            part,
            queue: Default::default(),
            discard: false,
            counted: true,
        };
        while fb.setting_up() {
            fb.step(&mut host).unwrap();
        }
        host.queue.clear();
        let (mut w, mut r) = (0, 0);
        for _ in 0..n {
            fb.step(&mut host).unwrap();
            while let Some(mut t) = host.queue.pop_front() {
                while let Some((_, len)) = t.next() {
                    match t.op {
                        OpKind::Write => w += len,
                        OpKind::Read => r += len,
                        OpKind::Trim | OpKind::Flush => {}
                    }
                }
            }
        }
        let files = fb.sizes().len();
        (fb.tally, w, r, files)
    }

    #[test]
    fn fileserver_flowops_follow_fileserver_f() {
        let (t, w, r, files) = run(&fileserver::PERSONALITY, FsPersonality::Fileserver, 400_000);
        // 0.5 GiB of 128 KiB files.
        assert_eq!(files, 4096);
        // One pass of the 11-flowop loop does each of create, append, read, delete once.
        let loops = 400_000.0 / 11.0;
        for (what, k) in [
            ("creates", t.creates),
            ("appends", t.appends),
            ("reads", t.reads),
            ("deletes", t.deletes),
        ] {
            let per = k as f64 / loops;
            assert!((per - 1.0).abs() < 0.03, "{what}: {per} per loop");
        }
        let mean_create = t.create_bytes as f64 / t.creates as f64 / 1024.0;
        assert!(
            (mean_create / 128.0 - 1.0).abs() < 0.03,
            "mean file {mean_create} KiB"
        );
        // appendfilerand: uniform 1 B .. 16 KiB − 1 B, mean 8 KiB.
        let mean_append = t.append_bytes as f64 / t.appends as f64 / 1024.0;
        assert!(
            (mean_append / 8.0 - 1.0).abs() < 0.03,
            "mean append {mean_append} KiB"
        );
        // Device bytes: whole 4 KiB blocks of what the flowops moved.
        assert!(w >= t.create_bytes + t.append_bytes && r >= t.read_bytes);
        assert!((w as f64 / (t.create_bytes + t.append_bytes) as f64) < 1.25);
    }

    #[test]
    fn varmail_flowops_follow_varmail_f() {
        let (t, _, _, files) = run(&varmail::PERSONALITY, FsPersonality::Varmail, 130_000);
        assert_eq!(files, 32768);
        // 13 flowops per loop: one delete, one create, two appends, two reads.
        let loops = 130_000.0 / 13.0;
        assert!((t.deletes as f64 / loops - 1.0).abs() < 0.05);
        assert!((t.appends as f64 / loops - 2.0).abs() < 0.1);
        assert!((t.reads as f64 / loops - 2.0).abs() < 0.1);
        // varmail's createfile is followed by an append, never writewholefile.
        assert_eq!(t.creates, 0);
    }

    #[test]
    fn a_fileset_too_big_for_the_model_is_an_error_naming_the_field() {
        let mut spec = FsSpec::new(FsPersonality::Varmail, 1);
        spec.mean_file_kib = Some(0.001);
        let e = FsSource::new(&spec, 1 << 30, 4096, 1)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("fileset_fraction: expected a fileset of at most"),
            "{e}"
        );
    }

    #[test]
    fn threads_that_cannot_pick_wait_and_a_stuck_fileset_is_an_error() {
        // One file for four threads: when it is preallocated, every thread starts at
        // createfile with no absent entry and waits for ever (as filebench would); when it is
        // not, the threads take turns with it.
        let mut spec = FsSpec::new(FsPersonality::Fileserver, 50);
        spec.fileset_fraction = Some(1.0 / 128.0);
        spec.nthreads = Some(4);
        let (mut stuck, mut ran) = (0, 0);
        for seed in 1..=12 {
            let mut s = FsSource::new(&spec, 16 << 20, 4096, seed).unwrap();
            loop {
                match s.next_request() {
                    Ok(Some(_)) => s.check_invariants().unwrap(),
                    Ok(None) => {
                        ran += 1;
                        break;
                    }
                    Err(e) => {
                        let e = e.to_string();
                        assert!(
                            e.contains("fileserver: no request in") && e.contains("nthreads"),
                            "{e}"
                        );
                        stuck += 1;
                        break;
                    }
                }
            }
        }
        assert!(stuck > 0 && ran > 0, "stuck {stuck}, ran {ran}");
    }
}
