//! Records the git commit the core is built from (`ssdlab --version`), when built from a
//! checkout: `SSDLAB_GIT_COMMIT` is the commit (`unknown` from a source archive, no git). No
//! "dirty" mark: keeping it true would rerun this script, and rebuild the core, on every edit.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SSDLAB_GIT_COMMIT={commit}");
    // Rerun when HEAD moves: a checkout (HEAD) or a commit (the branch's ref).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let mut watch = vec![Path::new(&dir).join("HEAD")];
        if let (Some(common), Some(r)) = (
            git(&["rev-parse", "--git-common-dir"]),
            git(&["symbolic-ref", "-q", "HEAD"]),
        ) {
            watch.push(Path::new(&common).join(r));
        }
        for p in watch.iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
