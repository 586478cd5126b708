#!/usr/bin/env bash
# Issue 19: the benchmark matrix — every switch a user can turn, one at a time, on the bench
# example's workload (crates/ssdlab-core/examples/bench.rs: mqsim-small, preconditioned,
# uniformly random single-page writes; timed = 8 KiB writes, closed loop at QD 16, N/4 requests).
# Prints one markdown row per configuration: WAF, timing-free host page writes/s, page programs/s
# (host + GC: the flash work done per second, which separates "more work" from "slower work"),
# timed requests/s, and the timed rate as a fraction of the preset's. Best of RUNS runs each.
# The rows run round by round (every row once, RUNS times), so a row's best spans the call.
# Usage: benches/matrix.sh [HOST_PAGE_WRITES [RUNS [NAME-FILTER]]]   (defaults 4000000 3)
# BENCH=path/to/bench runs another build of the bench example (e.g. an older commit's, for a
# before/after table) instead of building this one.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
runs=${2:-3}
filter=${3:-}
if [[ -z "${BENCH:-}" ]]; then
  cargo build --release -q -p ssdlab-core --example bench
fi
bench=${BENCH:-target/release/examples/bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# name|overrides, one per line (the first is the preset, the ratios' base): benches/configs.txt.
mapfile -t configs < <(grep -v '^#' benches/configs.txt)

best() { sort -gr | head -1; }
# The rows to run: the preset (always, the ratios' base) and those matching the filter.
rows=()
for i in "${!configs[@]}"; do
  name=${configs[$i]%%|*}
  [[ -n "$filter" && "$name" != *"$filter"* && $i -ne 0 ]] && continue
  rows+=("$i")
done
# Round by round over the rows, so that each row's best of RUNS spans the whole call: this VM's
# speed drifts by up to 2x within minutes, and rows run one after another compared a slow
# preset with a fast later row.
for _ in $(seq "$runs"); do
  for i in "${rows[@]}"; do
    sets=${configs[$i]#*|}
    # shellcheck disable=SC2086  # the overrides are separate words on purpose
    "$bench" mqsim-small "$n" $sets > "$out/r"
    awk '/host page writes\/s/ {print $4}' "$out/r" >> "$out/hw.$i"
    awk '/page programs\/s/ {print $3}' "$out/r" >> "$out/pp.$i"
    awk '/requests\/s/ {print $2}' "$out/r" >> "$out/rq.$i"
    awk '/^timing-free/ {for (i = 1; i <= NF; i++) if ($i == "WAF") print $(i + 1)}' "$out/r" \
      | tr -d , > "$out/waf.$i"
  done
done
echo "| configuration | WAF | host page writes/s | page programs/s | timed requests/s | timed vs preset |"
echo "|---|---|---|---|---|---|"
preset_rate=$(best < "$out/rq.0")
for i in "${rows[@]}"; do
  hw=$(best < "$out/hw.$i"); pp=$(best < "$out/pp.$i"); rq=$(best < "$out/rq.$i")
  awk -v n="${configs[$i]%%|*}" -v w="$(cat "$out/waf.$i")" -v h="$hw" -v p="$pp" -v r="$rq" \
    -v b="$preset_rate" 'BEGIN {printf "| %s | %s | %s M | %s M | %s M | %.2f× |\n", n, w, h, p, r, r / b}'
done
