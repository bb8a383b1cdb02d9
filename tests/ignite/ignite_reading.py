"""A cut's sides as Ignite's own WAL reader gives them (each node's ignite-records.jsonl).

Ignite completes an increment without comparing its nodes' sides: a transaction a node excludes
(its Finish record's excluded set) can be committed before the Start record and not excluded on
another participant (a race in Ignite's marking of one-phase commits). walcut calls such a cut
inconsistent; the harness accepts that only where Ignite's own reading of the same records shows
it, classified as Ignite's IncrementalSnapshotProcessor applies them: a transaction's entry is
in the increment on a node iff it precedes the Start record and is not excluded, or follows it
and is included.
"""
import functools
import glob
import json
import os


@functools.lru_cache(maxsize=None)
def _records(node_dir):
    """Each record of the node once, in WAL order. A segment is often read from several files
    (the raw segment, its compacted .wal.zip, the increments' copies), whose offsets differ:
    each segment's records come from one file, a raw one where there is one."""
    path = os.path.join(node_dir, "ignite-records.jsonl")
    if not os.path.exists(path):
        return ()
    by_file = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "segment" in r and "offset" in r and "file" in r:
                by_file.setdefault((r["segment"], r["file"]), []).append(r)
    chosen = {}
    for segment, name in sorted(by_file, key=lambda k: (k[0], k[1].endswith(".zip"), k[1])):
        chosen.setdefault(segment, name)
    out = []
    for segment in sorted(chosen):
        out.extend(sorted(by_file[(segment, chosen[segment])], key=lambda r: r["offset"]))
    return tuple(out)


def side_mismatches(fixture, cut_id):
    """{near version: {"before": [node...], "after": [node...]}} for the transactions of cut
    `cut_id` that Ignite's reading puts on different sides on different participants."""
    return {tx: s for tx, s in cut_sides(fixture, cut_id).items() if s.get("before") and s.get("after")}


def cut_sides(fixture, cut_id):
    """{near version: {"before": [node...], "after": [node...]}} for every transaction with
    entries of a TRANSACTIONAL cache on a node that wrote both of cut `cut_id`'s records: in
    the increment there ("before") when Ignite's restore applies its entries, as
    IncrementalSnapshotProcessor filters them by their place (before the Start record unless
    the Finish record excludes it; after it only when it includes it)."""
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    transactional = {c["cache_id"] for c in truth["scenario"]["caches"] if c.get("atomicity", "TRANSACTIONAL") ==
                     "TRANSACTIONAL"}
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
            if r["type"] != "DATA_RECORD_V2":
                continue
            at = (r["segment"], r["offset"])
            for e in r.get("entries", []):
                tx = e.get("near")
                if not tx or e.get("cache_id") not in transactional:
                    continue
                applied = (at < start and tx not in excluded) or (start < at and tx in included)
                sides.setdefault(tx, {}).setdefault("before" if applied else "after", set()).add(node)
    return {tx: {k: sorted(v) for k, v in s.items()} for tx, s in sides.items()}
