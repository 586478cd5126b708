/* The timed trace-replay bound of issue 19: what a timed replay of an MSR Cambridge trace on
 * mqsim-small does, as one tight loop, so that ssdlab's timed replay can be read against what
 * the machine allows for that work (benches/replay_bound.sh runs it beside ssdlab's).
 *
 * Same work as `replay_bench TRACE bound-timed` (examples/replay_bench.rs: `ssdlab run -d
 * mqsim-small -t TRACE` from memory):
 * - the requests of benches/bound_msr.h, parsed into memory before the clock starts, replayed
 *   open loop at the trace's timestamps (ns after the first request's; an arrival never goes
 *   back in time), no controller overhead;
 * - the FTL and timing of benches/bound_timed.h with GAP_FILLING: mqsim-small's 16 planes, host
 *   pages to planes in channel-first stripe order, one frontier per plane, blocking greedy
 *   copy-back GC below 3 free blocks queued on its plane, and ssdlab's gap-filling channel time
 *   lines (a transfer waiting for a plane busy with GC holds the channel only when it runs);
 * - a write programs each of its pages: the page's transfer once its plane is free, then the
 *   program; a read reads each mapped page: the array read once its plane is free, then the
 *   transfer out, the plane busy until it ends. A request completes with its last page;
 * - latency = completion - arrival, all requests, in benches/bound_timed.h's buckets.
 * What it leaves out (ssdlab does it): parsing during the replay, configuration, statistics
 * beyond latency and WAF, GC-blocked counts, time series, wear counters, per-page validity
 * bitmaps, error checks.
 *
 * Built with -DBUSY_UNTIL, the channels are benches/timed_bound.c's busy-until approximation
 * instead (only a transfer whose plane is idle moves the channel): what ssdlab's exact model
 * costs a tight loop, and how little it moves the results on this device.
 *
 * Build: cc -O2 -o replay_timed_bound benches/replay_timed_bound.c
 * Run: ./replay_timed_bound TRACE.csv [seed]. Prints requests/s, WAF, the mean and p99 latency
 * and the simulated time; WAF, p99 and simulated time must match ssdlab's timed replay to a
 * fraction of a per cent (same model, different random numbers in preconditioning). */
#ifndef BUSY_UNTIL
#define GAP_FILLING
#endif
#include "bound_ftl.h"
#include "bound_timed.h"
#include "bound_msr.h"

/* A host read of page lpn arriving at `arrival`; returns when its transfer out ends. */
static uint64_t host_read(uint32_t lpn, uint64_t arrival) {
    uint32_t slot = l2p[lpn];
    if (slot == NONE) return arrival;
    uint32_t p = slot / PPB / BPP;
    uint64_t start = max64(arrival, plane_free[p]);
#ifdef GAP_FILLING
    uint64_t done = transfer(p / PER_CHANNEL, arrival, start + READ_NS) + XFER_NS;
#else
    /* The busy-until `transfer` reserves when its ready time is the one an idle plane would
     * give (its second argument): for a read, the array read's end after the arrival. */
    uint64_t done = transfer(p / PER_CHANNEL, arrival + READ_NS, start + READ_NS) + XFER_NS;
#endif
    plane_free[p] = done;
    return done;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: replay_timed_bound TRACE.csv [seed]\n"); return 2; }
    seed_rng(argc > 2 ? strtoull(argv[2], 0, 10) : 1);
    uint32_t logical = ftl_init();
    struct req *r;
    uint64_t *t;
    uint64_t n = load(argv[1], logical, &r, &t);
    precondition(logical);
    uint64_t origin = n ? t[0] : 0, last = 0, end = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t arrival = max64(t[i] > origin ? t[i] - origin : 0, last), done = arrival;
        uint32_t stop = r[i].first + r[i].pages;
        for (uint32_t l = r[i].first; l < stop; l++)
            done = max64(done, r[i].write ? host_write(l, arrival) : host_read(l, arrival));
        uint64_t lat = done - arrival;
        hist[bucket(lat)]++; lat_sum += lat; lat_n++;
        last = arrival; if (done > end) end = done;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("bound  timed replay mqsim-small: %llu requests, WAF %.3f, %.2f s\n",
           (unsigned long long)n, (double)(host_writes + copies) / host_writes, dt);
    printf("  requests/s          %8.2f M\n", n / dt / 1e6);
    printf("  latency us: mean %.1f, p99 %.1f (simulated time %.3f s)\n",
           (double)lat_sum / lat_n / 1e3, quantile(0.99) / 1e3, end / 1e9);
    return 0;
}
