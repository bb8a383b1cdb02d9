#!/usr/bin/env python3
"""walcut check --summaries on a real Apache Ignite cluster: the verdict of check itself.

    summary_truth.py WALCUT RUN               a fixture (testdata/ignite/<name>) or a harness run
    summary_truth.py --self-test WALCUT RUN   shows that the summaries' Ignite parts are needed

The way to check a cluster too large to gather is a summary written on each node (`walcut cuts NODE
--summary FILE`), then `walcut check --summaries FILE...` anywhere. On Ignite, a node's check needs
more than its WAL: the increments the node keeps by metadata (its .smf files) and the update counters
its copies apply at each increment. So, for the run's node directories, and for each full snapshot's
directories alone (a snapshot copied off the cluster):
  - every node's summary, binary and JSON, checked with --summaries, gives check's own --json output
    on the directories, byte for byte, and its exit code;
  - a node's WAL that grows: each node summarized with --append with its last archived segment and
    its work segments hidden, then again with them back, writes the bytes of a whole summary, and the
    second run reads less than the whole WAL.

The self-test takes the Ignite parts out of the JSON summaries of RUN (its kept increments, or every
cut's applied counters): the verdict of --summaries must then differ from check's, for each part. And
one node's summary made one of an earlier schema (without either part) must leave that node's
metadata unreadable, not the node missing.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile


class Mismatch(Exception):
    pass


def run(walcut, *args):
    p = subprocess.run([walcut, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def summarize(walcut, node, out, fmt="binary", append=False):
    args = ["cuts", node, "--summary", out, "--summary-format", fmt, "--json"]
    if append:
        args.append("--append")
    code, stdout, stderr = run(walcut, *args)
    if code not in (0, 1):
        raise Mismatch(f"walcut {' '.join(args)}: exit {code}: {stderr.strip()}")
    return json.loads(stdout)


def input_sets(run_dir):
    """The node directories, then each full snapshot's directories on every node."""
    sets = [("nodes", sorted(glob.glob(os.path.join(run_dir, "nodes", "*"))))]
    names = sorted({os.path.basename(p) for p in glob.glob(os.path.join(run_dir, "nodes", "*", "work", "snapshots", "*"))})
    for name in names:
        sets.append((f"snapshot {name}", sorted(glob.glob(os.path.join(run_dir, "nodes", "*", "work", "snapshots", name)))))
    return sets


def same_verdict(walcut, label, paths, files):
    want = run(walcut, "check", "--json", *paths)
    got = run(walcut, "check", "--json", "--summaries", *files)
    if want[0] != got[0] or want[1] != got[1]:
        raise Mismatch(f"{label}: check exits {want[0]}, check --summaries {got[0]}; their --json outputs "
                       f"{'agree' if want[1] == got[1] else 'differ'}:\n{want[1][:2000]}\n---\n{got[1][:2000]}")
    return json.loads(want[1])


def hide_growth(node_copy):
    """Leaves what the node's WAL was one segment earlier: its archive without its last segment
    (raw and compacted), and no work segments. Returns what was moved, to put back."""
    moved = []
    archives = glob.glob(os.path.join(node_copy, "work", "db", "wal", "archive", "*"))
    for archive in archives:
        indexes = sorted({os.path.basename(f).split(".")[0] for f in os.listdir(archive)})
        if indexes:
            moved += glob.glob(os.path.join(archive, indexes[-1] + ".wal*"))
    for work in glob.glob(os.path.join(node_copy, "work", "db", "wal", "*")):
        if os.path.basename(work) != "archive":
            moved += glob.glob(os.path.join(work, "*.wal"))
    aside = []
    for f in moved:
        os.rename(f, f + ".later")
        aside.append(f)
    return aside


def check_growth(walcut, node, tmp):
    copy = os.path.join(tmp, "grow", os.path.basename(node))
    shutil.copytree(node, copy, symlinks=True)
    aside = hide_growth(copy)
    if not aside:
        raise Mismatch(f"{node}: no segment to hide")
    out = os.path.join(tmp, "grow", os.path.basename(node) + ".sum")
    summarize(walcut, copy, out, append=True)
    for f in aside:
        os.rename(f + ".later", f)
    second = summarize(walcut, copy, out, append=True)
    whole = os.path.join(tmp, "grow", os.path.basename(node) + ".whole.sum")
    summarize(walcut, copy, whole)
    if open(out, "rb").read() != open(whole, "rb").read():
        raise Mismatch(f"{node}: the summary appended after its WAL grew is not the whole summary")
    if not 0 < second["records_read"] < second["records"]:
        raise Mismatch(f"{node}: the second --append read {second['records_read']} of {second['records']} records")
    shutil.rmtree(os.path.join(tmp, "grow"))


def check_run(walcut, run_dir):
    said = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, paths in input_sets(run_dir):
            for fmt in ("binary", "json"):
                files = []
                for k, p in enumerate(paths):
                    files.append(os.path.join(tmp, f"{k}.{fmt}.sum"))
                    summarize(walcut, p, files[-1], fmt)
                doc = same_verdict(walcut, f"{label} ({fmt} summaries)", paths, files)
                for f in files:
                    os.remove(f)
            said.append(f"{label}: {len(doc['cuts'])} cut(s), {len(doc['problems'])} problem(s)")
        for node in sorted(glob.glob(os.path.join(run_dir, "nodes", "*"))):
            check_growth(walcut, node, tmp)
    return said


def self_test(walcut, run_dir):
    paths = sorted(glob.glob(os.path.join(run_dir, "nodes", "*")))
    with tempfile.TemporaryDirectory() as tmp:
        docs = []
        for k, p in enumerate(paths):
            f = os.path.join(tmp, f"{k}.sum")
            summarize(walcut, p, f, "json")
            docs.append(json.load(open(f)))
        same_verdict(walcut, "the summaries as written", paths, [os.path.join(tmp, f"{k}.sum") for k in range(len(paths))])

        def without(name, change):
            files = []
            for k, d in enumerate(docs):
                d = json.loads(json.dumps(d))
                change(d)
                files.append(os.path.join(tmp, f"{k}.{name}.sum"))
                json.dump(d, open(files[-1], "w"))
            try:
                same_verdict(walcut, name, paths, files)
            except Mismatch:
                return
            raise Mismatch(f"summaries {name}: check --summaries still gives check's verdict")

        without("without the kept increments", lambda d: d.update(ignite_increments=None))
        without("without the applied counters", lambda d: [c.update(applied=None) for c in d["cuts"]])

        # One node's summary of an earlier version (JSON schema 1: neither part): beside the
        # others, its metadata is unreadable, not its node missing.
        old = json.loads(json.dumps(docs[0]))
        old["schema"] = 1
        del old["ignite_increments"]
        for c in old["cuts"]:
            del c["applied"]
        json.dump(old, open(os.path.join(tmp, "0.sum"), "w"))
        code, out, err = run(walcut, "check", "--json", "--summaries", *[os.path.join(tmp, f"{k}.sum") for k in range(len(paths))])
        problems = json.loads(out)["problems"] if out else []
        if code != 1 or not any("a summary of an earlier walcut" in p.get("detail", "") for p in problems) \
                or any(p.get("kind") == "not-given" for p in problems):
            raise Mismatch(f"a summary of an earlier schema beside the others: exit {code}, problems {problems}")


def main():
    args = sys.argv[1:]
    try:
        if args and args[0] == "--self-test":
            self_test(args[1], args[2])
            print("self-test passed")
        else:
            for line in check_run(args[0], args[1]):
                print(f"{args[1]}: {line}, check --summaries says what check says")
            print(f"{args[1]}: summaries appended as each node's WAL grew equal whole ones")
    except Mismatch as e:
        print(f"MISMATCH: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
