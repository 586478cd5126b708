#!/usr/bin/env bash
# Issue 19, trace replay against its tight-loop bound (benches/replay_bound.c): the FTL work of a
# timing-free replay of the generated MSR trace on mqsim-small (the WAFs printed must agree),
# with the requests parsed into memory before the clock starts. Per run, alternated:
#   bound        — the C loop, requests/s;
#   ssdlab mem   — `replay_bench TRACE bound`'s timing-free replay from memory (the simulation
#                  alone, as the C loop), requests/s;
#   ssdlab       — `replay_bench TRACE untimed`: the replay as it runs, parsing on a second thread.
#   timed bound  — benches/replay_timed_bound.c: the same replay timed, open loop at the trace's
#                  timestamps, with ssdlab's gap-filling channels (p99 and simulated time must
#                  agree with ssdlab's); and once per run the same loop with timed_bound.c's
#                  busy-until channels (-DBUSY_UNTIL), what exact gap filling costs it;
#   ssdlab timed mem / ssdlab timed — `replay_bench TRACE bound`'s timed replay from memory, and
#                  `replay_bench TRACE timed` parsing on a second thread.
# Best of RUNS each, and the ratios. The trace is /tmp/ssdlab-msr-LINES.csv (benches/replay.sh
# generates it, and so does this script when it is missing).
# Usage: benches/replay_bound.sh [LINES [RUNS]]
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-20000000}
runs=${2:-3}
plain=/tmp/ssdlab-msr-$lines.csv
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/replay_bound" benches/replay_bound.c
cc -O2 -o "$out/replay_timed_bound" benches/replay_timed_bound.c
cc -O2 -DBUSY_UNTIL -o "$out/replay_timed_bound_busy" benches/replay_timed_bound.c
cargo build --release -q -p ssdlab-core --example gen_msr --example replay_bench
if [ ! -s "$plain" ]; then
  target/release/examples/gen_msr "$plain.part" "$lines" && mv "$plain.part" "$plain"
fi
for i in $(seq "$runs"); do
  "$out/replay_bound" "$plain" > "$out/c.$i"
  awk '/requests\/s/ {print $2}' "$out/c.$i" >> "$out/c.rate"
  target/release/examples/replay_bench "$plain" bound > "$out/m.$i"
  awk '$1 == "untimed-mem" {print $(NF-2)}' "$out/m.$i" >> "$out/m.rate"
  awk '$1 == "timed-mem" {print $(NF-2)}' "$out/m.$i" >> "$out/tm.rate"
  target/release/examples/replay_bench "$plain" untimed > "$out/r.$i"
  awk '$1 == "untimed" {print $(NF-2)}' "$out/r.$i" >> "$out/r.rate"
  "$out/replay_timed_bound" "$plain" > "$out/tc.$i"
  awk '/requests\/s/ {print $2}' "$out/tc.$i" >> "$out/tc.rate"
  "$out/replay_timed_bound_busy" "$plain" > "$out/bc.$i"
  awk '/requests\/s/ {print $2}' "$out/bc.$i" >> "$out/bc.rate"
  target/release/examples/replay_bench "$plain" timed > "$out/tr.$i"
  awk '$1 == "timed" {print $(NF-2)}' "$out/tr.$i" >> "$out/tr.rate"
  echo "run $i: timing-free: bound $(tail -1 "$out/c.rate") M, ssdlab from memory $(tail -1 "$out/m.rate") M, ssdlab $(tail -1 "$out/r.rate") M requests/s;" \
    "timed: bound $(tail -1 "$out/tc.rate") M (busy-until channels $(tail -1 "$out/bc.rate") M), ssdlab from memory $(tail -1 "$out/tm.rate") M, ssdlab $(tail -1 "$out/tr.rate") M"
done
head -1 "$out/c.1"; grep '^untimed-mem' "$out/m.1"
grep -v requests/s "$out/tc.1"; grep -v requests/s "$out/bc.1" | sed '1s/^bound /bound with busy-until channels /'
grep '^timed-mem' "$out/m.1"
best() { sort -gr "$1" | head -1; }
for kind in timing-free timed; do
  if [ "$kind" = timed ]; then p=t; else p=; fi
  c=$(best "$out/${p}c.rate"); m=$(best "$out/${p}m.rate"); r=$(best "$out/${p}r.rate")
  awk -v c="$c" -v m="$m" -v r="$r" -v n="$runs" -v l="$lines" -v k="$kind" 'BEGIN {
    printf "%s lines, %s, M requests/s (best of %s): bound %s, ssdlab from memory %s (%.3fx), ssdlab parsing on a second thread %s (%.3fx)\n", l, k, n, c, m, m / c, r, r / c }'
done
awk -v c="$(best "$out/tc.rate")" -v b="$(best "$out/bc.rate")" 'BEGIN {
  printf "timed bound with busy-until channels %s M: exact gap filling runs at %.3fx of it\n", b, c / b }'
