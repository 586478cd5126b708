/* The timing-free host write both timing-free bounds share (benches/ftl_bound.c,
 * benches/replay_bound.c): round-robin planes, one frontier per plane, blocking greedy GC on the
 * FTL of benches/bound_ftl.h, and the preconditioning of ssdlab's bench example and replays
 * (a sequential pass over the logical space, then 2 passes of uniformly random writes).
 * Included once by each, after bound_ftl.h. */

static void gc(uint32_t p) {
    while (n_free[p] < THRESHOLD) copies += collect_victim(p);
}

static uint32_t cursor;
static void host_write(uint32_t lpn) {
    uint32_t p = cursor++; if (cursor == PLANES) cursor = 0;
    if (l2p[lpn] != NONE) invalidate(l2p[lpn]);
    /* The last free block is GC's: collect first if the host would take it. */
    if (fp[p] == PPB && n_free[p] <= 1) gc(p);
    program(p, lpn);
    host_writes++;
    if (n_free[p] < THRESHOLD) gc(p);
}

/* Preconditions the `logical` pages; the counters then start from 0. */
static void precondition(uint32_t logical) {
    for (uint32_t l = 0; l < logical; l++) host_write(l);
    for (uint64_t i = 0; i < 2ULL * logical; i++) host_write((uint32_t)(next_u64() % logical));
    host_writes = 0; copies = 0;
}
