#!/usr/bin/env python3
"""walcut dump --json on a real Apache Ignite node's WAL agrees with Ignite's own reading of it.

    dump_truth.py WALCUT FIXTURE            every node of a fixture (testdata/ignite/<name>)
    dump_truth.py --self-test WALCUT FIXTURE   shows that a difference is caught

For each node, every WAL file that Ignite read (ignite-records.jsonl: work segments, raw archive
segments, .wal.zip) is dumped on its own and compared record for record with Ignite's reading of that
file: pointer (and, in a .wal.zip, the offset in its entry), type, length, and the fields of every
decoded type: transaction versions (near and write), state, participants, timestamps, every entry's
cache id, op, versions, partition, counter, expire time, flags, key and value (cache object type, bytes,
and the value of a primitive or string), rollback ranges, snapshot names, increment ids and sets,
checkpoint marks and partition states. Then each WAL folder (work, archive) is dumped whole and must
give each segment once: from the raw file where there is one, else from the .wal.zip. The first
difference stops the check, printing both sides.
"""
import collections
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


class Mismatch(Exception):
    pass


def fail(where, what, ours, theirs):
    raise Mismatch(f"{where}: {what} differs\n  walcut: {json.dumps(ours)[:2000]}\n  ignite: {json.dumps(theirs)[:2000]}")


def expect(where, what, ours, theirs):
    if ours != theirs:
        fail(where, what, ours, theirs)


def dump(walcut, path):
    p = subprocess.run([walcut, "dump", "--json", path], capture_output=True, text=True)
    errors = [l for l in p.stderr.splitlines() if "error" in l]
    if p.returncode != 0 or errors:
        raise Mismatch(f"walcut dump --json {path}: exit {p.returncode}\n{p.stderr}")
    return [json.loads(l) for l in p.stdout.splitlines()]


def hidden(rec):
    # Ignite's reader never returns its header or the SWITCH byte.
    return rec["type"] in ("HEADER_RECORD", "SWITCH_SEGMENT_RECORD")


def version_key(v):
    t, n, o = v.split(".")
    return (int(t), int(o), int(n))


def compare_object(where, name, ours, theirs):
    if theirs is None:
        expect(where, name, ours.get(name), None)
        return
    expect(where, name + " type", ours.get(name + "_type"), theirs["cache_object_type"])
    expect(where, name + " bytes", ours.get(name + "_hex"), theirs["hex"])
    value = theirs.get("value")
    if isinstance(value, bool) or value is None:
        return
    if theirs["cache_object_type"] == 2:  # a byte array: walcut shows its hex as 0x...
        expect(where, name + " value", ours[name], "0x" + value)
    elif isinstance(value, (int, str)):
        expect(where, name + " value", ours[name], str(value))
    elif isinstance(value, dict) and "type_id" in value:
        # A binary object: its type id and its field values, in stored order (names need binary_meta).
        # (Its type's name follows the id when walcut finds the node's binary_meta.)
        expect(where, name + " binary type", ours[name].split(")")[0].split(" ")[0], f"binary({value['type_id']}")
        fields = value.get("fields", {})
        for v in fields.values():
            shown = f'"{v}"' if isinstance(v, str) else str(v)
            if shown not in ours[name]:
                fail(where, name + " field " + shown, ours[name], value)


DECODED = {"TX_RECORD", "DATA_RECORD_V2", "ROLLBACK_TX_RECORD", "CLUSTER_SNAPSHOT", "CHECKPOINT_RECORD",
           "INCREMENTAL_SNAPSHOT_START_RECORD", "INCREMENTAL_SNAPSHOT_FINISH_RECORD"}


def compare_fields(where, ours, theirs):
    t = theirs["type"]
    if t not in DECODED:
        return  # skipped by its length (EXCHANGE's timestamp among them)
    if "timestamp" in theirs:
        expect(where, "timestamp", ours.get("timestamp"), theirs["timestamp"])
    if t == "TX_RECORD":
        expect(where, "state", ours["state"], theirs["state"])
        expect(where, "near version", ours["tx"], theirs["near"])
        expect(where, "write version", ours["write_version"], theirs["write"])
        key = lambda p: (p["primary"], p["backups"])
        expect(where, "participants", sorted(ours["participants"], key=key), sorted(theirs["participants"], key=key))
    elif t == "DATA_RECORD_V2":
        expect(where, "entry count", len(ours["entries"]), len(theirs["entries"]))
        for i, (e, j) in enumerate(zip(ours["entries"], theirs["entries"])):
            w = f"{where} entry {i}"
            for a, b in (("cache", "cache_id"), ("op", "op"), ("tx", "near"), ("write_version", "write"),
                         ("partition", "partition"), ("counter", "counter"), ("expire_time", "expire"),
                         ("flags", "flags")):
                expect(w, b, e[a], j[b])
            compare_object(w, "key", e, j["key"])
            compare_object(w, "value", e, j["value"])
    elif t == "ROLLBACK_TX_RECORD":
        for a, b in (("cache", "group_id"), ("partition", "partition"), ("start", "start"), ("range", "range")):
            expect(where, b, ours[a], theirs[b])
    elif t == "CLUSTER_SNAPSHOT":
        expect(where, "name", ours["name"], theirs["name"])
    elif t == "INCREMENTAL_SNAPSHOT_START_RECORD":
        expect(where, "id", ours["cut"], theirs["id"])
    elif t == "INCREMENTAL_SNAPSHOT_FINISH_RECORD":
        expect(where, "id", ours["cut"], theirs["id"])
        expect(where, "included", sorted(ours["before"], key=version_key), theirs["included"])
        expect(where, "excluded", sorted(ours["after"], key=version_key), theirs["excluded"])
    elif t == "CHECKPOINT_RECORD":
        expect(where, "id", ours["id"], theirs["id"])
        expect(where, "end", ours["end"], theirs["end"])
        mark = ours["mark"] and {"index": ours["mark"]["segment"], "offset": ours["mark"]["offset"],
                                 "length": ours["mark"]["length"]}
        expect(where, "mark", mark, theirs["mark"])
        by_id = lambda gs: {g["group_id"]: g["partitions"] for g in gs}
        expect(where, "groups", by_id(ours["groups"]), by_id(theirs["groups"]))


def compare_record(where, ours, theirs):
    zipped = "stored_offset" in theirs
    expect(where, "segment", ours["segment"], theirs["segment"])
    expect(where, "pointer offset", ours["offset"], theirs["stored_offset"] if zipped else theirs["offset"])
    if zipped:
        expect(where, "offset in the zip entry", ours["file_offset"], theirs["offset"])
    expect(where, "type", ours["type"], theirs["type"])
    expect(where, "length", ours["size"], theirs["length"])
    compare_fields(where, ours, theirs)


def compare_list(where, ours, theirs):
    for i, (o, t) in enumerate(zip(ours, theirs)):
        compare_record(f"{where} record {i} ({t['type']} at {t['segment']}:{t.get('stored_offset', t['offset'])})", o, t)
    if len(ours) != len(theirs):
        extra = ours[len(theirs):len(theirs) + 1] or theirs[len(ours):len(ours) + 1]
        fail(where, "record count", len(ours), f"{len(theirs)}; first unmatched: {extra}")


def check_node(walcut, node_dir, jsonl):
    work = os.path.join(node_dir, "work")
    by_file = collections.OrderedDict()
    with open(jsonl) as f:
        for line in f:
            r = json.loads(line)
            by_file.setdefault(r["file"], []).append(r)
    checked = 0
    for name, theirs in by_file.items():
        ours = [r for r in dump(walcut, os.path.join(work, name)) if not hidden(r)]
        compare_list(f"{node_dir}: {name}", ours, theirs)
        checked += len(theirs)
    # Each folder of db/wal whole: every segment once, from its raw file if there is one. (An
    # increment's folder is read by Ignite only for the segments the archive no longer holds.)
    folders = collections.defaultdict(dict)
    for name, recs in by_file.items():
        seg = recs[0]["segment"] if recs else None
        folder = os.path.dirname(name)
        if seg is None or name.startswith("snapshots/"):
            continue
        have = folders[folder].get(seg)
        if have is None or (have[0].endswith(".zip") and not name.endswith(".zip")):
            folders[folder][seg] = (name, recs)
    for folder, segs in folders.items():
        theirs = [r for seg in sorted(segs) for r in segs[seg][1]]
        ours = [r for r in dump(walcut, os.path.join(work, folder)) if not hidden(r)]
        compare_list(f"{node_dir}: folder {folder}", ours, theirs)
    check_names(walcut, node_dir, work, by_file)
    return checked


def check_names(walcut, node_dir, work, by_file):
    """The work directory whole: walcut reads the node's db/binary_meta, and each binary value
    shows its type's name and every field by name, as Ignite reads them."""
    theirs = {}
    for recs in by_file.values():
        for r in recs:
            if r["type"] == "DATA_RECORD_V2":
                theirs[(r["segment"], r.get("stored_offset", r["offset"]))] = r
    named = 0
    for o in dump(walcut, work):
        if o.get("type") != "DATA_RECORD_V2" or (o["segment"], o["offset"]) not in theirs:
            continue
        t = theirs[(o["segment"], o["offset"])]
        where = f"{node_dir}: work directory, record at {o['segment']}:{o['offset']}"
        for k, (e, j) in enumerate(zip(o["entries"], t["entries"])):
            for side in ("key", "value"):
                value = (j.get(side) or {}).get("value")
                if not (isinstance(value, dict) and "type_id" in value and value.get("type_name")):
                    continue
                head = f"binary({value['type_id']} {value['type_name']}){{"
                expect(f"{where} entry {k}", side + " binary type name", e[side][:len(head)], head)
                for f, v in value.get("fields", {}).items():
                    shown = f'{f}="{v}"' if isinstance(v, str) else f"{f}={v}"
                    if shown not in e[side]:
                        fail(f"{where} entry {k}", side + " field " + shown, e[side], value)
                named += 1
    if any(isinstance((e.get("value") or {}).get("value"), dict) for recs in by_file.values() for r in recs
           if r["type"] == "DATA_RECORD_V2" for e in r["entries"]) and named == 0:
        fail(node_dir, "binary values named", 0, "some: Ignite names the fields of binary values here")


def check_fixture(walcut, fixture, jsonl_name="ignite-records.jsonl"):
    nodes = os.path.join(fixture, "nodes")
    total = 0
    for node in sorted(os.listdir(nodes)):
        total += check_node(walcut, os.path.join(nodes, node), os.path.join(nodes, node, jsonl_name))
    return total


def rewrite_counter(segment_path, jsonl, delta=1, last=False):
    """Adds `delta` to the counter of the first entry of the first (or `last`) DATA_RECORD_V2 of
    a raw segment, CRC recomputed; returns that record as Ignite read it."""
    rel = os.path.relpath(segment_path, os.path.join(os.path.dirname(jsonl), "work"))
    with open(jsonl) as f:
        records = (json.loads(l) for l in f if f'"file":"{rel}"' in l and '"DATA_RECORD_V2"' in l)
        if last:
            rec = None
            for rec in records:
                pass
        else:
            rec = next(records)
    data = bytearray(open(segment_path, "rb").read())
    pos, length = rec["offset"], rec["length"]
    key_len = struct.unpack_from("<i", data, pos + 17 + 12 + 4)[0]
    p = pos + 17 + 12 + 4 + 4 + 1 + key_len
    value_len = struct.unpack_from("<i", data, p)[0]
    p += 4 + (0 if value_len == -1 else 1 + value_len) + 1
    for _ in range(2):  # near and write versions
        proto = data[p]
        p += 1 + (0 if proto == 0 else 16 if proto == 1 else 32)
    p += 4  # partition
    counter = struct.unpack_from("<q", data, p)[0]
    struct.pack_into("<q", data, p, counter + delta)
    crc = zlib.crc32(bytes(data[pos:pos + length - 4])) ^ 0xFFFFFFFF
    struct.pack_into("<I", data, pos + length - 4, crc)
    open(segment_path, "wb").write(bytes(data))
    return rec


def self_test(walcut, fixture):
    node = os.path.join(fixture, "nodes", sorted(os.listdir(os.path.join(fixture, "nodes")))[0])
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "node")
        shutil.copytree(node, copy)
        jsonl = os.path.join(copy, "ignite-records.jsonl")
        check_node(walcut, copy, jsonl)  # the copy agrees before it is altered
        # 1. Ignite's reading altered: one entry's partition counter.
        lines = open(jsonl).read().splitlines()
        i = next(k for k, l in enumerate(lines) if '"DATA_RECORD_V2"' in l)
        r = json.loads(lines[i])
        r["entries"][0]["counter"] += 1
        altered = os.path.join(copy, "altered.jsonl")
        open(altered, "w").write("\n".join(lines[:i] + [json.dumps(r)] + lines[i + 1:]) + "\n")
        try:
            check_node(walcut, copy, altered)
            return "an altered ignite-records.jsonl was not caught"
        except Mismatch as e:
            if "counter differs" not in str(e):
                return f"an altered ignite-records.jsonl was caught for another reason: {e}"
        # 2. A segment rewritten: the same counter in the bytes, with its CRC recomputed.
        archive = os.path.join(copy, "work", "db", "wal", "archive")
        folder = os.path.join(archive, os.listdir(archive)[0])
        raw = sorted(f for f in os.listdir(folder) if f.endswith(".wal"))[0]
        rewrite_counter(os.path.join(folder, raw), jsonl)
        try:
            check_node(walcut, copy, jsonl)
            return "a segment rewritten with a sound CRC was not caught"
        except Mismatch as e:
            if "counter differs" not in str(e):
                return f"a rewritten segment was caught for another reason: {e}"
    return None


def main(argv):
    if len(argv) == 4 and argv[1] == "--self-test":
        err = self_test(argv[2], argv[3])
        if err:
            print(f"dump_truth self-test FAILED: {err}")
            return 1
        print("dump_truth self-test: an altered reading and a rewritten segment are both caught")
        return 0
    if len(argv) != 3:
        print(__doc__)
        return 2
    try:
        n = check_fixture(argv[1], argv[2])
    except Mismatch as e:
        print(f"dump_truth: {e}")
        return 1
    print(f"dump_truth: {argv[2]}: {n} records agree with Ignite's reading")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
