//! Every registry family: names are unique, every member has a summary (its doc comment), and
//! the name a family lists is the name serde reads and writes — one rule, so that a config, a
//! workload spec, the CLI and `ssdlab policies` agree.

use serde::Serialize;
use serde_json::Value;
use ssdlab_core::api;
use ssdlab_core::config::{
    Allocation, Arbitration, CacheMode, CmtPolicy, EvictionKind, FlashScheduler, FlushPolicy,
    FtlKind, HandleType, MappingKind, PageOrder, Placement, Registry, SchedulerKind, SlcPolicyKind,
    SuspendMode, VictimPolicy, ZoneHost, ZoneLayout,
};
use ssdlab_core::detect::features::FeatureSet;
use ssdlab_core::experiments::Experiment;
use ssdlab_core::offline::{OfflineMethod, ToyDistribution};
use ssdlab_core::sim::GcLabel;
use ssdlab_core::trace::{
    ArrivalSpec, FsPersonality, IdleDist, LbaMapMode, Pattern, TraceFormat, TrimMode,
};

/// The name serde gives a member: a string, or the tag of an internally tagged enum.
fn serde_name<T: Serialize>(v: &T, tag: Option<&str>) -> String {
    match (serde_json::to_value(v).expect("serialize"), tag) {
        (Value::String(s), None) => s,
        (Value::Object(o), Some(t)) => o[t].as_str().expect("tag").to_string(),
        (other, _) => panic!("unexpected serde form {other}"),
    }
}

fn check<T>(tag: Option<&str>)
where
    T: Registry + Serialize,
    &'static str: for<'a> From<&'a T>,
{
    let mut seen = std::collections::HashSet::new();
    for m in T::iter() {
        assert!(seen.insert(m.name()), "{}: '{}' twice", T::FAMILY, m.name());
        let s = serde_name(&m, tag);
        // Parameterised members serialise with their parameters (`d-choices:d=0`).
        assert!(
            s == m.name() || s.starts_with(&format!("{}:", m.name())),
            "{}: listed as '{}', serde says '{s}'",
            T::FAMILY,
            m.name()
        );
    }
    let f = T::family();
    assert!(!f.members.is_empty());
    for m in &f.members {
        assert!(
            m.summary.len() > 10,
            "{}: '{}' has no summary",
            T::FAMILY,
            m.name
        );
    }
    if !f.default.is_empty() {
        assert!(
            f.members.iter().any(|m| m.name == f.default),
            "{}: default",
            T::FAMILY
        );
    }
    // A former name reads as the member it names now, and is no member's name.
    for &(old, new) in T::FORMER {
        assert!(T::iter().all(|m| m.name() != old), "{}: '{old}'", T::FAMILY);
        assert_eq!(
            T::parse_name(old).map(|m| m.name()),
            Ok(new),
            "{}",
            T::FAMILY
        );
    }
}

#[test]
fn every_family_lists_the_names_serde_reads() {
    check::<VictimPolicy>(None);
    check::<SchedulerKind>(None);
    check::<Placement>(None);
    check::<Allocation>(None);
    check::<FtlKind>(None);
    check::<MappingKind>(None);
    check::<CmtPolicy>(None);
    check::<SlcPolicyKind>(None);
    check::<CacheMode>(None);
    check::<EvictionKind>(None);
    check::<FlushPolicy>(None);
    check::<SuspendMode>(None);
    check::<FlashScheduler>(None);
    check::<PageOrder>(None);
    check::<Arbitration>(None);
    check::<HandleType>(None);
    check::<ZoneLayout>(None);
    check::<ZoneHost>(None);
    check::<TraceFormat>(None);
    check::<Pattern>(None);
    check::<ArrivalSpec>(Some("kind"));
    check::<IdleDist>(Some("dist"));
    check::<LbaMapMode>(None);
    check::<FsPersonality>(None);
    check::<TrimMode>(None);
    check::<FeatureSet>(None);
    check::<GcLabel>(None);
    check::<OfflineMethod>(Some("name"));
    check::<ToyDistribution>(None);
    check::<Experiment>(None);
}

#[test]
fn the_catalogue_has_every_family_once() {
    let all = api::registries();
    let mut names: Vec<&str> = all.iter().map(|f| f.family).collect();
    assert_eq!(all.len(), 30);
    names.sort();
    names.dedup();
    assert_eq!(names.len(), all.len());
}

#[test]
fn unknown_names_are_errors_listing_the_valid_ones() {
    let e = SchedulerKind::parse_name("lazy").unwrap_err();
    assert!(e.contains("lazyrtgc") && e.contains("external"), "{e}");
    let e = VictimPolicy::parse("greedyy").unwrap_err();
    assert!(e.contains("greedy") && e.contains("d-choices:d=N"), "{e}");
    let e = OfflineMethod::from_name("belady").unwrap_err().to_string();
    assert!(e.contains("mcts") && e.contains("random"), "{e}");
    // A bad value in a config names its field.
    let e = ssdlab_core::config::DeviceConfig::from_preset("tiny", &["gc.scheduler=lazy".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("gc.scheduler") && e.contains("lazyrtgc"), "{e}");
    let e = ssdlab_core::config::DeviceConfig::from_preset("tiny", &["ftl.placement=hot".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("ftl.placement") && e.contains("hot-cold"), "{e}");
}

/// Adding a victim policy is one file plus one line (see the module docs of
/// `ssdlab_core::victim`): every member of the family has its file in `src/victim/`, named in
/// the `rules!` table, with a doc comment that cites its source; the file's rule is what both
/// the online FTL and the offline model run.
#[test]
fn every_victim_policy_is_one_file_in_victim() {
    use ssdlab_core::victim;
    use strum::IntoEnumIterator;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/victim");
    let table = victim::files();
    assert_eq!(table.len(), VictimPolicy::iter().count());
    for m in VictimPolicy::iter() {
        let variant = format!("{m:?}");
        let variant = variant.split([' ', '{']).next().unwrap();
        let (_, file) = table
            .iter()
            .find(|(v, _)| *v == variant)
            .unwrap_or_else(|| panic!("{variant} has no row in victim's rules! table"));
        let text = std::fs::read_to_string(format!("{dir}/{file}.rs"))
            .unwrap_or_else(|e| panic!("{variant}: src/victim/{file}.rs: {e}"));
        assert!(text.starts_with("//! "), "{file}.rs: module doc first");
        let doc: String = text.lines().take_while(|l| l.starts_with("//!")).collect();
        assert!(
            doc.chars().any(|c| c.is_ascii_digit()),
            "{file}.rs: its doc comment cites a paper (author, venue, year)"
        );
        assert!(text.contains("pub fn rule("), "{file}.rs: defines its rule");
        let _ = victim::rule(m); // every member has a rule (the table is exhaustive)
    }
    // No file without a member.
    let files = std::fs::read_dir(dir).unwrap().count() - 1; // minus mod.rs
    assert_eq!(
        files,
        table.len(),
        "a file in src/victim/ that is no member"
    );
}
