#!/usr/bin/env bash
# Issue 19: cost per request from 1 Mi to 256 Mi physical pages (a 2 TiB device of 8 KiB pages;
# 256 Mi pages of 4 KiB would be 1 TiB) — crates/ssdlab-core/examples/scale.rs once per size, in
# its own process (so the peak resident size is that size's). Prints a markdown table.
# Usage: benches/scale.sh [HOST_PAGE_WRITES [RANDOM_PASSES [BLOCKS_PER_PLANE ...]]]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
passes=${2:-1}
shift $(( $# > 2 ? 2 : $# ))
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(512 2048 8192 32768 131072)
cargo build --release -q -p ssdlab-core --example scale
echo "| physical pages | FTL B/page | peak RSS B/page | precondition s | WAF | ns / host write | ns / page program | timed requests/s |"
echo "|---|---|---|---|---|---|---|---|"
for b in "${sizes[@]}"; do
  target/release/examples/scale "$b" "$n" "$passes" | awk -F'\t' '{
    printf "| %d Mi | %s | %s | %s | %s | %s | %s | %s M |\n", $1 / 1048576, $2, $3, $4, $5, $6, $7, $8}'
done
