//! The flash layer's section of the result (`flash`, with `flash.suspend` or
//! `flash.scheduler` on): what program and erase suspension and the die's scheduler did during
//! the measured run.

use serde::Serialize;

/// Program/erase suspension's counters (Wu & He, FAST 2012): how often host reads found their
/// die busy, how often they suspended a program or an erase, and the time that cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SuspendReport {
    /// `flash.suspend` and `flash.max_suspensions`.
    pub mode: &'static str,
    pub max_suspensions: u32,
    /// Host-path page reads (data, translation pages, rebuild members) that arrived at a busy
    /// die or plane, whatever happened next.
    pub busy_reads: u64,
    /// Suspensions of a program (host or GC) and of an erase.
    pub program_suspensions: u64,
    pub erase_suspensions: u64,
    /// Reads served inside a suspension another read opened (no second suspend latency).
    pub joined_reads: u64,
    /// Reads that found a suspendable operation already suspended `max_suspensions` times,
    /// and waited for it.
    pub cap_reached: u64,
    /// Time suspended operations' completions moved, seconds: suspend latencies, the reads,
    /// resume overheads. Of it, GC steps' (which move GC's own clock) …
    pub time_suspended_s: f64,
    pub gc_time_suspended_s: f64,
    /// … and host programs', which the host sees only through later operations: a write's
    /// latency is answered when it is issued, so it does not include a suspension that comes
    /// after (docs/decisions/flash.md, "Suspension and the write's answer").
    pub host_program_delay_s: f64,
}

/// The die scheduler's counters (`flash.scheduler`): how often host operations passed queued
/// work, and how far that moved it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SchedulingReport {
    /// `flash.scheduler` and `flash.max_passes`.
    pub scheduler: &'static str,
    pub max_passes: u32,
    /// Host page reads (data, translation pages, rebuild members) and host page writes that
    /// passed queued work.
    pub reads_passing: u64,
    pub writes_passing: u64,
    /// Queued steps moved by passes (each copy of a run of GC copies; a step moved by two
    /// passes counts twice).
    pub ops_passed: u64,
    /// Time passes moved GC later, seconds (GC's own clock: once a pass, however many steps
    /// it moved) …
    pub gc_delay_s: f64,
    /// … and host programs (under `read-first`): a write is answered when issued, so this is
    /// seen only through later operations (docs/decisions/flash.md, "Suspension and the
    /// write's answer").
    pub host_program_delay_s: f64,
}

/// The error model's counters (`reliability.errors`, issue 63): host page reads decoded, the
/// retries and soft tiers they took, the uncorrectable ones and the time it all cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ErrorReport {
    /// Host page reads decoded.
    pub page_reads: u64,
    /// Reads that took at least one retry step, and their share of `page_reads`.
    pub retried_reads: u64,
    pub retry_rate: f64,
    /// Retry steps over all reads.
    pub retry_steps: u64,
    /// Reads whose decoding ended in each soft tier (`[[reliability.soft]]`, in order).
    pub soft_reads: Vec<u64>,
    /// Reads every attempt failed, and the uncorrectable bit error rate: those reads over the
    /// bits read (JEDEC JESD218's UBER, a failed page counted as one error).
    pub uncorrectable_reads: u64,
    pub uber: f64,
    /// Time retries and soft tiers added to reads' completions, seconds.
    pub retry_time_s: f64,
    /// The highest RBER the model computed: at each block's first read and as its window
    /// runs out (`flash::errors`), so at most one decoder grid step (0.5 %) under the highest
    /// a read saw.
    pub max_rber: f64,
}

/// The flash layer's section: suspension's counters and the scheduler's, each when it is on.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FlashReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension: Option<SuspendReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling: Option<SchedulingReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<ErrorReport>,
}

impl FlashReport {
    /// The section, or `None` when neither is on.
    pub fn of(
        suspension: Option<SuspendReport>,
        scheduling: Option<SchedulingReport>,
        errors: Option<ErrorReport>,
    ) -> Option<Self> {
        (suspension.is_some() || scheduling.is_some() || errors.is_some()).then_some(FlashReport {
            suspension,
            scheduling,
            errors,
        })
    }
}
