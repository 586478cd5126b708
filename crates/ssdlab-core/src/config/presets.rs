//! Named device presets shipped inside the crate (TOML files under `presets/`).

/// (name, TOML text) of every shipped preset.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "client-hmb-1tb",
        include_str!("../../presets/client-hmb-1tb.toml"),
    ),
    (
        "client-qlc-1tb",
        include_str!("../../presets/client-qlc-1tb.toml"),
    ),
    ("kang-128gb", include_str!("../../presets/kang-128gb.toml")),
    ("kang-512gb", include_str!("../../presets/kang-512gb.toml")),
    (
        "mqsim-small",
        include_str!("../../presets/mqsim-small.toml"),
    ),
    ("tiny", include_str!("../../presets/tiny.toml")),
    ("ttflash", include_str!("../../presets/ttflash.toml")),
    (
        "ttflash-small",
        include_str!("../../presets/ttflash-small.toml"),
    ),
    ("yoo-qlc", include_str!("../../presets/yoo-qlc.toml")),
];

pub fn preset(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}
