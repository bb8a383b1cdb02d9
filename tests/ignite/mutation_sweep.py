#!/usr/bin/env python3
"""Sweeps of damage that a checksum cannot see, on a copy of an Apache Ignite fixture:

  .smf:  every byte of one increment's metadata (Java serialization, no checksum) changed in
         turn;
  DATA:  each field of one DATA_RECORD_V2 entry (and the record's count and time) rewritten to
         edge values, the record's CRC made sound again.

After each change `walcut check --json` of the nodes runs, and for DATA records
`walcut restore --latest --json` too. Each must end with an exit status of 0, 1 or 3 (never a
crash), peak memory under 64 MiB, and never a silent wrong verdict: a check that passes gives
the sound copy's verdict byte for byte, one that fails says where (the .smf's file name; the
record's pointer or segment, or the partition or transaction of the violation), and a restore
gives the sound copy's result unless check reported the change, or refuses saying where (the
copies that disagree).

Usage: mutation_sweep.py [--self-test] WALCUT FIXTURE_DIR
--self-test: a walcut that hides the .smf's name from its messages (a wrapper that drops its
errors and masks file names in its output, keeping its exit status) must fail the sweep.
"""
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

MAX_RSS_KIB = 64 * 1024


def run(cmd):
    """(exit status, stdout, stderr, peak RSS KiB) of cmd."""
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=120)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest of any run so far
    return p.returncode, p.stdout, p.stderr, rss


def verdict(out):
    """The verdict of a check or plan in JSON, without what depends on the run's paths."""
    try:
        doc = json.loads(out)
    except ValueError:
        return out
    return json.dumps(doc, sort_keys=True)


def smf_sweep(walcut, nodes, failures):
    inc = os.path.join(nodes, "server-0", "work", "snapshots", "snap", "increments", "0000000000000001")
    smf = os.path.join(inc, "server_0.smf")
    sound = open(smf, "rb").read()
    cmd = [walcut, "check", "--json", nodes]
    code0, out0, _, _ = run(cmd)
    if code0 != 0:
        failures.append(f"the sound copy does not check: exit {code0}")
        return 0, 0
    same = located = 0
    for i in range(len(sound)):
        bad = bytearray(sound)
        bad[i] ^= 0xFF
        open(smf, "wb").write(bytes(bad))
        code, out, err, rss = run(cmd)
        what = f".smf byte {i} (0x{sound[i]:02x} -> 0x{bad[i]:02x})"
        if code not in (0, 1, 3):
            failures.append(f"{what}: exit {code}: {err.strip()[-300:]}")
        elif rss > MAX_RSS_KIB:
            failures.append(f"{what}: peak RSS {rss} KiB")
        elif code == code0 and verdict(out) == verdict(out0):
            same += 1  # a byte walcut does not use, or one the WAL agrees with anyway
        elif "server_0.smf" in err or "server_0.smf" in out:
            located += 1
        else:
            failures.append(f"{what}: exit {code} and another verdict, naming no .smf: {err.strip()[-300:]}")
    open(smf, "wb").write(sound)
    return same, located


def data_record(walcut, nodes):
    """(path, offset, size) of a DATA_RECORD_V2 in a raw archived segment of server-0, from the
    middle of the segment holding the most."""
    archive = os.path.join(nodes, "server-0", "work", "db", "wal", "archive", "server_0")
    best = None
    for name in sorted(os.listdir(archive)):
        if not name.endswith(".wal"):
            continue
        path = os.path.join(archive, name)
        out = subprocess.run([walcut, "dump", "--json", "--type", "DATA_RECORD_V2", path], capture_output=True,
                             text=True).stdout.splitlines()
        if out and (best is None or len(out) > len(best[1])):
            best = (path, out)
    rec = json.loads(best[1][len(best[1]) // 2])
    return best[0], rec["offset"], rec["size"]


def data_fields(data, pos):
    """(name, offset, width) of each field of the record's first entry, and of the record."""
    fields = [("entry count", pos + 17, 4), ("timestamp", pos + 21, 8)]
    e = pos + 17 + 12
    fields.append(("cache id", e, 4))
    key_len = struct.unpack_from("<i", data, e + 4)[0]
    fields += [("key length", e + 4, 4), ("key type", e + 8, 1)]
    p = e + 8 + 1 + key_len
    value_len = struct.unpack_from("<i", data, p)[0]
    fields.append(("value length", p, 4))
    if value_len != -1:
        fields.append(("value type", p + 4, 1))
    p += 4 + (0 if value_len == -1 else 1 + value_len)
    fields.append(("operation", p, 1))
    p += 1
    for name in ("near version", "write version"):
        proto = data[p]
        fields.append((name + " kind", p, 1))
        if proto != 0:
            fields.append((name + " topology version", p + 1, 4))
        p += 1 + (0 if proto == 0 else 16 if proto == 1 else 32)
    fields += [("partition", p, 4), ("counter", p + 4, 8), ("expire time", p + 12, 8)]
    return fields


EDGES = {1: [0, 1, 0x7F, 0x80, 0xFF], 4: [0, 1, 0xFFFFFFFF, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000],
         8: [0, 1, 0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000]}


def data_sweep(walcut, nodes, tmp, failures):
    path, pos, size = data_record(walcut, nodes)
    sound = open(path, "rb").read()
    out_dir = os.path.join(tmp, "restored")
    check = [walcut, "check", "--json", nodes]
    restore = [walcut, "restore", "--json", "--latest", nodes, "-o", out_dir]

    def both():
        c = run(check)
        shutil.rmtree(out_dir, ignore_errors=True)
        r = run(restore)
        shutil.rmtree(out_dir, ignore_errors=True)
        return c, r

    (c0, cout0, _, _), (r0, rout0, _, _) = both()
    if c0 != 0 or r0 != 0:
        failures.append(f"the sound copy: check exit {c0}, restore exit {r0}")
        return 0, 0
    seg = os.path.basename(path)
    index = int(seg.split(".")[0])

    def located(text):
        """Names the record (its pointer or segment), or the cache partition or transaction it
        made a violation or a conflict of."""
        return f"{index}:{pos}" in text or seg in text or "partition" in text or " tx " in text

    same = reported = 0
    for name, at, width in data_fields(sound, pos):
        orig = int.from_bytes(sound[at:at + width], "little")
        for v in EDGES[width] + [orig ^ 1]:
            if v == orig:
                continue
            bad = bytearray(sound)
            bad[at:at + width] = v.to_bytes(width, "little")
            crc = zlib.crc32(bytes(bad[pos:pos + size - 4])) ^ 0xFFFFFFFF
            struct.pack_into("<I", bad, pos + size - 4, crc)
            open(path, "wb").write(bytes(bad))
            (c, cout, cerr, crss), (r, rout, rerr, rrss) = both()
            what = f"DATA_RECORD_V2 at {seg}:{pos} {name} = {v:#x}"
            if c not in (0, 1, 3) or r not in (0, 1, 3):
                failures.append(f"{what}: check exit {c}, restore exit {r}: {(cerr + rerr).strip()[-300:]}")
            elif max(crss, rrss) > MAX_RSS_KIB:
                failures.append(f"{what}: peak RSS {max(crss, rrss)} KiB")
            elif c == 0 and verdict(cout) != verdict(cout0):
                failures.append(f"{what}: check exit 0 with another verdict")
            elif c != 0 and not located(cout + cerr):
                failures.append(f"{what}: check exit {c}, naming no record, partition or transaction")
            elif r == 0 and c == 0 and verdict(rout) != verdict(rout0):
                failures.append(f"{what}: restore exit 0 with another result, check saying nothing")
            elif r != 0 and not located(rout + rerr):
                failures.append(f"{what}: restore exit {r}, naming no record, partition or transaction")
            elif c == 0 and r == 0:
                same += 1  # a value Ignite could have written, outside what the cut or restore sees
            else:
                reported += 1
    open(path, "wb").write(sound)
    return same, reported


def main():
    args = sys.argv[1:]
    self_test = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    if len(args) != 2:
        print(__doc__.strip().split("\n")[-3], file=sys.stderr)
        return 2
    walcut, fixture = os.path.abspath(args[0]), args[1]
    with tempfile.TemporaryDirectory() as tmp:
        nodes = os.path.join(tmp, "nodes")
        shutil.copytree(os.path.join(fixture, "nodes"), nodes, symlinks=True)
        if self_test:
            # A walcut that reports a damaged .smf with its exit status but names no file.
            wrapper = os.path.join(tmp, "quiet-walcut")
            with open(wrapper, "w") as f:
                f.write(f"#!/bin/bash\nset -o pipefail\n\"{walcut}\" \"$@\" 2>/dev/null | sed 's/[A-Za-z0-9_]*[.]smf/metadata/g'\n")
            os.chmod(wrapper, 0o755)
            failures = []
            smf_sweep(wrapper, nodes, failures)
            if not failures:
                print("FAIL self-test: a walcut that names no .smf passed the sweep")
                return 1
            print(f"self-test: caught, {len(failures)} change(s) not located, e.g. {failures[0]}")
            return 0
        failures = []
        same, located = smf_sweep(walcut, nodes, failures)
        print(f".smf: {same + located} byte changes: {located} reported naming the file, {same} the sound verdict")
        same, located = data_sweep(walcut, nodes, tmp, failures)
        print(f"DATA_RECORD_V2: {same + located} rewrites: {located} reported (check or restore naming the record, "
              f"partition or transaction), {same} the sound verdict and restore")
    for f in failures[:40]:
        print("FAIL", f)
    if len(failures) > 40:
        print(f"FAIL ... {len(failures) - 40} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
