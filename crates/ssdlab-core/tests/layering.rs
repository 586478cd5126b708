//! The core's shape, checked: every `crate::<module>` reference between top-level modules (outside
//! `#[cfg(test)]` code) must point to a strictly lower layer of [`ssdlab_core::LAYERS`], so that
//! data flows one way and no two modules import each other; and no source file grows past 600
//! lines (one concept per file).

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

/// The top-level module a source file belongs to (`lib` for lib.rs).
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("under src");
    let first = rel.components().next().expect("component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// `crate::<name>` references of the non-test code of `text` (comments, doc links included,
/// are not code).
fn references(text: &str) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        // `ssdlab_core::…` or `$crate::` are not this crate's own paths.
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let name: String = code[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
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
    let r = references("use crate::sim::X; // see crate::rain\n/// [`crate::nand`]\nfn f() { crate::gc::g(); ssdlab_core::api::h(); }\n#[cfg(test)]\nuse crate::api;");
    assert_eq!(r.into_iter().collect::<Vec<_>>(), vec!["gc", "sim"]);
    assert!(layer_of("sim") < layer_of("gc"), "sim sits above gc");
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
