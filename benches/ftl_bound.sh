#!/usr/bin/env bash
# Issue 19: ssdlab's timing-free path against the tight-loop bound (benches/ftl_bound.c) on the
# same FTL work (the WAFs printed must agree) — mqsim-small, uniformly random single-page writes, greedy, preconditioned.
# Compares the measured phase (host page writes/s after preconditioning) and whole processes,
# best of R runs each. Usage: benches/ftl_bound.sh [HOST_PAGE_WRITES [RUNS]]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
runs=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/ftl_bound" benches/ftl_bound.c
cargo build --release -q -p ssdlab-core --example bench
best() { sort -g | head -1; }
rate() { sort -gr | head -1; }
for i in $(seq "$runs"); do
  s=$(date +%s.%N); "$out/ftl_bound" "$n" > "$out/c.$i"; e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN {print b - a}' >> "$out/c.wall"
  awk '/host page writes\/s/ {print $4}' "$out/c.$i" >> "$out/c.rate"
  target/release/examples/bench mqsim-small "$n" > "$out/r.$i"
  awk '/host page writes\/s/ {print $4; exit}' "$out/r.$i" >> "$out/r.rate"
  s=$(date +%s.%N); ssdlab run -d mqsim-small --timing none -n "$n" --no-progress > /dev/null; e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN {print b - a}' >> "$out/cli.wall"
done
grep WAF "$out/c.1"; grep -m1 WAF "$out/r.1"
c=$(rate < "$out/c.rate"); r=$(rate < "$out/r.rate")
awk -v c="$c" -v r="$r" -v n="$runs" 'BEGIN {printf "measured phase, host page writes/s (best of %s): bound %s M, ssdlab %s M, ratio %.3f\n", n, c, r, r / c}'
cw=$(best < "$out/c.wall"); sw=$(best < "$out/cli.wall")
awk -v c="$cw" -v s="$sw" -v n="$runs" 'BEGIN {printf "whole process, s (best of %s): bound %.2f, ssdlab run --timing none %.2f, ratio %.3f\n", n, c, s, c / s}'
