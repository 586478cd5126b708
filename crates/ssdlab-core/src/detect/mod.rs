//! Host-side GC detection (issue 13; Park and Kim, "SSD Garbage Collection Detection and
//! Management with Machine Learning Algorithm"): what the host can see of a device, and the
//! classifier the paper learns from it.
//!
//! - [`diskstats`]: `/proc/diskstats` lines (the 14-, 18- and 20-field forms) and recorded
//!   sequences of snapshots, each with the `/proc/uptime` read beside it.
//! - [`iostat`]: the `iostat -x` fields of one device per interval between two snapshots,
//!   computed as sysstat computes them (§3.1 of the paper: the detector's attributes are
//!   iostat's, sampled once a second).
//! - [`features`]: the detector's attributes per interval (§3.1): the kept `iostat -x`
//!   columns and their standard deviations over the last 50 samples.
//! - [`c45`]: Quinlan's C4.5 decision tree on numeric attributes (§3.2: the paper's detector),
//!   with gain ratio, the MDL-corrected thresholds of C4.5 Release 8 and pessimistic pruning.
//! - [`watch`]: the streaming detector (§4): snapshots in, per interval the fields, the row
//!   and the tree's verdict out, with detection episodes.
//!
//! Pure functions of their inputs: no clock, no global state, no randomness.

pub mod c45;
pub mod diskstats;
pub mod features;
pub mod iostat;
pub mod watch;
