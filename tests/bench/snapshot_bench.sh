#!/usr/bin/env bash
# Benchmark of walcut on Apache Ignite's full snapshots and increments, beside Ignite's own tools
# on the same files, at two lengths of history: the reference harness's scenarios
# bench-snapshot (the full scenario's caches, page files included, about 12 000 transactions at
# full speed in three increments) and bench-snapshot-long (the same increments after 40 000
# transfers before the full snapshot), each made once with tests/ignite/run (Java 17 and Maven;
# a few minutes) and kept under BENCH_DIR. The harness times Ignite on the cluster it ran, best of
# three: the full snapshot's check (IgniteSnapshotManager.checkSnapshot, what
# `control.sh --snapshot check NAME` runs), the last increment's check (--increment k) and its
# restore (restoreSnapshot(NAME, groups, k)). This script then times walcut on the files the
# cluster left, best of BENCH_ROUNDS (default 5) rounds of every command in turn, with peak RSS:
#   verify --snapshot           against Ignite's snapshot check
#   check --increment k         against Ignite's check of increment k
#   restore --increment k       against Ignite's restore of increment k (files written to BENCH_OUT)
#   data -q --snapshot          beside xxhsum -H3 over the same part-*.bin files
# and prints each ratio.
#
#   tests/bench/snapshot_bench.sh [BUILD_DIR] [SEED]
set -euo pipefail
build=${1:-build/release}
seed=${2:-1}
rounds=${BENCH_ROUNDS:-5}
walcut=$build/tools/walcut
[ -x "$walcut" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 2; }
data=${BENCH_DIR:-$build/bench-data}
out=${BENCH_OUT:-${TMPDIR:-/tmp}}
mkdir -p "$data"

echo "machine: $(nproc) cores, $(awk '/model name/{sub(/.*: /,""); print; exit}' /proc/cpuinfo), $(free -g | awk '/Mem:/{print $2}') GiB"
echo "walcut: $("$walcut" --version 2>/dev/null | head -1) ($build), rounds: $rounds, restores written to $out ($(stat -f -c %T "$out"))"
for scenario in bench-snapshot bench-snapshot-long; do
  run=$data/ignite-$scenario-$seed
  if [ ! -f "$run/truth.json" ]; then
    rm -rf "$run"
    echo "making the input: tests/ignite/run --scenario $scenario --seed $seed -o $run" >&2
    tests/ignite/run --scenario "$scenario" --seed "$seed" -o "$run" >&2
  fi
  nodes=$run/nodes
  read -r k ignite_check ignite_inc_check ignite_restore txs < <(python3 - "$run/truth.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
snp = t["snapshots"][0]
last = [i for i in t["increments"] if i.get("ok") and i.get("snapshot") == snp["name"] and "restore_ms" in i][-1]
txs = sum(x.get("count", 1) for x in t["transactions"])
print(last["index"], snp["check_ms"], last["check_ms"], last["restore_ms"], txs)
EOF
)
  mapfile -t parts < <(find "$nodes"/*/work/snapshots/snap/db -name 'part-*.bin' | sort)
  mapfile -t wal < <(find "$nodes"/*/work/db/wal -type f -name '*.wal*' | sort)
  part_bytes=$(cat "${parts[@]}" | wc -c)
  wal_bytes=$(cat "${wal[@]}" | wc -c)
  names=("xxhsum -H3 part-*.bin" "data -q --snapshot" "verify --snapshot" "check --increment $k" "restore --increment $k")
  declare -A best=() rss=() status=()
  for name in "${names[@]}"; do best[$name]=999999; rss[$name]=0; done
  restored=$out/walcut-snapshot-bench-$$
  tmp=$(mktemp)
  for _ in $(seq "$rounds"); do
    for name in "${names[@]}"; do
      case $name in
        xxhsum*) cmd=(xxhsum -H3 "${parts[@]}") ;;
        data*) cmd=("$walcut" data -q --snapshot snap "$nodes") ;;
        verify*) cmd=("$walcut" verify -q --snapshot snap "$nodes") ;;
        check*) cmd=("$walcut" check -q --snapshot snap --increment "$k" "$nodes") ;;
        restore*) cmd=("$walcut" restore -q --snapshot snap --increment "$k" -o "$restored" "$nodes") ;;
      esac
      rm -rf "$restored"
      t0=$(date +%s.%N)
      code=0
      /usr/bin/time -f %M -o "$tmp" "${cmd[@]}" >/dev/null 2>&1 || code=$?
      t1=$(date +%s.%N)
      status[$name]=$code
      best[$name]=$(python3 -c "print(min(${best[$name]}, $t1 - $t0))")
      r=$(tail -1 "$tmp")
      if [ "$r" -gt "${rss[$name]}" ]; then rss[$name]=$r; fi
    done
  done
  rm -rf "$restored" "$tmp"
  echo
  echo "## $scenario (seed $seed): $txs transactions, ${#parts[@]} partition files of $((part_bytes / 1024)) KiB in the full snapshot, $((wal_bytes >> 20)) MiB of WAL files"
  echo
  echo "| walcut | seconds | peak RSS | exit | Ignite | seconds | Ignite / walcut |"
  echo "|---|---|---|---|---|---|---|"
  row() {  # NAME IGNITE_NAME IGNITE_MS
    local s=${best[$1]}
    local ratio=""
    [ -n "$3" ] && ratio=$(python3 -c "print(f'{$3 / 1000 / $s:.1f}x')")
    printf '| `%s` | %.3f | %d MiB | %s | %s | %s | %s |\n' "$1" "$s" $((rss[$1] / 1024)) "${status[$1]}" "$2" \
      "${3:+$(python3 -c "print(f'{$3 / 1000:.3f}')")}" "$ratio"
  }
  row "verify --snapshot" "snapshot check NAME" "$ignite_check"
  row "check --increment $k" "snapshot check NAME --increment $k" "$ignite_inc_check"
  row "restore --increment $k" "restoreSnapshot(NAME, groups, $k)" "$ignite_restore"
  row "data -q --snapshot" "" ""
  row "xxhsum -H3 part-*.bin" "" ""
  xs=${best["xxhsum -H3 part-*.bin"]}
  ds=${best["data -q --snapshot"]}
  python3 -c "print(f'\ndata -q --snapshot reads the page files at {$xs / $ds:.2f}x the speed of xxhsum -H3 over them')"
done
