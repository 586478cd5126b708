//! filebench's `varmail` personality (`workloads/varmail.f`, filebench 1.5; "Varmail Version
//! 3.0", Sun Microsystems 2007: a mail server's spool, /var/mail), one of the two filebench
//! workloads Park & Kim (IJCA 2018, §III.A) train their GC detector on. Values are the .f
//! file's defaults: `$nfiles` 1,000 (scaled here, see `filebench.rs`), `$meandirwidth`
//! 1,000,000 (one directory; not modelled), `$filesize` gamma with mean 16 KiB and gamma 1.5,
//! `$nthreads` 16, `$iosize` 1 MiB, `$meanappendsize` 16 KiB, `prealloc=80`. Its `fsync`s make
//! no request here (no journal model; every write already reaches the device).

use super::filebench::{FilebenchPersonality, Flowop::*};
use super::spec::PersonalityDefaults;

/// The .f file's defaults.
pub const DEFAULTS: PersonalityDefaults = PersonalityDefaults {
    nthreads: Some(16),
    io_kib: 1024,
    mean_file_kib: Some(16.0),
    append_kib: Some(16),
    nfiles: Some(1_000),
    fileset_fraction: Some(0.5),
    prealloc: Some(0.8),
    file_fraction: None,
};

/// One thread's loop, as in the .f file.
pub(crate) const PERSONALITY: FilebenchPersonality = FilebenchPersonality {
    name: "varmail",
    flowops: &[
        DeleteFile,
        CreateFile,
        AppendFileRand,
        Fsync,
        CloseFile,
        OpenFile,
        ReadWholeFile,
        AppendFileRand,
        Fsync,
        CloseFile,
        OpenFile,
        ReadWholeFile,
        CloseFile,
    ],
    defaults: DEFAULTS,
};
