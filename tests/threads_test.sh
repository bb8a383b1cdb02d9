#!/usr/bin/env bash
# Every command that starts threads, run on inputs that make them share work: a simulated
# cluster (the threaded check, cuts, txs, gaps, dump --stats, restore with --jobs, the
# summaries' check) and real Apache Ignite files (check, restore from a full snapshot's
# page files, verify and data of a snapshot, on page-file reader threads). Each must exit
# as expected. In the tsan tree (./bootstrap test) this is ThreadSanitizer's run: a data
# race there stops the command with TSAN_OPTIONS' exit code and fails the test.
#
#   tests/threads_test.sh WALCUT SOURCE_DIR
set -euo pipefail
walcut=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 exitcode=66 second_deadlock_stack=1}"

run() {  # EXPECTED_EXIT COMMAND...
  local want=$1 got=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAILED (exit $got, expected $want): $*" >&2
    tail -n 40 "$tmp/err" >&2
    exit 1
  fi
}

c=$tmp/c
run 0 "$walcut" simulate -q -o "$c" --nodes 5 --txs 3000 --cuts 3 --partitions 16 --backups 1 --seed 7
run 0 "$walcut" check -q "$c"
for jobs in 1 2 4; do
  run 0 "$walcut" restore -q --jobs "$jobs" --latest "$c" -o "$tmp/r$jobs"
  run 0 "$walcut" verify -q "$tmp/r$jobs"
done
run 0 "$walcut" cuts -q "$c"
run 0 "$walcut" txs -q "$c"
run 0 "$walcut" txs -q --in-doubt "$c"
run 0 "$walcut" gaps -q "$c"
run 0 "$walcut" dump -q --stats "$c"
run 0 "$walcut" dump -q --stats=partition "$c"
for n in 0 1 2 3 4; do
  run 0 "$walcut" cuts -q "$c/node-$n" --summary "$tmp/n$n.sum"
done
run 0 "$walcut" check -q --cluster "$c/cluster.json" --summaries "$tmp"/n*.sum

# A cluster whose cut is broken: the threaded check must still find every violation.
run 0 "$walcut" simulate -q -o "$tmp/bad" --nodes 4 --txs 2000 --cuts 2 --seed 3 --inject-bug no-wrap
run 1 "$walcut" check -q "$tmp/bad"

f=$src/testdata/ignite/full/nodes
run 0 "$walcut" check -q "$f"
run 0 "$walcut" verify -q --snapshot snap --jobs 4 "$f"
run 0 "$walcut" data -q --snapshot snap "$f"
run 0 "$walcut" restore -q --latest --jobs 2 "$f" -o "$tmp/ignite"
run 0 "$walcut" verify -q "$tmp/ignite"
run 0 "$walcut" dump -q --stats "$src/testdata/ignite/clean/nodes"
# .wal.zip segments inflated whole on the prefetch thread (dump) and in the process's slots
# (a check of the snapshot directories alone, every segment a .wal.zip).
run 0 "$walcut" dump -q --stats "$src/testdata/ignite/compacted/nodes/server-0/work/db/wal/archive/server_0"
t=$src/testdata/ignite/truncated/nodes
run 0 "$walcut" check -q "$t/server-0/work/snapshots/snap" "$t/server-1/work/snapshots/snap" "$t/server-2/work/snapshots/snap"
echo "threaded commands ok"
