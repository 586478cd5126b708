//! The valid bitmap a word at a time, for the GC loops (`gc_ops.rs`, `external.rs`): its set
//! bits in order, a range set or cleared, the first set bit of a range; and the cache hint
//! the loops warm tables with.

/// The set bits of a bitmap in [from, end), lowest first: the word in hand is kept in a
/// register and its lowest bit cleared after each, so a bit costs a few instructions rather
/// than a scan from its position ([`next_valid_in`]). It holds no borrow of the bitmap (each
/// [`Ones::next`] is handed it), so the lean GC loops carry one across runs that store into
/// the bitmap between: they change only bits already returned, and the word in hand keeps
/// only bits not yet returned.
pub(super) struct Ones {
    /// The bits of word `base / 64` not yet returned.
    word: u64,
    base: usize,
    end: usize,
}

impl Ones {
    #[inline(always)]
    pub(super) fn new(bits: &[u64], from: u32, end: u32) -> Self {
        let (from, end) = (from as usize, end as usize);
        let base = from & !63;
        let word = if from < end {
            bits[from >> 6] & (!0u64 << (from & 63))
        } else {
            0
        };
        Ones { word, base, end }
    }

    /// The next set bit of `bits` (the bitmap this was made with), if any before the end.
    #[inline(always)]
    pub(super) fn next(&mut self, bits: &[u64]) -> Option<u32> {
        while self.word == 0 {
            self.base += 64;
            if self.base >= self.end {
                return None;
            }
            self.word = bits[self.base >> 6];
        }
        let j = self.base + self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        (j < self.end).then_some(j as u32)
    }
}

/// Set (`on`) or clear the bits [from, to) of `bits`: a mask on the first and last words and
/// whole words between, without a loop for a range within two words (a GC run is at most a
/// block; a partial GC action's few copies mostly fit in one word).
#[inline(always)]
pub(super) fn set_bits(bits: &mut [u64], from: u32, to: u32, on: bool) {
    if from >= to {
        return;
    }
    let apply = |w: &mut u64, mask: u64| *w = if on { *w | mask } else { *w & !mask };
    let (first, last) = (from as usize >> 6, (to - 1) as usize >> 6);
    let lo = !0u64 << (from & 63);
    let hi = !0u64 >> (63 - ((to - 1) & 63));
    if first == last {
        apply(&mut bits[first], lo & hi);
        return;
    }
    apply(&mut bits[first], lo);
    for w in &mut bits[first + 1..last] {
        apply(w, !0);
    }
    apply(&mut bits[last], hi);
}

/// First set bit of `bits` in [from, to), a word at a time: [`super::Ftl::next_valid`] on the
/// valid bitmap.
#[inline(always)]
pub(super) fn next_valid_in(bits: &[u64], from: u32, to: u32) -> Option<u32> {
    let mut i = from as usize;
    let end = to as usize;
    while i < end {
        let word = bits[i >> 6] >> (i & 63);
        if word != 0 {
            let j = i + word.trailing_zeros() as usize;
            return (j < end).then_some(j as u32);
        }
        i = (i | 63) + 1;
    }
    None
}

/// Hint the CPU to fetch `v[i]` into cache (no effect on results; a no-op off x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(r) = v.get(i) {
        // SAFETY: prefetch only hints the cache; the pointer is valid and never dereferenced.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                r as *const T as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

#[cfg(test)]
mod tests {
    use super::{next_valid_in, set_bits, Ones};

    #[test]
    fn ones_are_the_set_bits_in_order() {
        // Every range of a three-word bitmap with bits set across word edges, against the scan.
        let bits = [0x8000_0000_0000_0001u64, 0, 0xf0f0_0000_0000_0301];
        for from in 0..=192u32 {
            for end in from..=192 {
                let scanned: Vec<u32> =
                    std::iter::successors(next_valid_in(&bits, from, end), |&j| {
                        next_valid_in(&bits, j + 1, end)
                    })
                    .collect();
                let mut it = Ones::new(&bits, from, end);
                let ones: Vec<u32> = std::iter::from_fn(|| it.next(&bits)).collect();
                assert_eq!(ones, scanned, "[{from}, {end})");
            }
        }
    }

    #[test]
    fn set_bits_sets_and_clears_exactly_the_range() {
        // Every range of a three-word bitmap, set on zeros and cleared on ones, against the
        // bit-at-a-time answer.
        for from in 0..192u32 {
            for to in from..=192 {
                let inside = |i: u32| (from..to).contains(&i);
                let mut on = [0u64; 3];
                set_bits(&mut on, from, to, true);
                let mut off = [!0u64; 3];
                set_bits(&mut off, from, to, false);
                for i in 0..192u32 {
                    let bit = |w: &[u64; 3]| w[i as usize >> 6] >> (i & 63) & 1 == 1;
                    assert_eq!(bit(&on), inside(i), "set [{from}, {to}) bit {i}");
                    assert_eq!(bit(&off), !inside(i), "clear [{from}, {to}) bit {i}");
                }
            }
        }
    }
}
