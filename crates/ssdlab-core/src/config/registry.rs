//! One registry style for every family of interchangeable parts — victim policy, GC scheduler,
//! placement, allocation, device model, trace format, synthetic pattern, arrival process, idle
//! distribution, LBA mapping, offline method, experiment.
//!
//! A family is one enum whose variants are its members: names are the variants in kebab-case
//! (the same rule for serde and for the list, checked by a test over every family), the summary
//! is the first line of the variant's doc comment, and the list is derived from the variants
//! (`strum::EnumIter`), so a new member is one variant — its implementation's `build` arm is an
//! exhaustive `match`, and a forgotten arm does not compile. `ssdlab policies` prints every
//! family from `api::registries`; Python reads names and defaults from there.

use serde::Serialize;
use strum::{EnumMessage, IntoEnumIterator};

/// One member of a family, as `ssdlab policies` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Member {
    /// As written in a configuration or on the command line (with the form of its parameters,
    /// e.g. `d-choices:d=N`).
    pub name: String,
    /// One line: what it is and where it comes from.
    pub summary: String,
}

/// A whole family.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Family {
    /// e.g. `victim policy`.
    pub family: &'static str,
    /// Where a member is named (config key or command-line option).
    pub key: &'static str,
    /// The member used when none is named (empty when there is none).
    pub default: String,
    pub members: Vec<Member>,
    /// Former names still read, each with its member's name now (front ends warn on them).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub former: &'static [(&'static str, &'static str)],
}

/// A family enum. `Into<&'static str>` is the variant's kebab-case name (`strum::IntoStaticStr`),
/// `EnumMessage` gives its doc comment.
pub trait Registry: IntoEnumIterator + EnumMessage + Sized + 'static
where
    &'static str: for<'a> From<&'a Self>,
{
    /// The family's name, e.g. `victim policy`.
    const FAMILY: &'static str;
    /// Where a member is named, e.g. `gc.victim`.
    const KEY: &'static str;
    /// Members' former names, still read: (old, current).
    const FORMER: &'static [(&'static str, &'static str)] = &[];

    /// The member's name.
    fn name(&self) -> &'static str {
        <&'static str>::from(self)
    }

    /// The name with the form of its parameters (`d-choices:d=N`); the name by default.
    fn form(&self) -> String {
        self.name().to_string()
    }

    /// The member used when none is named.
    fn default_member() -> Option<Self> {
        None
    }

    /// Every name, comma-separated (for error messages).
    fn names() -> String {
        Self::iter()
            .map(|m| m.form())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The member named `s` (parameter-free families; a former name too), or an error listing
    /// the valid names.
    fn parse_name(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let s = Self::FORMER
            .iter()
            .find(|(old, _)| *old == s)
            .map_or(s, |&(_, new)| new);
        Self::iter().find(|m| m.name() == s).ok_or_else(|| {
            format!(
                "unknown {} '{s}'; expected one of: {}",
                Self::FAMILY,
                Self::names()
            )
        })
    }

    /// The family as `ssdlab policies` prints it.
    fn family() -> Family {
        Family {
            family: Self::FAMILY,
            key: Self::KEY,
            default: Self::default_member().map(|m| m.form()).unwrap_or_default(),
            members: Self::iter()
                .map(|m| Member {
                    name: m.form(),
                    summary: first_paragraph(m.get_documentation().unwrap_or("")),
                })
                .collect(),
            former: Self::FORMER,
        }
    }
}

/// The first paragraph of a doc comment, on one line.
fn first_paragraph(doc: &str) -> String {
    doc.trim()
        .split("\n\n")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `impl_registry!(Type, "family", "key")` implements [`Registry`] for a family enum; with
/// `default` last, its default member is the enum's `Default` (the one serde also uses).
macro_rules! impl_registry {
    ($ty:ty, $family:literal, $key:literal) => {
        impl $crate::config::Registry for $ty {
            const FAMILY: &'static str = $family;
            const KEY: &'static str = $key;
        }
    };
    ($ty:ty, $family:literal, $key:literal, default $(, former = $former:expr)?) => {
        impl $crate::config::Registry for $ty {
            const FAMILY: &'static str = $family;
            const KEY: &'static str = $key;
            $(const FORMER: &'static [(&'static str, &'static str)] = $former;)?
            fn default_member() -> Option<Self> {
                Some(<$ty as Default>::default())
            }
        }
    };
}
pub(crate) use impl_registry;

/// `TryFrom<String>` by [`Registry::parse_name`], for a family read with
/// `#[serde(try_from = "String")]`.
macro_rules! impl_try_from_name {
    ($ty:ty) => {
        impl TryFrom<String> for $ty {
            type Error = String;
            fn try_from(s: String) -> ::std::result::Result<Self, String> {
                <$ty as $crate::config::Registry>::parse_name(&s)
            }
        }
    };
}
pub(crate) use impl_try_from_name;
