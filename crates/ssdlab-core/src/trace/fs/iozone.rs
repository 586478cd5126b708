//! iozone's write/rewrite test (`iozone -i 0`) on one file, then the file's deletion,
//! repeated with no idle time: the background load of Park & Kim (IJCA 2018, §V), who kept
//! iozone writing and erasing on the SSD's other partitions "so that the SSD has the minimum
//! idle time" while the 68 GB partition sat deleted but not trimmed.
//!
//! One cycle: create the file (allocated next-fit, so each cycle's file lands after the last
//! one's and the cursor sweeps the partition), write it sequentially, rewrite it in place
//! (ext4 overwrites the same blocks), delete it (iozone unlinks its temporary file at the end
//! unless `-w`) — its extents become pending, or TRIMmed under `discard`.
//!
//! Open values. The paper gives no iozone options. *File size*: iozone's own default (512 KiB,
//! `KILOBYTES` in `iozone.c`) would be absorbed by the page cache; the default here is a
//! quarter of the partition (`file_mib` sets it), large enough to reach the device and to move
//! the allocation cursor a quarter of the partition per cycle, so a deleted file's space is
//! reused three cycles later and, without TRIM, about three quarters of the partition is
//! deleted-but-valid on the device after the first round. *Request size*: iozone's record
//! size (`-r`; 1 KiB by default, `RECLEN`) does not reach the device, because buffered writes
//! are written back in large sequential requests; 512 KiB is the write-back size of the
//! paper's Linux 3.10 (`max_sectors_kb` = `BLK_DEF_MAX_SECTORS` = 1,024 sectors).

use super::alloc::{File, Partition};
use super::spec::{FsSpec, PersonalityDefaults};
use super::{Host, Personality};
use crate::error::{Result, SsdError};

/// See the module docs: 512 KiB write-back requests, a file of a quarter of the partition.
pub const DEFAULTS: PersonalityDefaults = PersonalityDefaults {
    nthreads: None,
    io_kib: 512,
    mean_file_kib: None,
    append_kib: None,
    nfiles: None,
    fileset_fraction: None,
    prealloc: None,
    file_fraction: Some(0.25),
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Write,
    Rewrite,
    Delete,
}

pub(crate) struct Iozone {
    file_bytes: u64,
    io: u64,
    file: Option<File>,
    stage: Stage,
}

impl Iozone {
    pub fn new(spec: &FsSpec, part: &Partition, _seed: u64) -> Result<Self> {
        let file_bytes = match spec.file_mib {
            Some(m) => (m * 1048576.0).round() as u64,
            None => (part.bytes() as f64 * DEFAULTS.file_fraction.unwrap_or(0.25)).round() as u64,
        };
        if file_bytes == 0 || file_bytes > part.bytes() {
            return Err(SsdError::Workload(format!(
                "file_mib: expected a file of 1 B to the partition's {:.3} MiB, got {:.3} MiB",
                part.bytes() as f64 / 1048576.0,
                file_bytes as f64 / 1048576.0
            )));
        }
        Ok(Iozone {
            file_bytes,
            io: spec.io_bytes(),
            file: None,
            stage: Stage::Write,
        })
    }
}

impl Personality for Iozone {
    fn setting_up(&self) -> bool {
        false
    }

    fn step(&mut self, host: &mut Host) -> Result<()> {
        match self.stage {
            Stage::Write => {
                let mut f = File::default();
                host.grow("iozone", &mut f, self.file_bytes, "lower file_mib")?;
                host.write(&f, 0, f.size, self.io);
                self.file = Some(f);
                self.stage = Stage::Rewrite;
            }
            Stage::Rewrite => {
                if let Some(f) = &self.file {
                    host.write(f, 0, f.size, self.io);
                }
                self.stage = Stage::Delete;
            }
            Stage::Delete => {
                if let Some(f) = self.file.take() {
                    host.delete(f);
                }
                self.stage = Stage::Write;
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "iozone (write+rewrite+delete of a {:.1} MiB file, {} KiB requests)",
            self.file_bytes as f64 / 1048576.0,
            self.io / 1024
        )
    }

    fn for_each_file(&self, f: &mut dyn FnMut(&File)) {
        self.file.iter().for_each(f);
    }
}
