#!/usr/bin/env bash
# Benchmark of walcut on Apache Ignite's full snapshots and increments, beside Ignite's own tools
# on the same files, at two lengths of history: the reference harness's scenarios
# bench-snapshot (the full scenario's caches, page files included, about 12 000 transactions at
# full speed in three increments) and bench-snapshot-long (the same increments after 40 000
# transfers before the full snapshot), each made once with tests/ignite/run (Java 17 and Maven;
# a few minutes) and kept under BENCH_DIR.
#
# Both sides are timed in this run, on this machine as it is now (it is shared and noisy, so a
# time taken another day compares nothing): walcut, best of BENCH_ROUNDS (default 5) rounds of
# every command in turn, half of them before Ignite's turn and half after, with peak RSS; then
# Ignite, best of three, on a copy of the nodes' work directories started again by the harness
# (tests/ignite/run time-ops, about half a minute per input): the full snapshot's check
# (IgniteSnapshotManager.checkSnapshot, what `control.sh --snapshot check NAME` runs), the last
# increment's check (--increment k) and its restore (restoreSnapshot(NAME, groups, k)), each inside
# the cluster's JVM; and `control.sh --snapshot check NAME --increment k` as an operator runs it
# (control.sh's own command handler in a JVM of its own, over the thin client: the time a user
# waits for Ignite's answer), with the verdict it printed.
#   verify --snapshot           against Ignite's snapshot check
#   check --increment k         against control.sh --snapshot check NAME --increment k, and against
#                               the check's task alone, inside the cluster's JVM
#   restore --increment k       against Ignite's restore of increment k (files written to BENCH_OUT)
#   data -q --snapshot          beside xxhsum -H3 over the same part-*.bin files
# and prints each ratio. Without Java and Maven (or with BENCH_IGNITE=recorded), Ignite's times
# are those the harness took when it made the input, and the table says so.
#
#   tests/bench/snapshot_bench.sh [BUILD_DIR] [SEED]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
seed=${2:-1}
bench_rounds 5
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
out=${BENCH_OUT:-${TMPDIR:-/tmp}}
mkdir -p "$data"

bench_machine
echo "walcut: $("$walcut" --version 2>/dev/null | head -1) ($build), rounds: $rounds, restores written to $out ($(stat -f -c %T "$out"))"
for scenario in bench-snapshot bench-snapshot-long; do
  run=$data/ignite-$scenario-$seed
  if [ ! -f "$run/truth.json" ]; then
    rm -rf "$run"
    echo "making the input: tests/ignite/run --scenario $scenario --seed $seed -o $run" >&2
    tests/ignite/run --scenario "$scenario" --seed "$seed" -o "$run" >&2
  fi
  nodes=$run/nodes
  ignite_control="" ignite_verdict=""
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
  walcut_rounds() {  # N: rounds of every command in turn
    for _ in $(seq "$1"); do
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
  }
  walcut_rounds $(((rounds + 1) / 2))
  ignite_when="timed in this run"
  if [ "${BENCH_IGNITE:-now}" != recorded ] && command -v java >/dev/null && command -v mvn >/dev/null; then
    echo "timing Ignite: tests/ignite/run time-ops --scenario $scenario --seed $seed --snapshot snap --increment $k $run" >&2
    if now=$(tests/ignite/run time-ops --scenario "$scenario" --seed "$seed" --snapshot snap --increment "$k" "$run" \
      2>"$tmp.log" | tail -1 | python3 -c '
import json, sys
t = json.loads(sys.stdin.read())
print(t["check_ms"], t["increment_check_ms"], t["restore_ms"], t["control_increment_check_ms"])
print(t["control_increment_check_verdict"])'); then
      read -r ignite_check ignite_inc_check ignite_restore ignite_control <<<"$(head -1 <<<"$now")"
      ignite_verdict=$(tail -1 <<<"$now")
    else
      echo "Ignite's timing failed (the times the harness took when it made the input are used):" >&2
      tail -3 "$tmp.log" >&2
      ignite_when="as the harness timed them when it made the input: timing them now failed"
    fi
    rm -f "$tmp.log"
  else
    ignite_when="as the harness timed them when it made the input (not in this run)"
  fi
  walcut_rounds $((rounds / 2))
  rm -rf "$restored" "$tmp"
  echo
  echo "## $scenario (seed $seed): $txs transactions, ${#parts[@]} partition files of $((part_bytes / 1024)) KiB in the full snapshot, $((wal_bytes >> 20)) MiB of WAL files"
  echo
  echo "Ignite's times: best of three, $ignite_when."
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
  [ -n "$ignite_control" ] && row "check --increment $k" "control.sh --snapshot check NAME --increment $k" "$ignite_control"
  row "check --increment $k" "the same check's task alone, in the cluster's JVM" "$ignite_inc_check"
  row "restore --increment $k" "restoreSnapshot(NAME, groups, $k)" "$ignite_restore"
  row "data -q --snapshot" "" ""
  row "xxhsum -H3 part-*.bin" "" ""
  [ -n "$ignite_verdict" ] && echo && echo "control.sh's verdict on increment $k: $ignite_verdict"
  xs=${best["xxhsum -H3 part-*.bin"]}
  ds=${best["data -q --snapshot"]}
  python3 -c "print(f'\ndata -q --snapshot reads the page files at {$xs / $ds:.2f}x the speed of xxhsum -H3 over them')"
done
