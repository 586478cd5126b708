//! filebench's `fileserver` personality (`workloads/fileserver.f`, filebench 1.5; "File-server
//! Version 3.0", Sun Microsystems 2008), one of the two filebench workloads Park & Kim (IJCA
//! 2018, §III.A) train their GC detector on. Values are the .f file's defaults: `$nfiles`
//! 10,000 (scaled here, see `filebench.rs`), `$meandirwidth` 20 (directories are not
//! modelled), `$filesize` gamma with mean 128 KiB and gamma 1.5, `$nthreads` 50, `$iosize`
//! 1 MiB, `$meanappendsize` 16 KiB, `prealloc=80`.

use super::filebench::{FilebenchPersonality, Flowop::*};
use super::spec::PersonalityDefaults;

/// The .f file's defaults.
pub const DEFAULTS: PersonalityDefaults = PersonalityDefaults {
    nthreads: Some(50),
    io_kib: 1024,
    mean_file_kib: Some(128.0),
    append_kib: Some(16),
    nfiles: Some(10_000),
    fileset_fraction: Some(0.5),
    prealloc: Some(0.8),
    file_fraction: None,
};

/// One thread's loop, as in the .f file.
pub(crate) const PERSONALITY: FilebenchPersonality = FilebenchPersonality {
    name: "fileserver",
    flowops: &[
        CreateFile,
        WriteWholeFile,
        CloseFile,
        OpenFile,
        AppendFileRand,
        CloseFile,
        OpenFile,
        ReadWholeFile,
        CloseFile,
        DeleteFile,
        StatFile,
    ],
    defaults: DEFAULTS,
};
