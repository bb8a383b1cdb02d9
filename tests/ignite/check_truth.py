#!/usr/bin/env python3
"""Checks that the output of the Ignite reference harness (tests/ignite/run) is self-consistent.

    check_truth.py OUTDIR               check one run or fixture; one line per failure, exit 1 on any
    check_truth.py --self-test OUTDIR   show that the check fails on damaged copies of OUTDIR

What is checked (the contract is described in tests/ignite/README.md):
  - truth.json parses, has schema 1 and the fields the readers rely on;
  - money is conserved: the final balances, the restore of the full snapshot and the restore of every
    successful increment each add up to the scenario's initial total, and each "total" is the sum of
    its balances;
  - every successful increment has a restore without error and an INCREMENTAL_SNAPSHOT_FINISH_RECORD
    with its request id in the ignite-records.jsonl of every baseline server node;
  - every failed increment is incomplete on at least one node: that node lacks the Finish record with
    its request id or the increment's metadata file (.smf). Ignite 2.17 can write the Finish record on
    every node and still fail the increment in a later stage (the failed-increment scenario
    shows it), so the absence of a Finish record alone is not required;
  - successful increments have distinct indexes 1..n in order;
  - every record line parses, has the common fields, and names a file that exists in the node's work
    directory; the per-type counts of truth.json match the record files.
"""
import json
import os
import shutil
import sys
import tempfile

COMMON = (("file", str), ("segment", int), ("offset", int), ("length", int), ("type", str))


def check(outdir):
    """Returns a list of failure lines (empty when the output is consistent)."""
    fails = []
    try:
        with open(os.path.join(outdir, "truth.json"), encoding="utf-8") as f:
            truth = json.load(f)
    except (OSError, ValueError) as e:
        return [f"truth.json: cannot be read: {e}"]

    if truth.get("schema") != 1:
        fails.append(f"truth.json: schema is {truth.get('schema')!r}, expected 1")
    for key in ("ignite_version", "scenario", "nodes", "snapshot", "increments", "transactions",
                "final_balances", "records_per_type"):
        if key not in truth:
            fails.append(f"truth.json: missing field {key!r}")
    if fails:
        return fails

    scenario = truth["scenario"]
    initial = scenario.get("initial_total")
    if not isinstance(initial, int):
        return fails + [f"truth.json: scenario.initial_total is {initial!r}"]

    def money(what, b):
        if not isinstance(b, dict) or "balances" not in b or "total" not in b:
            fails.append(f"{what}: no balances and total ({b!r:.120})")
            return
        s = sum(x["balance"] for x in b["balances"])
        if s != b["total"]:
            fails.append(f"{what}: balances add up to {s}, but total says {b['total']}")
        if b["total"] != initial:
            fails.append(f"{what}: total {b['total']} differs from the initial total {initial}")

    money("final_balances", truth["final_balances"])
    restored = truth["snapshot"].get("restored")
    if restored is not None:
        if "error" in restored:
            fails.append(f"snapshot: Ignite's restore of the full snapshot failed: {restored['error']}")
        else:
            money("snapshot.restored", restored)

    # Finish records per node, by request id; every record line checked on the way.
    node_ids = [n["consistent_id"] for n in truth["nodes"]]
    finish = {}
    for nid in node_ids:
        finish[nid] = set()
        work = os.path.join(outdir, "nodes", nid, "work")
        path = os.path.join(outdir, "nodes", nid, "ignite-records.jsonl")
        if not os.path.isdir(work):
            fails.append(f"{nid}: work directory nodes/{nid}/work is missing")
        counts, seen, files = {}, set(), set()
        try:
            lines = open(path, encoding="utf-8")
        except OSError as e:
            fails.append(f"{nid}: {e}")
            continue
        with lines:
            for no, line in enumerate(lines, 1):
                where = f"nodes/{nid}/ignite-records.jsonl:{no}"
                try:
                    r = json.loads(line)
                except ValueError as e:
                    fails.append(f"{where}: not JSON: {e}")
                    continue
                bad = [k for k, t in COMMON if not isinstance(r.get(k), t) or isinstance(r.get(k), bool)]
                if bad:
                    fails.append(f"{where}: missing or mistyped common field(s) {', '.join(bad)}")
                    continue
                files.add(r["file"])
                at = (r["segment"], r.get("stored_offset", r["offset"]))
                if at not in seen:
                    seen.add(at)
                    counts[r["type"]] = counts.get(r["type"], 0) + 1
                if r["type"] == "INCREMENTAL_SNAPSHOT_FINISH_RECORD":
                    if not isinstance(r.get("id"), str):
                        fails.append(f"{where}: Finish record without an id")
                    else:
                        finish[nid].add(r["id"])
        for f in sorted(files):
            if not os.path.isfile(os.path.join(work, f)):
                fails.append(f"{nid}: records name {f}, which is not in nodes/{nid}/work")
        want = truth["records_per_type"].get(nid)
        if want is not None and want != counts:
            diff = sorted(k for k in set(want) | set(counts) if want.get(k) != counts.get(k))
            fails.append(f"{nid}: records_per_type differs from ignite-records.jsonl for "
                         + ", ".join(f"{k} ({want.get(k, 0)} vs {counts.get(k, 0)})" for k in diff))

    for snp in truth.get("snapshots", [])[1:]:  # a later full snapshot restores with all the money too
        r = snp.get("restored")
        if r is not None and "error" not in r:
            money(f"snapshot {snp.get('name')} restored", r)
    last_index = {}  # per full snapshot: its increments are numbered from 1
    for inc in truth["increments"]:
        name = f"increment attempt {inc.get('attempt')} (index {inc.get('index')})"
        rq = inc.get("request_id")
        snapshot = inc.get("snapshot") or truth["snapshot"]["name"]
        if inc.get("ok"):
            last = last_index.get(snapshot, 0)
            if not isinstance(inc.get("index"), int):
                fails.append(f"{name}: successful but has no index")
            elif inc["index"] != last + 1:
                fails.append(f"{name}: successful increments of {snapshot} should be numbered 1..n in order, "
                             f"expected index {last + 1}")
            else:
                last_index[snapshot] = inc["index"]
            if not rq:
                fails.append(f"{name}: successful but has no request id")
            else:
                for nid in node_ids:
                    if rq not in finish[nid]:
                        fails.append(f"{name}: no INCREMENTAL_SNAPSHOT_FINISH_RECORD with id {rq} on {nid}")
                    meta = (inc.get("nodes") or {}).get(nid) or {}
                    if meta.get("request_id") != rq:
                        fails.append(f"{name}: {nid} has no increment metadata (.smf) with request id {rq}")
                    elif not os.path.isfile(os.path.join(outdir, meta["smf"])):
                        fails.append(f"{name}: {meta['smf']} is missing")
            r = inc.get("restored")
            if r is None:
                fails.append(f"{name}: successful but was not restored")
            elif "error" in r:
                fails.append(f"{name}: Ignite's restore failed: {r['error']}")
            else:
                money(f"{name} restored", r)
        else:
            if not inc.get("error"):
                fails.append(f"{name}: failed without an error message")
            def complete(nid):
                meta = (inc.get("nodes") or {}).get(nid) or {}
                return rq in finish[nid] and meta.get("request_id") == rq
            if rq and all(complete(nid) for nid in node_ids):
                # Ignite failed the operation after every node had done its part (a node stopped
                # late): the harness then asks Ignite to restore it, and its answer is the truth
                # walcut is held to (check_cuts.py, restore_truth.py).
                r = inc.get("restored")
                if r is None:
                    fails.append(f"{name}: failed, yet every node has its Finish record (id {rq}) and its "
                                 "metadata, and the harness did not try Ignite's restore of it")
                elif "error" not in r:
                    money(f"{name} (failed, kept on every node) restored", r)
    return fails


def self_test(outdir):
    """The check passes on a copy of OUTDIR and fails on two damaged copies."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="check_truth_") as tmp:
        def fresh(name):
            dst = os.path.join(tmp, name)
            shutil.copytree(outdir, dst)
            return dst

        intact = fresh("intact")
        f = check(intact)
        if f:
            problems.append("the intact copy does not pass: " + f[0])

        # 1. One restored balance of the first successful increment changed by one.
        money = fresh("money")
        tp = os.path.join(money, "truth.json")
        with open(tp, encoding="utf-8") as fh:
            truth = json.load(fh)
        target = next((i for i in truth["increments"] if i.get("ok") and "balances" in (i.get("restored") or {})),
                      None)
        if target is None:
            problems.append("no successful, restored increment to damage")
        else:
            target["restored"]["balances"][0]["balance"] += 1
            with open(tp, "w", encoding="utf-8") as fh:
                json.dump(truth, fh)
            f = check(money)
            if not any("restored" in x for x in f):
                problems.append("a changed restored balance was not noticed")
            else:
                print(f"changed restored balance -> {f[0]}")

        # 2. One Finish record line removed from the first node's records.
        rec = fresh("finish")
        with open(os.path.join(rec, "truth.json"), encoding="utf-8") as fh:
            nid = json.load(fh)["nodes"][0]["consistent_id"]
        rp = os.path.join(rec, "nodes", nid, "ignite-records.jsonl")
        with open(rp, encoding="utf-8") as fh:
            lines = fh.readlines()
        keep, removed = [], None
        ok_ids = {i["request_id"] for i in truth["increments"] if i.get("ok")}
        for line in lines:
            r = json.loads(line)
            if removed is None and r["type"] == "INCREMENTAL_SNAPSHOT_FINISH_RECORD" and r.get("id") in ok_ids:
                removed = r
                continue
            keep.append(line)
        if removed is None:
            problems.append(f"no Finish record of a successful increment on {nid} to remove")
        else:
            # Every copy of that record (work file, raw archive, .wal.zip) goes, as if Ignite had not written it.
            keep = [l for l in keep if not (json.loads(l)["type"] == removed["type"]
                                           and json.loads(l).get("id") == removed["id"])]
            with open(rp, "w", encoding="utf-8") as fh:
                fh.writelines(keep)
            f = check(rec)
            if not any("no INCREMENTAL_SNAPSHOT_FINISH_RECORD" in x for x in f):
                problems.append("a removed Finish record was not noticed")
            else:
                print(f"removed Finish record -> {next(x for x in f if 'no INCREMENTAL' in x)}")
    return problems


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        problems = self_test(argv[2])
        for p in problems:
            print(f"check_truth self-test: {p}")
        if not problems:
            print(f"check_truth self-test: {argv[2]}: the check passes intact and fails on damaged copies")
        return 1 if problems else 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: check_truth.py OUTDIR | --self-test OUTDIR", file=sys.stderr)
        return 2
    fails = check(argv[1])
    for x in fails:
        print(f"{argv[1]}: {x}")
    if not fails:
        print(f"{argv[1]}: consistent")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
