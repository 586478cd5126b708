/* The FTL every tight-loop bound shares (benches/ftl_bound.c, timed_bound.c, replay_bound.c,
 * replay_timed_bound.c): the mqsim-small geometry's page-mapped FTL with O(1) greedy victims
 * and one frontier per plane, and the RNG of their workload. Included once by each; everything is static. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PLANES 16
#define BPP 512
#define PPB 128
#define THRESHOLD 3
#define NONE UINT32_MAX

static uint32_t *l2p, *p2l, *valid, *next_b, *prev_b;
static uint32_t head[PLANES][PPB + 1], min_v[PLANES];
static uint32_t free_list[PLANES][BPP], n_free[PLANES];
static uint32_t fb[PLANES], fp[PLANES];
static uint64_t host_writes, copies;

static uint64_t s[4];
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t next_u64(void) { /* xoshiro256++ */
    uint64_t r = rotl(s[0] + s[3], 23) + s[0], t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return r;
}
static void seed_rng(uint64_t x) { /* splitmix64 */
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        s[i] = z ^ (z >> 31);
    }
}

/* Bucket lists hold the closed blocks (not free, not a frontier), by valid count. */
static void unlink_b(uint32_t p, uint32_t b) {
    uint32_t v = valid[b];
    if (prev_b[b] != NONE) next_b[prev_b[b]] = next_b[b]; else head[p][v] = next_b[b];
    if (next_b[b] != NONE) prev_b[next_b[b]] = prev_b[b];
}
static void link_b(uint32_t p, uint32_t b) {
    uint32_t v = valid[b];
    prev_b[b] = NONE; next_b[b] = head[p][v];
    if (head[p][v] != NONE) prev_b[head[p][v]] = b;
    head[p][v] = b;
    if (v < min_v[p]) min_v[p] = v;
}
static int closed(uint32_t p, uint32_t b) { return b != fb[p] && prev_b[b] != NONE - 1; }

static void invalidate(uint32_t slot) {
    uint32_t b = slot / PPB, p = b / BPP;
    p2l[slot] = NONE;
    if (closed(p, b)) { unlink_b(p, b); valid[b]--; link_b(p, b); } else valid[b]--;
}

static void open_block(uint32_t p) {
    if (fb[p] != NONE) link_b(p, fb[p]); /* the full frontier becomes closed */
    fb[p] = free_list[p][--n_free[p]];
    prev_b[fb[p]] = NONE; next_b[fb[p]] = NONE; fp[p] = 0;
}

static void program(uint32_t p, uint32_t lpn) {
    if (fp[p] == PPB) open_block(p);
    uint32_t slot = fb[p] * PPB + fp[p]++;
    l2p[lpn] = slot; p2l[slot] = lpn; valid[fb[p]]++;
}

/* GC on plane p: take the block with the fewest valid pages (O(1): per-plane buckets of blocks
 * by valid count, doubly linked), copy its valid pages to the frontier and free it; returns the
 * pages copied. */
static uint32_t collect_victim(uint32_t p) {
    while (head[p][min_v[p]] == NONE) min_v[p]++;
    uint32_t v = head[p][min_v[p]], moved = 0;
    unlink_b(p, v);
    prev_b[v] = NONE - 1; /* mark: not in a bucket */
    for (uint32_t i = v * PPB; i < (v + 1) * PPB && valid[v]; i++) {
        uint32_t lpn = p2l[i];
        if (lpn == NONE) continue;
        p2l[i] = NONE; valid[v]--;
        program(p, lpn);
        moved++;
    }
    free_list[p][n_free[p]++] = v;
    return moved;
}

/* A page table on huge pages, as ssdlab's are (crates/ssdlab-core/src/ftl/huge.rs, speed item
 * 50): aligned to 2 MiB and advised, so that the bound does not pay TLB misses ssdlab does not. */
static void *table_alloc(size_t bytes) {
    size_t huge = (size_t)2 << 20, len = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, len);
    if (!p) { perror("aligned_alloc"); exit(1); }
    madvise(p, len, MADV_HUGEPAGE);
    return p;
}

/* Allocate and reset the tables; returns the logical pages (floor(physical x 0.93)). */
static uint32_t ftl_init(void) {
    uint64_t phys = (uint64_t)PLANES * BPP * PPB;
    uint32_t logical = (uint32_t)(phys * 0.93);
    l2p = table_alloc(sizeof(uint32_t) * logical); p2l = table_alloc(sizeof(uint32_t) * phys);
    valid = calloc(PLANES * BPP, sizeof(uint32_t));
    next_b = malloc(sizeof(uint32_t) * PLANES * BPP); prev_b = malloc(sizeof(uint32_t) * PLANES * BPP);
    for (uint32_t i = 0; i < logical; i++) l2p[i] = NONE;
    for (uint64_t i = 0; i < phys; i++) p2l[i] = NONE;
    for (uint32_t p = 0; p < PLANES; p++) {
        for (uint32_t v = 0; v <= PPB; v++) head[p][v] = NONE;
        min_v[p] = PPB; n_free[p] = 0;
        for (uint32_t b = BPP; b-- > 0;) { free_list[p][n_free[p]++] = p * BPP + b; prev_b[p * BPP + b] = NONE - 1; }
        fb[p] = NONE; fp[p] = PPB;
    }
    return logical;
}
