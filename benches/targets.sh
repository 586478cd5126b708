#!/usr/bin/env bash
# Issue 19's targets in one sitting: runs the benchmarks behind docs/speed-targets.md's "Where issue 19's targets
# stand" one after another — timed_bound.sh, ftl_bound.sh, the MQSim-matched whole process,
# replay.sh and replay_bound.sh — and prints that table's column for this machine, hour and
# commit, each figure beside the C loop of the same call (the VMs' speed moves within minutes:
# a rate means little without its bound). The scripts' own output goes to DIR (default: a
# temporary folder, removed at the end) for the figures the table leaves out.
# Takes ~10 min at the defaults on 2 cores; the machine should be otherwise idle.
# Usage: benches/targets.sh [REQUESTS [LINES [RUNS [DIR]]]]
#        benches/targets.sh --report DIR   (the table again from a kept DIR, nothing run)
#   REQUESTS  timed_bound.sh's requests (default 2,000,000; ftl_bound.sh takes twice as many)
#   LINES     the generated MSR trace's lines (default 20,000,000: the target's)
#   RUNS      best of RUNS for each figure (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "targets: error: $*" >&2; exit 2; }
whole() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: expected a positive whole number, got '$2'"; }
measure() { # REQUESTS LINES RUNS DIR: every benchmark, its output to DIR
  local n=$1 lines=$2 runs=$3 out=$4 start
  command -v ssdlab > /dev/null || die "ssdlab: not on PATH (pip install -e . first)"
  python3 -m compileall -q python/ssdlab
  start=$(date -u +%H:%M)
  benches/timed_bound.sh "$n" "$runs" > "$out/timed_bound.txt"
  benches/ftl_bound.sh $((2 * n)) "$runs" > "$out/ftl_bound.txt"
  rm -f "$out/mqsim.wall"
  for i in $(seq "$runs"); do
    s=$(date +%s.%N)
    ssdlab run -d mqsim-small -q 16 -n 4000000 --no-precondition --set timing.copyback=false \
      --set timing.multiplane=false --set gc.threshold_blocks=10 --set gc.victim=d-choices:d=9 \
      --set ftl.allocation=static --set ftl.placement=dual-frontier --no-progress > "$out/mqsim.$i"
    e=$(date +%s.%N)
    awk -v a="$s" -v b="$e" 'BEGIN {print b - a}' >> "$out/mqsim.wall"
  done
  benches/replay.sh "$lines" "$runs" > "$out/replay.txt"
  benches/replay_bound.sh "$lines" "$runs" > "$out/replay_bound.txt"
  model=$(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
  l3=$(lscpu 2>/dev/null | awk -F: '/L3 cache/ {gsub(/^ +/, "", $2); print $2; exit}')
  echo "$(nproc)-core ${model:-unknown CPU} (L3 ${l3:-?}), $(date -u +%F) $start–$(date -u +%H:%M) UTC, at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates benches || echo ' (uncommitted changes)'), best of $runs" > "$out/when"
}

report() { # DIR: the table, from the outputs in DIR
  local out=$1
  # The summary lines each script ends with (see their headers for what they measure).
  field() { # FILE PATTERN: the line of FILE matching PATTERN (the first)
    grep -m1 -- "$2" "$1" || die "$1: no line with '$2' (the script's output changed?)"
  }
  tb=$(field "$out/timed_bound.txt" '^measured phase')
  tw=$(field "$out/timed_bound.txt" '^whole process')
  fb=$(field "$out/ftl_bound.txt" '^measured phase')
  fw=$(field "$out/ftl_bound.txt" '^whole process')
  rp=$(field "$out/replay.txt" '^after  *plain  *[0-9]')
  rg=$(field "$out/replay.txt" '^after  *gzip  *[0-9]')
  bf=$(field "$out/replay_bound.txt" 'timing-free, M requests')
  bt=$(field "$out/replay_bound.txt" 'timed, M requests')
  bb=$(field "$out/replay_bound.txt" 'busy-until channels .* M: exact')
  num() { # TEXT AFTER: the number that follows AFTER in TEXT
    awk -v t="$1" -v k="$2" 'BEGIN {i = index(t, k); if (!i) exit 1; s = substr(t, i + length(k));
      match(s, /[0-9]+(\.[0-9]+)?/); print substr(s, RSTART, RLENGTH)}' || die "no '$2' in: $1"
  }
  mark() { # VALUE TARGET: ✓ when VALUE ≥ TARGET
    awk -v v="$1" -v t="$2" 'BEGIN {print (v + 0 >= t + 0) ? "✓" : "✗"}'
  }
  col() { echo "$1" | awk -v c="$2" '{print $c}'; } # the C-th word of a replay.sh row

  ts=$(num "$tb" "ssdlab "); tc=$(num "$tb" "bound "); tg=$(num "$tb" "gap-filling channels ")
  tr=$(num "$tb" "ratio "); tgr=$(echo "$tb" | awk -F'ratio ' '{print $3}')
  twr=$(num "$tw" "ratio "); fr=$(num "$fb" "ratio "); fwr=$(num "$fw" "ratio ")
  fs=$(num "$fb" "ssdlab "); fc=$(num "$fb" "bound ")
  mq=$(sort -g "$out/mqsim.wall" | awk 'NR == 1 {printf "%.3f", $1}'); mqr=$(awk -v w="$mq" 'BEGIN {printf "%.2f", 4 / w}')
  pu=$(col "$rp" 4); pt=$(col "$rp" 5); pcu=$(col "$rp" 6); pct=$(col "$rp" 7)
  gu=$(col "$rg" 4); gt=$(col "$rg" 5)
  btc=$(num "$bt" "bound "); btm=$(num "$bt" "from memory "); btp=$(num "$bt" "second thread ")
  bfc=$(num "$bf" "bound "); bfm=$(num "$bf" "from memory "); bfp=$(num "$bf" "second thread ")
  busy=$(num "$bb" "channels ")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

  [ -s "$out/when" ] || die "$out/when: missing (not a DIR that benches/targets.sh measured into?)"
  echo "issue 19's targets: $(cat "$out/when")"
  echo
  echo "| target | figure |"
  echo "|---|---|"
  echo "| timed preset ≥ 10 M requests/s per core | $ts M $(mark "$ts" 10) (the busy-until C loop $tc M, with gap-filling channels $tg M) |"
  echo "| timed within 2× of its bound, measured phase / whole process | ${tr}× $(mark "$tr" 0.5) / ${twr}× $(mark "$twr" 0.5) (against the gap-filling loop ${tgr}×) |"
  echo "| timing-free ≥ 0.5× its bound, measured phase / whole process | ${fr}× $(mark "$fr" 0.5) / ${fwr}× $(mark "$fwr" 0.5) (bound $fc M, ssdlab $fs M host writes/s) |"
  echo "| MQSim-matched, 4 M writes from empty, whole process ≥ 3 M requests/s | $mqr M $(mark "$mqr" 3) ($mq s) |"
  echo "| replay plain ≥ 5 M, timing-free / timed | $pu M $(mark "$pu" 5) / $pt M $(mark "$pt" 5) (whole \`ssdlab run\`: $pcu / $pct M) |"
  echo "| replay gzip ≥ 2 M, timing-free / timed | $gu M $(mark "$gu" 2) / $gt M $(mark "$gt" 2) |"
  echo "| timing-free replay against its C loop, from memory / through the parse thread | $(ratio "$bfm" "$bfc")× / $(ratio "$bfp" "$bfc")× (the loop $bfc M) |"
  echo "| timed replay against the C loop with ssdlab's channel model, from memory / through the parse thread | $(ratio "$btm" "$btc")× / $(ratio "$btp" "$btc")× (the loop $btc M; with busy-until channels $busy M) |"
}

if [ "${1:-}" = --report ]; then
  [ -n "${2:-}" ] && [ -d "$2" ] || die "--report: expected the DIR of an earlier measurement, got '${2:-}'"
  report "$2"
  exit
fi
n=${1:-2000000}
lines=${2:-20000000}
runs=${3:-3}
whole REQUESTS "$n"
whole LINES "$lines"
whole RUNS "$runs"
if [ -n "${4:-}" ]; then
  out=$4
  mkdir -p "$out" || die "DIR $out: cannot create it"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
measure "$n" "$lines" "$runs" "$out"
report "$out"
