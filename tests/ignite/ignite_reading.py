"""A cut's sides as Ignite's own WAL reader gives them (each node's ignite-records.jsonl).

Ignite completes an increment without comparing its nodes' sides: a transaction a node excludes
(its Finish record's excluded set) can be committed before the Start record and not excluded on
another participant (a race in Ignite's marking of one-phase commits). walcut calls such a cut
inconsistent; the harness accepts that only where Ignite's own reading of the same records shows
it, classified as Ignite's IncrementalSnapshotProcessor applies them: a transaction is in the
increment on a node iff its COMMITTED TxRecord precedes the Start record and is not excluded, or
lies between Start and Finish and is included.
"""
import functools
import glob
import json
import os


@functools.lru_cache(maxsize=None)
def _records(node_dir):
    """Each record of the node once (the same segment is read from several files)."""
    seen = {}
    path = os.path.join(node_dir, "ignite-records.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "segment" in r and "offset" in r:
                seen.setdefault((r["segment"], r["offset"]), r)
    return tuple(seen[k] for k in sorted(seen))


def side_mismatches(fixture, cut_id):
    """{near version: {"before": [node...], "after": [node...]}} for the transactions of cut
    `cut_id` that Ignite's reading puts on different sides on different participants."""
    return {tx: s for tx, s in cut_sides(fixture, cut_id).items() if s.get("before") and s.get("after")}


def cut_sides(fixture, cut_id):
    """{near version: {"before": [node...], "after": [node...]}} for every transaction a node
    that wrote both of cut `cut_id`'s records committed, as Ignite's reading places it."""
    sides = {}
    for node_dir in sorted(glob.glob(os.path.join(fixture, "nodes", "*"))):
        node = os.path.basename(node_dir)
        records = _records(node_dir)
        start = finish = None
        included, excluded = set(), set()
        for r in records:
            if r.get("id") != cut_id:
                continue
            if r["type"] == "INCREMENTAL_SNAPSHOT_START_RECORD":
                start = (r["segment"], r["offset"])
            elif r["type"] == "INCREMENTAL_SNAPSHOT_FINISH_RECORD":
                finish = (r["segment"], r["offset"])
                included, excluded = set(r.get("included", [])), set(r.get("excluded", []))
        if start is None or finish is None:
            continue
        for r in records:
            if r["type"] != "TX_RECORD" or r.get("state") != "COMMITTED" or not r.get("near"):
                continue
            at, tx = (r["segment"], r["offset"]), r["near"]
            before = (at < start and tx not in excluded) or (start <= at < finish and tx in included)
            sides.setdefault(tx, {}).setdefault("before" if before else "after", set()).add(node)
    return {tx: {k: sorted(v) for k, v in s.items()} for tx, s in sides.items()}
