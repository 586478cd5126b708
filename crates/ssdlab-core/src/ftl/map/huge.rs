//! The FTL's page tables (L2P, P2L, the valid bitmap), asked of the kernel as transparent huge
//! pages (`madvise(MADV_HUGEPAGE)`, Linux). Every host write and GC copy touches them at random,
//! and past a few Mi pages each access misses the TLB as well as the cache: on a 64 Mi-page
//! device, huge pages cut the time per page program by ~22 % and raise timed requests/s by
//! ~30 % (docs/speed-targets.md, "Scale"). Only how memory is backed changes, never its contents,
//! so results are the same; where the kernel has THP off (or another OS), nothing changes.
//!
//! A table of a huge page or more starts on a huge-page boundary, and the advice covers it to the
//! end of its last huge page: the kernel backs only whole, aligned huge pages, and a table placed
//! where the allocator put it (16 B past a page boundary) lost its first and last one — on
//! `mqsim-small` (1 Mi pages) the L2P, 3.9 MiB, had none and the P2L one of two. Whole, the
//! timing-free bench ran 7–10 % faster and the timed one 3–5 % (docs/speed.md, "The FTL's tables
//! wholly on huge pages").

use std::mem::{align_of, size_of};

use aligned_vec::{AVec, RuntimeAlign};

/// Huge-page size the advice is aligned to (x86-64 and most arm64 kernels).
const HUGE: usize = 2 << 20;

/// A page table: a vector whose alignment is chosen when it is made ([`table`]).
pub(crate) type Table<T> = AVec<T, RuntimeAlign>;

/// `vec![fill; n]` as a [`Table`]: of a huge page or more, aligned to one and advised to be
/// backed by huge pages before it is first touched (the fill then faults huge pages in
/// directly); smaller, aligned as a `Vec` would be.
pub(super) fn table<T: Clone>(n: usize, fill: T) -> Table<T> {
    let len = n * size_of::<T>();
    let huge = len >= HUGE;
    let mut v = Table::with_capacity(if huge { HUGE } else { align_of::<T>() }, n);
    if huge {
        advise(v.as_ptr() as usize, len);
    }
    v.resize(n, fill);
    v
}

#[cfg(target_os = "linux")]
fn advise(addr: usize, len: usize) {
    // `addr` is on a huge-page boundary. The advice runs to the end of the table's last huge
    // page, which may reach past the allocation: MADV_HUGEPAGE there only lets the kernel back
    // the rest of that huge page (the allocator's, or unmapped) by the same huge page.
    let end = (addr + len).next_multiple_of(HUGE);
    // SAFETY: MADV_HUGEPAGE only changes how the kernel backs mapped memory, never its contents
    // or validity, ours or a neighbour's. Failure (THP disabled, part of the range unmapped)
    // leaves ordinary pages, so the result is ignored.
    unsafe {
        libc::madvise(addr as *mut libc::c_void, end - addr, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_addr: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_contents_as_vec_macro() {
        for n in [0usize, 1, 1000, (5 << 20) / 4 + 3] {
            assert_eq!(&super::table(n, u32::MAX)[..], &vec![u32::MAX; n][..]);
            assert_eq!(&super::table(n, 0u64)[..], &vec![0u64; n][..]);
        }
    }

    #[test]
    fn a_table_of_a_huge_page_or_more_starts_on_one() {
        let big = table(HUGE / 4, 7u32);
        assert_eq!(big.as_ptr() as usize % HUGE, 0);
        let clone = big.clone();
        assert_eq!(clone.as_ptr() as usize % HUGE, 0);
        assert_eq!(&clone[..], &big[..]);
        let small = table(1000, 7u32);
        assert_eq!(small.alignment(), align_of::<u32>());
    }
}
