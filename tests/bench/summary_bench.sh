#!/usr/bin/env bash
# Benchmark of the path for clusters too large to gather: node summaries (`walcut cuts
# NODE --summary FILE`, binary and JSON) against the WALs they describe, at 32 and 64
# nodes (512 partitions, 2 backups, 300000 transactions, 20 cuts; generated once).
# For each cluster: WAL and summary bytes, the time to write every node's summary (the
# sum over the nodes, as each node writes its own), `check` from the WALs and
# `check --summaries` (best of BENCH_ROUNDS rounds, default 5, every command once per
# round in turn), peak RSS, and whether the verdicts are identical (`check --json`).
# Then a live node: one node's WAL (a 4-node cluster of 400000 transactions, 40 cuts,
# 4 MiB segments) grown in 8 steps of segment files, its summary kept with `--summary
# FILE --append` at each step against writing it whole (best of BENCH_ROUNDS each).
#
#   tests/bench/summary_bench.sh [BUILD_DIR] [NODES...]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
build=${1:-build/release}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(32 64)
bench_rounds 5
bench_walcut "$build"
data=${BENCH_DIR:-$build/bench-data}
mkdir -p "$data"
results=$(mktemp)
trap 'rm -f "$results" /tmp/walcut-summary-rss' EXIT

now() { date +%s.%N; }
best_of() {  # best_of CURRENT SECONDS
  python3 -c "print(min($1, $2))"
}

for n in "${sizes[@]}"; do
  c=$data/summary-cluster-$n
  if [ ! -f "$c/cluster.json" ]; then
    rm -rf "$c"
    "$walcut" simulate -o "$c" -q --nodes "$n" --partitions 512 --backups 2 --txs 300000 --cuts 20 --seed 4
  fi
  s=$data/summary-files-$n
  rm -rf "$s" && mkdir -p "$s/bin" "$s/json"
  cat "$c"/node-*/wal/* >/dev/null  # warm the page cache
  declare -A best=([write]=999999 [write-json]=999999 [check]=999999 [summaries]=999999 [summaries-json]=999999)
  declare -A rss=([write]=0 [write-json]=0 [check]=0 [summaries]=0 [summaries-json]=0)
  run() {  # run ROW SECONDS_OF_A_COMMAND_SERIES...: times "$@" as one row
    local row=$1
    shift
    local t0 t1
    t0=$(now)
    "$@"
    t1=$(now)
    best[$row]=$(best_of "${best[$row]}" "$(python3 -c "print($t1 - $t0)")")
  }
  write_all() {  # write_all FORMAT DIR
    local peak=0 r
    for node in "$c"/node-*; do
      /usr/bin/time -f %M -o /tmp/walcut-summary-rss \
        "$walcut" cuts "$node" -q --summary "$2/$(basename "$node")" --summary-format "$1" || true
      r=$(tail -1 /tmp/walcut-summary-rss)
      [ "$r" -gt "$peak" ] && peak=$r
    done
    echo "$peak" >/tmp/walcut-summary-peak
  }
  timed() {  # timed ROW ARGS...: one walcut run, its peak RSS kept
    local row=$1
    shift
    /usr/bin/time -f %M -o /tmp/walcut-summary-rss "$walcut" "$@" >/dev/null || true
    local r
    r=$(tail -1 /tmp/walcut-summary-rss)
    [ "$r" -gt "${rss[$row]}" ] && rss[$row]=$r
    return 0
  }
  for _ in $(seq "$rounds"); do
    run write write_all binary "$s/bin"
    r=$(cat /tmp/walcut-summary-peak); [ "$r" -gt "${rss[write]}" ] && rss[write]=$r
    run write-json write_all json "$s/json"
    r=$(cat /tmp/walcut-summary-peak); [ "$r" -gt "${rss[write-json]}" ] && rss[write-json]=$r
    run check timed check check -q "$c"
    run summaries timed summaries check -q --cluster "$c/cluster.json" --summaries "$s"/bin/*
    run summaries-json timed summaries-json check -q --cluster "$c/cluster.json" --summaries "$s"/json/*
  done
  same=no
  if cmp -s <("$walcut" check --json "$c") \
            <("$walcut" check --json --cluster "$c/cluster.json" --summaries "$s"/bin/*) &&
     cmp -s <("$walcut" check --json "$c") \
            <("$walcut" check --json --cluster "$c/cluster.json" --summaries "$s"/json/*); then
    same=yes
  fi
  wal=$(du -sb "$c"/node-*/wal | awk '{t+=$1} END {print t}')
  bin=$(du -sb "$s/bin" | cut -f1)
  json=$(du -sb "$s/json" | cut -f1)
  for row in write write-json check summaries summaries-json; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$row" "${best[$row]}" "${rss[$row]}" "$wal" "$bin" "$json" >>"$results"
  done
  printf '%s\tverdicts\t%s\n' "$n" "$same" >>"$results"
  unset best rss
done

# A live node: its WAL grown in 8 steps; --append against a whole write at each step.
g=$data/summary-growing-4
if [ ! -f "$g/cluster.json" ]; then
  rm -rf "$g"
  "$walcut" simulate -o "$g" -q --nodes 4 --partitions 256 --backups 2 --txs 400000 --cuts 40 --seed 4 \
    --segment-size 4M
fi
live=$(mktemp -d)
trap 'rm -rf "$results" /tmp/walcut-summary-rss "$live"' EXIT
mkdir -p "$live/node-0/wal"
segs=("$g"/node-0/wal/*)
copied=0
for k in 0 1 2 3 4 5 6 7; do
  upto=$(( (${#segs[@]} * (k + 1) + 7) / 8 ))
  for ((; copied < upto; copied++)); do cp "${segs[$copied]}" "$live/node-0/wal/"; done
  a=999999 w=999999
  for _ in $(seq "$rounds"); do
    # The append from the summary of the step before (kept aside), and a whole write.
    [ "$k" -gt 0 ] && cp "$live/prev.sum" "$live/n.sum" && cp "$live/prev.sum.resume" "$live/n.sum.resume"
    t0=$(now)
    "$walcut" cuts "$live/node-0" -q --summary "$live/n.sum" --append
    t1=$(now)
    "$walcut" cuts "$live/node-0" -q --summary "$live/whole.sum"
    t2=$(now)
    a=$(best_of "$a" "$(python3 -c "print($t1 - $t0)")")
    w=$(best_of "$w" "$(python3 -c "print($t2 - $t1)")")
  done
  cmp -s "$live/n.sum" "$live/whole.sum" || echo "step $k: the appended summary differs from the whole one" >&2
  cp "$live/n.sum" "$live/prev.sum" && cp "$live/n.sum.resume" "$live/prev.sum.resume"
  printf 'growing\t%s\t%s\t%s\t%s\t%s\n' "$k" "$a" "$w" "$(du -sb "$live/node-0/wal" | cut -f1)" \
    "$(stat -c %s "$live/n.sum.resume")" >>"$results"
done

bench_machine
echo "input:   512 partitions, 2 backups, 300000 transactions, 20 cuts, seed 4; best of $rounds rounds"
python3 - "$results" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
names = {
    "write": "cuts --summary, every node (binary)",
    "write-json": "cuts --summary, every node (json)",
    "check": "check DIR (the WALs)",
    "summaries": "check --summaries (binary)",
    "summaries-json": "check --summaries (json)",
}
growing = [r for r in rows if r[0] == "growing"]
rows = [r for r in rows if r[0] != "growing"]
for n in dict.fromkeys(r[0] for r in rows):
    mine = [r for r in rows if r[0] == n and r[1] != "verdicts"]
    same = [r[2] for r in rows if r[0] == n and r[1] == "verdicts"][0]
    wal, binary, js = int(mine[0][4]), int(mine[0][5]), int(mine[0][6])
    print(f"\n{n} nodes: WAL {wal / 1e6:.0f} MB; binary summaries {binary / 1e6:.2f} MB ({100 * binary / wal:.2f} % of the WAL), "
          f"JSON {js / 1e6:.1f} MB ({100 * js / wal:.1f} %); verdicts identical to the WALs': {same}")
    check = float([r for r in mine if r[1] == "check"][0][2])
    print(f"{'':2}{'command':<40} {'seconds':>8} {'vs check':>9} {'peak RSS':>10}")
    for _, row, t, rss, *_ in mine:
        t = float(t)
        print(f"{'':2}{names[row]:<40} {t:8.3f} {t / check:8.2f}x {int(rss) // 1024:7d} MiB")
if growing:
    print(f"\nA live node (node-0 of 4, 4 MiB segments) grown in 8 steps: "
          f"cuts --summary FILE --append against a whole write, best of each step")
    print(f"{'':2}{'step':>5} {'WAL MB':>7} {'append s':>9} {'whole s':>8} {'append/whole':>13} {'.resume KB':>11}")
    for _, k, a, w, wal, state in growing:
        print(f"{'':2}{int(k) + 1:5d} {int(wal) / 1e6:7.1f} {float(a):9.3f} {float(w):8.3f} "
              f"{float(a) / float(w):12.2f}x {int(state) / 1e3:11.0f}")
PY
