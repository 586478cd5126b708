/* The timed host write both timed bounds share (benches/timed_bound.c and
 * benches/replay_timed_bound.c): mqsim-small's timing on the FTL of benches/bound_ftl.h —
 * planes as busy-until times, channels as busy-until times or, built with GAP_FILLING defined,
 * as ssdlab's gap-filling time lines (see `transfer`), copy-back GC blocking its plane, host
 * pages to planes in ssdlab's channel-first stripe order —, its untimed preconditioning, and
 * log-linear latency buckets. What it models and what it leaves out: benches/timed_bound.c's
 * opening comment. Included once by each, after bound_ftl.h; everything is static. */
#include <string.h>

#define CHANNELS 4
#define PER_CHANNEL 4 /* chips x dies x planes per channel: PLANES = 16 */

/* Operation times, ns, rounded as ssdlab's OpTimes: transfer = round(8192 B / 333 MB/s). */
#define READ_NS 75000ULL
#define PROG_NS 750000ULL
#define ERASE_NS 3800000ULL
#define XFER_NS 24601ULL

static uint64_t plane_free[PLANES]; /* busy-until times, ns */
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

#ifdef GAP_FILLING
/* Gap-filling channel time lines, as ssdlab's (crates/ssdlab-core/src/nand/channel.rs): each
 * channel's future transfers as a sorted list of disjoint busy intervals [s, e), live from gh
 * to gn (start and end side by side: 5-7 % faster here than in two arrays); a transfer takes
 * the earliest idle interval at or after its ready time, and touching intervals merge.
 * Intervals ending by the current arrival are dropped from the front (they cannot hold anything
 * later) and the live ones moved back to the front once the dropped ones are at least half the
 * list. A linear search from the front: the lists hold a few intervals on the closed-loop
 * preset and tens on a trace replay (a binary search was no faster there). */
#define GAP_CAP 65536
struct iv { uint64_t s, e; };
static struct iv gl[CHANNELS][GAP_CAP];
static uint32_t gh[CHANNELS], gn[CHANNELS];
#ifdef CHECK
/* Built with CHECK as well (tests/bench_bounds.rs does): every reservation checked by brute
 * force. The start must be the earliest of `ready` and the live ends after it at which the
 * transfer overlaps no live interval; */
static void check_fit(const struct iv *g, uint32_t h, uint32_t n, uint64_t ready, uint64_t start) {
    uint64_t best = UINT64_MAX;
    for (uint32_t c = h; c <= n; c++) {
        uint64_t t = c == n ? ready : g[c].e;
        if (t < ready || t >= best) continue;
        int free = 1;
        for (uint32_t j = h; j < n && free; j++) free = g[j].e <= t || g[j].s >= t + XFER_NS;
        if (free) best = t;
    }
    if (start != best) { fprintf(stderr, "bound: check: start %llu, earliest fit %llu\n", (unsigned long long)start, (unsigned long long)best); exit(3); }
}
/* and afterwards the live list sorted, disjoint, not touching, and covering the transfer. */
static void check_list(const struct iv *g, uint32_t h, uint32_t n, uint64_t start, uint64_t end) {
    int covered = 0;
    for (uint32_t j = h; j < n; j++) {
        if (g[j].s >= g[j].e || (j > h && g[j - 1].e >= g[j].s)) { fprintf(stderr, "bound: check: list out of order at %u\n", j); exit(3); }
        covered |= g[j].s <= start && end <= g[j].e;
    }
    if (!covered) { fprintf(stderr, "bound: check: the transfer is not on the list\n"); exit(3); }
}
#endif

static uint64_t transfer(uint32_t ch, uint64_t arrival, uint64_t ready) {
    struct iv *g = gl[ch];
    uint32_t h = gh[ch], n = gn[ch], i;
    while (h < n && g[h].e <= arrival) h++;
    for (i = h; i < n && g[i].e <= ready; i++) {}
    uint64_t start = ready;
    for (; i < n && g[i].s < start + XFER_NS; i++) start = max64(start, g[i].e);
    uint64_t end = start + XFER_NS;
#ifdef CHECK
    check_fit(g, h, n, ready, start);
#endif
    int prev = i > h && g[i - 1].e == start, next = i < n && g[i].s == end;
    if (prev && next) {
        g[i - 1].e = g[i].e;
        memmove(g + i, g + i + 1, (n - i - 1) * sizeof *g);
        n--;
    } else if (prev) {
        g[i - 1].e = end;
    } else if (next) {
        g[i].s = start;
    } else {
        if (n == GAP_CAP || (h >= 16 && 2 * h >= n)) { /* the live intervals to the front */
            if (h == 0) { fprintf(stderr, "bound: error: a channel holds %d intervals\n", GAP_CAP); exit(1); }
            memmove(g, g + h, (n - h) * sizeof *g);
            n -= h; i -= h; h = 0;
        }
        memmove(g + i + 1, g + i, (n - i) * sizeof *g);
        g[i].s = start; g[i].e = end; n++;
    }
    if (h == n) h = n = 0;
    gh[ch] = h; gn[ch] = n;
#ifdef CHECK
    check_list(g, h, n, start, end);
#endif
    return start;
}
#else
static uint64_t chan_free[CHANNELS]; /* busy-until times, ns */

/* Start of the page transfer, on channel ch, of a write arriving at `arrival` whose plane can
 * take it at `ready` (of a read: `arrival` plus the array read, and when the read ends). ssdlab's channel time line fills gaps: a transfer reserved for a plane
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
#endif

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

/* Preconditions the `logical` pages untimed, as ssdlab's bench example and replays do (a
 * sequential pass, then 2 passes of uniformly random writes); the counters then start from 0
 * and the writes after it are timed. */
static void precondition(uint32_t logical) {
    for (uint32_t l = 0; l < logical; l++) host_write(l, 0);
    for (uint64_t i = 0; i < 2ULL * logical; i++) host_write((uint32_t)(next_u64() % logical), 0);
    host_writes = 0; copies = 0; timed = 1;
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
