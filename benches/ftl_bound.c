/* The timing-free bound of issue 19: the least work per host page a page-mapped FTL with greedy
 * GC can do, as one tight loop, for comparing against ssdlab's timing-free path on the same
 * workload (benches/ftl_bound.sh runs both).
 *
 * Same FTL work as `cargo run --release -p ssdlab-core --example bench -- mqsim-small N`:
 * - 16 planes x 512 blocks x 128 pages (mqsim-small), logical = floor(physical x 0.93);
 * - host pages go to planes round-robin (ssdlab's default allocation), one write frontier per
 *   plane shared by host pages and GC copies (placement "single");
 * - GC per plane: while free blocks < 3 (threshold_blocks), take the block with the fewest valid
 *   pages (O(1): per-plane buckets of blocks by valid count, doubly linked), copy its valid
 *   pages to the frontier, erase it; the last free block is kept for GC;
 * - preconditioning: one sequential pass over the logical space, then 2 passes of uniformly
 *   random writes; then N uniformly random single-page writes are timed.
 * What it leaves out (ssdlab does it): configuration, statistics, wear counters, time series,
 * per-page validity bitmaps scanned by word, error checks.
 *
 * The FTL and the RNG are in benches/bound_ftl.h, shared with the timed bound; the host write
 * and the preconditioning in benches/bound_free.h, shared with the replay bound.
 *
 * Build: cc -O2 -o ftl_bound benches/ftl_bound.c      Run: ./ftl_bound [N] [seed]
 * Prints host page writes/s and WAF; the WAF must match ssdlab's to a fraction of a per cent
 * (same policy, different random numbers). */
#include "bound_ftl.h"
#include "bound_free.h"

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 20000000ULL;
    seed_rng(argc > 2 ? strtoull(argv[2], 0, 10) : 1);
    uint32_t logical = ftl_init();
    precondition(logical);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++) host_write((uint32_t)(next_u64() % logical));
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("bound  mqsim-small: %llu host page writes, WAF %.3f, %.2f s\n", (unsigned long long)host_writes,
           (double)(host_writes + copies) / host_writes, dt);
    printf("  host page writes/s  %8.2f M\n", host_writes / dt / 1e6);
    return 0;
}
