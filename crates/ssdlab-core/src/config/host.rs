//! `[host]`: the host interface's command arbitration, which decides whose command the
//! controller fetches next when several flows (`WorkloadSpec::Flows`) have commands waiting in
//! their submission queues. The mechanism is `host::arbitration`.
//!
//! The rules are the NVMe base specification's ("Command Arbitration": section 4.13 of NVMe
//! 1.4, 3.4.4 of NVMe 2.0): round robin, and weighted round robin with an urgent priority
//! class, each taking up to an arbitration burst of commands from a queue at a time. The
//! Arbitration feature (Set Features, FID 01h) carries the burst and the high, medium and low
//! weights.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

/// How the controller picks the submission queue it fetches from (`host.arbitration`).
#[derive(
    Default,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    EnumIter,
    IntoStaticStr,
    EnumMessage,
    Serialize,
    Deserialize,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(try_from = "String", into = "&'static str")]
pub enum Arbitration {
    /// Every submission queue in turn, up to `host.burst` commands each (NVMe's mandatory
    /// round-robin arbitration; priorities are ignored).
    #[default]
    RoundRobin,
    /// Urgent queues first (round robin among them), then rounds in which the high, medium
    /// and low classes get `host.high_weight`, `medium_weight` and `low_weight` commands, round
    /// robin among a class's queues (NVMe's weighted round robin with urgent priority class).
    WeightedRoundRobin,
}

crate::config::impl_registry!(Arbitration, "host arbitration", "host.arbitration", default);

crate::config::impl_try_from_name!(Arbitration);

/// The `[host]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    #[serde(default)]
    pub arbitration: Arbitration,
    /// Commands per round for the high, medium and low classes (the Arbitration feature's HPW,
    /// MPW and LPW plus one: the specification stores them 0's based). 4, 2, 1 is our choice:
    /// the specification leaves the values to the host, and halving per class makes each
    /// class's share in a saturated round easy to read (4/7, 2/7, 1/7).
    #[serde(default = "default_high")]
    pub high_weight: u32,
    #[serde(default = "default_medium")]
    pub medium_weight: u32,
    #[serde(default = "default_low")]
    pub low_weight: u32,
    /// Commands the controller takes from one queue before it moves on (the Arbitration Burst:
    /// 1, 2, 4, … 64; the specification's 111b, no limit, is not offered: a saturated queue
    /// would never yield). The reset value is the controller's; 1, the smallest, makes round
    /// robin interleave command by command.
    #[serde(default = "default_burst")]
    pub burst: u32,
    /// Commands the controller holds at once over all queues (fetched and not completed); a
    /// freed slot goes to the queue the arbitration picks. 0: no limit, every command is
    /// fetched as it is submitted, and arbitration only orders commands submitted at the same
    /// time. The specification leaves this to the controller.
    #[serde(default)]
    pub command_slots: u32,
}

fn default_high() -> u32 {
    4
}
fn default_medium() -> u32 {
    2
}
fn default_low() -> u32 {
    1
}
fn default_burst() -> u32 {
    1
}

/// The largest weight (the feature's 8-bit field, 0's based).
pub const MAX_WEIGHT: u32 = 256;

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            arbitration: Arbitration::default(),
            high_weight: default_high(),
            medium_weight: default_medium(),
            low_weight: default_low(),
            burst: default_burst(),
            command_slots: 0,
        }
    }
}

impl HostConfig {
    pub fn is_default(&self) -> bool {
        *self == HostConfig::default()
    }

    pub(crate) fn check(&self) -> std::result::Result<(), (String, String)> {
        for (field, w) in [
            ("host.high_weight", self.high_weight),
            ("host.medium_weight", self.medium_weight),
            ("host.low_weight", self.low_weight),
        ] {
            if !(1..=MAX_WEIGHT).contains(&w) {
                return Err((
                    field.into(),
                    format!("expected a weight from 1 to {MAX_WEIGHT} commands a round, got {w}"),
                ));
            }
        }
        if !(self.burst.is_power_of_two() && self.burst <= 64) {
            return Err((
                "host.burst".into(),
                format!(
                    "expected an arbitration burst of 1, 2, 4, 8, 16, 32 or 64 commands, got {}",
                    self.burst
                ),
            ));
        }
        Ok(())
    }
}
