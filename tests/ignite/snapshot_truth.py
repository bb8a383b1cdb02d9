#!/usr/bin/env python3
"""walcut data and walcut verify of a real Apache Ignite full snapshot agree with Ignite (truth.json).

For a fixture made by tests/ignite/run whose truth records every node's copies after Ignite's
restore of each full snapshot (snapshots[].restored.copies) and Ignite's own snapshot check
(snapshots[].check):
  - `walcut data --json --snapshot NAME FIXTURE/nodes` holds, node by node and cache by cache, the
    rows Ignite's restore of the full snapshot left on that node (Ignite restores a snapshot onto the
    same baseline: each node gets its own copies back);
  - `walcut verify --snapshot NAME FIXTURE/nodes` passes where Ignite's check passed;
  - on a copy of the fixture damaged as the harness damaged the live snapshot for Ignite's check
    (the byte patches truth.json records): one byte of a data page changed (CRC left), and the same
    byte with the page's CRC written anew (one copy of a partition then differs from its backup),
    walcut verify fails as Ignite's check failed: a damaged page of the same node and file, and a
    content conflict of the same group and partition, with Ignite's own pair of hashes for every copy.

--self-test: a truth.json with one row of a restored copy changed must fail the comparison, and one
whose sound check is turned into a failure must fail too.
"""
import copy as copying
import json
import os
import shutil
import subprocess
import sys
import tempfile

from copies import Mismatch, compare_copies, folder, truth_copies, walcut_copies


def run(walcut, *args):
    return subprocess.run([walcut] + list(args), capture_output=True, text=True)


def patched(fixture, tmp, damage):
    """A copy of the fixture's nodes with the damage's byte patches applied."""
    nodes = os.path.join(tmp, "nodes")
    shutil.rmtree(nodes, ignore_errors=True)
    shutil.copytree(os.path.join(fixture, "nodes"), nodes)
    work = os.path.join(nodes, damage["node"], "work")
    for p in damage["patches"]:
        path = os.path.join(work, p["file"])
        data = bytearray(open(path, "rb").read())
        before, after = bytes.fromhex(p["before"]), bytes.fromhex(p["after"])
        at = p["offset"]
        if bytes(data[at:at + len(before)]) != before:
            raise Mismatch(f"{path}: the bytes at {at} are not those the harness patched")
        data[at:at + len(after)] = after
        open(path, "wb").write(bytes(data))
    return nodes


def verify_json(walcut, nodes, name):
    p = run(walcut, "verify", "--json", "--snapshot", name, nodes)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        raise Mismatch(f"walcut verify --json --snapshot {name}: exit {p.returncode}, no JSON\n{p.stderr}")


def check_damage(walcut, fixture, name, kind, damage):
    ignite = damage["result"]
    if ignite.get("ok"):
        raise Mismatch(f"{name} {kind}: Ignite's check passed a damaged snapshot; the harness's damage is void")
    with tempfile.TemporaryDirectory() as tmp:
        code, doc = verify_json(walcut, patched(fixture, tmp, damage), name)
    if code != 1 or doc["ok"]:
        raise Mismatch(f"{name} {kind}: Ignite's check fails, walcut verify exit {code}")
    node = folder(damage["node"])
    damaged_file = damage["patches"][0]["file"].split("/")[-1]
    if ignite.get("exceptions"):
        # A page Ignite could not read (its CRC): walcut names the same node and file as damaged.
        if not any(c["kind"] == "damaged" and node in c["nodes"] and damaged_file in c["detail"] for c in doc["conflicts"]):
            raise Mismatch(f"{name} {kind}: Ignite's check fails on {damage['node']} ({ignite['exceptions'][0]['message'][:120]}); "
                           f"walcut reports no damaged page of {damaged_file} there: {doc['conflicts']}")
        return f"damaged page of {node} {damaged_file}, as Ignite's CRC failure"
    want = {(c["group"], c["partition"]) for c in ignite["hash_conflicts"] + ignite["counter_conflicts"]}
    got = {(c["group"], c["partition"]) for c in doc["conflicts"] if c["kind"] in ("content", "counter")}
    if want != got:
        raise Mismatch(f"{name} {kind}: Ignite's conflicts are in {sorted(want)}, walcut's in {sorted(got)}")
    # Ignite's own hashes of each copy, as walcut computes them.
    for c in ignite["hash_conflicts"]:
        ours = next(x for x in doc["conflicts"] if x["kind"] == "content" and
                    (x["group"], x["partition"]) == (c["group"], c["partition"]))
        mine = {x["node"]: (x["ignite_hash"], x["ignite_ver_hash"]) for x in ours["copies"]}
        for rec in c["copies"]:
            if mine.get(folder(rec["node"])) != (rec["hash"], rec["ver_hash"]):
                raise Mismatch(f"{name} {kind}: Ignite hashes {rec['node']}'s copy of {c['group']} partition "
                               f"{c['partition']} {rec['hash']}/{rec['ver_hash']}, walcut {mine.get(folder(rec['node']))}")
    return f"content conflict in {sorted(want)} with Ignite's hashes of every copy"


def check_fixture(walcut, fixture, truth=None):
    truth = truth or json.load(open(os.path.join(fixture, "truth.json")))
    snapshots = truth.get("snapshots", [])
    done = 0
    nodes = os.path.join(fixture, "nodes")
    for snp in snapshots:
        name = snp["name"]
        restored = snp.get("restored") or {}
        if "copies" not in restored or "check" not in snp:
            continue
        rows = compare_copies(f"full snapshot {name}", truth_copies(restored),
                              walcut_copies(walcut, "--snapshot", name, nodes))
        print(f"  {name}: walcut data holds every node's copy of every cache as Ignite restored it ({rows} rows)")
        code, doc = verify_json(walcut, nodes, name)
        sound = snp["check"]["sound"]
        if bool(sound.get("ok")) != (code == 0):
            raise Mismatch(f"{name}: Ignite's check says {'ok' if sound.get('ok') else 'not ok'}, walcut verify exit "
                           f"{code}: {doc.get('conflicts')}")
        print(f"  {name}: walcut verify {'passes' if code == 0 else 'fails'} as Ignite's check "
              f"({doc['partitions']} partitions, {doc['files']} files)")
        for kind in ("page_byte", "copy_differs"):
            if kind in snp["check"]:
                print(f"  {name} {kind}: walcut verify fails as Ignite's check: "
                      f"{check_damage(walcut, fixture, name, kind, snp['check'][kind])}")
        done += 1
    if done == 0:
        raise Mismatch("the truth holds no full snapshot with its copies and Ignite's check")
    return done


def expect_mismatch(what, fn):
    try:
        fn()
    except Mismatch as e:
        print(f"  self-test: {what}: caught ({str(e).splitlines()[0][:160]})")
        return
    raise Mismatch(f"self-test: {what}: not caught")


def self_test(walcut, fixture):
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    check_fixture(walcut, fixture, truth)
    altered = copying.deepcopy(truth)
    snp = next(s for s in altered["snapshots"] if "copies" in (s.get("restored") or {}))
    node = sorted(snp["restored"]["copies"])[0]
    cache = next(c for c, rows in sorted(snp["restored"]["copies"][node].items()) if rows)
    row = snp["restored"]["copies"][node][cache][0]
    row[2] = row[2] + "x"
    expect_mismatch(f"a row of {node}'s copy of {cache} changed", lambda: check_fixture(walcut, fixture, altered))
    altered = copying.deepcopy(truth)
    snp = next(s for s in altered["snapshots"] if "check" in s)
    snp["check"]["sound"]["ok"] = False
    expect_mismatch("Ignite's check of the sound snapshot said to fail", lambda: check_fixture(walcut, fixture, altered))


def main():
    args = sys.argv[1:]
    try:
        if args and args[0] == "--self-test":
            self_test(args[1], args[2])
            print("snapshot_truth self-test: ok")
        else:
            n = check_fixture(args[0], args[1])
            print(f"snapshot_truth: {n} full snapshot(s) read and checked by walcut as Ignite did: ok")
    except Mismatch as e:
        print(f"snapshot_truth: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
