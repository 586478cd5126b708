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
 * arrival) — see `transfer` for how the two differ; configuration, statistics beyond write
 * latency and WAF, time series, wear counters, GC-blocked counts, per-page validity bitmaps,
 * error checks.
 *
 * Build: cc -O2 -o timed_bound benches/timed_bound.c      Run: ./timed_bound [N] [seed]
 * Prints requests/s of the measured phase, WAF and the mean and p99 write latency; WAF and
 * mean latency must match ssdlab's (same model, different random numbers). */
#include "bound_ftl.h"

#define CHANNELS 4
#define PER_CHANNEL 4 /* chips x dies x planes per channel: PLANES = 16 */
#define QD 16

/* Operation times, ns, rounded as ssdlab's OpTimes: transfer = round(8192 B / 333 MB/s). */
#define READ_NS 75000ULL
#define PROG_NS 750000ULL
#define ERASE_NS 3800000ULL
#define XFER_NS 24601ULL

static uint64_t plane_free[PLANES], chan_free[CHANNELS]; /* busy-until times, ns */
static int timed;

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Blocking GC on plane p from `ready`: the plane is busy for every copy-back (read + program)
 * and erase, queued after whatever the plane already has. */
static void gc(uint32_t p, uint64_t ready) {
    uint64_t t = max64(ready, plane_free[p]);
    while (n_free[p] < THRESHOLD) {
        uint32_t moved = collect_victim(p);
        copies += moved;
        t += moved * (READ_NS + PROG_NS) + ERASE_NS;
    }
    if (timed) plane_free[p] = t;
}

/* Start of the page transfer, on channel ch, of a write arriving at `arrival` whose plane can
 * take it at `ready`. ssdlab's channel time line fills gaps: a transfer reserved for a plane
 * busy (with GC) far into the future holds the channel only then, not before. One busy-until
 * time per channel cannot say that: moved by such a transfer, it would make the channel's other
 * planes wait for that GC too (mean latency 1.8x ssdlab's). So only transfers that can start at
 * their arrival (plane idle) queue on it and move it; a transfer queued behind its busy plane
 * starts when the plane and the channel are free and reserves nothing, so a later transfer may
 * overlap it, by at most one page's 24.6 us. (Against an exact gap list, the mean latency moved
 * by 0.01 %.) */
static uint64_t transfer(uint32_t ch, uint64_t arrival, uint64_t ready) {
    uint64_t c = chan_free[ch];
    if (ready > arrival) return max64(ready, c);
    uint64_t x = max64(ready, c);
    chan_free[ch] = x + XFER_NS;
    return x;
}

static const uint32_t order[PLANES] = {0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15};
static uint32_t cursor;
/* One host page write arriving at `ready` (0 when untimed); returns its completion. */
static uint64_t host_write(uint32_t lpn, uint64_t ready) {
    uint32_t p = order[cursor++]; if (cursor == PLANES) cursor = 0;
    /* The last free block is GC's: collect first if the host would take it. */
    if (fp[p] == PPB && n_free[p] <= 1) gc(p, ready);
    if (l2p[lpn] != NONE) invalidate(l2p[lpn]);
    program(p, lpn);
    host_writes++;
    uint64_t done = 0;
    if (timed) {
        uint64_t x = transfer(p / PER_CHANNEL, ready, max64(ready, plane_free[p]));
        done = x + XFER_NS + PROG_NS;
        plane_free[p] = done;
    }
    if (n_free[p] < THRESHOLD) gc(p, ready);
    return done;
}

/* Log-linear latency buckets (ns): below 2^SUB_BITS one per value, then 2^SUB_BITS per
 * power of two — 1024, the resolution of ssdlab's HDR histograms at 3 significant digits, and
 * reported as they report it (a quantile is its bucket's largest value). */
#define SUB_BITS 10
#define SUB (1u << SUB_BITS)
static uint64_t hist[64 * SUB], lat_sum, lat_n;
static uint32_t bucket(uint64_t v) {
    if (v < SUB) return (uint32_t)v;
    uint32_t k = 63 - __builtin_clzll(v); /* k >= SUB_BITS */
    return (k - SUB_BITS + 1) * SUB + (uint32_t)((v >> (k - SUB_BITS)) - SUB);
}
static uint64_t bucket_top(uint32_t i) { /* the largest value of bucket i */
    if (i < SUB) return i;
    uint32_t k = i / SUB + SUB_BITS - 1;
    return ((uint64_t)(SUB + i % SUB + 1) << (k - SUB_BITS)) - 1;
}
static uint64_t quantile(double q) {
    uint64_t want = (uint64_t)(q * lat_n + 0.5), seen = 0;
    if (want == 0) want = 1;
    for (uint32_t i = 0; i < 64 * SUB; i++) if ((seen += hist[i]) >= want) return bucket_top(i);
    return 0;
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 5000000ULL;
    seed_rng(argc > 2 ? strtoull(argv[2], 0, 10) : 1);
    uint32_t logical = ftl_init();
    for (uint32_t l = 0; l < logical; l++) host_write(l, 0);
    for (uint64_t i = 0; i < 2ULL * logical; i++) host_write((uint32_t)(next_u64() % logical), 0);
    host_writes = 0; copies = 0; timed = 1;
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
