//! The core's shape, checked: every `crate::<module>` reference between top-level modules (outside
//! `#[cfg(test)]` code) must point to a strictly lower layer of [`ssdlab_core::LAYERS`], so that
//! data flows one way and no two modules import each other; no files import each other round a
//! circle through `super::` paths (a folder's `mod.rs` and the files it declares are parent and
//! children, not part of a circle); and no source file grows past 600 lines (one concept per
//! file).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ssdlab_core::LAYERS;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
}

/// The module of [`LAYERS`] a source file belongs to: the longest layer name (`ftl::rain`,
/// `ftl`, `sim`) its path under src/ starts with (`lib` for lib.rs). A folder's `mod.rs` is
/// the folder's module.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("under src");
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    longest_layer_name(&segs).unwrap_or_else(|| segs[0].clone())
}

/// The longest name of [`LAYERS`] that `segs` (a path's segments) starts with.
fn longest_layer_name(segs: &[String]) -> Option<String> {
    (1..=segs.len())
        .rev()
        .map(|n| segs[..n].join("::"))
        .find(|name| layer_of(name).is_some())
}

/// The non-test code of `text`: up to its first `#[cfg(test)]`, comments (doc links
/// included) cut.
fn code_of(text: &str) -> String {
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules of [`LAYERS`] that the `crate::` paths of the non-test code of `text` name:
/// `crate::ftl::map::Ftl` names `ftl::map`, `crate::ftl::FtlLayer` names `ftl`.
fn references(text: &str) -> BTreeSet<String> {
    let code = code_of(text);
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        // `ssdlab_core::…` or `$crate::` are not this crate's own paths.
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let mut segs = Vec::new();
        let mut rest = &code[i + 7..];
        loop {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if name.is_empty() {
                break;
            }
            rest = &rest[name.len()..];
            segs.push(name);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        if let Some(first) = segs.first().cloned() {
            out.insert(longest_layer_name(&segs).unwrap_or(first));
        }
    }
    out
}

fn layer_of(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&m))
}

#[test]
fn imports_flow_down_the_layers_of_lib_rs() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    files.sort();
    let mut edges: BTreeMap<(String, String), PathBuf> = BTreeMap::new();
    let mut modules = BTreeSet::new();
    for f in &files {
        let m = module_of(f);
        // `tests.rs` files are unit-test modules (`#[cfg(test)] mod tests;`), not the module's code.
        if m == "lib" || f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        modules.insert(m.clone());
        for r in references(&std::fs::read_to_string(f).expect("read")) {
            if r != m {
                edges.entry((m.clone(), r)).or_insert_with(|| f.clone());
            }
        }
    }
    let mut bad = Vec::new();
    for m in &modules {
        if layer_of(m).is_none() {
            bad.push(format!(
                "module `{m}` is in no layer of ssdlab_core::LAYERS (lib.rs)"
            ));
        }
    }
    for ((from, to), file) in &edges {
        match (layer_of(from), layer_of(to)) {
            (Some(a), Some(b)) if a < b => {}
            (Some(_), Some(_)) => bad.push(format!(
                "{from} -> {to} ({}): `{to}` is not in a lower layer than `{from}`",
                file.strip_prefix(src()).unwrap_or(file).display()
            )),
            _ => {}
        }
    }
    // A cycle needs an edge that does not go down, so the rule above excludes cycles; name the
    // pairs that import each other all the same, for the reader of a failure.
    for (from, to) in edges.keys() {
        if from < to && edges.contains_key(&(to.clone(), from.clone())) {
            bad.push(format!("cycle: {from} <-> {to}"));
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn the_layering_check_catches_an_upward_edge() {
    // The reader finds `crate::` paths in code and ignores other crates and test modules.
    let r = references("use crate::sim::X; // see crate::ftl::rain\n/// [`crate::flash`]\nfn f() { crate::ftl::gc::g(); crate::ftl::FtlLayer; ssdlab_core::api::h(); }\n#[cfg(test)]\nuse crate::api;");
    assert_eq!(
        r.into_iter().collect::<Vec<_>>(),
        vec!["ftl", "ftl::gc", "sim"]
    );
    assert!(
        layer_of("sim") < layer_of("ftl::gc"),
        "sim sits above ftl::gc"
    );
    assert!(
        layer_of("ftl") < layer_of("ftl::gc"),
        "the FTL layer's trait sits above its GC"
    );
    let f = src().join("ftl/rain/device.rs");
    assert_eq!(module_of(&f), "ftl::rain");
    assert_eq!(module_of(&src().join("ftl/mod.rs")), "ftl");
}

#[test]
fn no_core_source_file_over_600_lines() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).expect("read").lines().count();
            (n > 600).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "one concept per file; split: {long:?}");
}

/// The `super::…` paths of the non-test code of `text`, as their segments up to the first that
/// is not a name (`use super::{a, b::C}` gives `[a]` and `[b, C]`; `super::a::f()` gives `[a,
/// f]`; `super::super::…`, the grandparent's, is skipped).
fn super_paths(text: &str) -> Vec<Vec<String>> {
    let code = code_of(text);
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    // The path's names: each segment's leading name, up to one not followed by `::`.
    let path = |s: &str| -> Vec<String> {
        let mut names = Vec::new();
        let mut rest = s.trim_start();
        loop {
            let end = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
            if end == 0 {
                break;
            }
            names.push(rest[..end].to_string());
            match rest[end..].strip_prefix("::") {
                Some(r) => rest = r.trim_start(),
                None => break,
            }
        }
        names
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("super::") {
        let rest = &code[i + 7..];
        let after_name = code[..i]
            .chars()
            .last()
            .is_some_and(|c| ident(c) || c == ':');
        if after_name || rest.starts_with("super::") {
            continue;
        }
        let Some(group) = rest.strip_prefix('{') else {
            out.push(path(rest));
            continue;
        };
        // A group: its items split at its own commas (a nested group stays whole; the path
        // takes the segments before it, which are the ones that name a file).
        let (mut depth, mut start) = (0usize, 0usize);
        for (k, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.push(path(&group[start..k]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(path(&group[start..k]));
                    start = k + 1;
                }
                _ => {}
            }
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// The folder a file's `super::` starts from: its own folder, or for a folder's `mod.rs` the
/// folder above.
fn super_base(file: &Path) -> PathBuf {
    let dir = file.parent().expect("folder");
    if file.file_name().is_some_and(|n| n == "mod.rs") {
        dir.parent().expect("parent").to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The source file a `super::` path from `base` names: the deepest `name.rs` or `name/mod.rs`
/// its segments reach (None for an item of the parent module itself).
fn resolve(base: &Path, path: &[String]) -> Option<PathBuf> {
    let mut dir = base.to_path_buf();
    let mut found = None;
    for seg in path {
        let file = dir.join(format!("{seg}.rs"));
        if file.is_file() {
            return Some(file);
        }
        let sub = dir.join(seg);
        if sub.join("mod.rs").is_file() {
            found = Some(sub.join("mod.rs"));
            dir = sub;
        } else {
            break;
        }
    }
    found
}

/// A circle in `edges`, as the files along it, if there is one.
fn find_circle(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Option<Vec<PathBuf>> {
    fn visit(
        n: &Path,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        path: &mut Vec<PathBuf>,
        done: &mut BTreeSet<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut circle = path[at..].to_vec();
            circle.push(n.to_path_buf());
            return Some(circle);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_path_buf());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_path_buf());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_files_import_each_other_round_a_circle() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    files.sort();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let text = std::fs::read_to_string(f).expect("read");
        let base = super_base(f);
        let to: BTreeSet<PathBuf> = super_paths(&text)
            .iter()
            .filter_map(|p| resolve(&base, p))
            // A file's own folder's mod.rs is its parent (Rust declares children there).
            .filter(|t| t != f && *t != f.with_file_name("mod.rs"))
            .collect();
        edges.insert(f.clone(), to);
    }
    let circle = find_circle(&edges).map(|c| {
        c.iter()
            .map(|f| f.strip_prefix(src()).unwrap_or(f).display().to_string())
            .collect::<Vec<_>>()
            .join(" -> ")
    });
    assert_eq!(circle, None, "files that import each other round a circle");
}

#[test]
fn the_circle_check_reads_groups_and_paths_and_finds_a_circle() {
    let p = super_paths(
        "use super::{a, b::{X, Y}, IO_MAX};\nfn f() { super::c::g(); super::super::a::h(); }\n#[cfg(test)]\nuse super::b;",
    );
    let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        p,
        vec![
            words(&["a"]),
            words(&["b"]),
            words(&["IO_MAX"]),
            words(&["c", "g"])
        ]
    );
    // `super::fs::stats::FsStats` from trace/request.rs names the file trace/fs/stats.rs.
    let trace = src().join("trace");
    assert_eq!(
        resolve(&trace, &words(&["fs", "stats", "FsStats"])),
        Some(trace.join("fs/stats.rs"))
    );
    assert_eq!(
        resolve(&trace, &words(&["fs", "FsSpec"])),
        Some(trace.join("fs/mod.rs"))
    );
    assert_eq!(resolve(&trace, &words(&["IO_MAX"])), None);
    let (a, b, c) = (PathBuf::from("a"), PathBuf::from("b"), PathBuf::from("c"));
    let mut edges = BTreeMap::new();
    edges.insert(a.clone(), BTreeSet::from([b.clone()]));
    edges.insert(b.clone(), BTreeSet::from([c.clone()]));
    edges.insert(c.clone(), BTreeSet::new());
    assert_eq!(find_circle(&edges), None);
    edges.get_mut(&c).unwrap().insert(a.clone());
    assert_eq!(find_circle(&edges), Some(vec![a.clone(), b, c, a]));
}

/// The downcasts of the non-test code of `text`: a layer reports upward through typed values
/// (`ftl::FtlLayer::report`, its capabilities), never by being asked which type it is.
fn downcasts(text: &str) -> Vec<&'static str> {
    let code = code_of(text);
    ["as_any", "downcast", "std::any::Any", "dyn Any"]
        .into_iter()
        .filter(|w| code.contains(w))
        .collect()
}

#[test]
fn no_layer_is_reached_by_a_downcast() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let found: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let d = downcasts(&std::fs::read_to_string(f).expect("read"));
            (!d.is_empty()).then(|| format!("{} ({})", f.display(), d.join(", ")))
        })
        .collect();
    assert!(found.is_empty(), "downcasts in the core: {found:?}");
    assert_eq!(
        downcasts("fn f(m: &dyn M) { m.as_any().downcast_ref::<P>(); }\n#[cfg(test)]\nx.as_any()"),
        vec!["as_any", "downcast"]
    );
}
