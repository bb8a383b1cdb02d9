#!/usr/bin/env python3
"""walcut restore of a real Apache Ignite increment equals Ignite's own restore (truth.json).

For a fixture made by tests/ignite/run: for every increment Ignite completed,
`walcut restore FIXTURE/nodes [--snapshot NAME] --increment N -o OUT` must succeed, and
`walcut data OUT --json` must hold, key by key, the balances Ignite's own restore of that increment
held (truth.json's increments[].restored: the bank cache's Long values, the vault cache's
Account.balance field), no key more or less, each key in as many copies as its cache has
(backups + 1), every copy alike, and the money conserved (the total is the workload's initial
total). Where the truth has every node's copies (scenarios with more caches: a cache group, an
ATOMIC cache, binary keys, values over a page), each node's copy of every cache must equal the
node's copy after Ignite's restore, row for row (copies.py).

--self-test: a truth.json with one restored balance changed must fail the comparison; a copy of
the fixture where one node's DATA record has a value rewritten (CRC sound) must make the restore
refuse (its copies no longer agree); and one where a node's first archive segment is gone must be
refused (its WAL no longer reaches back to its first record, nor, here, to the full snapshot's).
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from copies import Mismatch, compare_copies, differing_partitions, truth_copies, walcut_copies
from ignite_reading import side_mismatches


CLASS_OF = {"int": "int", "long": "long", "string": "String"}


def run(walcut, *args):
    return subprocess.run([walcut] + list(args), capture_output=True, text=True)


def balance_of(value, value_class):
    if value_class == "long":
        return int(value)
    m = re.search(r"[{,]balance=(-?\d+)[,}]", value)
    if value_class != "binary" or m is None:
        raise Mismatch(f"a value walcut restored is neither a Long nor an Account with a balance: {value_class} {value}")
    return int(m.group(1))


MONEY = ("bank", "vault")


def restored_balances(walcut, out, caches):
    """{(cache name, key class, key text): [balance of each copy]} from walcut data --json, of the
    caches that hold the money."""
    p = run(walcut, "data", "--json", out)
    if p.returncode != 0:
        raise Mismatch(f"walcut data {out}: exit {p.returncode}\n{p.stderr}")
    copies = {}
    for node in json.loads(p.stdout)["nodes"]:
        for part in node["partitions"]:
            cache = part["cache"] - (1 << 32) if part["cache"] >= (1 << 31) else part["cache"]
            name = caches.get(cache)
            if name is None:
                raise Mismatch(f"{node['node']}: cache id {part['cache']} is none of the scenario's caches")
            if name not in MONEY:
                continue
            for e in part["entries"]:
                key = (name, e["key_class"], e["key"])
                copies.setdefault(key, []).append(balance_of(e["value"], e["value_class"]))
    return copies


def compare(inc, copies, truth):
    scenario = truth["scenario"]
    want_copies = {c["name"]: c["backups"] + 1 for c in scenario["caches"] if c["name"] in MONEY}
    want = {}
    for b in inc["restored"]["balances"]:
        want[(b["cache"], CLASS_OF[b["key"]["type"]], str(b["key"]["value"]))] = b["balance"]
    where = f"increment {inc['index']} ({inc['request_id']})"
    for key, balance in want.items():
        got = copies.get(key)
        if got is None:
            raise Mismatch(f"{where}: Ignite restored {key} = {balance}; walcut restored no such key")
        if any(g != balance for g in got):
            raise Mismatch(f"{where}: Ignite restored {key} = {balance}; walcut's copies hold {got}")
        if len(got) != want_copies[key[0]]:
            raise Mismatch(f"{where}: {key} in {len(got)} copies, cache {key[0]} keeps {want_copies[key[0]]}")
    for key, got in copies.items():
        if key not in want:
            raise Mismatch(f"{where}: walcut restored {key} = {got}; Ignite's restore has no such key")
    total = sum(v[0] for v in copies.values())
    if total != inc["restored"]["total"] or total != scenario["initial_total"]:
        raise Mismatch(f"{where}: walcut's restore totals {total}, Ignite's {inc['restored']['total']}, "
                       f"the initial total {scenario['initial_total']}")
    return len(want)


def from_snapshot_copies(fixture, snapshot, tmp):
    """The snapshot's directories alone, without any node's own WAL: as several DIRs, and as one folder
    holding a copy from each node under another name."""
    dirs = sorted(glob.glob(os.path.join(fixture, "nodes", "*", "work", "snapshots", snapshot)))
    if not dirs or not glob.glob(os.path.join(dirs[0], "db", "*", "cache*")):
        return []
    held = os.path.join(tmp, f"copies-of-{snapshot}")
    if not os.path.isdir(held):
        for d in dirs:
            shutil.copytree(d, os.path.join(held, "copy-of-" + d.split(os.sep)[-4]))
    return [("its snapshot directories", dirs), ("a folder of their copies", [held])]


def restore_fixture(walcut, fixture, truth=None):
    truth = truth or json.load(open(os.path.join(fixture, "truth.json")))
    caches = {c["cache_id"]: c["name"] for c in truth["scenario"]["caches"]}
    done = 0
    with tempfile.TemporaryDirectory() as tmp:
        for inc in truth["increments"]:
            # Completed, or failed by Ignite after every node kept it and restored by Ignite all the same.
            r = inc.get("restored")
            if not inc["ok"] and (r is None or "error" in r):
                continue
            snapshot = inc.get("snapshot") or truth["snapshot"]["name"]
            out = os.path.join(tmp, f"{snapshot}-increment-{inc['index']}")
            p = run(walcut, "restore", os.path.join(fixture, "nodes"), "--snapshot", snapshot,
                    "--increment", str(inc["index"]), "-o", out)
            sides = side_mismatches(fixture, inc["request_id"])
            if sides:
                # Ignite completed it, but by Ignite's own reading a transaction is in it on one
                # participant and not on another (check_cuts.py): walcut must refuse it, write nothing.
                if p.returncode != 1 or os.path.exists(out):
                    raise Mismatch(f"increment {inc['index']} of {snapshot}: by Ignite's own reading its sides "
                                   f"differ ({sorted(sides)[:3]}); walcut restore exit {p.returncode}, expected a "
                                   f"refusal (1) and no output\n{p.stderr}")
                print(f"  increment {inc['index']} of {snapshot}: its sides differ by Ignite's own reading "
                      f"({len(sides)} transaction(s)); walcut refuses it: {p.stderr.splitlines()[0][:120]}")
                continue
            if p.returncode != 0:
                raise Mismatch(f"walcut restore --snapshot {snapshot} --increment {inc['index']}: exit {p.returncode}"
                               f"\n{p.stderr}")
            v = run(walcut, "verify", out)
            if v.returncode != 0:
                raise Mismatch(f"walcut verify of increment {inc['index']}: exit {v.returncode}\n{v.stdout}{v.stderr}")
            keys = compare(inc, restored_balances(walcut, out, caches), truth)
            rows = ""
            if "copies" in r:
                names = {str(c["cache_id"]): c["name"] for c in truth["scenario"]["caches"]}
                n = compare_copies(f"increment {inc['index']} of {snapshot}", truth_copies(r),
                                   walcut_copies(walcut, out), names)
                rows = f"; every node's copy of every cache row for row ({n} rows)"
                # Where Ignite's own copies differ (an ATOMIC cache), walcut's restore says so.
                warned = set(re.findall(r"ATOMIC cache (\S+) \(-?\d+\) partition (\d+) ", p.stderr))
                for cache, part in sorted(differing_partitions(truth_copies(r))):
                    if (cache, str(part)) not in warned:
                        raise Mismatch(f"increment {inc['index']} of {snapshot}: Ignite's copies of {cache} partition "
                                       f"{part} differ and walcut's restore gave no warning of it\n{p.stderr}")
                    rows += f"; {cache} partition {part}'s copies differ as in Ignite's restore, with a warning"
                for how, dirs in from_snapshot_copies(fixture, snapshot, tmp):
                    alone = os.path.join(tmp, f"{snapshot}-increment-{inc['index']}-{how}")
                    p = run(walcut, "restore", *dirs, "--increment", str(inc["index"]), "-o", alone)
                    if p.returncode != 0:
                        raise Mismatch(f"walcut restore of increment {inc['index']} from {how}: exit {p.returncode}"
                                       f"\n{p.stderr}")
                    compare_copies(f"increment {inc['index']} of {snapshot} from {how}", truth_copies(r),
                                   walcut_copies(walcut, alone), names)
                    rows += f"; the same from {how}"
            print(f"  increment {inc['index']} of {snapshot}: {keys} keys as Ignite restored them, total "
                  f"{inc['restored']['total']}{rows}")
            done += 1
    if done == 0:
        raise Mismatch("Ignite completed no increment in this fixture: nothing to compare")
    return done


def expect_mismatch(what, fn):
    try:
        fn()
    except Mismatch as e:
        print(f"  self-test: {what}: caught ({str(e).splitlines()[0][:160]})")
        return
    raise Mismatch(f"self-test: {what}: not caught")


def rewrite_value(path, offset, length, old, new):
    """In the frame at `offset` of a raw segment, one Long value `old` becomes `new`, CRC rewritten."""
    data = bytearray(open(path, "rb").read())
    frame = bytes(data[offset:offset + length])
    needle = struct.pack("<bq", 4, old)  # GridBinaryMarshaller.LONG, then the value
    at = frame.find(needle)
    if at < 0:
        return False
    struct.pack_into("<q", data, offset + at + 1, new)
    crc = ~zlib.crc32(bytes(data[offset:offset + length - 4])) & 0xFFFFFFFF
    struct.pack_into("<I", data, offset + length - 4, crc)
    open(path, "wb").write(bytes(data))
    return True


def self_test(walcut, fixture):
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    restore_fixture(walcut, fixture, truth)  # sound before anything is altered
    altered = json.loads(json.dumps(truth))
    inc = next(i for i in altered["increments"] if i["ok"])
    inc["restored"]["balances"][0]["balance"] += 1
    expect_mismatch("a restored balance changed in truth.json", lambda: restore_fixture(walcut, fixture, altered))
    first = next(i for i in truth["increments"] if i["ok"])
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        # On server-1, the last write before the first increment's Finish record of a bank key
        # to the value Ignite restored (the write the restore applies), rewritten in each raw file
        # of its segment.
        work = os.path.join(copy, "nodes", "server-1", "work")
        finish = first["nodes"]["server-1"]["finish_record"]
        restored = {(CLASS_OF[b["key"]["type"]], str(b["key"]["value"])): b["balance"]
                    for b in first["restored"]["balances"] if b["cache"] == "bank"}
        p = run(walcut, "dump", "--json", "--type", "DATA_RECORD_V2", work)
        target, last = None, {}
        for line in p.stdout.splitlines():
            r = json.loads(line)
            if (r["segment"], r["offset"]) >= (finish["index"], finish["offset"]):
                break
            for e in r.get("entries", []):
                key = (e["key_class"], e["key"])
                if e.get("value_class") == "long" and key in restored:
                    last[key] = (r, int(e["value"]))
        for key, (r, v) in last.items():
            if v == restored[key] and r["segment"] == 0:
                target, value = r, v
        if target is None:
            raise Mismatch("server-1 wrote no restored bank value in segment 0 before the first increment")
        rewritten = 0
        for root, _, files in os.walk(os.path.join(work, "db", "wal")):
            for name in files:
                path = os.path.join(root, name)
                if name.endswith(".wal"):
                    with open(path, "rb") as f:
                        head = f.read(9)
                    if len(head) == 9 and head[0] == 5 and struct.unpack_from("<q", head, 1)[0] == 0:
                        rewritten += rewrite_value(path, target["offset"], target["size"], value, value + 1000)
                elif name.endswith(".wal.zip") and name.startswith("0000000000000000"):
                    os.remove(path)  # the zip of the segment would tell the rewrite apart
        if rewritten == 0:
            raise Mismatch(f"the value {value} of the DATA record at 0:{target['offset']} was not found")
        out = os.path.join(tmp, "restored")
        p = run(walcut, "restore", os.path.join(copy, "nodes"), "--increment", str(first["index"]), "-o", out)
        if p.returncode != 1 or "do not agree" not in p.stderr or os.path.exists(out):
            raise Mismatch(f"a value rewritten on server-1 at 0:{target['offset']}: restore exit {p.returncode}, "
                           f"expected a refusal (1, copies do not agree)\n{p.stderr}")
        print(f"  self-test: a value rewritten on one node: refused ({p.stderr.splitlines()[0][:160]})")
        # The same node without its first archive segment: its WAL no longer reaches back to 0
        # (the last increment's records are in later segments).
        last_inc = [i for i in truth["increments"] if i["ok"]][-1]
        if last_inc["nodes"]["server-1"]["finish_record"]["index"] == 0:
            raise Mismatch("the last increment's Finish record is in segment 0 of server-1")
        for root, _, files in os.walk(work):  # db/wal, and the increments' copies
            for name in files:
                if name.startswith("0000000000000000"):
                    path = os.path.join(root, name)
                    with open(path, "rb") as f:
                        head = f.read(9)
                    if name.endswith(".wal.zip") or (head[0] == 5 and struct.unpack_from("<q", head, 1)[0] == 0):
                        os.remove(path)
        p = run(walcut, "restore", os.path.join(copy, "nodes"), "--increment", str(last_inc["index"]), "-o", out)
        if p.returncode != 1 or os.path.exists(out) or not ("not at segment 0" in p.stderr or
                                                            "no consistent cut" in p.stderr):
            raise Mismatch(f"segment 0 of server-1 removed: restore exit {p.returncode}, expected a refusal\n{p.stderr}")
        print(f"  self-test: segment 0 gone: refused ({p.stderr.splitlines()[0][:160]})")


def main():
    args = sys.argv[1:]
    try:
        if args and args[0] == "--self-test":
            self_test(args[1], args[2])
            print("restore_truth self-test: ok")
        else:
            n = restore_fixture(args[0], args[1])
            print(f"restore_truth: {n} increment(s) restored by walcut as Ignite restored them: ok")
    except Mismatch as e:
        print(f"restore_truth: FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
