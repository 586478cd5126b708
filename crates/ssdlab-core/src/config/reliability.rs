//! `[reliability]`: the flash's raw bit errors and what the controller does about them (issue 63).
//! The error model is the flash layer's (`flash::errors`): a raw bit error rate (RBER) per cell
//! mode from the block's P/E cycles, its data's retention time and its read-disturb count; then
//! ECC with hard decoding, read-retry steps and soft-decoding tiers (`flash::ecc`). Off by
//! default: reads never fail and nothing here is used.
//!
//! The RBER's form is the power law of Mielke et al. ("Bit error rate in NAND flash memories",
//! IRPS 2008) in the three-term shape SimpleSSD v3 uses
//! (`ftl/read_reclaim/abstract_read_reclaim.cc`, `estimateBitError`):
//!
//! RBER = ε + α·PE^k + β·PE^m·t^n + γ·PE^p·N^q
//!
//! with PE the block's P/E cycles, t the retention time in days and N the block's reads since
//! its erase. The MLC parameters are SimpleSSD's ("2y-nm MLC"); the other modes' are ours, see
//! [`default_model`].

use serde::{Deserialize, Serialize};

use super::{CellMode, Registry};

/// One cell mode's RBER model (the module's formula).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RberModel {
    /// The floor: a fresh block's RBER.
    pub epsilon: f64,
    /// Wear: α·PE^k.
    pub alpha: f64,
    pub k: f64,
    /// Retention: β·PE^m·t^n, t in days.
    pub beta: f64,
    pub m: f64,
    pub n: f64,
    /// Read disturb: γ·PE^p·N^q, N the block's reads since its erase.
    pub gamma: f64,
    pub p: f64,
    pub q: f64,
}

impl RberModel {
    /// The RBER at `pe` cycles, `days` of retention and `reads` reads of the block.
    pub fn rber(&self, pe: f64, days: f64, reads: f64) -> f64 {
        self.epsilon
            + self.alpha * pe.powf(self.k)
            + self.beta * pe.powf(self.m) * days.powf(self.n)
            + self.gamma * pe.powf(self.p) * reads.powf(self.q)
    }
}

/// SimpleSSD v3's parameters for a 2y-nm MLC part (the module's reference).
const MLC: RberModel = RberModel {
    epsilon: 8.34e-05,
    alpha: 3.30e-11,
    k: 1.71,
    beta: 5.56e-19,
    m: 2.49,
    n: 3.33,
    gamma: 6.26e-13,
    p: 1.76,
    q: 0.47,
};

/// The rated endurance (P/E cycles) the MLC parameters stand for, and each mode's: the other
/// modes' models are the MLC model with P/E cycles scaled by `3000 / rated` (so each mode
/// reaches the MLC part's RBER at its own rated endurance) and the floor ε scaled by the bits a
/// cell holds (one for SLC gets a tenth). Both scalings are our choice: we found no published
/// set of all nine parameters for SLC, TLC or QLC parts. The ratings are the usual data-sheet
/// classes (SLC 30k, MLC 3k, 3D TLC 3k, QLC 1k cycles); a preset that knows its part gives
/// its own model (`reliability.<mode>`).
pub fn rated_endurance(mode: CellMode) -> u32 {
    match mode {
        CellMode::Slc => 30_000,
        CellMode::Mlc | CellMode::Tlc => 3_000,
        CellMode::Qlc => 1_000,
    }
}

/// The default RBER model of a cell mode ([`rated_endurance`] says how it is made).
pub fn default_model(mode: CellMode) -> RberModel {
    let s = 3000.0 / f64::from(rated_endurance(mode));
    let floor = match mode {
        CellMode::Slc => 0.1,
        m => f64::from(m.bits_per_cell()) / 2.0,
    };
    RberModel {
        epsilon: MLC.epsilon * floor,
        alpha: MLC.alpha * s.powf(MLC.k),
        beta: MLC.beta * s.powf(MLC.m),
        gamma: MLC.gamma * s.powf(MLC.p),
        ..MLC
    }
}

/// One soft-decoding tier: more sensing reads at shifted voltages, then a longer decode that
/// corrects more bits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoftTier {
    /// Bit errors a codeword may hold for this tier to correct it.
    pub ecc_bits: u32,
    /// Extra sensing reads (each the array read plus the transfer).
    pub reads: u32,
    /// The decoder's time in the controller, µs (it holds no flash resource).
    pub decode_us: f64,
}

/// The default soft tiers. Zhao et al. ("LDPC-in-SSD", FAST 2013) raise the correctable RBER
/// of an LDPC code step by step with extra sensing levels, about 2.5× the hard decision's at
/// the most; two tiers stand for that ladder here (1.5× and 2.5× the hard strength, with 2 and
/// 4 extra reads), and their decode times (10 and 30 µs) are our reading of "several times a
/// hard decode".
fn default_soft() -> Vec<SoftTier> {
    vec![
        SoftTier {
            ecc_bits: 60,
            reads: 2,
            decode_us: 10.0,
        },
        SoftTier {
            ecc_bits: 100,
            reads: 4,
            decode_us: 30.0,
        },
    ]
}

/// The `[reliability]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReliabilityConfig {
    /// The error model on: reads are decoded, retried and counted.
    #[serde(default)]
    pub errors: bool,
    /// Retention added to every block's, days: "a drive whose data is a year old" is 365.
    #[serde(default)]
    pub age_days: f64,
    /// P/E cycles every block has already seen (added to the FTL's erase counts).
    #[serde(default)]
    pub initial_pe: u32,
    /// Per cell mode RBER models; unset, [`default_model`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slc: Option<RberModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mlc: Option<RberModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlc: Option<RberModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qlc: Option<RberModel>,
    /// A codeword's data bytes; a page holds `page_size / codeword_bytes` codewords and a read
    /// fails its decoding if any of them does. A page smaller than a codeword is one codeword
    /// of the page's size.
    #[serde(default = "default_codeword")]
    pub codeword_bytes: u32,
    /// Bit errors a codeword may hold for hard decoding to correct it: 40 per 1 KiB, the BCH
    /// strength 2x-nm MLC parts ask of their controllers (our reading of their data sheets'
    /// class, about 40 bits per 1 KiB sector; check before quoting).
    #[serde(default = "default_ecc_bits")]
    pub ecc_bits: u32,
    /// Read-retry steps after the first hard decode fails: each re-reads the page at shifted
    /// read voltages (the array read plus the transfer; Park et al., "Reducing SSD read latency
    /// by optimizing read-retry", ASPLOS 2021) and decodes it hard. Eight is our choice.
    #[serde(default = "default_retry_steps")]
    pub retry_steps: u32,
    /// Each retry step's read voltages cut the expected bit errors by this factor (our choice:
    /// halving; the voltages move towards the valleys between the states step by step).
    #[serde(default = "default_retry_factor")]
    pub retry_factor: f64,
    /// The share of the first read's bit errors that no read voltage removes: step `i` sees
    /// `floor + (1 − floor)·retry_factor^i` of them. Retries move the read voltages towards
    /// the optimum, and at the optimum the errors are fewer but not none. Cai et al. ("Data
    /// retention in MLC NAND flash memory", HPCA 2015) find that reading every block at its
    /// optimal voltages (their ROR) extends the lifetime of 2y-nm MLC by 64 %; with the
    /// retention term's PE^2.49 ([`default_model`]'s m) that is an RBER cut to
    /// 1/1.64^2.49 ≈ 0.29 at equal wear, so 0.3 (our reading of their result). 0 is a retry
    /// that removes every error in the limit.
    #[serde(default = "default_retry_floor")]
    pub retry_floor: f64,
    /// Soft-decoding tiers after the last retry, at its voltages (`[[reliability.soft]]`).
    #[serde(default = "default_soft")]
    pub soft: Vec<SoftTier>,
    /// Read reclaim by read count (0: off): a block whose host reads since it was programmed
    /// reach this (and every this many more) has its valid pages moved, before read disturb
    /// makes them uncorrectable. Ha et al. (IEEE TCAD 2016) and Cai et al. (DSN 2015) put
    /// read-reclaim thresholds for MLC/TLC at 10^4–10^5 reads a block; a QLC part's is lower.
    #[serde(default)]
    pub reclaim_reads: u32,
    /// Read reclaim by retries (0: off): a host read that needs at least this many retry steps
    /// has its block's valid pages moved (a firmware's reclaim on an expensive read).
    #[serde(default)]
    pub reclaim_retries: u32,
    /// Retention refresh (0: off): a block whose data was programmed this many days ago is
    /// moved, found by a patrol every `refresh_scan_hours` of simulated time (timed runs).
    #[serde(default)]
    pub refresh_days: f64,
    /// The refresh patrol's period in hours (our choice: daily, as the period over which
    /// retention RBER moves).
    #[serde(default = "default_scan_hours")]
    pub refresh_scan_hours: f64,
}

fn default_scan_hours() -> f64 {
    24.0
}

fn default_codeword() -> u32 {
    1024
}
fn default_ecc_bits() -> u32 {
    40
}
fn default_retry_steps() -> u32 {
    8
}
fn default_retry_factor() -> f64 {
    0.5
}
fn default_retry_floor() -> f64 {
    0.3
}

impl Default for ReliabilityConfig {
    fn default() -> Self {
        ReliabilityConfig {
            errors: false,
            age_days: 0.0,
            initial_pe: 0,
            slc: None,
            mlc: None,
            tlc: None,
            qlc: None,
            codeword_bytes: default_codeword(),
            ecc_bits: default_ecc_bits(),
            retry_steps: default_retry_steps(),
            retry_factor: default_retry_factor(),
            retry_floor: default_retry_floor(),
            soft: default_soft(),
            reclaim_reads: 0,
            reclaim_retries: 0,
            refresh_days: 0.0,
            refresh_scan_hours: default_scan_hours(),
        }
    }
}

/// The most retry steps and soft tiers a configuration may ask for.
pub const MAX_RETRY_STEPS: u32 = 64;
pub const MAX_SOFT_TIERS: usize = 8;

impl ReliabilityConfig {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// A mode's RBER model: the configured one, else [`default_model`].
    pub fn model(&self, mode: CellMode) -> RberModel {
        let set = match mode {
            CellMode::Slc => self.slc,
            CellMode::Mlc => self.mlc,
            CellMode::Tlc => self.tlc,
            CellMode::Qlc => self.qlc,
        };
        set.unwrap_or_else(|| default_model(mode))
    }

    /// Codewords in a page of `page_size` bytes (one when the page is smaller than a codeword).
    pub fn codewords(&self, page_size: u32) -> u32 {
        (page_size / self.codeword_bytes).max(1)
    }

    /// Data bits a codeword holds in a page of `page_size` bytes.
    pub fn codeword_bits(&self, page_size: u32) -> f64 {
        f64::from(self.codeword_bytes.min(page_size)) * 8.0
    }

    /// Field checks.
    pub(super) fn check(&self) -> Result<(), (String, String)> {
        let f = |field: &str, msg: String| Err((format!("reliability.{field}"), msg));
        if !(self.refresh_days.is_finite() && (0.0..=36_500.0).contains(&self.refresh_days)) {
            return f(
                "refresh_days",
                format!("expected 0 (off) to 36500 days, got {}", self.refresh_days),
            );
        }
        if !(self.refresh_scan_hours.is_finite()
            && (1e-6..=876_000.0).contains(&self.refresh_scan_hours))
        {
            return f(
                "refresh_scan_hours",
                format!(
                    "expected more than 0 and at most 876000 hours, got {}",
                    self.refresh_scan_hours
                ),
            );
        }
        if self.refresh_days > 0.0 && self.age_days > 0.0 {
            return f(
                "refresh_days",
                "not with reliability.age_days: the age is every page's, a copy's too, so \
                 refreshed data would be as old as before"
                    .into(),
            );
        }
        let asks = self.reclaim_reads > 0 || self.reclaim_retries > 0 || self.refresh_days > 0.0;
        if asks && !self.errors {
            let field = if self.reclaim_reads > 0 {
                "reclaim_reads"
            } else if self.reclaim_retries > 0 {
                "reclaim_retries"
            } else {
                "refresh_days"
            };
            return f(
                field,
                "read reclaim and refresh act on the error model's blocks: set reliability.errors = true"
                    .into(),
            );
        }
        if self.reclaim_retries > 0 && self.age_days > 0.0 {
            return f(
                "reclaim_retries",
                "not with reliability.age_days: the age is every page's, a copy's too, so a \
                 reclaimed block's data would be retried and reclaimed again (use reclaim_reads)"
                    .into(),
            );
        }
        if self.reclaim_retries > self.retry_steps {
            return f(
                "reclaim_retries",
                format!(
                    "expected at most reliability.retry_steps ({}), got {}",
                    self.retry_steps, self.reclaim_retries
                ),
            );
        }
        if !(self.age_days.is_finite() && (0.0..=36_500.0).contains(&self.age_days)) {
            return f(
                "age_days",
                format!("expected 0 to 36500 days, got {}", self.age_days),
            );
        }
        if !(1..=1 << 20).contains(&self.codeword_bytes) {
            return f(
                "codeword_bytes",
                format!("expected 1 to 1048576 bytes, got {}", self.codeword_bytes),
            );
        }
        if self.retry_steps > MAX_RETRY_STEPS {
            return f(
                "retry_steps",
                format!(
                    "expected at most {MAX_RETRY_STEPS}, got {}",
                    self.retry_steps
                ),
            );
        }
        if !(self.retry_factor > 0.0 && self.retry_factor <= 1.0) {
            return f(
                "retry_factor",
                format!(
                    "expected a factor in (0, 1] (each step's bit errors against the last's), got {}",
                    self.retry_factor
                ),
            );
        }
        if !(0.0..1.0).contains(&self.retry_floor) {
            return f(
                "retry_floor",
                format!(
                    "expected a share in [0, 1) (the bit errors no read voltage removes), got {}",
                    self.retry_floor
                ),
            );
        }
        if self.soft.len() > MAX_SOFT_TIERS {
            return f(
                "soft",
                format!(
                    "expected at most {MAX_SOFT_TIERS} tiers, got {}",
                    self.soft.len()
                ),
            );
        }
        let mut last = self.ecc_bits;
        for (i, t) in self.soft.iter().enumerate() {
            if t.ecc_bits <= last {
                return f(
                    &format!("soft[{i}].ecc_bits"),
                    format!(
                        "expected more than the tier before ({last}): each tier corrects more, got {}",
                        t.ecc_bits
                    ),
                );
            }
            last = t.ecc_bits;
            if !(t.decode_us.is_finite() && (0.0..=super::MAX_OP_US).contains(&t.decode_us)) {
                return f(
                    &format!("soft[{i}].decode_us"),
                    format!("expected 0 to {} µs, got {}", super::MAX_OP_US, t.decode_us),
                );
            }
            if t.reads > MAX_RETRY_STEPS {
                return f(
                    &format!("soft[{i}].reads"),
                    format!("expected at most {MAX_RETRY_STEPS}, got {}", t.reads),
                );
            }
        }
        for (name, m) in [
            ("slc", self.slc),
            ("mlc", self.mlc),
            ("tlc", self.tlc),
            ("qlc", self.qlc),
        ] {
            let Some(m) = m else { continue };
            for (k, v) in [
                ("epsilon", m.epsilon),
                ("alpha", m.alpha),
                ("k", m.k),
                ("beta", m.beta),
                ("m", m.m),
                ("n", m.n),
                ("gamma", m.gamma),
                ("p", m.p),
                ("q", m.q),
            ] {
                if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
                    return f(
                        &format!("{name}.{k}"),
                        format!("expected a finite value from 0 to 100, got {v}"),
                    );
                }
            }
            if m.epsilon >= 0.5 {
                return f(
                    &format!("{name}.epsilon"),
                    format!("expected a bit error rate below 0.5, got {}", m.epsilon),
                );
            }
        }
        Ok(())
    }
}

impl super::DeviceConfig {
    /// Issue 63's features (the error model, wear levelling, bad blocks) run on the
    /// page-mapped FTL with its whole map in DRAM, in this version: `field`, on for `what`,
    /// is refused elsewhere in one line, not ignored (`cached`: what the cached map lacks).
    pub(crate) fn plain_full_map_only(
        &self,
        field: &str,
        what: &str,
        cached: &str,
    ) -> Result<(), (String, String)> {
        let why = if self.ftl.kind != super::FtlKind::Plain {
            format!(
                "{what}: on the plain FTL only for now (this device's is '{}')",
                self.ftl.kind.name()
            )
        } else if self.ftl.cached_mapping() {
            format!("{what}: not yet with the cached map ({cached}): use ftl.mapping = \"full\"")
        } else {
            return Ok(());
        };
        Err((field.into(), why))
    }

    /// The error model's FTL ([`Self::plain_full_map_only`]).
    pub(crate) fn check_reliability(&self) -> Result<(), (String, String)> {
        if !self.reliability.errors {
            return Ok(());
        }
        self.plain_full_map_only(
            "reliability.errors",
            "the error model",
            "its translation-page reads are not decoded",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mlc_is_simplessd_and_modes_reach_it_at_their_rating() {
        let m = default_model(CellMode::Mlc);
        assert_eq!(m, MLC);
        let q = default_model(CellMode::Qlc);
        // At its rated 1k cycles, QLC's wear and retention terms equal MLC's at 3k.
        let days = 30.0;
        let wear = |r: &RberModel, pe: f64| r.rber(pe, days, 0.0) - r.epsilon;
        let (a, b) = (wear(&q, 1000.0), wear(&m, 3000.0));
        assert!((a / b - 1.0).abs() < 1e-12, "{a} {b}");
        assert_eq!(q.epsilon, 2.0 * m.epsilon);
    }

    #[test]
    fn bad_fields_are_named() {
        let mut c = ReliabilityConfig {
            retry_factor: 0.0,
            ..Default::default()
        };
        assert_eq!(c.check().unwrap_err().0, "reliability.retry_factor");
        c.retry_factor = 0.5;
        c.soft[1].ecc_bits = 50;
        assert_eq!(c.check().unwrap_err().0, "reliability.soft[1].ecc_bits");
        c.soft[1].ecc_bits = 100;
        c.codeword_bytes = 0;
        assert_eq!(c.check().unwrap_err().0, "reliability.codeword_bytes");
    }
}
