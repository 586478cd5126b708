//! blkparse default text output (blktrace, `blkparse(1)`, section "Default output"):
//! `maj,min cpu seq time_s pid action rwbs sector + nblocks [process]`. One action is taken
//! (default `D`, dispatched to the device; or `Q` queued, `C` completed); other event lines
//! are skipped and counted. rwbs containing `D` → trim, else `W` → write, else `R` → read, else
//! `F` → a flush command (no data); an `F` before the operation's letter marks a preflush and
//! one after it FUA (the kernel's `blk_fill_rwbs`); a data-less event without `F` (`N`) is
//! skipped. Lines whose first field is not `maj,min`
//! (the per-CPU and total summary blocks) are not events and are ignored; an event line with a
//! malformed field is an error. The device number compared with the `device` filter is the
//! minor number.

use serde::{Deserialize, Serialize};

use super::fields::{expected, parse_u64, Fields};
use super::input::{LineFormat, Outcome};
use super::request::OpKind;
use super::skips::SkipReason;

/// Which blktrace action a blkparse reader takes requests from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BlkAction {
    /// `Q`: queued (as the application issued them, before merging).
    #[serde(rename = "Q", alias = "q")]
    Queue,
    /// `D`: dispatched to the device driver (after merging and scheduling).
    #[default]
    #[serde(rename = "D", alias = "d")]
    Dispatch,
    /// `C`: completed.
    #[serde(rename = "C", alias = "c")]
    Complete,
}

impl BlkAction {
    pub fn letter(self) -> &'static str {
        match self {
            BlkAction::Queue => "Q",
            BlkAction::Dispatch => "D",
            BlkAction::Complete => "C",
        }
    }
}

/// The blkparse default-output line format.
#[derive(Debug)]
pub(crate) struct Blkparse {
    pub(crate) action: BlkAction,
}

/// `maj,min` → the two numbers, or `None` when the field is not of that shape.
pub(crate) fn device_pair(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once(',')?;
    Some((
        parse_u64(a)?.try_into().ok()?,
        parse_u64(b)?.try_into().ok()?,
    ))
}

impl LineFormat for Blkparse {
    fn name(&self) -> &'static str {
        "blkparse"
    }

    fn parse(&mut self, line: &str, _first: bool) -> Result<Outcome, String> {
        let f = Fields::whitespace(line);
        let Some((_, minor)) = f.str(0, "maj,min").ok().and_then(device_pair) else {
            return Ok(Outcome::Ignore);
        };
        f.require(7, "maj,min cpu seq time pid action rwbs ...")?;
        f.u32(1, "cpu")?;
        f.u64(2, "sequence")?;
        let arrival_ns = f.decimal(3, "time seconds", 9)?;
        f.u64(4, "pid")?;
        let action = f.str(5, "action")?;
        if action != self.action.letter() {
            return Ok(Outcome::Skip(SkipReason::OtherAction));
        }
        let rwbs = f.str(6, "rwbs")?;
        if !rwbs.bytes().all(|b| b"RWDNFSMAEB".contains(&b)) {
            return Err(expected(
                6,
                "rwbs",
                "letters from R W D N F S M A E B",
                rwbs,
            ));
        }
        let op = if rwbs.contains('D') {
            OpKind::Trim
        } else if rwbs.contains('W') {
            OpKind::Write
        } else if rwbs.contains('R') {
            OpKind::Read
        } else if rwbs.contains('F') {
            // A flush without data (`FN`, `F`): a cache flush command.
            return Ok(Outcome::request(
                arrival_ns,
                OpKind::Flush,
                0,
                0,
                Some(minor),
            ));
        } else {
            return Ok(Outcome::Skip(SkipReason::NoData));
        };
        // The kernel's `blk_fill_rwbs`: an `F` before the operation's letter is a preflush, one
        // after it force unit access.
        let at = rwbs.find(['D', 'W', 'R']).unwrap_or(0);
        let (preflush, fua) = (rwbs[..at].contains('F'), rwbs[at..].contains('F'));
        f.require(10, "maj,min cpu seq time pid action rwbs sector + nblocks")?;
        let offset_bytes = f.scaled(7, "sector", 512)?;
        let plus = f.str(8, "'+'")?;
        if plus != "+" {
            return Err(expected(8, "'+'", "\"+\"", plus));
        }
        let size_bytes = f.scaled(9, "nblocks", 512)?;
        let mut out = Outcome::request(arrival_ns, op, offset_bytes, size_bytes, Some(minor));
        if let Outcome::Request(r, _) = &mut out {
            (r.preflush, r.fua) = (preflush, fua && op == OpKind::Write);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::testutil::{assert_line_errors, fixture};
    use super::super::input::TextSource;
    use super::super::request::Request;
    use super::super::request::RequestSource;
    use super::*;

    const SAMPLE: &str =
        "  8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [kjournald]\n\
  8,0    3        2     0.000001000   697  G  WS 223490 + 8 [kjournald]\n\
  8,0    3        3     0.000002500   697  D  WS 223490 + 8 [kjournald]\n\
  8,0    3        4     0.000003000   697  D   R 100 + 16 [cat]\n\
  8,0    3        5     0.000004000   697  D   D 4096 + 2048 [fstrim]\n\
  8,0    3        6     0.000005000   697  D  FN [kworker]\n\
  8,0    3        7     0.000433541     0  C  WS 223490 + 8 [0]\n\
  8,0    3        8     0.000500000   697  m   N cfq697 sl_used=2 disp=1\n\
CPU3 (8,0):\n Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB\n\
Total (8,0):\nThroughput (R/W): 0KiB/s / 9KiB/s\nEvents (8,0): 8 entries\n";

    fn collect(action: BlkAction) -> (Vec<Request>, u64) {
        let p = fixture("b.txt", SAMPLE.as_bytes(), false);
        let mut s = TextSource::open(&p, Blkparse { action }, None).unwrap();
        let mut v = Vec::new();
        while let Some(r) = s.next_request().unwrap() {
            v.push(r);
        }
        (v, s.skipped())
    }

    #[test]
    fn takes_one_action_and_maps_rwbs() {
        let (d, skipped) = collect(BlkAction::Dispatch);
        assert_eq!(
            d.iter().map(|r| r.op).collect::<Vec<_>>(),
            [OpKind::Write, OpKind::Read, OpKind::Trim, OpKind::Flush]
        );
        assert_eq!(
            d[0],
            Request {
                arrival_ns: 2_500,
                op: OpKind::Write,
                offset_bytes: 223_490 * 512,
                size_bytes: 4096,
                fragment_follows: false,
                fua: false,
                preflush: false,
                placement: 0,
            }
        );
        assert_eq!(d[2].size_bytes, 2048 * 512);
        assert_eq!(
            (d[3].offset_bytes, d[3].size_bytes),
            (0, 0),
            "a flush has no data"
        );
        assert_eq!(skipped, 4);
        assert_eq!(collect(BlkAction::Queue).0.len(), 1);
        assert_eq!(collect(BlkAction::Complete).0[0].arrival_ns, 433_541);
    }

    #[test]
    fn an_f_before_the_operation_is_a_preflush_and_after_it_fua() {
        let text = "  8,0 0 1 0.1 9 D FWS 8 + 8 [j]\n  8,0 0 2 0.2 9 D WFS 16 + 8 [j]\n  8,0 0 3 0.3 9 D FWFS 24 + 8 [j]\n  8,0 0 4 0.4 9 D RF 32 + 8 [j]\n";
        let p = fixture("f.txt", text.as_bytes(), false);
        let b = Blkparse {
            action: BlkAction::Dispatch,
        };
        let mut s = TextSource::open(&p, b, None).unwrap();
        let mut got = Vec::new();
        while let Some(r) = s.next_request().unwrap() {
            got.push((r.op, r.preflush, r.fua));
        }
        assert_eq!(
            got,
            [
                (OpKind::Write, true, false),
                (OpKind::Write, false, true),
                (OpKind::Write, true, true),
                (OpKind::Read, false, false),
            ],
            "FUA is a write's"
        );
    }

    #[test]
    fn malformed_event_lines_are_errors() {
        assert_line_errors(
            "bbad.txt",
            "",
            false,
            || Blkparse {
                action: BlkAction::Dispatch,
            },
            &[
                (
                    "8,0 3 1 0.1 697 D W 100 + -8 [x]",
                    "field 10 (nblocks): expected a non-negative integer, got \"-8\"",
                ),
                ("8,0 3 1 0.1 697 D W 100 - 8 [x]", "field 9 ('+')"),
                ("8,0 3 1 zz 697 D W 100 + 8 [x]", "field 4 (time seconds)"),
                ("8,0 3 1 0.1 697 D WQ 100 + 8 [x]", "field 7 (rwbs)"),
                ("8,0 3 1 0.1 697 D W 100", "too few fields"),
            ],
        );
    }
}
