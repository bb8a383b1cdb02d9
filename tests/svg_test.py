#!/usr/bin/env python3
"""walcut cuts --svg: the picture parses as XML, has one lane per node, one mark per
commit in view (COMMITTED or UNKNOWN record), red lines exactly where a transaction is on two sides, and the tiny
committed WAL's picture matches its golden file (WALCUT_UPDATE_GOLDEN=1 rewrites it)."""
import json, os, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

walcut, source = sys.argv[1], sys.argv[2]
NS = "{http://www.w3.org/2000/svg}"
failures = []

def run(*args):
    return subprocess.run([walcut, *args], capture_output=True, text=True)

def parse(path):
    root = ET.parse(path).getroot()
    lanes = [g for g in root.iter(NS + "g") if g.get("class") == "lane"]
    commits = [r for r in root.iter(NS + "rect") if r.get("class") == "commit"]
    split = [p for p in root.iter(NS + "polyline") if "split" in (p.get("class") or "")]
    return lanes, commits, split

def check(cond, what):
    if not cond:
        failures.append(what)

with tempfile.TemporaryDirectory() as tmp:
    tiny = os.path.join(source, "testdata", "tiny")
    out = os.path.join(tmp, "tiny.svg")
    r = run("cuts", tiny, "--svg", out, "-q")
    check(r.returncode == 0, f"cuts --svg on tiny exited {r.returncode}: {r.stderr}")
    lanes, commits, split = parse(out)
    check(len(lanes) == 2, f"tiny: {len(lanes)} lanes, expected 2")
    dump = [json.loads(l) for l in run("dump", "--json", "--type", "tx", tiny).stdout.splitlines()]
    committed = sum(1 for d in dump if d["state"] == "COMMITTED")
    check(len(commits) == committed, f"tiny: {len(commits)} commit marks, {committed} COMMITTED records")
    check(not split, "tiny: a consistent cut drawn with red lines")
    golden = os.path.join(source, "testdata", "golden", "timeline-tiny.svg")
    actual = open(out).read()
    if os.environ.get("WALCUT_UPDATE_GOLDEN") == "1":
        open(golden, "w").write(actual)
    elif open(golden).read() != actual:
        failures.append(f"tiny picture differs from {golden} (WALCUT_UPDATE_GOLDEN=1 to accept)")

    for bug, expect_split in (("none", False), ("no-wrap", True)):
        c = os.path.join(tmp, "c-" + bug)
        r = run("simulate", "-o", c, "-q", "--nodes", "5", "--txs", "3000", "--cuts", "2", "--seed", "3",
                "--inject-bug", bug)
        check(r.returncode == 0, f"simulate {bug}: {r.stderr}")
        cuts = json.loads(run("cuts", "--json", c).stdout)["cuts"]
        svg = os.path.join(tmp, bug + ".svg")
        r = run("cuts", c, "--svg", svg, "--cut", cuts[0]["id"], "-q")
        check(r.returncode == 0, f"cuts --svg {bug}: {r.stderr}")
        lanes, commits, split = parse(svg)
        check(len(lanes) == 5, f"{bug}: {len(lanes)} lanes, expected 5")
        check(len(commits) > 100, f"{bug}: only {len(commits)} commits in view")
        check(bool(split) == expect_split, f"{bug}: {len(split)} red lines")
        r = run("cuts", c, "--svg", os.path.join(tmp, "o.svg"), "--axis", "offset", "--from", "0", "--to", "0.05", "-q")
        check(r.returncode == 0 and parse(os.path.join(tmp, "o.svg"))[1], f"{bug}: --axis offset --from/--to")

    # An UNKNOWN record is a commit (the cut index and restore take it so): one mark each,
    # as a COMMITTED record has, in a view that holds the whole WAL.
    c = os.path.join(tmp, "c-unknown")
    r = run("simulate", "-o", c, "-q", "--nodes", "3", "--txs", "600", "--cuts", "2", "--seed", "4",
            "--unknown-rate", "0.05")
    check(r.returncode == 0, f"simulate --unknown-rate: {r.stderr}")
    svg = os.path.join(tmp, "unknown.svg")
    r = run("cuts", c, "--svg", svg, "--from", "0", "--to", "1000000", "-q")
    check(r.returncode == 0, f"cuts --svg --unknown-rate: {r.stderr}")
    states = [json.loads(l)["state"] for n in ("node-0", "node-1", "node-2")
              for l in run("dump", "--json", "--type", "tx", os.path.join(c, n, "wal")).stdout.splitlines()]
    unknown = states.count("UNKNOWN")
    check(unknown > 0, "--unknown-rate 0.05: no UNKNOWN record")
    marks = len(parse(svg)[1])
    check(marks == states.count("COMMITTED") + unknown,
          f"unknown: {marks} commit marks, {states.count('COMMITTED')} COMMITTED and {unknown} UNKNOWN records")

for f in failures:
    print("FAIL:", f)
print("svg: %d passed, %d failed" % (0 if failures else 1, len(failures)))
sys.exit(1 if failures else 0)
