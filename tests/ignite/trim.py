#!/usr/bin/env python3
"""Copies the part of a harness output that a WAL reader needs into a fixture directory.

    trim.py OUTDIR DEST

Kept: truth.json; per node ignite-records.jsonl and, under work/, the WAL work and archive segments
(db/wal/**), db/binary_meta/**, db/marshaller/**, and under snapshots/<name>/ every .smf file, the full
snapshot's files (db/**: its page files, part-*.bin and index.bin, its caches' configurations,
metastorage, binary_meta, marshaller) and, for every increment, its WAL segments, binary_meta and
marshaller. Left out: the node's own page files and checkpoint markers (db/<folder>/**), harness logs
and the live run directory.
"""
import os
import shutil
import sys


def wanted(rel):
    """rel is a path relative to a node's work directory, with '/' separators."""
    p = rel.split("/")
    if p[0] == "db":
        return len(p) > 1 and p[1] in ("wal", "binary_meta", "marshaller")
    if p[0] == "snapshots" and len(p) >= 3:
        if rel.endswith(".smf"):
            return True
        if p[2] == "increments":
            # snapshots/<name>/increments/<idx>/db/{wal,binary_meta,marshaller}/...
            return len(p) > 5 and p[4] == "db" and p[5] in ("wal", "binary_meta", "marshaller")
        # snapshots/<name>/db/...: the full snapshot's page files and metadata
        return len(p) > 3 and p[2] == "db"
    return False


def main(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    shutil.copy2(os.path.join(src, "truth.json"), dst)
    nodes = os.path.join(src, "nodes")
    for nid in sorted(os.listdir(nodes)):
        ndst = os.path.join(dst, "nodes", nid)
        os.makedirs(ndst)
        shutil.copy2(os.path.join(nodes, nid, "ignite-records.jsonl"), ndst)
        work = os.path.join(nodes, nid, "work")
        for root, _, files in os.walk(work):
            for f in files:
                full = os.path.join(root, f)
                rel = os.path.relpath(full, work).replace(os.sep, "/")
                if wanted(rel):
                    out = os.path.join(ndst, "work", rel)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    shutil.copy2(full, out)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: trim.py OUTDIR DEST", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
