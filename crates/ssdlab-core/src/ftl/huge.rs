//! The FTL's page tables (L2P, P2L, the valid bitmap), asked of the kernel as transparent huge
//! pages (`madvise(MADV_HUGEPAGE)`, Linux). Every host write and GC copy touches them at random,
//! and past a few Mi pages each access misses the TLB as well as the cache: on a 64 Mi-page
//! device, huge pages cut the time per page program by ~22 % and raise timed requests/s by
//! ~30 % (README "Speed", scale curve). Only how memory is backed changes, never its contents,
//! so results are the same; where the kernel has THP off (or another OS), nothing changes.

use std::mem::size_of;

/// Huge-page size the advice is aligned to (x86-64 and most arm64 kernels).
const HUGE: usize = 2 << 20;

/// `vec![fill; n]`, with the allocation advised to be backed by huge pages before it is first
/// touched (the fill then faults huge pages in directly).
pub(super) fn table<T: Clone>(n: usize, fill: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise(v.as_ptr() as usize, n * size_of::<T>());
    v.resize(n, fill);
    v
}

#[cfg(target_os = "linux")]
fn advise(addr: usize, len: usize) {
    // Tables under two huge pages gain nothing (and small devices stay cache-resident).
    if len < 2 * HUGE {
        return;
    }
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) & !(HUGE - 1);
    if end > start {
        // SAFETY: [start, end) lies inside the allocation just made and owned by the caller;
        // MADV_HUGEPAGE only changes how the kernel backs it, never its contents or validity.
        // Failure (THP disabled) leaves ordinary pages, so the result is ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_addr: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn same_contents_as_vec_macro() {
        for n in [0usize, 1, 1000, (5 << 20) / 4 + 3] {
            assert_eq!(super::table(n, u32::MAX), vec![u32::MAX; n]);
            assert_eq!(super::table(n, 0u64), vec![0u64; n]);
        }
    }
}
