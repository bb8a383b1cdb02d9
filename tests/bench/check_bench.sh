#!/usr/bin/env bash
# Benchmark of `walcut check` and `walcut cuts` against `walcut dump --stats` over the same
# node WALs: an 8-node, 256-partition, 2-backup cluster of N transactions (default 1M),
# a cut every 10000 transactions, generated once. Prints the best seconds of
# BENCH_ROUNDS rounds (default 5; each round runs every command once, in turn), WAL MB/s,
# the ratio to dump --stats and peak RSS; runs a second, shorter cluster to show peak
# memory does not follow WAL length.
#
#   tests/bench/check_bench.sh [BUILD_DIR] [TXS]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
txs=${2:-1000000}
bench_rounds 5
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
mkdir -p "$data"

make_cluster() {  # make_cluster DIR TXS
  [ -f "$1/cluster.json" ] && return
  rm -rf "$1"
  # A cut every 10000 transactions: a fixed rate, so the windows (and the memory they
  # take) are the same for both lengths.
  "$walcut" simulate -o "$1" -q --nodes 8 --partitions 256 --backups 2 --txs "$2" --cuts 100000 --cut-interval 10000
}

big=$data/check-cluster-ci-$txs
small=$data/check-cluster-ci-$((txs / 4))
make_cluster "$big" "$txs"
make_cluster "$small" $((txs / 4))
bytes=$(du -sb "$big"/node-*/wal | awk '{s+=$1} END {print s}')
cat "$big"/node-*/wal/* "$small"/node-*/wal/* >/dev/null  # warm the page cache

names=("dump --stats" "cuts" "check" "check ($((txs / 4)) txs)")
args_of() {  # the walcut arguments of a row
  case $1 in
    "dump --stats") echo "dump --stats $big" ;;
    "cuts") echo "cuts $big" ;;
    "check") echo "check $big" ;;
    *) echo "check $small" ;;
  esac
}
# Rounds of every command in turn, best time of each: on a shared machine a slow spell
# then falls on all commands alike rather than on one. Peak RSS is the largest seen.
declare -A best rss
for name in "${names[@]}"; do best[$name]=999999; rss[$name]=0; done
for _ in $(seq "$rounds"); do
  for name in "${names[@]}"; do
    read -ra args <<<"$(args_of "$name")"
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o /tmp/walcut-check-rss "$walcut" "${args[@]}" >/dev/null || true
    t1=$(date +%s.%N)
    best[$name]=$(python3 -c "print(min(${best[$name]}, $t1 - $t0))")
    r=$(tail -1 /tmp/walcut-check-rss)
    if [ "$r" -gt "${rss[$name]}" ]; then rss[$name]=$r; fi
  done
done
for name in "${names[@]}"; do printf '%s\t%s\t%s\n' "$name" "${best[$name]}" "${rss[$name]}"; done >/tmp/walcut-check-results

bench_machine
echo "input:   8 nodes, $txs transactions, $((bytes / 1048576)) MiB of WAL; best of $rounds rounds"
python3 - "$bytes" <<'PY'
import sys
total = int(sys.argv[1])
rows = [l.rstrip("\n").split("\t") for l in open("/tmp/walcut-check-results")]
ref = float(rows[0][1])
print(f"{'command':<24} {'seconds':>8} {'MB/s':>8} {'vs dump --stats':>16} {'peak RSS':>10}")
for name, t, rss in rows:
    t = float(t)
    rate = f"{total / t / 1e6:8.0f}" if "(" not in name else f"{'':>8}"
    print(f"{name:<24} {t:8.3f} {rate} {t / ref:15.2f}x {int(rss) // 1024:7d} MiB")
PY
