#!/usr/bin/env bash
# Benchmark of walcut on the WAL of a real Apache Ignite cluster: the reference harness's
# `bench` scenario (3 servers and a client, about 100 000 transactions at full speed, three
# increments, 64 MiB segments, WAL compaction on as incremental snapshots need), made once
# with tests/ignite/run (Java 17 and Maven; a few minutes) and kept under BENCH_DIR.
# Prints the best seconds of BENCH_ROUNDS rounds (default 5; each round runs every command
# once, in turn), the ratio to `walcut dump --stats` and peak RSS, beside `xxhsum -H3` over
# every file of the nodes' db/wal (raw and .wal.zip, as they are on disk), and each command's
# exit status (check: 0 when every increment is consistent).
#
#   tests/bench/ignite_bench.sh [BUILD_DIR] [SEED]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
seed=${2:-1}
bench_rounds 5
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
run=$data/ignite-bench-$seed
mkdir -p "$data"
if [ ! -f "$run/truth.json" ]; then
  rm -rf "$run"
  echo "making the input: tests/ignite/run --scenario bench --seed $seed -o $run" >&2
  tests/ignite/run --scenario bench --seed "$seed" -o "$run" >&2
fi
nodes=$run/nodes
mapfile -t files < <(find "$nodes"/*/work/db/wal -type f -name '*.wal*' | sort)
bytes=$(cat "${files[@]}" | wc -c)  # also warms the page cache
records=$("$walcut" dump --stats --json "$nodes" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])' || echo '?')
txs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["transactions"]))' "$run/truth.json")

names=("xxhsum -H3" "dump --stats" "cuts" "check" "txs --in-doubt" "gaps" "restore --latest")
command_of() {  # command_of NAME: sets cmd to the row's command
  case $1 in
    "xxhsum -H3") cmd=(xxhsum -H3 "${files[@]}") ;;
    "dump --stats") cmd=("$walcut" dump --stats "$nodes") ;;
    "cuts") cmd=("$walcut" cuts "$nodes") ;;
    "check") cmd=("$walcut" check "$nodes") ;;
    "txs --in-doubt") cmd=("$walcut" txs --in-doubt "$nodes") ;;
    "gaps") cmd=("$walcut" gaps "$nodes") ;;
    "restore --latest") cmd=("$walcut" restore --latest -q -o "$data/ignite-restored" "$nodes") ;;
  esac
}
declare -A best rss status
for name in "${names[@]}"; do best[$name]=999999; rss[$name]=0; done
results=$(mktemp)
trap 'rm -f "$results" "$results.rss"; rm -rf "$data/ignite-restored"' EXIT
for _ in $(seq "$rounds"); do
  for name in "${names[@]}"; do
    command_of "$name"
    rm -rf "$data/ignite-restored"
    t0=$(date +%s.%N)
    code=0
    /usr/bin/time -f %M -o "$results.rss" "${cmd[@]}" >/dev/null 2>&1 || code=$?
    t1=$(date +%s.%N)
    status[$name]=$code
    best[$name]=$(python3 -c "print(min(${best[$name]}, $t1 - $t0))")
    r=$(tail -1 "$results.rss")
    if [ "$r" -gt "${rss[$name]}" ]; then rss[$name]=$r; fi
  done
done
for name in "${names[@]}"; do
  printf '%s\t%s\t%s\t%s\n' "$name" "${best[$name]}" "${rss[$name]}" "${status[$name]}"
done >"$results"

bench_machine
echo "input:   Apache Ignite $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ignite_version"])' "$run/truth.json"), harness scenario bench, seed $seed: 3 servers, $txs transactions, ${#files[@]} files, $((bytes / 1048576)) MiB in db/wal, $records records; best of $rounds rounds"
python3 - "$bytes" "$results" <<'PY'
import sys
total = int(sys.argv[1])
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
ref = float(next(r[1] for r in rows if r[0] == "dump --stats"))
print(f"{'command':<20} {'seconds':>8} {'MB/s':>8} {'vs dump --stats':>16} {'peak RSS':>10} {'exit':>5}")
for name, t, rss, code in rows:
    t = float(t)
    print(f"{name:<20} {t:8.3f} {total / t / 1e6:8.0f} {t / ref:15.2f}x {int(rss) // 1024:7d} MiB {code:>5}")
PY
