#!/usr/bin/env python3
"""walcut gaps on a real Apache Ignite cluster's WAL: no counter gap where Ignite left none.

    gaps_truth.py WALCUT FIXTURE               every node of a fixture (testdata/ignite/<name>)
    gaps_truth.py --self-test WALCUT FIXTURE   shows that a gap is caught, and an unknown history said

The harness stops each cluster cleanly, after Ignite has closed the gaps of every transaction it
rolled back or recovered (its RollbackRecords are in the WAL): every partition's counters up to its
highest are applied. So `walcut gaps` of the nodes, and of the snapshot directories alone, must report
no open gap and exit 0: not for the counters of a shared cache group's caches (one sequence per group
partition), nor for the counters of segments Ignite deleted from a small archive (the checkpoints'
partition meta pages and the full snapshot's say they were applied), nor for a node restarted and
rebalanced.

The self-test rewrites the counter of the last entry of a node's newest raw segment 1000 higher (the
record's CRC recomputed): walcut must report the gap below it on that copy, and exit 1. Then, with
the full snapshots' page files removed from a fixture whose archive lost its first segments, what
the WAL alone cannot tell must be said (a warning naming the node and its first segment), not
reported as gaps nor passed over in silence.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dump_truth import rewrite_counter  # noqa: E402


class Mismatch(Exception):
    pass


def gaps(walcut, paths):
    p = subprocess.run([walcut, "gaps", "--json", *paths], capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise Mismatch(f"walcut gaps {' '.join(paths)}: exit {p.returncode}, no JSON: {p.stderr.strip()}")
    return p.returncode, doc, p.stderr


def open_gaps(doc):
    return [(n["node"], c["cache"], c["partition"], g) for n in doc["nodes"] for c in n["partitions"]
            for g in c["owners"]]


def check_fixture(walcut, fixture):
    inputs = [[os.path.join(fixture, "nodes")]]
    names = sorted({os.path.basename(p) for p in glob.glob(os.path.join(fixture, "nodes", "*", "work", "snapshots", "*"))})
    for name in names:
        inputs.append(sorted(glob.glob(os.path.join(fixture, "nodes", "*", "work", "snapshots", name))))
    copies = 0
    for paths in inputs:
        code, doc, err = gaps(walcut, paths)
        found = open_gaps(doc)
        if code != 0 or found:
            raise Mismatch(f"walcut gaps {' '.join(paths)}: exit {code}, {len(found)} open gap(s), the first "
                           f"{found[:1]}; Ignite left none. {err.strip()[:300]}")
        copies += sum(len(n["partitions"]) for n in doc["nodes"])
    return copies, len(inputs)


def self_test(walcut, fixture):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        node = sorted(glob.glob(os.path.join(copy, "nodes", "*")))[0]
        folder = sorted(glob.glob(os.path.join(node, "work", "db", "wal", "archive", "*")))[0]
        raw = sorted(f for f in os.listdir(folder) if f.endswith(".wal"))[-1]
        rec = rewrite_counter(os.path.join(folder, raw), os.path.join(node, "ignite-records.jsonl"), delta=1000,
                              last=True)
        entry = rec["entries"][0]
        code, doc, _ = gaps(walcut, [os.path.join(copy, "nodes")])
        want = entry["counter"] + 999
        hits = [g for g in open_gaps(doc) if g[2] == entry["partition"] and g[3]["last"] == want]
        if code != 1 or not hits:
            raise Mismatch(f"counter {entry['counter']} of partition {entry['partition']} rewritten to "
                           f"{entry['counter'] + 1000} in {raw}: walcut gaps exit {code}, gaps {open_gaps(doc)[:3]}")
        print(f"self-test: a counter rewritten 1000 higher in {raw}: exit {code}, gap {hits[0][3]['first']}.."
              f"{hits[0][3]['last']} on {hits[0][0]} partition {hits[0][2]}")
    truncated = os.path.join(os.path.dirname(os.path.abspath(fixture)), "truncated")
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(truncated, copy)
        for part in glob.glob(os.path.join(copy, "nodes", "*", "work", "snapshots", "*", "db", "*", "*", "part-*.bin")):
            os.remove(part)
        code, doc, err = gaps(walcut, [os.path.join(copy, "nodes")])
        unread = [(n["node"], c["partition"]) for n in doc["nodes"] for c in n["partitions"] if c["unread_below"] > 0]
        if code != 0 or open_gaps(doc) or not unread or "not known" not in err:
            raise Mismatch(f"truncated archive without the snapshots' page files: exit {code}, gaps "
                           f"{open_gaps(doc)[:3]}, {len(unread)} copies with unread counters, stderr {err.strip()[:300]}")
        print(f"self-test: without the snapshots' page files, {len(unread)} copies' first counters are not known: "
              f"{err.strip().splitlines()[0]}")


def main():
    args = sys.argv[1:]
    try:
        if args and args[0] == "--self-test":
            self_test(args[1], args[2])
            print("self-test passed")
        else:
            copies, runs = check_fixture(args[0], args[1])
            print(f"{args[1]}: {copies} partition copies over {runs} reading(s), no open gap")
    except Mismatch as e:
        print(f"MISMATCH: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
