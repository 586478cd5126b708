//! The flash layer's section of the result (`flash`, with `flash.suspend` on): what program
//! and erase suspension did during the measured run.

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
