//! Field access and number parsing for text trace lines: every failure is a message that names
//! the field (1-based position and meaning) and says what was expected and what was there.

use super::request::OpKind;

/// A split line. Errors are plain `String`s; [`super::input::TextSource`] adds file and line.
pub(crate) struct Fields<'a> {
    items: Vec<&'a str>,
}

pub(crate) type FieldResult<T> = std::result::Result<T, String>;

impl<'a> Fields<'a> {
    /// Splits on commas, trimming blanks around each field.
    pub(crate) fn comma(line: &'a str) -> Self {
        Fields {
            items: line.split(',').map(str::trim).collect(),
        }
    }

    /// Splits on runs of whitespace (spaces or tabs).
    pub(crate) fn whitespace(line: &'a str) -> Self {
        Fields {
            items: line.split_whitespace().collect(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Requires at least `n` fields; `layout` names them for the message.
    pub(crate) fn require(&self, n: usize, layout: &str) -> FieldResult<()> {
        if self.items.len() < n {
            Err(format!(
                "too few fields: expected {n} ({layout}), got {}",
                self.items.len()
            ))
        } else {
            Ok(())
        }
    }

    /// Exactly `n` fields (a format of ssdlab's own, where a field more is a mistake).
    pub(crate) fn require_exactly(&self, n: usize, layout: &str) -> FieldResult<()> {
        self.require(n, layout)?;
        if self.items.len() > n {
            return Err(format!(
                "too many fields: expected {n} ({layout}), got {}",
                self.items.len()
            ));
        }
        Ok(())
    }

    /// Field `i` (0-based) as text.
    pub(crate) fn str(&self, i: usize, name: &str) -> FieldResult<&'a str> {
        self.items
            .get(i)
            .copied()
            .ok_or_else(|| format!("field {} ({name}): missing", i + 1))
    }

    pub(crate) fn u64(&self, i: usize, name: &str) -> FieldResult<u64> {
        let s = self.str(i, name)?;
        parse_u64(s).ok_or_else(|| expected(i, name, "a non-negative integer", s))
    }

    pub(crate) fn u32(&self, i: usize, name: &str) -> FieldResult<u32> {
        let s = self.str(i, name)?;
        s.parse::<u32>()
            .map_err(|_| expected(i, name, "a non-negative 32-bit integer", s))
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

/// The standard message: `field 5 (size): expected a non-negative integer, got "-8"`.
pub(crate) fn expected(i: usize, name: &str, what: &str, got: &str) -> String {
    format!("field {} ({name}): expected {what}, got {got:?}", i + 1)
}

/// A plain unsigned decimal integer (no sign, no blanks).
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
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
    match s.to_ascii_lowercase().as_str() {
        "r" | "read" => Some(OpKind::Read),
        "w" | "write" => Some(OpKind::Write),
        _ => None,
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
