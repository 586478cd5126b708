#!/usr/bin/env bash
# Issue 19: ssdlab's timed path against the tight-loop bound (benches/timed_bound.c) on the same
# work (the WAFs and mean write latencies printed must agree) — mqsim-small, uniformly random
# 8 KiB writes, closed loop at QD 16, blocking greedy GC, preconditioned.
# Compares the measured phase (requests/s after preconditioning: the bench example's timed
# section, which it runs on a quarter of its argument) and whole processes (the C loop against
# `ssdlab run -d mqsim-small -q 16`, timing on), best of R runs each. The measured phase is also
# read against the same loop built with -DGAP_FILLING: ssdlab's gap-filling channel time lines in
# place of busy-until times (benches/bound_timed.h), the channel model ssdlab runs.
# Usage: benches/timed_bound.sh [REQUESTS [RUNS]]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000000}
runs=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/timed_bound" benches/timed_bound.c
cc -O2 -DGAP_FILLING -o "$out/timed_bound_gap" benches/timed_bound.c
cargo build --release -q -p ssdlab-core --example bench
best() { sort -g | head -1; }
rate() { sort -gr | head -1; }
for i in $(seq "$runs"); do
  s=$(date +%s.%N); "$out/timed_bound" "$n" > "$out/c.$i"; e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN {print b - a}' >> "$out/c.wall"
  awk '/requests\/s/ {print $2}' "$out/c.$i" >> "$out/c.rate"
  "$out/timed_bound_gap" "$n" > "$out/g.$i"
  awk '/requests\/s/ {print $2}' "$out/g.$i" >> "$out/g.rate"
  target/release/examples/bench mqsim-small $((4 * n)) > "$out/r.$i"
  awk '/^timed/ {t = 1} t && /requests\/s/ {print $2; exit}' "$out/r.$i" >> "$out/r.rate"
  s=$(date +%s.%N)
  ssdlab run -d mqsim-small -q 16 -n "$n" --no-progress > "$out/cli.$i"
  e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" 'BEGIN {print b - a}' >> "$out/cli.wall"
done
grep -A2 WAF "$out/c.1" | grep -v requests/s; grep -A2 WAF "$out/g.1" | grep -v requests/s | sed '1s/^bound /bound with gap-filling channels /'
grep '^timed' "$out/r.1"
# The CLI run's WAF and write latency, from its summary tables (rows "│ name │ value │...").
awk -F'│' '{k = $2; gsub(/ /, "", k); v = $3; gsub(/[ ,]/, "", v)}
  k == "WAF" {w = v} k == "mean" {m = v} k == "p99" {p = v}
  END {printf "ssdlab run -q 16: WAF %.3f, write latency us: mean %.1f, p99 %.1f\n", w, m, p}' "$out/cli.1"
c=$(rate < "$out/c.rate"); g=$(rate < "$out/g.rate"); r=$(rate < "$out/r.rate")
awk -v c="$c" -v g="$g" -v r="$r" -v n="$runs" 'BEGIN {printf "measured phase, requests/s (best of %s): bound %s M, ssdlab %s M, ratio %.3f; the bound with gap-filling channels %s M, ratio %.3f\n", n, c, r, r / c, g, r / g}'
cw=$(best < "$out/c.wall"); sw=$(best < "$out/cli.wall")
awk -v c="$cw" -v s="$sw" -v n="$runs" 'BEGIN {printf "whole process, s (best of %s): bound %.2f, ssdlab run -q 16 %.2f, ratio %.3f\n", n, c, s, c / s}'
