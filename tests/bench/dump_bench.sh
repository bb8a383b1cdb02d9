#!/usr/bin/env bash
# Benchmark of `walcut dump` against xxhsum -H3 and cat on the same WAL bytes.
#
#   tests/bench/dump_bench.sh [BUILD_DIR] [GIB]
#
# Generates (once) a node WAL of GIB GiB (default 1) of realistic records: DataRecords of
# 1-4 entries with 10-100 byte keys and values between TxRecords. Warms the page cache,
# then times each command (best of 3) in the same run and prints MB/s, records/s, the
# ratio to xxhsum and peak RSS. Ratios, not absolute numbers, are what to compare: the
# machine is shared.
set -euo pipefail
build=${1:-build/release}
gib=${2:-1}
walcut=$build/tools/walcut
gen=$build/tests/walcut-testgen
data=${BENCH_DIR:-$build/bench-data}/wal-${gib}g
[ -x "$walcut" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 2; }
if [ ! -d "$data/wal" ]; then
  echo "generating $gib GiB of WAL in $data ..." >&2
  rm -rf "$data"
  "$gen" bench "$data" $((gib << 30))
fi
files=("$data"/wal/*.wal)
bytes=$(cat "${files[@]}" | wc -c)
records=$("$walcut" dump --stats --json "$data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')
cat "${files[@]}" >/dev/null  # warm the page cache

run() {  # run NAME CMD...: best wall time of 3 and peak RSS (KiB) of the last run
  local name=$1; shift
  local best=999999 rss=0
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o /tmp/walcut-bench-rss "$@" >/dev/null
    t1=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $t1 - $t0))")
    rss=$(cat /tmp/walcut-bench-rss)
  done
  printf '%s\t%s\t%s\n' "$name" "$best" "$rss"
}

{
  run "cat" cat "${files[@]}"
  run "xxhsum -H3" xxhsum -H3 "${files[@]}"
  run "walcut dump --stats" "$walcut" dump --stats "$data"
  run "walcut dump" "$walcut" dump "$data"
  run "walcut dump --json" "$walcut" dump --json "$data"
} >/tmp/walcut-bench-results

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB RAM"
echo "input:   $((bytes / 1048576)) MiB in ${#files[@]} segments, $records records"
python3 - "$bytes" "$records" <<'PY'
import sys
total, records = int(sys.argv[1]), int(sys.argv[2])
rows = [l.rstrip("\n").split("\t") for l in open("/tmp/walcut-bench-results")]
ref = next(float(t) for n, t, _ in rows if n.startswith("xxhsum"))
print(f"{'command':<22} {'seconds':>8} {'MB/s':>8} {'Mrec/s':>8} {'vs xxhsum':>10} {'peak RSS':>10}")
for name, t, rss in rows:
    t = float(t)
    print(f"{name:<22} {t:8.3f} {total / t / 1e6:8.0f} {records / t / 1e6:8.2f} {ref / t:9.2f}x {int(rss) // 1024:7d} MiB")
PY
