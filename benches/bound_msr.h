/* The MSR Cambridge trace reader both replay bounds share (benches/replay_bound.c,
 * benches/replay_timed_bound.c): a plain CSV (Timestamp,Hostname,DiskNumber,Type,Offset,Size,
 * ResponseTime; a header line is skipped) read into memory before the clock starts. A request
 * covers pages offset / 8 KiB to (offset + size - 1) / 8 KiB, as ssdlab's `--lba-map none`; a
 * page beyond the logical space is an error; a request of size 0 is skipped. Included once by
 * each, after bound_ftl.h. */
#include <string.h>

#define PAGE_SHIFT 13 /* 8 KiB pages */

struct req { uint32_t first, pages; uint8_t write; };

/* Reads the trace's requests into *out and, when `times` is not null, their timestamps (ns,
 * from the trace's 100 ns ticks) into *times; returns their count. Exits 2 on a line it cannot
 * read. */
static uint64_t load(const char *path, uint32_t logical, struct req **out, uint64_t **times) {
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "bound: error: %s: cannot open\n", path); exit(2); }
    uint64_t n = 0, cap = 1 << 20, line_no = 0;
    struct req *r = malloc(cap * sizeof *r);
    uint64_t *t = times ? malloc(cap * sizeof *t) : 0;
    char *line = 0; size_t len = 0;
    while (getline(&line, &len, f) > 0) {
        line_no++;
        if (line_no == 1 && ((line[0] | 0x20) >= 'a' && (line[0] | 0x20) <= 'z')) continue;
        char *field[7]; int k = 0;
        for (char *p = line; k < 7; k++) { field[k] = p; p = strchr(p, ','); if (!p) { k++; break; } *p++ = 0; }
        if (k < 7) { fprintf(stderr, "bound: error: %s:%llu: expected 7 fields\n", path, (unsigned long long)line_no); exit(2); }
        uint64_t off = strtoull(field[4], 0, 10), size = strtoull(field[5], 0, 10);
        if (size == 0) continue;
        uint64_t first = off >> PAGE_SHIFT, last = (off + size - 1) >> PAGE_SHIFT;
        if (last >= logical) { fprintf(stderr, "bound: error: %s:%llu: beyond the logical space\n", path, (unsigned long long)line_no); exit(2); }
        if (n == cap) {
            cap *= 2;
            r = realloc(r, cap * sizeof *r);
            if (t) t = realloc(t, cap * sizeof *t);
        }
        if (t) t[n] = strtoull(field[0], 0, 10) * 100;
        r[n++] = (struct req){(uint32_t)first, (uint32_t)(last - first + 1), (field[3][0] | 0x20) == 'w'};
    }
    free(line); fclose(f);
    *out = r;
    if (times) *times = t;
    return n;
}
