#!/usr/bin/env bash
# Issue 19, trace replay: how fast a generated MSR Cambridge trace (examples/gen_msr.rs, plain
# and gzip) is parsed and replayed on mqsim-small. Per format, best of RUNS:
#   parse    — open the trace and drain its request source (read, decompress, parse), M lines/s;
#   untimed  — replay it timing-free (FTL only), requests/s of Simulation::run;
#   timed    — replay it open loop at its own timestamps (the normal trace mode), requests/s;
#   cli …    — the same two replays as whole `ssdlab run` processes (Python start-up, opening,
#              preconditioning and the replay), lines / wall-clock seconds.
# The in-process figures come from examples/replay_bench.rs. The traces are generated once, to
# /tmp/ssdlab-msr-LINES.csv and .csv.gz, and kept. The CLI runs with the Python package of this
# tree and the freshly built _core, copied to a temporary folder (nothing in the tree changes).
# BEFORE=COMMIT also builds that commit (with this tree's replay_bench.rs) under
# /tmp/ssdlab-replay-before-COMMIT, once, and measures both, alternating before and after.
# Usage: benches/replay.sh [LINES [RUNS]]
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-20000000}
runs=${2:-3}
py=${PYTHON:-python3}
plain=/tmp/ssdlab-msr-$lines.csv
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo build --release -q -p ssdlab-core --example gen_msr --example replay_bench
cargo build --release -q -p ssdlab-py
if [ ! -s "$plain" ]; then
  target/release/examples/gen_msr "$plain.part" "$lines" && mv "$plain.part" "$plain"
fi
if [ ! -s "$plain.gz" ]; then
  gzip -c "$plain" > "$plain.gz.part" && mv "$plain.gz.part" "$plain.gz"
fi

# stage NAME TARGET_DIR PYTHON_DIR: the bench binary and a Python package with its _core.
stage() {
  mkdir -p "$out/$1/python"
  cp "$2/release/examples/replay_bench" "$out/$1/"
  cp -r "$3/ssdlab" "$out/$1/python/"
  cp "$2/release/lib_core.so" "$out/$1/python/ssdlab/_core.abi3.so"
  echo "$1: $(PYTHONPATH="$out/$1/python" "$py" -c 'import ssdlab._core as c; print(c.__file__)')"
}
variants=after
if [ -n "${BEFORE:-}" ]; then
  src=/tmp/ssdlab-replay-before-$BEFORE
  if [ ! -x "$src/target/release/examples/replay_bench" ] || [ ! -s "$src/target/release/lib_core.so" ]; then
    rm -rf "$src/tree" && mkdir -p "$src/tree"
    git archive "$BEFORE" | tar -x -C "$src/tree"
    cp crates/ssdlab-core/examples/replay_bench.rs "$src/tree/crates/ssdlab-core/examples/"
    (cd "$src/tree" && CARGO_TARGET_DIR="$src/target" cargo build --release -q -p ssdlab-core --example replay_bench \
      && CARGO_TARGET_DIR="$src/target" cargo build --release -q -p ssdlab-py)
  fi
  stage before "$src/target" "$src/tree/python"
  variants="before after"
fi
stage after target python

# cli VARIANT FILE TIMING: requests/s of a whole `ssdlab run` process.
cli() {
  local s e
  s=$(date +%s.%N)
  PYTHONPATH="$out/$1/python" "$py" -m ssdlab run -d mqsim-small -t "$2" --timing "$3" --no-progress > /dev/null
  e=$(date +%s.%N)
  awk -v a="$s" -v b="$e" -v n="$lines" 'BEGIN {printf "%.3f\n", n / (b - a) / 1e6}'
}
for i in $(seq "$runs"); do
  for v in $variants; do
    for f in plain gzip; do
      file=$plain; [ $f = gzip ] && file=$plain.gz
      "$out/$v/replay_bench" "$file" all > "$out/log"
      sed "s/^/$v $f run $i: /" "$out/log"
      for w in parse untimed timed; do
        awk -v w=$w '$1 == w {print $(NF-2)}' "$out/log" >> "$out/$v.$f.$w"
      done
      cli "$v" "$file" none >> "$out/$v.$f.cli-untimed"
      cli "$v" "$file" timed >> "$out/$v.$f.cli-timed"
      echo "$v $f run $i: cli untimed $(tail -1 "$out/$v.$f.cli-untimed") M/s, cli timed $(tail -1 "$out/$v.$f.cli-timed") M/s"
    done
  done
done
best() { sort -gr "$1" | head -1; }
echo
echo "$lines lines, mqsim-small, best of $runs, M requests/s (parse: M lines/s)"
printf '%-7s %-6s %8s %8s %8s %12s %10s\n' variant format parse untimed timed "cli untimed" "cli timed"
for v in $variants; do
  for f in plain gzip; do
    printf '%-7s %-6s %8s %8s %8s %12s %10s\n' "$v" "$f" "$(best "$out/$v.$f.parse")" \
      "$(best "$out/$v.$f.untimed")" "$(best "$out/$v.$f.timed")" \
      "$(best "$out/$v.$f.cli-untimed")" "$(best "$out/$v.$f.cli-timed")"
  done
done
