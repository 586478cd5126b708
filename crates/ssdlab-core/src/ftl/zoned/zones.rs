//! Zone states, write pointers and the open and active limits: the NVMe Zoned Namespace
//! Command Set 1.1's zone state machine (section 2.1.1, figure "Zone State Machine"), with no
//! time and no flash. A command against the rules fails with the specification's status
//! ([`ZoneError`]) and changes nothing.
//!
//! Where the specification leaves a choice to the controller, ours:
//! - writing or appending to a zone with `max_open` zones open, some of them implicitly,
//!   closes the one implicitly opened longest ago (section 2.1.1.3.3 allows any);
//! - finish moves the write pointer to the zone capacity without programming.

use std::collections::VecDeque;

use serde::Serialize;

pub use crate::stats::{ZoneCommands as Commands, ZoneViolations as Violations};

/// A zone's state (the specification's ZSE, ZSIO, ZSEO, ZSC, ZSF; read-only and offline zones
/// belong to wear, which a later issue models).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneState {
    Empty,
    ImplicitOpen,
    ExplicitOpen,
    Closed,
    Full,
}

impl ZoneState {
    fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitOpen | ZoneState::ExplicitOpen)
    }
    fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }
}

/// Why a zone command failed (the specification's status codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneError {
    /// Zone Invalid Write: a write not at the write pointer (which is given).
    OffWritePointer { wp: u32 },
    /// Zone Boundary Error: the write crosses the zone capacity.
    PastCapacity,
    /// Zone Is Full.
    Full,
    /// Too Many Open Zones.
    TooManyOpen,
    /// Too Many Active Zones.
    TooManyActive,
    /// Invalid Zone State Transition (closing a full zone, say, or a trim of part of a zone
    /// standing for a reset).
    InvalidTransition,
}

impl ZoneError {
    pub fn describe(self) -> String {
        match self {
            ZoneError::OffWritePointer { wp } => {
                format!("a write off the zone's write pointer (page {wp} of the zone)")
            }
            ZoneError::PastCapacity => "a write past the zone's capacity".into(),
            ZoneError::Full => "a write to a full zone".into(),
            ZoneError::TooManyOpen => "one zone open too many (zns.max_open)".into(),
            ZoneError::TooManyActive => "one zone active too many (zns.max_active)".into(),
            ZoneError::InvalidTransition => {
                "a zone state transition the specification forbids".into()
            }
        }
    }
}

/// Count a failed command under its status.
fn count(v: &mut Violations, e: ZoneError) {
    *match e {
        ZoneError::OffWritePointer { .. } => &mut v.off_write_pointer,
        ZoneError::PastCapacity => &mut v.past_capacity,
        ZoneError::Full => &mut v.full,
        ZoneError::TooManyOpen => &mut v.too_many_open,
        ZoneError::TooManyActive => &mut v.too_many_active,
        ZoneError::InvalidTransition => &mut v.invalid_transition,
    } += 1;
}

/// Every zone's state and write pointer, and the open and active counts.
#[derive(Debug, Clone)]
pub struct Zones {
    state: Vec<ZoneState>,
    wp: Vec<u32>,
    capacity: u32,
    max_open: u32,
    max_active: u32,
    open: u32,
    active: u32,
    /// Implicitly open zones, the longest open first.
    implicit: VecDeque<u32>,
    pub violations: Violations,
    pub commands: Commands,
}

impl Zones {
    pub fn new(zones: u32, capacity: u32, max_open: u32, max_active: u32) -> Self {
        Zones {
            state: vec![ZoneState::Empty; zones as usize],
            wp: vec![0; zones as usize],
            capacity,
            max_open,
            max_active,
            open: 0,
            active: 0,
            implicit: VecDeque::new(),
            violations: Violations::default(),
            commands: Commands::default(),
        }
    }

    pub fn len(&self) -> u32 {
        self.state.len() as u32
    }
    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
    pub fn state(&self, z: u32) -> ZoneState {
        self.state[z as usize]
    }
    pub fn write_pointer(&self, z: u32) -> u32 {
        self.wp[z as usize]
    }
    /// Zones open and active now.
    pub fn open(&self) -> u32 {
        self.open
    }
    pub fn active(&self) -> u32 {
        self.active
    }

    /// Write `n` pages to zone `z` at page `at` of it, or appended at its write pointer (`at`
    /// `None`): the first page written, the write pointer moved past the last. A failure is
    /// counted and changes nothing.
    #[inline]
    pub fn write(&mut self, z: u32, at: Option<u32>, n: u32) -> Result<u32, ZoneError> {
        // The common case first: an open zone written at its pointer, not filled by it.
        let i = z as usize;
        let wp = self.wp[i];
        if self.state[i].is_open() && at.is_none_or(|a| a == wp) && wp + n < self.capacity {
            self.wp[i] = wp + n;
            return Ok(wp);
        }
        self.write_slow(z, at, n)
    }

    #[inline(never)]
    fn write_slow(&mut self, z: u32, at: Option<u32>, n: u32) -> Result<u32, ZoneError> {
        let r = self.try_write(z, at, n);
        if let Err(e) = r {
            count(&mut self.violations, e);
        }
        r
    }

    fn try_write(&mut self, z: u32, at: Option<u32>, n: u32) -> Result<u32, ZoneError> {
        let wp = self.wp[z as usize];
        let s = self.state[z as usize];
        if s == ZoneState::Full {
            return Err(ZoneError::Full);
        }
        if at.is_some_and(|a| a != wp) {
            return Err(ZoneError::OffWritePointer { wp });
        }
        if u64::from(wp) + u64::from(n) > u64::from(self.capacity) {
            return Err(ZoneError::PastCapacity);
        }
        if !s.is_open() {
            self.make_room(s)?;
            self.set(z, ZoneState::ImplicitOpen);
        }
        self.wp[z as usize] = wp + n;
        if wp + n == self.capacity {
            self.set(z, ZoneState::Full);
        }
        Ok(wp)
    }

    /// Room to open a zone now in state `s` (empty or closed): an active slot for an empty
    /// one, and an open slot, made by closing the oldest implicitly open zone if need be.
    fn make_room(&mut self, s: ZoneState) -> Result<(), ZoneError> {
        if s == ZoneState::Empty && self.active >= self.max_active {
            return Err(ZoneError::TooManyActive);
        }
        if self.open >= self.max_open {
            let Some(&oldest) = self.implicit.front() else {
                return Err(ZoneError::TooManyOpen);
            };
            self.set(oldest, ZoneState::Closed);
            self.commands.implicit_closes += 1;
        }
        Ok(())
    }

    /// Open zone `z` explicitly.
    pub fn open_zone(&mut self, z: u32) -> Result<(), ZoneError> {
        let s = self.state[z as usize];
        let r = match s {
            ZoneState::ExplicitOpen => Ok(()),
            ZoneState::ImplicitOpen => {
                self.set(z, ZoneState::ExplicitOpen);
                Ok(())
            }
            ZoneState::Empty | ZoneState::Closed => self
                .make_room(s)
                .map(|()| self.set(z, ZoneState::ExplicitOpen)),
            ZoneState::Full => Err(ZoneError::InvalidTransition),
        };
        self.done(r, |c| c.opens += 1)
    }

    /// Close zone `z` (an open zone with nothing written becomes empty).
    pub fn close(&mut self, z: u32) -> Result<(), ZoneError> {
        let r = match self.state[z as usize] {
            ZoneState::ImplicitOpen | ZoneState::ExplicitOpen => {
                let to = if self.wp[z as usize] == 0 {
                    ZoneState::Empty
                } else {
                    ZoneState::Closed
                };
                self.set(z, to);
                Ok(())
            }
            ZoneState::Closed => Ok(()),
            ZoneState::Empty | ZoneState::Full => Err(ZoneError::InvalidTransition),
        };
        self.done(r, |c| c.closes += 1)
    }

    /// Finish zone `z`: full, its write pointer at the capacity.
    pub fn finish(&mut self, z: u32) -> Result<(), ZoneError> {
        if self.state[z as usize] != ZoneState::Full {
            self.set(z, ZoneState::Full);
            self.wp[z as usize] = self.capacity;
        }
        self.done(Ok(()), |c| c.finishes += 1)
    }

    /// Reset zone `z`: empty, its write pointer back at 0. Returns the pages it held (written
    /// or finished past), whose blocks the device erases.
    pub fn reset(&mut self, z: u32) -> u32 {
        let held = self.wp[z as usize];
        self.set(z, ZoneState::Empty);
        self.wp[z as usize] = 0;
        self.commands.resets += 1;
        held
    }

    /// A command that changes no state failed (`e`): counted.
    pub fn refuse(&mut self, e: ZoneError) -> ZoneError {
        count(&mut self.violations, e);
        e
    }

    fn done(
        &mut self,
        r: Result<(), ZoneError>,
        served: impl FnOnce(&mut Commands),
    ) -> Result<(), ZoneError> {
        match r {
            Ok(()) => served(&mut self.commands),
            Err(e) => count(&mut self.violations, e),
        }
        r
    }

    /// Move zone `z` to state `to`, keeping the counts and the implicitly-open order.
    fn set(&mut self, z: u32, to: ZoneState) {
        let from = self.state[z as usize];
        if from == ZoneState::ImplicitOpen {
            self.implicit.retain(|&x| x != z);
        }
        self.open = self.open + u32::from(to.is_open()) - u32::from(from.is_open());
        self.active = self.active + u32::from(to.is_active()) - u32::from(from.is_active());
        if to == ZoneState::ImplicitOpen {
            self.implicit.push_back(z);
        }
        self.state[z as usize] = to;
    }

    /// The rules, checked over every zone: open and active counts as the states say and within
    /// the limits, write pointers within the capacity, an empty zone's at 0, a full one's at
    /// the capacity.
    pub fn check(&self) -> Result<(), String> {
        let open = self.state.iter().filter(|s| s.is_open()).count() as u32;
        let active = self.state.iter().filter(|s| s.is_active()).count() as u32;
        if open != self.open || active != self.active {
            return Err(format!(
                "zones: {open} open and {active} active by state, counted {} and {}",
                self.open, self.active
            ));
        }
        if open > self.max_open || active > self.max_active {
            return Err(format!(
                "zones: {open} open and {active} active, limits {} and {}",
                self.max_open, self.max_active
            ));
        }
        for (z, (&s, &wp)) in self.state.iter().zip(&self.wp).enumerate() {
            let ok = match s {
                ZoneState::Empty => wp == 0,
                ZoneState::Full => wp == self.capacity,
                _ => wp < self.capacity,
            };
            if !ok {
                return Err(format!(
                    "zone {z}: {s:?} with its write pointer at {wp} of {}",
                    self.capacity
                ));
            }
        }
        Ok(())
    }
}
