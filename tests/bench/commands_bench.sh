#!/usr/bin/env bash
# Every command that reads whole WALs, on the same cluster, as ratios to `check` and to
# `dump --stats`, with peak RSS, at two WAL lengths (TXS and TXS/4 transactions, a cut
# every 10000): whether txs, restore and gaps keep up with check, and whether memory
# follows the WAL's length. Best of BENCH_ROUNDS rounds (default 3; each round runs every
# command once, in turn); only ratios of one run compare, the machine is shared.
#
#   tests/bench/commands_bench.sh [BUILD_DIR] [TXS]
#
# Clusters: 8 nodes, 256 partitions, 2 backups, simulated once into BENCH_DIR (default
# BUILD_DIR/bench-data). Restores write under BENCH_OUT (default: a temporary folder in
# TMPDIR): making ~800 files costs what the file system makes it cost (an ext4 without a
# journal skips inodes freed in the last minutes one by one), so a tmpfs there shows the
# restore's own work; the file system is printed with the table.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
txs=${2:-300000}
bench_rounds 3
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
mkdir -p "$data"
scratch=$(mktemp -d)
outroot=$scratch
if [ -n "${BENCH_OUT:-}" ]; then
  mkdir -p "$BENCH_OUT"
  outroot=$(mktemp -d "$BENCH_OUT/walcut-bench.XXXXXX")
fi
outputs=0
trap 'rm -rf "$scratch" "$outroot"' EXIT

make_cluster() {  # make_cluster DIR TXS
  [ -f "$1/cluster.json" ] && return
  rm -rf "$1"
  "$walcut" simulate -o "$1" -q --nodes 8 --partitions 256 --backups 2 --txs "$2" --cuts 100000 --cut-interval 10000
}

bench() {  # bench DIR: one line per command: name, best seconds, peak RSS (KiB) of the best run
  local dir=$1
  local -a names=("dump --stats" "check" "cuts" "txs" "txs --in-doubt" "txs --tx" "gaps" "restore --dry-run"
                  "restore --jobs 1" "restore --jobs 2")
  local -A best rss
  # --tx: the first transaction node-0 logged (the whole WAL is read whichever it is).
  local one
  one=$("$walcut" dump --type TX_RECORD --limit 1 "$dir/node-0/wal" | awk '{for (i = 1; i < NF; i++) if ($i == "tx") { print $(i + 1); exit }}')
  [ -n "$one" ] || { echo "commands_bench: no TX_RECORD in $dir/node-0/wal" >&2; exit 1; }
  for _ in $(seq "$rounds"); do
    for name in "${names[@]}"; do
      local -a cmd
      case "$name" in
        "dump --stats") cmd=(dump --stats "$dir") ;;
        check) cmd=(check -q "$dir") ;;
        cuts) cmd=(cuts -q "$dir") ;;
        txs) cmd=(txs "$dir") ;;
        "txs --in-doubt") cmd=(txs --in-doubt "$dir") ;;
        "txs --tx") cmd=(txs --tx "$one" "$dir") ;;
        gaps) cmd=(gaps "$dir") ;;
        "restore --dry-run") cmd=(restore --latest --dry-run "$dir") ;;
        # A new output each run, all removed at exit: a file system that has just removed
        # hundreds of files makes the next ones slower to create (ext4 skips inodes freed
        # moments ago), which a restore into a new folder does not meet.
        "restore --jobs 1") outputs=$((outputs + 1)); cmd=(restore -q --latest --jobs 1 "$dir" -o "$outroot/r$outputs") ;;
        "restore --jobs 2") outputs=$((outputs + 1)); cmd=(restore -q --latest --jobs 2 "$dir" -o "$outroot/r$outputs") ;;
      esac
      local t0 t1 t
      t0=$(date +%s.%N)
      /usr/bin/time -f %M -o "$scratch/rss" "$walcut" "${cmd[@]}" >/dev/null 2>&1 || true
      t1=$(date +%s.%N)
      t=$(python3 -c "print($t1 - $t0)")
      if [ -z "${best[$name]:-}" ] || python3 -c "import sys; sys.exit(0 if $t < ${best[$name]} else 1)"; then
        best[$name]=$t
        rss[$name]=$(cat "$scratch/rss")
      fi
    done
  done
  for name in "${names[@]}"; do printf '%s\t%s\t%s\n' "$name" "${best[$name]}" "${rss[$name]}"; done
}

big=$data/commands-cluster-$txs
small=$data/commands-cluster-$((txs / 4))
make_cluster "$big" "$txs"
make_cluster "$small" $((txs / 4))
cat "$big"/node-*/wal/* "$small"/node-*/wal/* >/dev/null  # warm the page cache
bench "$big" >"$scratch/big"
bench "$small" >"$scratch/small"

bench_machine
echo "build:   $build ($("$walcut" --version | head -n 1)); best of $rounds rounds"
echo "restores written under $outroot ($(df -T "$outroot" | awk 'NR == 2 { print $2 }'))"
python3 - "$big" "$small" "$scratch/big" "$scratch/small" "$txs" <<'PY'
import glob, os, sys
big, small, rbig, rsmall, txs = sys.argv[1:6]
def mib(d):
    return sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, "node-*", "wal", "*"))) / 1048576
def rows(path):
    return {n: (float(t), int(r)) for n, t, r in (l.rstrip("\n").split("\t") for l in open(path))}
for label, d, path, n in (("long", big, rbig, int(txs)), ("short", small, rsmall, int(txs) // 4)):
    r = rows(path)
    check, stats = r["check"][0], r["dump --stats"][0]
    print(f"\n{label}: {n} transactions, {mib(d):.0f} MiB of WAL")
    print(f"{'command':<20} {'seconds':>8} {'vs check':>9} {'vs dump --stats':>16} {'peak RSS':>10}")
    for name, (t, rss) in r.items():
        print(f"{name:<20} {t:8.3f} {t / check:8.2f}x {t / stats:15.2f}x {rss // 1024:6d} MiB")
PY
