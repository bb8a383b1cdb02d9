#!/usr/bin/env bash
# Two builds of walcut on the same WAL bytes: the reading commands timed in turn, best of
# BENCH_ROUNDS rounds (default 5; each round runs every command of both builds once), and
# the ratio new/old. For a change that must not slow anything down (a restructuring): a
# ratio near 1.00 is no change; the machine is shared, so only ratios of one run compare.
#
#   tests/bench/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [TXS]
#
# The cluster (8 nodes, 256 partitions, 2 backups, TXS transactions, default 300000, a cut
# every 10000) is simulated once by the new build into BENCH_DIR (default NEW/bench-data).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
old=${1:?usage: compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [TXS]}
new=${2:?usage: compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [TXS]}
txs=${3:-300000}
bench_rounds 5
for b in "$old" "$new"; do
  [ -x "$b/tools/walcut" ] || { echo "no walcut in $b/tools: build it first" >&2; exit 2; }
done
data=${BENCH_DIR:-$new/bench-data}/compare-cluster-$txs
if [ ! -f "$data/cluster.json" ]; then
  rm -rf "$data"
  mkdir -p "$(dirname "$data")"
  "$new/tools/walcut" simulate -o "$data" -q --nodes 8 --partitions 256 --backups 2 --txs "$txs" \
    --cuts 100000 --cut-interval 10000
fi
bytes=$(cat "$data"/node-*/wal/* | wc -c)
node=$data/node-0
results=$(mktemp)
trap 'rm -f "$results"' EXIT

commands=(
  "dump --stats|dump --stats $data"
  "dump (one node)|dump $node"
  "dump --json (one node)|dump --json $node"
  "cuts|cuts -q $data"
  "check|check -q $data"
  "gaps|gaps $data"
  "restore --dry-run|restore --latest --dry-run $data"
)
for _ in $(seq "$rounds"); do
  for c in "${commands[@]}"; do
    for b in "$old" "$new"; do
      # shellcheck disable=SC2086  # the arguments are split on purpose
      set -- ${c#*|}
      t0=$(date +%s.%N)
      "$b/tools/walcut" "$@" >/dev/null 2>&1 || true
      t1=$(date +%s.%N)
      printf '%s\t%s\t%s\n' "${c%%|*}" "$b" "$(python3 -c "print($t1 - $t0)")" >>"$results"
    done
  done
done

bench_machine
echo "input:   $((bytes / 1048576)) MiB of WAL, 8 nodes, $txs transactions; best of $rounds rounds"
echo "old:     $old ($("$old/tools/walcut" --version 2>/dev/null | head -n 1))"
echo "new:     $new ($("$new/tools/walcut" --version 2>/dev/null | head -n 1))"
python3 - "$old" "$new" "$results" <<'PY'
import sys
old, new, path = sys.argv[1:4]
best = {}
order = []
for line in open(path):
    name, build, t = line.rstrip("\n").split("\t")
    if name not in order:
        order.append(name)
    key = (name, build)
    best[key] = min(best.get(key, 1e9), float(t))
print(f"{'command':<24} {'old s':>8} {'new s':>8} {'new/old':>8}")
for name in order:
    o, n = best[(name, old)], best[(name, new)]
    print(f"{name:<24} {o:8.3f} {n:8.3f} {n / o:8.2f}")
PY
