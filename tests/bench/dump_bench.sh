#!/usr/bin/env bash
# Benchmark of `walcut dump` against xxhsum -H3 and cat on the same WAL bytes.
#
#   tests/bench/dump_bench.sh [BUILD_DIR] [GIB]
#   tests/bench/dump_bench.sh [BUILD_DIR] ignite[:COPIES[:SOURCE]]
#   tests/bench/dump_bench.sh [BUILD_DIR] cluster
#
# GIB: generates (once) a node WAL of GIB GiB (default 1) of realistic records: DataRecords
# of 1-4 entries with 10-100 byte keys and values between TxRecords.
# ignite: the records of the raw archive segments a real Apache Ignite wrote under SOURCE
# (default testdata/ignite; a bigger run of tests/ignite/run gives more), COPIES times
# (default 40) one after another, packed into segments of 64 MiB (Ignite's default
# walSegmentSize) in a scratch folder, every frame given its new pointer and CRC, so that
# the folder is one long WAL as Ignite would have written it.
# cluster: the WALs of a simulated 4-node cluster (generated once: 64 partitions, 1 backup,
# 20 000 accounts, 300 000 transactions, 3 cuts, seed 3), about 280 MB in which two thirds
# of the records are small TX_RECORDs: the cost per record, not per byte, decides.
# Warms the page cache, then times each command (best of BENCH_ROUNDS rounds, default 5;
# each round runs every command once, in turn, so a busy moment of the shared machine
# does not fall on one command alone) in the same run and prints
# MB/s, records/s, the ratio to xxhsum and peak RSS. Ratios, not absolute numbers, are what
# to compare: the machine is shared.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
input=${2:-1}
bench_rounds 5
bench_walcut "$build"
gen=$build/tests/walcut-testgen
results=$(mktemp)
trap 'rm -f "$results"' EXIT
if [[ $input == ignite* ]]; then
  IFS=: read -r _ copies source <<<"$input"
  data=$(mktemp -d)
  trap 'rm -rf "$data" "$results"' EXIT
  python3 - "${source:-testdata/ignite}" "$data" "${copies:-40}" <<'PY'
import glob, os, struct, sys, zlib
source, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
SEGMENT = 64 << 20  # Ignite's default walSegmentSize
segs = sorted(glob.glob(os.path.join(source, "**/db/wal/archive/*/*.wal"), recursive=True))
header = None
frames = []  # every record frame of the archive, in order
for path in segs:
    b = open(path, "rb").read()
    header = header or b[:29]
    pos = 29
    while pos < len(b) and b[pos] not in (0, 41):
        n = struct.unpack_from("<i", b, pos + 13)[0]
        frames.append(b[pos:pos + n])
        pos += n
idx, seg = 0, None
def seal():
    global idx, seg
    if seg is not None:
        open(os.path.join(out, f"{idx:016d}.wal"), "wb").write(bytes(seg))
        idx += 1
    seg = None
for _ in range(copies):
    for f in frames:
        if seg is not None and len(seg) + len(f) > SEGMENT:
            seal()
        if seg is None:
            seg = bytearray(header)
            struct.pack_into("<q", seg, 1, idx)
        g = bytearray(f)
        struct.pack_into("<qi", g, 1, idx, len(seg))
        struct.pack_into("<I", g, len(g) - 4, zlib.crc32(bytes(g[:-4])) ^ 0xFFFFFFFF)
        seg += g
seal()
PY
  files=("$data"/*.wal)
  kind="Ignite segments"
elif [ "$input" = cluster ]; then
  data=${BENCH_DIR:-$build/bench-data}/dump-cluster-300000
  if [ ! -f "$data/cluster.json" ]; then
    echo "simulating a 4-node cluster in $data ..." >&2
    rm -rf "$data"
    "$walcut" simulate -q -o "$data" --nodes 4 --partitions 64 --backups 1 --accounts 20000 --txs 300000 \
      --cuts 3 --seed 3
  fi
  files=("$data"/*/wal/*.wal)
  kind="segments of 4 nodes"
else
  data=${BENCH_DIR:-$build/bench-data}/wal-${input}g
  if [ ! -d "$data/wal" ]; then
    echo "generating $input GiB of WAL in $data ..." >&2
    rm -rf "$data"
    "$gen" bench "$data" $((input << 30))
  fi
  files=("$data"/wal/*.wal)
  kind="segments"
fi
bytes=$(cat "${files[@]}" | wc -c)
records=$("$walcut" dump --stats --json "$data" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["errors"]==0, d; print(d["records"])')
cat "${files[@]}" >/dev/null  # warm the page cache

names=("cat" "xxhsum -H3" "walcut dump --stats" "walcut dump" "walcut dump --json")
command_of() {  # the command line of a row
  case $1 in
    "cat") echo cat "${files[@]}" ;;
    "xxhsum -H3") echo xxhsum -H3 "${files[@]}" ;;
    "walcut dump --stats") echo "$walcut" dump --stats "$data" ;;
    "walcut dump") echo "$walcut" dump "$data" ;;
    "walcut dump --json") echo "$walcut" dump --json "$data" ;;
  esac
}
declare -A best rss
for _ in $(seq "$rounds"); do  # each round runs every command once, in turn
  for name in "${names[@]}"; do
    read -r -a cmd <<<"$(command_of "$name")"
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o /tmp/walcut-bench-rss "${cmd[@]}" >/dev/null
    t1=$(date +%s.%N)
    best[$name]=$(python3 -c "print(min(${best[$name]:-999999}, $t1 - $t0))")
    rss[$name]=$(cat /tmp/walcut-bench-rss)
  done
done
for name in "${names[@]}"; do printf '%s\t%s\t%s\n' "$name" "${best[$name]}" "${rss[$name]}"; done >"$results"

bench_machine
echo "input:   $((bytes / 1048576)) MiB in ${#files[@]} $kind, $records records; best of $rounds rounds"
python3 - "$bytes" "$records" "$results" <<'PY'
import sys
total, records = int(sys.argv[1]), int(sys.argv[2])
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[3])]
ref = next(float(t) for n, t, _ in rows if n.startswith("xxhsum"))
print(f"{'command':<22} {'seconds':>8} {'MB/s':>8} {'Mrec/s':>8} {'vs xxhsum':>10} {'peak RSS':>10}")
for name, t, rss in rows:
    t = float(t)
    print(f"{name:<22} {t:8.3f} {total / t / 1e6:8.0f} {records / t / 1e6:8.2f} {ref / t:9.2f}x {int(rss) // 1024:7d} MiB")
PY
