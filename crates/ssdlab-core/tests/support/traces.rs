//! The shared real trace excerpts (`../shared/traces`, outside the repository) and visible skips
//! for the tests that need them when they are absent.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `rel` under the shared excerpts folder, whether present or not.
pub fn shared(rel: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces"
    ))
    .join(rel)
}

/// The running test's name (the test harness names each test's thread after it).
pub fn current_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_string()
}

/// Reports `what` skipped: `SKIPPED: <what>: <path> not present`, written straight to the
/// process's stderr — past the test harness's capture, which swallows `eprintln!` of passing
/// tests — so a skip shows in every `cargo test` run.
pub fn skipped(what: &str, path: &Path) {
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {what}: {} not present",
        path.display()
    );
}
