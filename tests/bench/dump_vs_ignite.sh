#!/usr/bin/env bash
# walcut's text dump against Apache Ignite's own reading of the same WAL files, at two sizes: one
# node's archive (server-0; a raw segment where the archive holds one, else its .wal.zip) of the
# reference harness's bench-snapshot and bench-snapshot-long scenarios (made once with
# tests/ignite/run, as tests/bench/snapshot_bench.sh makes them, and kept under BENCH_DIR).
# Ignite's side is its standalone iterator (IgniteWalIteratorFactory) with each record's
# toString(), what IgniteWalConverter prints, timed inside its JVM (tests/ignite/run read-wal),
# so that the comparison is per record, not by start-up; the JVM's whole run is printed too.
# Best of BENCH_ROUNDS (default 5) on each side; records per second and the ratio.
#
#   tests/bench/dump_vs_ignite.sh [BUILD_DIR] [SEED]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
seed=${2:-7}
bench_rounds 5
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
mkdir -p "$data"
bench_machine
echo "walcut: $("$walcut" --version 2>/dev/null | head -1) ($build), rounds: $rounds"
echo
echo "| input | files | records (walcut / Ignite) | walcut dump | records/s | Ignite, in its JVM | records/s | per record | Ignite's whole run |"
echo "|---|---|---|---|---|---|---|---|---|"
links=$(mktemp -d)
trap 'rm -rf "$links"' EXIT
for scenario in bench-snapshot bench-snapshot-long; do
  run=$data/ignite-$scenario-$seed
  if [ ! -f "$run/truth.json" ]; then
    rm -rf "$run"
    echo "making the input: tests/ignite/run --scenario $scenario --seed $seed -o $run" >&2
    tests/ignite/run --scenario "$scenario" --seed "$seed" -o "$run" >&2
  fi
  work=$run/nodes/server-0/work
  archive=$work/db/wal/archive/server_0
  dir=$links/$scenario
  mkdir -p "$dir"
  for f in "$archive"/*.wal.zip "$archive"/*.wal; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    index=${name%%.*}
    if [[ $name == *.wal.zip ]] && [ -e "$archive/$index.wal" ]; then continue; fi
    ln -s "$(realpath "$f")" "$dir/$name"
  done
  mapfile -t files < <(find "$dir" -name '*.wal*' | sort)
  cat "${files[@]}" >/dev/null  # the page cache warm for both sides
  records=$("$walcut" dump --stats --json "$dir" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')
  best=999999
  for _ in $(seq "$rounds"); do
    t0=$(date +%s.%N)
    "$walcut" dump "$dir" >/dev/null 2>&1
    t1=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $t1 - $t0))")
  done
  t0=$(date +%s.%N)
  line=$(tests/ignite/run read-wal "$work" server_0 "$rounds" "${files[@]}" 2>/dev/null | grep '^records ')
  t1=$(date +%s.%N)
  read -r _ ignite_records _ _ _ ignite_best <<<"$line"
  python3 - "$scenario" "${#files[@]}" "$records" "$ignite_records" "$best" "$ignite_best" "$(python3 -c "print($t1 - $t0)")" "$rounds" <<'PY'
import sys
scenario, files, records, irecords, best, ibest, whole, rounds = sys.argv[1:]
records, irecords, files, rounds = int(records), int(irecords), int(files), int(rounds)
best, ibest, whole = float(best), float(ibest), float(whole)
w_rate, i_rate = records / best, irecords / ibest
print(f"| {scenario} | {files} | {records} / {irecords} | {best:.3f} s | {w_rate/1e6:.2f} M | {ibest:.3f} s | {i_rate/1e6:.2f} M "
      f"| {w_rate / i_rate:.1f}x | {whole:.1f} s for {rounds} rounds |")
PY
done
