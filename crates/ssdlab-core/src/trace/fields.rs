//! Field access and number parsing for text trace lines: every failure is a message that names
//! the field (1-based position and meaning) and says what was expected and what was there.

use super::request::OpKind;

/// Fields kept in place; a line with more keeps the rest in a `Vec` (no format reads that far).
const INLINE: usize = 12;

/// A split line. Errors are plain `String`s; [`super::input::TextSource`] adds file and line.
///
/// The first [`INLINE`] fields live in an array, so splitting a line allocates nothing: this is
/// the inner loop of every text trace (tens of millions of lines), where a `Vec` per line cost
/// a sixth of the parse time.
pub(crate) struct Fields<'a> {
    head: [&'a str; INLINE],
    rest: Vec<&'a str>,
    len: usize,
}

pub(crate) type FieldResult<T> = std::result::Result<T, String>;

impl<'a> Fields<'a> {
    fn new() -> Self {
        Fields {
            head: [""; INLINE],
            rest: Vec::new(),
            len: 0,
        }
    }

    fn push(&mut self, item: &'a str) {
        match self.head.get_mut(self.len) {
            Some(slot) => *slot = item,
            None => self.rest.push(item),
        }
        self.len += 1;
    }

    /// Splits on commas, trimming blanks around each field (as `str::trim` does).
    ///
    /// Eight bytes at a time, in one loop in line with the format's `parse`: as a closure per
    /// word it was a call of ~85 instructions per eight bytes. (The 224-byte `Fields` is still
    /// moved out with a `memcpy` per line, ~29 instructions, in line or not.)
    /// Bytes, not chars: a comma is one byte and never part of a longer UTF-8 sequence, so
    /// every position is a char boundary. (`memchr`'s iterator was 10 % slower than
    /// word-at-a-time on lines of 50–60 bytes.)
    #[inline(always)]
    pub(crate) fn comma(line: &'a str) -> Self {
        let b = line.as_bytes();
        let mut f = Self::new();
        let mut start = 0;
        let mut base = 0;
        while base < b.len() {
            let mut found = comma_bits(word_at(b, base));
            while found != 0 {
                let end = base + found.trailing_zeros() as usize / 8;
                f.push(trim(&line[start..end]));
                start = end + 1;
                found &= found - 1;
            }
            base += 8;
        }
        f.push(trim(&line[start..]));
        f
    }

    /// Splits on runs of whitespace (spaces or tabs).
    pub(crate) fn whitespace(line: &'a str) -> Self {
        let mut f = Self::new();
        for item in line.split_whitespace() {
            f.push(item);
        }
        f
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Requires at least `n` fields; `layout` names them for the message.
    pub(crate) fn require(&self, n: usize, layout: &str) -> FieldResult<()> {
        if self.len < n {
            Err(format!(
                "too few fields: expected {n} ({layout}), got {}",
                self.len
            ))
        } else {
            Ok(())
        }
    }

    /// Exactly `n` fields (a format of ssdlab's own, where a field more is a mistake).
    pub(crate) fn require_exactly(&self, n: usize, layout: &str) -> FieldResult<()> {
        self.require(n, layout)?;
        if self.len > n {
            return Err(format!(
                "too many fields: expected {n} ({layout}), got {}",
                self.len
            ));
        }
        Ok(())
    }

    /// Field `i` (0-based) as text.
    #[inline]
    pub(crate) fn str(&self, i: usize, name: &str) -> FieldResult<&'a str> {
        let item = if i < INLINE {
            (i < self.len).then(|| self.head[i])
        } else {
            self.rest.get(i - INLINE).copied()
        };
        item.ok_or_else(|| missing(i, name))
    }

    /// In line with its caller (the number itself is a few dozen instructions; the call and
    /// the error path's frame were a third as much again); the messages are built out of line.
    #[inline]
    pub(crate) fn u64(&self, i: usize, name: &str) -> FieldResult<u64> {
        let s = self.str(i, name)?;
        parse_u64(s).ok_or_else(|| expected(i, name, "a non-negative integer", s))
    }

    #[inline]
    pub(crate) fn u32(&self, i: usize, name: &str) -> FieldResult<u32> {
        let s = self.str(i, name)?;
        // Plain digits (every real trace) in one pass; anything else (a `+` sign) as the
        // standard library reads it, as before.
        match parse_u64(s).map(u32::try_from) {
            Some(Ok(v)) => Ok(v),
            _ => u32_slow(i, name, s),
        }
    }

    /// A non-negative decimal number of units, returned in units × 10^`digits` (exact for plain
    /// decimals; fraction digits beyond `digits` are truncated).
    pub(crate) fn decimal(&self, i: usize, name: &str, digits: u32) -> FieldResult<u64> {
        let s = self.str(i, name)?;
        parse_decimal(s, digits).ok_or_else(|| expected(i, name, "a non-negative number", s))
    }

    /// `a * b` for a field value, with an overflow error naming the field.
    pub(crate) fn scaled(&self, i: usize, name: &str, unit: u64) -> FieldResult<u64> {
        let v = self.u64(i, name)?;
        v.checked_mul(unit)
            .ok_or_else(|| format!("field {} ({name}): value {v} is too large", i + 1))
    }
}

/// Field `i` as a `u32` when it is not plain digits that fit: `+7` is read as the standard
/// library reads it; anything else is the standard message.
#[cold]
#[inline(never)]
fn u32_slow(i: usize, name: &str, s: &str) -> FieldResult<u32> {
    let v = if s.bytes().all(|b| b.is_ascii_digit()) {
        None
    } else {
        s.parse::<u32>().ok()
    };
    v.ok_or_else(|| expected(i, name, "a non-negative 32-bit integer", s))
}

#[cold]
#[inline(never)]
fn missing(i: usize, name: &str) -> String {
    format!("field {} ({name}): missing", i + 1)
}

/// The standard message: `field 5 (size): expected a non-negative integer, got "-8"`.
#[cold]
#[inline(never)]
pub(crate) fn expected(i: usize, name: &str, what: &str, got: &str) -> String {
    format!("field {} ({name}): expected {what}, got {got:?}", i + 1)
}

/// The eight bytes of `b` from `base` as a little-endian word, padded past the end with zero
/// bytes (which are not commas).
#[inline]
fn word_at(b: &[u8], base: usize) -> u64 {
    match b.get(base..base + 8) {
        Some(c) => u64::from_le_bytes(c.try_into().expect("8 bytes")),
        None => {
            let rest = &b[base..];
            let mut pad = [0u8; 8];
            pad[..rest.len()].copy_from_slice(rest);
            u64::from_le_bytes(pad)
        }
    }
}

/// The high bit of each byte of `w` that is a `,`, and no other bit.
#[inline]
fn comma_bits(w: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const COMMAS: u64 = 0x2c2c_2c2c_2c2c_2c2c;
    // A byte of `x` is zero exactly where `w` has a comma; the high bit of each byte of the
    // result is set exactly there (no carry crosses bytes: (x & 0x7f) + 0x7f <= 0xfe).
    let x = w ^ COMMAS;
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// A plain unsigned decimal integer (no sign, no blanks); `None` also when it overflows.
/// Eight digits at a time: trace timestamps have 15–19 digits, and a digit at a time was a
/// fifth of the time a line costs. Up to 19 digits cannot overflow a `u64`; longer numbers
/// are read a digit at a time, checked.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    if b.len() > 19 {
        let mut v: u64 = 0;
        for &c in b {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(d))?;
        }
        return Some(v);
    }
    let mut chunks = b.chunks_exact(8);
    let mut v: u64 = 0;
    for c in chunks.by_ref() {
        v = v * 100_000_000 + eight_digits(u64::from_le_bytes(c.try_into().expect("8 bytes")))?;
    }
    for &c in chunks.remainder() {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    Some(v)
}

/// The number eight ASCII digits spell (the first byte, lowest in `w`, most significant), or
/// `None` when a byte is not a digit. Pairs, then quadruples, then the eight are combined by
/// multiplying masked lanes (the well-known SWAR method; products wrap by design).
fn eight_digits(w: u64) -> Option<u64> {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    // A byte is a digit when its high nibble is 3, before and after adding 6 (0x3a..=0x3f
    // become 0x40..=0x45). A carry out of a byte (only from 0xfa and up) cannot make a
    // non-digit pass: that byte already fails the first test.
    if w & HIGH != ZEROS || w.wrapping_add(0x0606_0606_0606_0606) & HIGH != ZEROS {
        return None;
    }
    let v = (w & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(2561) >> 8;
    let v = (v & 0x00ff_00ff_00ff_00ff).wrapping_mul(6_553_601) >> 16;
    Some((v & 0x0000_ffff_0000_ffff).wrapping_mul(42_949_672_960_001) >> 32)
}

/// `s.trim()`, with the common case — a printable ASCII byte other than space at both ends —
/// decided on two bytes (one range test each). Exactly `str::trim`: such a byte cannot start
/// or end a blank; any other end byte (a blank, a control byte, non-ASCII) goes to `str::trim`.
#[inline]
pub(crate) fn trim(s: &str) -> &str {
    let plain = |b: &u8| (b'!'..=b'~').contains(b);
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) if plain(first) && plain(last) => s,
        _ => s.trim(),
    }
}

/// Parses a non-negative decimal (`12`, `0.026214`, `.5`, `1e-3`) into units × 10^`digits`.
/// Plain decimals are converted exactly; scientific notation goes through `f64`.
pub(crate) fn parse_decimal(s: &str, digits: u32) -> Option<u64> {
    let scale = 10u64.checked_pow(digits)?;
    if s.contains(['e', 'E']) {
        let v: f64 = s.parse().ok()?;
        let x = v * scale as f64;
        return (v.is_finite() && v >= 0.0 && x < u64::MAX as f64).then(|| x.round() as u64);
    }
    let (int, frac) = match s.split_once('.') {
        Some((a, b)) => (a, b),
        None => (s, ""),
    };
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut f: u64 = 0;
    for k in 0..digits as usize {
        let d = frac.as_bytes().get(k).map_or(0, |b| u64::from(b - b'0'));
        f = f * 10 + d;
    }
    whole.checked_mul(scale)?.checked_add(f)
}

/// Read/write words as the MSR and FIU formats spell them (case-insensitive).
pub(crate) fn read_write_word(s: &str) -> Option<OpKind> {
    // Compared in place: lower-casing into a new `String` allocated once per line.
    let is = |w: &str| s.eq_ignore_ascii_case(w);
    if is("r") || is("read") {
        Some(OpKind::Read)
    } else if is("w") || is("write") {
        Some(OpKind::Write)
    } else {
        None
    }
}

/// True when a first line looks like a header: its first field starts with a letter.
pub(crate) fn looks_like_header(first_field: &str) -> bool {
    first_field
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(parse_decimal("0.026214", 9), Some(26_214_000));
        assert_eq!(parse_decimal("12", 3), Some(12_000));
        assert_eq!(parse_decimal(".5", 1), Some(5));
        assert_eq!(parse_decimal("1.23456789012", 9), Some(1_234_567_890));
        assert_eq!(parse_decimal("1e-3", 9), Some(1_000_000));
        for bad in ["", ".", "-1", "1.2.3", "abc", "1e999", "-1e3"] {
            assert_eq!(parse_decimal(bad, 9), None, "{bad}");
        }
    }

    /// The fast paths read exactly what the standard library reads: plain digits as
    /// `str::parse`, commas as `split(',')`, blanks as `str::trim`.
    #[test]
    fn fast_paths_match_the_standard_library() {
        use crate::rng::{stream, Rng};
        let mut rng = stream(19, "fields");
        let alphabet = b"0123456789012345678901234567890123456789/:+- ,\t\x0b\r\n#aZ";
        for _ in 0..200_000 {
            let len = rng.gen_range(0..26);
            let s: String = (0..len)
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())] as char)
                .collect();
            let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            let want = if digits { s.parse::<u64>().ok() } else { None };
            assert_eq!(parse_u64(&s), want, "{s:?}");
            let f = Fields::comma(&s);
            let want: Vec<&str> = s.split(',').map(str::trim).collect();
            assert_eq!(f.u32(0, "x").ok(), want[0].parse::<u32>().ok(), "{s:?}");
            assert_eq!(f.len(), want.len(), "{s:?}");
            for (i, w) in want.iter().enumerate() {
                assert_eq!(f.str(i, "x").unwrap(), *w, "{s:?}");
            }
            assert_eq!(trim(&s), s.trim(), "{s:?}");
        }
        for s in [
            "18446744073709551615",
            "18446744073709551616",
            "0000000000000000000012",
        ] {
            assert_eq!(parse_u64(s), s.parse().ok(), "{s}");
        }
        for s in ["\u{a0}7\u{3000}", "\u{85}x", "é,\u{2028}"] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
        }
        let many = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14";
        assert_eq!(Fields::comma(many).len(), 15);
        assert_eq!(Fields::comma(many).u64(14, "x"), Ok(14));
        assert_eq!(Fields::whitespace("a b\tc").str(2, "x"), Ok("c"));
        for w in ["r", "READ", "Read", "w", "wRiTe"] {
            assert!(read_write_word(w).is_some(), "{w}");
        }
        for w in ["", "rd", "writes", "ｒ"] {
            assert!(read_write_word(w).is_none(), "{w}");
        }
    }

    #[test]
    fn field_errors_name_the_field() {
        let f = Fields::comma("1, 2 ,-8");
        assert_eq!(f.u64(1, "lba"), Ok(2));
        assert_eq!(
            f.u64(2, "size").unwrap_err(),
            "field 3 (size): expected a non-negative integer, got \"-8\""
        );
        assert_eq!(f.str(3, "op").unwrap_err(), "field 4 (op): missing");
        assert!(f
            .require(5, "a,b,c,d,e")
            .unwrap_err()
            .contains("expected 5"));
        assert!(Fields::whitespace("99999999999999999999")
            .scaled(0, "lba", 512)
            .is_err());
    }
}
