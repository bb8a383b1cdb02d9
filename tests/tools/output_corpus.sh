#!/usr/bin/env bash
# The outputs of every command over several simulated clusters, into OUT: run it with
# one build, then another, and `diff -r` the two OUTs. A change meant to move no output
# (a restructuring) must leave them identical.
#
#   tests/tools/output_corpus.sh WALCUT OUT
set -euo pipefail
w=$(realpath "$1")
out=$2
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # run NAME ARGS...: stdout, stderr (scratch paths blanked) and exit status
  local name=$1
  shift
  local code=0
  "$w" "$@" > "$out/$name.out" 2> "$out/$name.err" || code=$?
  echo "$code" > "$out/$name.code"
  sed -i "s|$work|WORK|g" "$out/$name.out" "$out/$name.err"
}
clusters=(
  "plain:--txs 3000 --cuts 3"
  "wide:--nodes 5 --backups 2 --partitions 16 --txs 4000 --cuts 4 --seed 7 --rollback-rate 0.05"
  "lz4:--txs 3000 --cuts 3 --segment-size 64K --compress lz4 --seed 3"
  "faults:--nodes 4 --backups 1 --txs 5000 --cuts 5 --seed 5 --crash node-1@2000 --torn-tail --crash-client client-0@3500 --join-client @1000 --unknown-rate 0.01"
  "nowrap:--nodes 4 --txs 3000 --cuts 3 --seed 2 --inject-bug no-wrap"
  "early:--txs 3000 --cuts 3 --seed 4 --inject-bug early-finish"
  "closes:--txs 4000 --cuts 3 --seed 8 --close-rate 0.1 --segment-size 128K"
)
for spec in "${clusters[@]}"; do
  name=${spec%%:*}
  # shellcheck disable=SC2086
  run "$name.simulate" simulate -o "$work/$name" --json --truth ${spec#*:}
  c=$work/$name
  (cd "$c" && find . -type f ! -path './truth/*' -print0 | sort -z | xargs -0 sha256sum) > "$out/$name.files"
  run "$name.dump" dump "$c"
  run "$name.dump-json" dump --json --values hash "$c"
  run "$name.dump-stats" dump --stats "$c"
  run "$name.dump-stats-json" dump --stats --json "$c"
  run "$name.cuts" cuts "$c"
  run "$name.cuts-json" cuts --json "$c"
  run "$name.check" check "$c"
  run "$name.check-json" check --json "$c"
  sums=()
  for n in "$c"/node-*; do
    run "$name.summary-$(basename "$n")" cuts "$n" --summary "$work/$name-$(basename "$n").summary"
    sums+=("$work/$name-$(basename "$n").summary")
  done
  run "$name.check-summaries" check --json --cluster "$c/cluster.json" --summaries "${sums[@]}"
  run "$name.gaps" gaps "$c"
  run "$name.gaps-json" gaps --json "$c"
  run "$name.txs" txs "$c"
  run "$name.txs-json" txs --json "$c"
  run "$name.txs-doubt" txs --in-doubt "$c"
  run "$name.data" data --json "$c"
  run "$name.verify" verify --json "$c"
  run "$name.restore-plan" restore "$c" --latest --dry-run
  run "$name.restore-plan-json" restore "$c" --latest --dry-run --json
  run "$name.restore-inc" restore "$c" --increment 2 --dry-run
  run "$name.restore-inc9" restore "$c" --increment 9 --dry-run
  run "$name.restore-node" restore "$c" --latest --dry-run --node nosuch
  run "$name.restore-node1" restore "$c" --latest --dry-run --node node-1
  run "$name.restore-partition" restore "$c" --latest --dry-run --partition 9999
  run "$name.restore-cache" restore "$c" --latest --dry-run --cache 12345
  run "$name.restore-cut" restore "$c" --cut 0 --dry-run
  run "$name.restore" restore "$c" --latest -o "$work/$name-r" --json
  if [ -d "$work/$name-r" ]; then
    (cd "$work/$name-r" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$out/$name.restored-files"
    run "$name.verify-restored" verify --json "$work/$name-r"
  fi
  run "$name.info" info "$c"
  run "$name.info-json" info --json "$c"
  mapfile -t ids < <("$w" cuts --json "$c" | python3 -c 'import json, sys
for c in json.load(sys.stdin)["cuts"]: print(c["id"])')
  if [ ${#ids[@]} -ge 2 ]; then
    run "$name.diff" diff "$c" "${ids[0]}" "${ids[-1]}"
    run "$name.diff-json" diff --json "$c" "${ids[0]}" "${ids[1]}"
  fi
  run "$name.prune" prune "$c"
  run "$name.prune-keep-json" prune --json --keep-increments 1 "$c"
  run "$name.prune-base" prune --keep-base base "$c"
  run "$name.prune-before" prune --before 0 "$c"
  run "$name.prune-no-base" prune --keep-base nosuch "$c"
  cp -r "$c" "$work/$name-p"
  run "$name.prune-move" prune --apply --force --keep-increments 1 --move-to "$work/$name-moved" "$work/$name-p"
  if [ -d "$work/$name-moved" ]; then
    (cd "$work/$name-moved" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$out/$name.moved-files"
  fi
  run "$name.prune-apply" prune --apply --force "$work/$name-p"
  (cd "$work/$name-p" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$out/$name.pruned-files"
  run "$name.svg" cuts "$c" --svg "$work/$name.svg" -q
  [ -f "$work/$name.svg" ] && sha256sum < "$work/$name.svg" > "$out/$name.svg-hash"
done
run tiny.dump dump "$(dirname "$0")/../../testdata/tiny"
for f in "$(dirname "$0")"/../../testdata/ignite/*/nodes; do
  name=ignite-$(basename "$(dirname "$f")")
  run "$name.prune" prune --json "$f"
  run "$name.cuts" cuts --json "$f"
  run "$name.info" info "$f"
  run "$name.restore-plan" restore "$f" --latest --dry-run --json
  run "$name.restore-plan-inc1" restore "$f" --increment 1 --dry-run
  run "$name.restore-segment" restore "$(find "$f" -name '*.wal' | sort | head -n 1)" --latest --dry-run
  mapfile -t ids < <("$w" cuts --json "$f" | python3 -c 'import json, sys
for c in json.load(sys.stdin)["cuts"]: print(c["id"])')
  if [ ${#ids[@]} -ge 2 ]; then
    run "$name.diff" diff "$f" "${ids[0]}" "${ids[-1]}"
  fi
done
echo "outputs in $out"
