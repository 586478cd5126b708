/* The timed bound of issue 19: the least work per request a timed simulator with a page-mapped
 * FTL and blocking greedy GC can do, as one tight loop, for comparing against ssdlab's timed path
 * on the same workload (benches/timed_bound.sh runs both). The timing-free counterpart is
 * benches/ftl_bound.c; the FTL (benches/bound_ftl.h) is the same.
 *
 * Same work as the "timed" section of `cargo run --release -p ssdlab-core --example bench`
 * (and `ssdlab run -d mqsim-small -q 16`):
 * - mqsim-small: 4 channels x 2 chips x 1 die x 2 planes = 16 planes x 512 blocks x 128 pages of
 *   8 KiB, logical = floor(physical x 0.93); plane p sits on channel p / 4 (ssdlab's numbering);
 * - FTL as in ftl_bound.c: host pages go to planes round-robin in channel-first order (ssdlab's
 *   `stripe_order`: 0 4 8 12 2 6 10 14 1 5 9 13 3 7 11 15), one frontier per plane shared by
 *   host pages and GC copies, O(1) greedy victims (per-plane buckets of blocks by valid count),
 *   blocking GC per plane while free blocks < 3, the last free block kept for GC;
 * - preconditioning as in ftl_bound.c (sequential pass, 2 random passes), untimed, no timing;
 * - then N uniformly random one-page (8 KiB) writes, closed loop at queue depth 16: the first 16
 *   arrive at 0, each later one when the earliest outstanding request completes (a 16-entry
 *   min-heap of completion times; arrivals never go back in time);
 * - timing (MLC: read 75 us, program 750 us, erase 3800 us; one page over the 333 MB/s channel
 *   24.601 us; no controller overhead), as ssdlab's `nand::Resources` does it with multi-plane
 *   operation and copy-back on: a host write starts when its plane is free, moves the page over
 *   its channel, then programs; the plane is busy from its start until the program ends. GC
 *   (forced before the write when the host may not take the plane, blocking after it when the
 *   plane is below the threshold) runs on the plane after whatever is queued there: each copy
 *   a read + program inside the plane (copy-back, no channel), then the erase. The write that
 *   triggered GC does not wait for it; the writes after it on that plane do;
 * - latency = completion - arrival, in log-linear buckets (HDR-like: each range [2^k, 2^(k+1))
 *   split into 1024 sub-buckets, as ssdlab's HDR histogram at 3 significant digits) plus an exact
 *   sum for the mean.
 * What it simplifies or leaves out (ssdlab does it): busy-until times per plane and per channel
 * instead of ssdlab's gap-filling channel time lines (lists of future transfers, pruned at each
 * arrival) — see `transfer` in benches/bound_timed.h for how the two differ, and build with
 * -DGAP_FILLING for ssdlab's (-DCHECK as well checks every reservation); configuration,
 * statistics beyond write latency and WAF, time series, wear counters, GC-blocked counts,
 * per-page validity bitmaps, error checks.
 *
 * Build: cc -O2 -o timed_bound benches/timed_bound.c      Run: ./timed_bound [N] [seed]
 * Prints requests/s of the measured phase, WAF and the mean and p99 write latency; WAF and
 * mean latency must match ssdlab's (same model, different random numbers). */
#include "bound_ftl.h"
#include "bound_timed.h"

#define QD 16

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 5000000ULL;
    seed_rng(argc > 2 ? strtoull(argv[2], 0, 10) : 1);
    uint32_t logical = ftl_init();
    precondition(logical);
    uint64_t heap[QD], last = 0, end = 0; /* completion times of the outstanding requests */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t arrival = i < QD ? 0 : max64(heap[0], last);
        uint64_t done = host_write((uint32_t)(next_u64() % logical), arrival);
        uint64_t lat = done - arrival;
        hist[bucket(lat)]++; lat_sum += lat; lat_n++;
        last = arrival; if (done > end) end = done;
        if (i < QD) { /* push: sift up */
            uint32_t j = (uint32_t)i;
            while (j && heap[(j - 1) / 2] > done) { heap[j] = heap[(j - 1) / 2]; j = (j - 1) / 2; }
            heap[j] = done;
        } else { /* pop the earliest (this arrival) and push this completion: sift down */
            uint32_t j = 0;
            for (;;) {
                uint32_t c = 2 * j + 1;
                if (c >= QD) break;
                if (c + 1 < QD && heap[c + 1] < heap[c]) c++;
                if (heap[c] >= done) break;
                heap[j] = heap[c]; j = c;
            }
            heap[j] = done;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("bound  mqsim-small: %llu requests QD16, WAF %.3f, %.2f s\n", (unsigned long long)lat_n,
           (double)(host_writes + copies) / host_writes, dt);
    printf("  requests/s          %8.2f M\n", lat_n / dt / 1e6);
    printf("  write latency us: mean %.1f, p99 %.1f (simulated time %.3f s)\n",
           (double)lat_sum / lat_n / 1e3, quantile(0.99) / 1e3, end / 1e9);
    return 0;
}
