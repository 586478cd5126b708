//! Settings a device model cannot honour are refused with a one-line error naming the field,
//! never silently ignored (before: `--gc lazyrtgc` or `--victim fifo` on a RAIN device ran the
//! RAIN GC unchanged).

use ssdlab_core::config::DeviceConfig;

fn rain(extra: &[&str]) -> Result<DeviceConfig, String> {
    let mut o: Vec<String> = vec!["ftl.kind=\"rain\"".into()];
    o.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset("ttflash-small", &o).map_err(|e| e.to_string())
}

#[test]
fn rain_refuses_what_its_stripe_group_gc_cannot_honour() {
    assert!(rain(&[]).is_ok());
    for (set, field, want) in [
        (
            "gc.scheduler=lazyrtgc",
            "gc.scheduler:",
            "'blocking' only, got 'lazyrtgc'",
        ),
        ("gc.scheduler=rlgc", "gc.scheduler:", "got 'rlgc'"),
        ("ftl.placement=hot-cold", "ftl.placement:", "'single' only"),
        (
            "ftl.allocation=static",
            "ftl.allocation:",
            "'round-robin' only",
        ),
    ] {
        let e = rain(&[set]).expect_err(set);
        assert!(e.contains(field) && e.contains(want), "{set}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}

#[test]
fn gtf_alone_keeps_the_plain_policies_but_not_the_oracle() {
    let gtf = |set: &str| {
        let sets = [
            "write_cache.mode=\"write-back\"".into(),
            "write_cache.flush=\"gc-aware\"".into(),
            set.into(),
        ];
        DeviceConfig::from_preset("ttflash-small", &sets).map_err(|e| e.to_string())
    };
    assert!(gtf("gc.scheduler=lazyrtgc").is_ok());
    assert!(gtf("gc.victim=fifo").is_ok());
    assert!(gtf("ftl.placement=hot-cold").is_ok());
    let e = gtf("ftl.placement=oracle").unwrap_err();
    assert!(e.contains("ftl.placement:") && e.contains("oracle"), "{e}");
}
