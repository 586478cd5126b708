//! fio `rw=randwrite bs=512k direct=1` on one file filling the partition: the micro benchmark
//! Park & Kim (IJCA 2018, §III.A) train their GC detector with ("512K block random write").
//!
//! fio first lays the file out (`extend_file` in fio's `filesetup.c` writes it sequentially
//! in blocks of the job's largest `bs`): setup, not counted. Then every request is one
//! `bs`-aligned block write. fio's default random map (`norandommap` unset) writes each block
//! once per pass over the file before any block twice (it looks for the next unwritten block
//! in its bitmap when a random pick was already written); we draw each pass as a uniformly
//! random permutation (an incremental Fisher–Yates shuffle, seeded), the same coverage.
//! `direct=1`: no page cache, each write is one request. The file holds every cluster of the
//! partition; its last partial block (if the partition is not a multiple of `bs`) is written
//! by the layout only, as fio's offsets stay below `size / bs` blocks.

use rand::Rng;

use super::alloc::{File, Partition};
use super::spec::{FsSpec, PersonalityDefaults};
use super::{Host, Personality};
use crate::error::{Result, SsdError};
use crate::rng::{stream, SimRng};

/// fio's job as the paper describes it: `bs=512k`, one job (`numjobs=1`).
pub const DEFAULTS: PersonalityDefaults = PersonalityDefaults {
    nthreads: None,
    io_kib: 512,
    mean_file_kib: None,
    append_kib: None,
    nfiles: None,
    fileset_fraction: None,
    prealloc: None,
    file_fraction: None,
};

/// The most blocks the random map holds (4 B each: 256 MiB), e.g. 4 KiB writes over 256 GiB;
/// more is an error naming `io_kib` rather than an allocation the machine may not have.
const MAX_BLOCKS: u64 = 1 << 26;

pub(crate) struct Fio {
    file: Option<File>,
    laid_out: bool,
    bs: u64,
    /// The current pass's permutation of block numbers; `next` blocks of it are done.
    perm: Vec<u32>,
    next: usize,
    rng: SimRng,
}

impl Fio {
    pub fn new(spec: &FsSpec, part: &Partition, seed: u64) -> Result<Self> {
        let bs = spec.io_bytes();
        let blocks = part.bytes() / bs;
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(SsdError::Workload(format!(
                "io_kib: expected 1 to {MAX_BLOCKS} blocks of {} KiB in the {} KiB partition, got {blocks}; raise io_kib or lower partition_fraction",
                bs / 1024,
                part.bytes() / 1024
            )));
        }
        Ok(Fio {
            file: None,
            laid_out: false,
            bs,
            perm: (0..blocks as u32).collect(),
            next: 0,
            rng: stream(seed, "workload"),
        })
    }
}

impl Personality for Fio {
    fn setting_up(&self) -> bool {
        !self.laid_out
    }

    fn step(&mut self, host: &mut Host) -> Result<()> {
        let Some(file) = &self.file else {
            let mut f = File::default();
            let size = host.part.bytes();
            host.grow(
                "fio-randwrite",
                &mut f,
                size,
                "the file fills the partition",
            )?;
            host.write(&f, 0, f.size, self.bs);
            self.file = Some(f);
            self.laid_out = true;
            return Ok(());
        };
        if self.next == self.perm.len() {
            self.next = 0;
        }
        let j = self.rng.gen_range(self.next..self.perm.len());
        self.perm.swap(self.next, j);
        let b = u64::from(self.perm[self.next]);
        self.next += 1;
        host.write(file, b * self.bs, (b + 1) * self.bs, self.bs);
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "fio-randwrite ({} KiB random writes over {} blocks, laid out first)",
            self.bs / 1024,
            self.perm.len()
        )
    }

    fn for_each_file(&self, f: &mut dyn FnMut(&File)) {
        self.file.iter().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FsPersonality, FsSource, FsSpec};
    use crate::trace::{OpKind, RequestSource};

    #[test]
    fn lays_out_then_writes_every_block_once_per_pass() {
        let spec = FsSpec::new(FsPersonality::FioRandwrite, 2 * 64);
        // 32 MiB + 4 KiB: 64 blocks of 512 KiB and a 4 KiB tail only the layout writes.
        let mut s = FsSource::new(&spec, (32 << 20) + 4096, 4096, 9).unwrap();
        let mut layout = Vec::new();
        let mut blocks = Vec::new();
        while let Some(r) = s.next_request().unwrap() {
            assert_eq!(r.op, OpKind::Write);
            if layout.last().map_or(0, |&(o, n)| o + n) < (32 << 20) + 4096 {
                layout.push((r.offset_bytes, r.size_bytes));
            } else {
                assert_eq!(r.size_bytes, 512 << 10);
                assert_eq!(r.offset_bytes % (512 << 10), 0);
                blocks.push(r.offset_bytes / (512 << 10));
            }
        }
        assert_eq!(layout.len(), 65);
        assert_eq!(layout[64], (32 << 20, 4096));
        assert_eq!(blocks.len(), 128);
        for pass in blocks.chunks(64) {
            let mut p = pass.to_vec();
            p.sort();
            assert_eq!(p, (0..64).collect::<Vec<u64>>());
        }
        assert_ne!(blocks[..64], blocks[64..]);
    }

    #[test]
    fn a_random_map_too_large_is_an_error_naming_io_kib() {
        let mut spec = FsSpec::new(FsPersonality::FioRandwrite, 1);
        spec.io_kib = Some(4);
        let e = FsSource::new(&spec, 1 << 40, 4096, 1)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("workload: io_kib: expected 1 to 67108864 blocks"),
            "{e}"
        );
        spec.io_kib = Some(1024);
        let e = FsSource::new(&spec, 1 << 19, 4096, 1)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("io_kib: expected 1 to"), "{e}");
    }
}
