#!/usr/bin/env bash
# Benchmark of `walcut simulate`: committed transactions per second and WAL MB/s
# written, for the defaults and for 8 nodes / 256 partitions / 2 backups / 1 M
# transactions (also with a server crash, a client crash, a join, rollbacks and UNKNOWN
# outcomes), with peak RSS (which must not grow with the number of transactions).
#
#   tests/bench/simulate_bench.sh [BUILD_DIR]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
bench_walcut "$build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # run NAME ARGS...
  local name=$1; shift
  rm -rf "$work/c"
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$work/rss" "$walcut" simulate -o "$work/c" --json "$@" >"$work/summary.json"
  t1=$(date +%s.%N)
  python3 - "$name" "$t0" "$t1" "$(cat "$work/rss")" "$work/summary.json" <<'PY'
import json, sys
name, t0, t1, rss, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
s = json.load(open(path))
secs = t1 - t0
wal = sum(n["bytes"] for n in s["nodes"])
print(f"{name:<44} {secs:8.2f} {s['txs_committed'] / secs:12.0f} {wal / secs / 1e6:8.1f} {rss // 1024:8d} MiB")
PY
}

bench_machine
printf '%-44s %8s %12s %8s %12s\n' "run" "seconds" "commits/s" "WAL MB/s" "peak RSS"
run "defaults (3 nodes, 10k txs)"
run "defaults, 100k txs" --txs 100000
run "8 nodes, 256 partitions, 2 backups, 100k" --nodes 8 --partitions 256 --backups 2 --txs 100000
run "8 nodes, 256 partitions, 2 backups, 1M" --nodes 8 --partitions 256 --backups 2 --txs 1000000
run "the same 1M, with faults" --nodes 8 --partitions 256 --backups 2 --txs 1000000 \
    --crash node-3@400000 --torn-tail --crash-client client-0@600000 --join-client @200000 \
    --rollback-rate 0.01 --unknown-rate 0.001
