#!/usr/bin/env bash
# Memory of `walcut check` against the length of a cut's window. A window reaches back to
# the previous cut's Start, so with few cuts over a long WAL the check holds long windows:
# an 8-node, 256-partition, 2-backup cluster with 3 cuts, at two lengths (default 250 000
# and 1 000 000 transactions), generated once. For each: the commits of one increment (as
# `walcut cuts` counts them: a transaction's COMMITTED record on each node that has it), the
# peak RSS of `check` (largest of BENCH_ROUNDS runs, default 3) and its bytes per window
# commit; then the bytes each further window commit costs (the difference of the two, which
# leaves out what does not grow with the window).
#
#   tests/bench/window_memory.sh [BUILD_DIR] [SHORT_TXS] [LONG_TXS]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
short=${2:-250000}
long=${3:-1000000}
bench_rounds 3
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
mkdir -p "$data"

measure() {  # measure TXS: prints "commits rss_kib seconds"
  local dir=$data/window-cluster-$1
  if [ ! -f "$dir/cluster.json" ]; then
    rm -rf "$dir"
    "$walcut" simulate -o "$dir" -q --nodes 8 --partitions 256 --backups 2 --txs "$1" --cuts 3
  fi
  local commits
  commits=$("$walcut" cuts --json "$dir" | python3 -c '
import json, sys
cuts = json.load(sys.stdin)["cuts"]
print(max(c["window"]["commits"] for c in cuts if c.get("window")))')
  local peak=0 best=999999
  for _ in $(seq "$rounds"); do
    local t0 t1 r
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o "$data/window-rss" "$walcut" check -q "$dir" >/dev/null
    t1=$(date +%s.%N)
    r=$(tail -1 "$data/window-rss")
    if [ "$r" -gt "$peak" ]; then peak=$r; fi
    best=$(python3 -c "print(min($best, $t1 - $t0))")
  done
  rm -f "$data/window-rss"
  echo "$commits $peak $best"
}

read -r c1 r1 t1 <<<"$(measure "$short")"
read -r c2 r2 t2 <<<"$(measure "$long")"
bench_machine
echo "walcut: $("$walcut" --version | head -1) ($build); peak RSS, largest of $rounds runs"
echo
python3 - "$short" "$c1" "$r1" "$t1" "$long" "$c2" "$r2" "$t2" <<'PY'
import sys
a = sys.argv[1:]
rows = [(int(a[0]), int(a[1]), int(a[2]) * 1024, float(a[3])), (int(a[4]), int(a[5]), int(a[6]) * 1024, float(a[7]))]
print("| cluster (8 nodes, 3 cuts) | window commits | check, seconds | peak RSS | bytes per window commit |")
print("|---|---|---|---|---|")
for txs, commits, rss, t in rows:
    print(f"| {txs:,} transactions | {commits:,} | {t:.2f} | {rss / 2**20:.0f} MiB | {rss / commits:.0f} |")
(_, c1, r1, _), (_, c2, r2, _) = rows
print()
print(f"each further window commit: {(r2 - r1) / (c2 - c1):.0f} bytes")
PY
