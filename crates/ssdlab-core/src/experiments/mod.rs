//! Each paper's comparison, one module per paper: it runs the configurations and returns a typed
//! result (and its JSON); the Python package only formats it.

pub mod detect;
pub mod fill;
pub mod lifetime;
pub mod offline;
pub mod parallel;
pub mod placement;
pub mod rlgc;
pub mod slc;
pub mod tails;
pub mod tenants;
pub mod ttflash;

/// The experiments, one per paper (`ssdlab experiment NAME`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Experiment {
    /// RL-assisted GC: Kang, Shin, Yoo, "Reinforcement Learning-Assisted Garbage Collection to
    /// Mitigate Long-Tail Latency in SSD" (TECS 2017): the GC schedulers' tail latencies.
    Rlgc,
    /// Tiny-Tail Flash: Yan et al. (FAST 2017): the stacks nogc, base, pb, pb+gtr, pb+gtr+gtf,
    /// ttflash on one workload.
    Ttflash,
    /// Near-optimal offline cleaning: Shafaei & Desnoyers: online policies, exhaustive and
    /// pruned DFS, MCTS and placements on one workload (or Table I's toys).
    Offline,
    /// The drive-review write curve: one sequential write of the whole empty drive, throughput
    /// against data written (the SLC-cache cliff on a hybrid SLC/QLC device).
    Fill,
    /// The SLC-cache policies (Yoo & Shin, HotStorage 2020): none, static, dwa, ust and rl by
    /// space utilisation — write throughput, WAF, the write-latency breakdown, SLC size/θ over
    /// time, rl's sensitivity and pre-training.
    Slc,
    /// Host-side GC detection (Park & Kim, ICUFN 2017): a C4.5 tree over the host's iostat view
    /// trained on fio/fileserver/varmail, evaluated on held-out workloads, devices and GC
    /// policies, and TRIM on detection against no TRIM, `discard` and periodic `fstrim`.
    Detect,
    /// The tail levers side by side (issue 60): blocking GC, LazyRTGC, RL-GC, program/erase
    /// suspension, read-first and preemptible-GC scheduling, Tiny-Tail Flash, on one device
    /// and workload — read and write tails, throughput, erases, WAF.
    Tails,
    /// Tenants (issue 61): a latency-sensitive reader beside a GC-inducing writer under each
    /// host arbitration and flash scheduler — each flow's p99.9 and slowdown against running
    /// alone, the fairness index (FLIN's min/max slowdown), total throughput.
    Tenants,
    /// Host-visible placement (issue 62): conventional, hot/cold, FDP and ZNS with the host
    /// cleaner on the same flash and over-provisioning — WAF end to end, the device's and the
    /// host's, erases, read and write tails, throughput.
    Placement,
    /// A drive's lifetime (issue 63): a stated workload written until the end of life, the
    /// TBW it took against the drive's rating (scaled: blocks of fewer pages).
    Lifetime,
}

crate::config::impl_registry!(Experiment, "experiment", "ssdlab experiment NAME");

/// The settings of row `name` of an experiment's `rows` (name, device settings), or an error
/// naming the rows.
pub fn row_settings(
    rows: &'static [(&'static str, &'static [&'static str])],
    name: &str,
) -> crate::Result<&'static [&'static str]> {
    rows.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            let names: Vec<&str> = rows.iter().map(|(n, _)| *n).collect();
            crate::SsdError::config(
                "row",
                format!(
                    "unknown row '{name}'; expected one of: {}",
                    names.join(", ")
                ),
            )
        })
}
