//! `flash.suspend` and its times: which array operations a host read may suspend (Wu & He,
//! "Reducing SSD read latency via NAND flash program and erase suspension", FAST 2012), how
//! often one operation may be suspended, and per cell mode the suspend latency and the resume
//! overhead (`timing.<mode>.program_suspend_us`, `erase_suspend_us`, `resume_us`). The
//! mechanism is `flash::suspend`.

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, IntoStaticStr};

use super::{CellMode, ModeTiming, Timing, MAX_OP_US};

/// Which operations a read arriving at a busy die suspends (`flash.suspend`).
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
pub enum SuspendMode {
    /// No suspension: a read behind a program or erase waits for all of it (FCFS time lines).
    #[default]
    None,
    /// Erases only (a shipping drive's usual erase suspend): a read suspends an erase.
    Erase,
    /// Programs and erases (Wu & He's P/E suspension): a read suspends either.
    ProgramErase,
}

crate::config::impl_registry!(SuspendMode, "suspension", "flash.suspend", default);

crate::config::impl_try_from_name!(SuspendMode);

impl SuspendMode {
    pub fn on(self) -> bool {
        self != SuspendMode::None
    }

    pub fn programs(self) -> bool {
        self == SuspendMode::ProgramErase
    }
}

/// The default cap on suspensions of one operation (`flash.max_suspensions`). Wu & He bound
/// the overhead, not the count; a bound is needed so that a read stream cannot postpone a
/// program or erase for ever (Kim, Seo, Kim, KICS 2025, name this "erase/write starvation").
/// Five is our choice: at the defaults an erase suspended five times is delayed by about
/// 5 × (suspend + read + resume) ≈ 0.5–1 ms, a fraction of one erase.
pub const DEFAULT_MAX_SUSPENSIONS: u32 = 5;

/// One cell mode's suspension times, µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuspendTimes {
    /// From the suspend request to the die being free for the read: the current program
    /// step (an ISPP pulse and its verify) or erase pulse finishing.
    pub program_suspend_us: f64,
    pub erase_suspend_us: f64,
    /// Restarting the suspended operation once the reads are served.
    pub resume_us: f64,
}

/// Default suspension times per cell mode, used where `timing.<mode>` does not set them.
///
/// Wu & He (FAST 2012, their design of suspension; we cite no section number, not having
/// checked one) suspend a program at the end of its current ISPP program-and-verify step and
/// an erase at the end of its current erase pulse or verify; MQSim's shipped
/// configuration (CMU-SAFARI/MQSim `ssdconfig.xml`) charges 100 µs to suspend a program and
/// 700 µs to suspend an erase for its TLC part (program 750 µs, erase 3.8 ms).
/// The paper leaves the per-mode values to the chip; ours scale with the mode's step length:
/// a program step is about a tenth of the program (ISPP runs some ten steps), an erase pulse a
/// fifth of the erase (MQSim's 700 µs of 3.8 ms). The resume overhead is a re-issue of the
/// command plus a verify, 5 µs for SLC up to 20 µs for QLC, our reading of Wu & He's "low
/// overhead" (same section).
pub fn default_times(mode: CellMode) -> SuspendTimes {
    let (program_suspend_us, erase_suspend_us, resume_us) = match mode {
        CellMode::Slc => (20.0, 300.0, 5.0),
        CellMode::Mlc => (60.0, 600.0, 10.0),
        CellMode::Tlc => (100.0, 700.0, 15.0),
        CellMode::Qlc => (250.0, 1000.0, 20.0),
    };
    SuspendTimes {
        program_suspend_us,
        erase_suspend_us,
        resume_us,
    }
}

impl ModeTiming {
    /// This mode's suspension times: each set field, else [`default_times`].
    pub fn suspend_times(&self, mode: CellMode) -> SuspendTimes {
        let d = default_times(mode);
        SuspendTimes {
            program_suspend_us: self.program_suspend_us.unwrap_or(d.program_suspend_us),
            erase_suspend_us: self.erase_suspend_us.unwrap_or(d.erase_suspend_us),
            resume_us: self.resume_us.unwrap_or(d.resume_us),
        }
    }
}

impl Timing {
    /// Field checks of the suspension times (each 0 to [`MAX_OP_US`]).
    pub(super) fn check_suspend(&self) -> Result<(), (String, String)> {
        for mode in [CellMode::Slc, CellMode::Mlc, CellMode::Tlc, CellMode::Qlc] {
            let m = self.mode(mode);
            for (field, v) in [
                ("program_suspend_us", m.program_suspend_us),
                ("erase_suspend_us", m.erase_suspend_us),
                ("resume_us", m.resume_us),
            ] {
                if let Some(v) = v {
                    if !(v.is_finite() && (0.0..=MAX_OP_US).contains(&v)) {
                        let name = mode.name();
                        return Err((
                            format!("timing.{name}.{field}"),
                            format!("expected a time from 0 to {MAX_OP_US} µs (1 s), got {v}"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Registry;

    #[test]
    fn names_and_default() {
        assert_eq!(SuspendMode::default_member(), Some(SuspendMode::None));
        assert_eq!(
            SuspendMode::parse_name("program-erase"),
            Ok(SuspendMode::ProgramErase)
        );
        assert!(SuspendMode::parse_name("programs").is_err());
        assert!(SuspendMode::ProgramErase.programs() && !SuspendMode::Erase.programs());
        assert!(!SuspendMode::None.on());
    }

    #[test]
    fn a_set_time_wins_over_the_default() {
        let mut m = ModeTiming {
            read_us: 50.0,
            program_us: 600.0,
            erase_us: 3000.0,
            program_suspend_us: None,
            erase_suspend_us: Some(123.0),
            resume_us: None,
            page_read_us: None,
            page_program_us: None,
            page_order: None,
        };
        let t = m.suspend_times(CellMode::Mlc);
        assert_eq!(t.erase_suspend_us, 123.0);
        assert_eq!(
            t.program_suspend_us,
            default_times(CellMode::Mlc).program_suspend_us
        );
        m.resume_us = Some(0.0);
        assert_eq!(m.suspend_times(CellMode::Mlc).resume_us, 0.0);
    }
}
