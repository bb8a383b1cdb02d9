#!/usr/bin/env python3
"""walcut check on a real Apache Ignite cluster agrees with what Ignite decided (truth.json).

For a fixture made by tests/ignite/run: `walcut check --json FIXTURE/nodes` must find every
increment Ignite completed, consistent, numbered as Ignite numbered it, and no attempt Ignite
failed consistent (a node lacks its records, or, when every node wrote them, no .smf names it),
except an attempt Ignite failed after every node kept it and whose restore Ignite takes (the harness
tries it): that one must be consistent, numbered as Ignite restores it; and
the same from the nodes' snapshot directories alone (the WAL the increments keep). An increment
Ignite completed is accepted as inconsistent only where each violation is a side-mismatch that
Ignite's own reading of the WAL shows too (ignite_reading.py: Ignite marks no cut sides across
nodes, and races there); restore_truth.py then expects walcut's restore to refuse it. Where the truth has Ignite's own check
of an increment (increments[].check: what control.sh --snapshot check NAME --increment K reports),
a cut walcut calls consistent must have no counter, hash or transaction hash conflict and no error
there, and each transaction Ignite calls partially committed on a node must be one that node's WAL
shows applied outside its TX_RECORD's participant map (Ignite's maps can leave such a node out).

--self-test: Ignite's reading with a transaction moved to one node's excluded set shows it; a copy
of the fixture where one node's Finish record moves a transaction from its
included to its excluded set (CRC rewritten, so every frame is sound) must fail the check; a copy
where one node's .smf of a completed increment is removed must make that cut not-kept, and one
where another node's .smf of it is cut short must make it unverifiable and fail the check;
leaving one node's directory out must fail the check (the snapshots' baseline names it); and a
counter conflict, or a partial commit the WAL does not explain, written into Ignite's own check of
a consistent increment must fail it.
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from ignite_reading import cut_sides, side_mismatches
from mutation_sweep import data_fields


class Mismatch(Exception):
    pass


def run_check(walcut, nodes):
    paths = nodes if isinstance(nodes, list) else [nodes]
    p = subprocess.run([walcut, "check", "--json"] + paths, capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise Mismatch(f"walcut check --json {nodes}: exit {p.returncode}, no JSON\n{p.stderr}")
    return p.returncode, doc, p.stderr


def restorable(inc):
    """A failed attempt Ignite restores all the same (its increment kept on every node)."""
    r = inc.get("restored")
    return r is not None and "error" not in r


def proven_by_ignite(fixture, inc, cut):
    """An increment Ignite completed that walcut calls inconsistent: accepted only where every
    violation is a side-mismatch that Ignite's own reading of the WAL shows (ignite_reading.py)."""
    if cut["status"] != "inconsistent" or not cut.get("violations"):
        return False
    ignite = side_mismatches(fixture, inc["request_id"])
    if any(v.get("kind") != "side-mismatch" or v.get("tx") not in ignite for v in cut["violations"]):
        return False
    for v in cut["violations"]:
        s = ignite[v["tx"]]
        print(f"  increment {inc['index']} completed by Ignite, but by Ignite's own reading of the WAL transaction "
              f"{v['tx']} is in it on {', '.join(s['before'])} and not on {', '.join(s['after'])}: walcut says "
              f"inconsistent (side-mismatch), as it must")
    return True


def data_conflicts(check):
    """What Ignite's own check of an increment (truth.json: increments[].check, what control.sh
    --snapshot check NAME --increment K reports) finds against the data: partitions whose copies'
    counters or hashes differ, node pairs whose transaction hashes differ, nodes whose check failed."""
    return check["counter_conflicts"] + check["hash_conflicts"] + check["tx_hash_conflicts"] + len(check["errors"])


_READINGS = {}  # (walcut, work directory, compact id) -> (named, written): one dump per node


def participant_reading(walcut, work, cid):
    """What walcut's reading of a node's WAL (its work directory) says for Ignite's partial-commit
    rule: the write versions some PREPARED TX_RECORD there names the node for (as a primary, a
    backup, or every node: 32767), and each transaction's write versions of its entries there."""
    key = (walcut, work, cid)
    if key in _READINGS:
        return _READINGS[key]
    p = subprocess.run([walcut, "dump", "--json", "--type", "TX_RECORD,DATA_RECORD_V2", work],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Mismatch(f"walcut dump --json {work}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    named = set()   # write versions a PREPARED record names this node for
    written = {}    # near xid -> write versions of its entries on this node
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r["type"] == "TX_RECORD":
            if r["state"] == "PREPARED" and any(q["primary"] == cid or cid in q["backups"] or 32767 in q["backups"]
                                                for q in r["participants"]):
                named.add(r["write_version"])
        elif r["type"] == "DATA_RECORD_V2":
            for e in r["entries"]:
                if "tx" in e:
                    written.setdefault(e["tx"], set()).add(e["write_version"])
    _READINGS[key] = (named, written)
    return named, written


def unexplained_partial_commits(walcut, fixture, truth, check):
    """Ignite's check calls a transaction partially committed on a node when the node applied an entry
    whose write version no PREPARED TX_RECORD there names the node for (as a primary, a backup, or
    every node). Returns the (node, transaction) pairs Ignite lists that walcut's reading of that
    node's WAL does not show so: each listed transaction must have an entry on the node with such a
    write version (Ignite's participant maps can leave out a node that applies the transaction's
    entries; the copies still agree, which the data conflicts and the restores show)."""
    compact = {n["consistent_id"]: n.get("compact_id") for n in truth["nodes"]}
    folders = {n["consistent_id"]: n.get("work_dir") for n in truth["nodes"]}
    missing = []
    for node, xids in sorted(check["partially_committed"].items()):
        cid = compact.get(node)
        if cid is None:
            missing.extend((node, xid) for xid in xids)
            continue
        named, written = participant_reading(
            walcut, os.path.join(fixture, folders.get(node) or os.path.join("nodes", node, "work")), cid)
        for xid in xids:
            if not written.get(xid, set()) - named:
                missing.append((node, xid))
    return missing


def agrees_with_ignite_check(walcut, fixture, truth, inc, c):
    """walcut's verdict on an increment Ignite restores against Ignite's own check of it, where the
    truth has that check: the check must have run, a consistent cut must have no data conflict by
    it, and every transaction Ignite calls partially committed must be one whose participant map
    leaves out a node that applied it (unexplained_partial_commits)."""
    check = inc.get("check")
    if not check:
        return
    if "error" in check:
        raise Mismatch(f"increment {inc['index']}: Ignite's own check of it did not run: {check['error'][:300]}")
    conflicts = data_conflicts(check)
    if c["status"] == "consistent" and conflicts:
        raise Mismatch(f"increment {inc['index']}: walcut says consistent, Ignite's own check finds "
                       f"{check['counter_conflicts']} counter, {check['hash_conflicts']} hash and "
                       f"{check['tx_hash_conflicts']} transaction hash conflicts, errors "
                       f"{json.dumps(check['errors'])[:300]}")
    partial = check["partially_committed"]
    if partial:
        missing = unexplained_partial_commits(walcut, fixture, truth, check)
        if missing:
            raise Mismatch(f"increment {inc['index']}: Ignite's own check calls {len(missing)} transaction(s) partially "
                           f"committed that walcut's reading does not show applied outside their participant "
                           f"maps, e.g. {missing[:3]}")
        print(f"  increment {inc['index']}: Ignite's own check calls "
              f"{sum(len(x) for x in partial.values())} transaction(s) partially committed on {', '.join(sorted(partial))}; "
              f"each was applied there outside its TX_RECORD's participant map (walcut's reading shows why), "
              f"with no counter or hash conflict; walcut: {c['status']}")


def check_fixture(walcut, fixture, nodes=None, snapshot=None):
    """`snapshot`: only the attempts of that full snapshot (the inputs are its directories)."""
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    code, doc, err = run_check(walcut, nodes or os.path.join(fixture, "nodes"))
    cuts = {c["id"]: c for c in doc["cuts"]}
    first = truth["snapshot"]["name"]
    attempts = [i for i in truth["increments"] if snapshot is None or (i.get("snapshot") or first) == snapshot]
    ok = [i for i in attempts if i["ok"]]
    for inc in attempts:
        c = cuts.get(inc["request_id"])
        if not inc["ok"] and restorable(inc):
            # Ignite failed the operation after every node kept the increment, and restores it.
            if c is None or c["status"] != "consistent" or c.get("increment") != inc["index"]:
                raise Mismatch(f"attempt {inc['attempt']} ({inc['request_id']}): failed by Ignite after every "
                               f"node kept it, and Ignite restores it as increment {inc['index']}; walcut says "
                               + (f"{c['status']} (increment {c.get('increment')})" if c else "nothing of it"))
            print(f"  attempt {inc['attempt']} failed by Ignite after every node kept it; Ignite restores it, "
                  f"walcut: consistent, increment {inc['index']}")
            if snapshot is None:
                agrees_with_ignite_check(walcut, fixture, truth, inc, c)
            continue
        if not inc["ok"]:
            if c is not None and c["status"] == "consistent":
                raise Mismatch(f"attempt {inc['attempt']} ({inc['request_id']}): Ignite failed it "
                               f"({(inc['error'] or '')[:120]}), walcut says consistent")
            print(f"  attempt {inc['attempt']} failed by Ignite, walcut: "
                  + (f"{c['status']}: {c['reason']}" if c else "no record of it in the WAL"))
            continue
        if c is None:
            raise Mismatch(f"increment {inc['index']} ({inc['request_id']}) completed by Ignite: not found by walcut")
        if c["status"] != "consistent" and proven_by_ignite(fixture, inc, c):
            continue
        if c["status"] != "consistent":
            raise Mismatch(f"increment {inc['index']} ({inc['request_id']}) completed by Ignite: walcut says "
                           f"{c['status']}: {c['reason']} {json.dumps(c['violations'])[:1000]}")
        if c.get("increment") != inc["index"]:
            raise Mismatch(f"increment {inc['index']} ({inc['request_id']}): walcut numbers it {c.get('increment')}")
        if snapshot is None:
            agrees_with_ignite_check(walcut, fixture, truth, inc, c)
    nodes_dir = (nodes[0] if isinstance(nodes, list) else nodes) or os.path.join(fixture, "nodes")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "restored")
        for refused in (["gaps", "--close", nodes_dir],):
            p = subprocess.run([walcut] + refused, capture_output=True, text=True)
            if p.returncode != 2 or os.path.exists(out):
                raise Mismatch(f"walcut {' '.join(refused)} on Ignite input: exit {p.returncode}, expected a refusal (2)")
    if code != 0 and all(c["status"] == "consistent" for c in doc["cuts"]):
        raise Mismatch(f"walcut check exit {code} with every cut consistent\n{err}")
    return len(ok)


def raw_files_of(wal, segment):
    """Every raw .wal file under `wal` whose header names segment `segment`."""
    for root, _, files in os.walk(wal):
        for name in sorted(files):
            if not name.endswith(".wal"):
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                head = f.read(9)
            if len(head) == 9 and head[0] == 5 and struct.unpack_from("<q", head, 1)[0] == segment:
                yield path


def frame_at(path, offset):
    data = bytearray(open(path, "rb").read())
    length = struct.unpack_from("<i", data, offset + 13)[0]
    return data, length


def versions(buf, pos, n):
    out = []
    for _ in range(n):
        proto = buf[pos]
        size = 1 + (16 if proto == 1 else 32 if proto == 2 else 0)
        out.append(bytes(buf[pos:pos + size]))
        pos += size
    return out, pos


def move_to_excluded(path, offset):
    """Rewrites the Finish frame at `offset`: its first included version moves to excluded."""
    data, length = frame_at(path, offset)
    p = offset + 17 + 16  # frame header, then the increment's UUID
    n = struct.unpack_from("<i", data, p)[0]
    inc, q = versions(data, p + 4, n)
    m = struct.unpack_from("<i", data, q)[0]
    exc, end = versions(data, q + 4, m)
    if n == 0:
        raise Mismatch(f"{path}:{offset}: the Finish record includes nothing to move")
    body = struct.pack("<i", n - 1) + b"".join(inc[1:]) + struct.pack("<i", m + 1) + b"".join(exc + inc[:1])
    assert len(body) == end - p
    data[p:end] = body
    crc = ~zlib.crc32(bytes(data[offset:offset + length - 4])) & 0xFFFFFFFF
    struct.pack_into("<I", data, offset + length - 4, crc)
    open(path, "wb").write(bytes(data))


def self_test_reading(fixture):
    """Ignite's reading, with a transaction whose entries precede the last increment's Start on
    server-1, in it there and on another node, moved to server-1's excluded set, shows that
    side-mismatch."""
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    cut = [i for i in truth["increments"] if i["ok"]][-1]["request_id"]
    if side_mismatches(fixture, cut):
        raise Mismatch(f"self-test: Ignite's reading of the sound fixture puts a transaction of {cut} on two sides")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(fixture, "truth.json"), tmp)
        for src in glob.glob(os.path.join(fixture, "nodes", "*", "ignite-records.jsonl")):
            os.makedirs(os.path.join(tmp, "nodes", src.split(os.sep)[-2]))
            shutil.copy(src, os.path.join(tmp, "nodes", src.split(os.sep)[-2]))
        path = os.path.join(tmp, "nodes", "server-1", "ignite-records.jsonl")
        records = [json.loads(line) for line in open(path)]
        start = next((r["segment"], r["offset"]) for r in records
                     if r["type"] == "INCREMENTAL_SNAPSHOT_START_RECORD" and r["id"] == cut)
        last_entry = {}  # near version -> its last entry on server-1
        for r in records:
            for e in r.get("entries", []) if r["type"] == "DATA_RECORD_V2" else []:
                last_entry[e.get("near")] = max(last_entry.get(e.get("near"), (0, 0)), (r["segment"], r["offset"]))
        tx = [t for t, s in cut_sides(fixture, cut).items() if len(s.get("before", [])) > 1
              and "server-1" in s["before"] and not s.get("after") and last_entry.get(t, start) < start][-1]
        for r in records:
            if r["type"] == "INCREMENTAL_SNAPSHOT_FINISH_RECORD" and r["id"] == cut:
                r["excluded"] = r.get("excluded", []) + [tx]
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        found = side_mismatches(tmp, cut)
        if found.get(tx, {}).get("after") != ["server-1"]:
            raise Mismatch(f"self-test: {tx} excluded on server-1 alone, Ignite's reading shows {found}")
        print(f"self-test: {tx} moved to server-1's excluded set in Ignite's reading: a side-mismatch there")


def self_test(walcut, fixture):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        check_fixture(walcut, copy)  # sound before it is altered
        # The last increment's Finish record on server-1, in every raw file holding its segment.
        p = subprocess.run([walcut, "dump", "--json", "--type", "INCREMENTAL_SNAPSHOT_FINISH_RECORD",
                            os.path.join(copy, "nodes", "server-1", "work")], capture_output=True, text=True)
        finishes = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        target = [f for f in finishes if f.get("before")][-1]
        wal = os.path.join(copy, "nodes", "server-1", "work", "db", "wal")
        rewritten = 0
        for path in raw_files_of(wal, target["segment"]):
            move_to_excluded(path, target["offset"])
            rewritten += 1
        if rewritten == 0:
            raise Mismatch(f"no raw file holds segment {target['segment']}")
        code, doc, _ = run_check(walcut, os.path.join(copy, "nodes"))
        cut = next(c for c in doc["cuts"] if c["id"] == target["cut"])
        if code == 0 or cut["status"] == "consistent":
            raise Mismatch(f"a Finish record moved {target['before'][0]} to excluded and check still says "
                           f"{cut['status']} (exit {code})")
        try:
            check_fixture(walcut, copy)
        except Mismatch as e:
            print(f"self-test: the altered copy fails as it must: {str(e)[:200]}")
            return
        raise Mismatch("the altered copy passed check_fixture")


def self_test_ignite_check(walcut, fixture):
    """Ignite's own check of the last completed increment, written into a copy's truth.json: a
    counter conflict there, where walcut says consistent; a check that did not run; and a
    transaction called partially committed on server-0 that the node's WAL does not show applied
    outside its participant map (one that is not in it, and one of its own whose every entry a
    PREPARED record there names server-0 for) each fail, each for its own reason."""
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    cid = next(n["compact_id"] for n in truth["nodes"] if n["consistent_id"] == "server-0")
    named, written = participant_reading(walcut, os.path.join(fixture, "nodes", "server-0", "work"), cid)
    covered = sorted(x for x, versions in written.items() if versions and versions <= named)
    if not covered:
        raise Mismatch("server-0 of the fixture has no transaction whose entries a PREPARED record names it for")
    cases = (("a counter conflict", {"counter_conflicts": 1}, "walcut says consistent, Ignite's own check finds"),
             ("a check that did not run", {"error": "java.lang.IllegalStateException: test"}, "did not run"),
             ("a partial commit of a transaction not in the WAL", {"partially_committed": {"server-0": ["1.1.1"]}},
              "walcut's reading does not show"),
             (f"a partial commit of {covered[0]}, named by its PREPARED records on server-0",
              {"partially_committed": {"server-0": [covered[0]]}}, "walcut's reading does not show"))
    for name, check, why in cases:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "fixture")
            shutil.copytree(fixture, copy)
            path = os.path.join(copy, "truth.json")
            truth = json.load(open(path))
            last = [i for i in truth["increments"] if i["ok"]][-1]
            last["check"] = check if "error" in check else dict(
                {"counter_conflicts": 0, "hash_conflicts": 0, "tx_hash_conflicts": 0, "partially_committed": {},
                 "errors": {}}, **check)
            json.dump(truth, open(path, "w"))
            try:
                check_fixture(walcut, copy)
            except Mismatch as e:
                if why not in str(e):
                    raise Mismatch(f"{name} in Ignite's own check failed for another reason: {e}")
                print(f"self-test: {name} in Ignite's own check fails as it must: {str(e)[:160]}")
                continue
            raise Mismatch(f"{name} in Ignite's own check of increment {last['index']} passed check_fixture")


def self_test_metadata(walcut, fixture):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        truth = json.load(open(os.path.join(copy, "truth.json")))
        inc = [i for i in truth["increments"] if i["ok"]][0]
        os.remove(os.path.join(copy, inc["nodes"]["server-2"]["smf"]))
        code, doc, _ = run_check(walcut, os.path.join(copy, "nodes"))
        cut = next(c for c in doc["cuts"] if c["id"] == inc["request_id"])
        if cut["status"] == "consistent" or not any(v["kind"] == "not-kept" for v in cut["violations"]):
            raise Mismatch(f"server-2's .smf of increment {inc['index']} removed: walcut still says {cut['status']}")
        print(f"self-test: without server-2's .smf, increment {inc['index']} is {cut['status']}: {cut['reason']}")
        # server-1's .smf of the same increment cut short: whether it keeps the increment is unknown.
        smf = os.path.join(copy, inc["nodes"]["server-1"]["smf"])
        with open(smf, "r+b") as f:
            f.truncate(os.path.getsize(smf) // 2)
        code, doc, err = run_check(walcut, os.path.join(copy, "nodes"))
        cut = next(c for c in doc["cuts"] if c["id"] == inc["request_id"])
        problem = [p for p in doc["problems"] if p["kind"] == "unreadable-metadata"]
        if code == 0 or cut["status"] != "unverifiable" or not problem or os.path.basename(smf) not in err:
            raise Mismatch(f"server-1's .smf cut short: walcut says {cut['status']} (exit {code}), problems "
                           f"{doc['problems']}")
        print(f"self-test: with server-1's .smf cut short, increment {inc['index']} is {cut['status']}, exit {code}: "
              f"{problem[0]['detail']}")


def self_test_request_id(walcut, fixture):
    """server-0's .smf of a later increment rewritten to name an earlier one's request id: its
    incSnpRec still points at the later cut's Finish record, so the file is unreadable metadata
    and the later cut unverifiable, while the earlier keeps its increment."""
    import uuid
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        truth = json.load(open(os.path.join(copy, "truth.json")))
        first, later = [i for i in truth["increments"] if i["ok"]][:2]
        smf = os.path.join(copy, later["nodes"]["server-0"]["smf"])
        data = open(smf, "rb").read()
        # java.util.UUID serializes leastSigBits, then mostSigBits.
        def serialized(text):
            b = uuid.UUID(text).bytes
            return b[8:] + b[:8]
        old, new = serialized(later["request_id"]), serialized(first["request_id"])
        if data.count(old) != 1:
            raise Mismatch(f"{smf}: its request id is not there once")
        open(smf, "wb").write(data.replace(old, new))
        code, doc, err = run_check(walcut, os.path.join(copy, "nodes"))
        by_id = {c["id"]: c for c in doc["cuts"]}
        problem = [p for p in doc["problems"] if p["kind"] == "unreadable-metadata" and "rqId" in p["detail"]]
        if code == 0 or by_id[later["request_id"]]["status"] != "unverifiable" or not problem:
            raise Mismatch(f"server-0's .smf of increment {later['index']} names {first['request_id']}: walcut "
                           f"says {by_id[later['request_id']]['status']} (exit {code}), problems {doc['problems']}")
        if by_id[first["request_id"]].get("increment") != first["index"]:
            raise Mismatch(f"increment {first['index']} lost its index: {by_id[first['request_id']]}")
        print(f"self-test: server-0's .smf of increment {later['index']} naming increment {first['index']}'s "
              f"request id, exit {code}: {problem[0]['detail']}")


def self_test_baseline(walcut, fixture):
    """One node's directory left out: the snapshots' baseline names it, so check must fail."""
    works = sorted(glob.glob(os.path.join(fixture, "nodes", "*", "work")))
    code, doc, err = run_check(walcut, works[:-1])
    given = [p for p in doc["problems"] if p["kind"] == "not-given"]
    if code == 0 or not given:
        raise Mismatch(f"{works[-1]} left out: walcut check exit {code}, problems {doc['problems']}")
    print(f"self-test: without {os.path.relpath(works[-1], fixture)}, exit {code}: {given[0]['node']}: "
          f"{given[0]['detail']}")


def self_test_no_snapshots(walcut, fixture):
    """One node's snapshots/ folder gone while the others keep theirs: its metadata is missing, not absent."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        works = sorted(glob.glob(os.path.join(copy, "nodes", "*", "work")))
        shutil.rmtree(os.path.join(works[0], "snapshots"))
        code, doc, _ = run_check(walcut, os.path.join(copy, "nodes"))
        if code == 0 or not any(p["kind"] == "unreadable-metadata" for p in doc["problems"]):
            raise Mismatch(f"one node's snapshots/ removed: walcut check exit {code}, problems {doc['problems']}")
        print(f"self-test: without {os.path.relpath(works[0], copy)}/snapshots, exit {code}")


def self_test_lost_update(walcut, fixture):
    """One entry of a transaction lost on server-1 before the last increment's Start (its
    DATA_RECORD_V2 rewritten, CRC sound, to a READ that writes nothing): the copies of its
    partition differ there, and check says so (copies-differ, naming the transaction) as restore
    refuses the increment. Ignite's TX_RECORD does not map participants to nodes: the copies'
    update counters are what shows the loss."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        truth = json.load(open(os.path.join(copy, "truth.json")))
        oks = [i for i in truth["increments"] if i["ok"]]
        prev, inc = oks[-2], oks[-1]
        work = os.path.join(copy, "nodes", "server-1", "work")
        p = subprocess.run([walcut, "dump", "--json", work], capture_output=True, text=True)
        records = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        pos = lambda r: (r["segment"], r["offset"])
        finish = next(pos(r) for r in records if r["type"] == "INCREMENTAL_SNAPSHOT_FINISH_RECORD"
                      and r.get("cut") == prev["request_id"])
        start = next(pos(r) for r in records if r["type"] == "INCREMENTAL_SNAPSHOT_START_RECORD"
                     and r.get("cut") == inc["request_id"])
        target = [r for r in records if r["type"] == "DATA_RECORD_V2" and finish < pos(r) < start
                  and r["entry_count"] == 1 and r["entries"][0].get("tx") and r["entries"][0]["op"] == "UPDATE"][0]
        entry = target["entries"][0]
        rewritten = 0
        for path in raw_files_of(os.path.join(work, "db", "wal"), target["segment"]):
            data, length = frame_at(path, target["offset"])
            op = next(at for name, at, _ in data_fields(data, target["offset"]) if name == "operation")
            if data[op] != 2:
                raise Mismatch(f"{path}:{target['offset']}: operation byte {data[op]}, not UPDATE")
            data[op] = 0  # READ
            crc = ~zlib.crc32(bytes(data[target["offset"]:target["offset"] + length - 4])) & 0xFFFFFFFF
            struct.pack_into("<I", data, target["offset"] + length - 4, crc)
            open(path, "wb").write(bytes(data))
            rewritten += 1
        if rewritten == 0:
            raise Mismatch(f"no raw file of server-1 holds segment {target['segment']}")
        code, doc, _ = run_check(walcut, os.path.join(copy, "nodes"))
        cut = next(c for c in doc["cuts"] if c["id"] == inc["request_id"])
        differ = [v for v in cut["violations"] if v["kind"] == "copies-differ"]
        if code == 0 or cut["status"] != "inconsistent" or not differ or differ[0]["nodes"][0] != "server_1" \
                or differ[0].get("tx") != entry["tx"]:
            raise Mismatch(f"an update of {entry['tx']} lost on server-1: check says {cut['status']} (exit {code}), "
                           f"{json.dumps(cut['violations'])[:600]}")
        out = os.path.join(tmp, "restored")
        r = subprocess.run([walcut, "restore", "--increment", str(inc["index"]), "-o", out,
                            os.path.join(copy, "nodes")], capture_output=True, text=True)
        if r.returncode == 0 or os.path.exists(out):
            raise Mismatch(f"restore of increment {inc['index']} with the update lost: exit {r.returncode}")
        print(f"self-test: an update of {entry['tx']} lost on server-1 (cache {entry['cache']} partition "
              f"{entry['partition']} counter {entry['counter']}): check says {differ[0]['detail']}; restore "
              f"refuses: {r.stderr.strip().splitlines()[0][:160]}")


def main():
    args = sys.argv[1:]
    try:
        if args and args[0] == "--self-test":
            self_test_reading(args[2])
            self_test(args[1], args[2])
            self_test_metadata(args[1], args[2])
            self_test_request_id(args[1], args[2])
            self_test_baseline(args[1], args[2])
            self_test_no_snapshots(args[1], args[2])
            self_test_ignite_check(args[1], args[2])
            print("self-test passed")
        elif args and args[0] == "--self-test-lost-update":
            self_test_lost_update(args[1], args[2])
            print("self-test passed")
        else:
            n = check_fixture(args[0], args[1])
            print(f"{args[1]}: {n} increment(s) Ignite completed, each consistent and numbered alike")
            # The same from the snapshot directories alone, one per node (the WAL its increments keep),
            # each full snapshot's on its own.
            names = sorted({os.path.basename(p) for p in
                            glob.glob(os.path.join(args[1], "nodes", "*", "work", "snapshots", "*"))})
            for name in names:
                snapshots = sorted(glob.glob(os.path.join(args[1], "nodes", "*", "work", "snapshots", name)))
                n = check_fixture(args[0], args[1], snapshots, name)
                print(f"{args[1]}: from {len(snapshots)} directories of snapshot {name}, the same {n} increment(s)")
    except Mismatch as e:
        print(f"MISMATCH: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
