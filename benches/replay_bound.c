/* The trace-replay bound of issue 19: the FTL work a timing-free replay of an MSR Cambridge
 * trace does on mqsim-small, as one tight loop, so that a replay's rate can be read against what
 * the machine allows for that work (benches/replay_bound.sh runs it beside ssdlab's replay).
 *
 * Same FTL work as `replay_bench TRACE untimed` (examples/replay_bench.rs: `ssdlab run -d
 * mqsim-small -t TRACE --timing none`):
 * - the FTL, host write and preconditioning of benches/ftl_bound.c (benches/bound_ftl.h,
 *   benches/bound_free.h): mqsim-small's 16 planes x 512 blocks x 128 pages of 8 KiB, logical =
 *   floor(physical x 0.93), host pages to planes round-robin, one frontier per plane, blocking
 *   greedy GC below 3 free blocks;
 * - a request covers pages offset / 8 KiB to (offset + size - 1) / 8 KiB (as ssdlab's
 *   `--lba-map none`; a page beyond the logical space is an error): a write writes each page
 *   through the FTL, a read looks each page up.
 * The trace is parsed into memory before the clock starts, as `replay_bench TRACE bound` does
 * for ssdlab: the rate is the FTL's alone. A replay that parses on a second thread (ssdlab's
 * default on a machine with two CPUs) cannot beat it; one that parses on the same thread is
 * slower still. What it leaves out (ssdlab does it): parsing during the replay, configuration,
 * statistics, wear counters, time series, per-page validity bitmaps, error checks.
 *
 * Build: cc -O2 -o replay_bound benches/replay_bound.c     Run: ./replay_bound TRACE.csv [seed]
 * (plain CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime; a header line is
 * skipped). Prints requests/s, host page writes/s and WAF; the WAF must match ssdlab's replay
 * to a fraction of a per cent (same policy, different random numbers in preconditioning). */
#include "bound_ftl.h"
#include "bound_free.h"
#include "bound_msr.h"

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: replay_bound TRACE.csv [seed]\n"); return 2; }
    seed_rng(argc > 2 ? strtoull(argv[2], 0, 10) : 1);
    uint32_t logical = ftl_init();
    struct req *r;
    uint64_t n = load(argv[1], logical, &r, 0), sink = 0;
    precondition(logical);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t end = r[i].first + r[i].pages;
        if (r[i].write) for (uint32_t l = r[i].first; l < end; l++) host_write(l);
        else for (uint32_t l = r[i].first; l < end; l++) sink += l2p[l];
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double dt = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("bound  replay mqsim-small: %llu requests, %llu host page writes, WAF %.3f, %.2f s (lookups %llu)\n",
           (unsigned long long)n, (unsigned long long)host_writes,
           (double)(host_writes + copies) / host_writes, dt, (unsigned long long)(sink & 1));
    printf("  requests/s  %8.2f M\n", n / dt / 1e6);
    printf("  host page writes/s  %8.2f M\n", host_writes / dt / 1e6);
    return 0;
}
