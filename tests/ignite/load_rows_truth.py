#!/usr/bin/env python3
"""The README's way of putting restored data back into Ignite works: walcut's restore of the last
increment Ignite completed, exported with `walcut data --format jsonl`, loaded by the harness's
LoadRows (an IgniteDataStreamer per cache, into an in-memory node of its own) holds the bank
cache's keys and balances as Ignite's own restore of that increment held them: as many keys, the
same sum.

    load_rows_truth.py WALCUT FIXTURE

Needs Java 17 and Maven (tests/ignite/run builds the harness); run by ./bootstrap test after the
live `full` scenario (the one with every kind of cache), not by ctest (it starts a JVM).
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    walcut, fixture = sys.argv[1], sys.argv[2]
    truth = json.load(open(os.path.join(fixture, "truth.json")))
    done = [i for i in truth["increments"] if i["ok"] and "restored" in i and "error" not in i["restored"]]
    if not done:
        print(f"{fixture}: no increment Ignite completed and restored: nothing to load")
        return 0
    inc = done[-1]
    snapshot = inc.get("snapshot") or truth["snapshot"]["name"]
    bank = [b for b in inc["restored"]["balances"] if b["cache"] == "bank"]
    bank_id = next(c["cache_id"] for c in truth["scenario"]["caches"] if c["name"] == "bank")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "restored")
        p = subprocess.run([walcut, "restore", os.path.join(fixture, "nodes"), "--snapshot", snapshot, "--increment",
                            str(inc["index"]), "-o", out, "-q"], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"MISMATCH: walcut restore of increment {inc['index']}: exit {p.returncode}\n{p.stderr}")
            return 1
        rows = os.path.join(tmp, "rows.jsonl")
        with open(rows, "w") as f:
            p = subprocess.run([walcut, "data", out, "--format", "jsonl", "--cache", str(bank_id)], stdout=f,
                               stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print(f"MISMATCH: walcut data --format jsonl: exit {p.returncode}\n{p.stderr}")
            return 1
        here = os.path.dirname(os.path.abspath(__file__))
        p = subprocess.run([os.path.join(here, "run"), "load-rows", rows], capture_output=True, text=True)
        m = re.search(r"^cache \S+: (\d+) key\(s\), sum (-?\d+)$", p.stdout, re.M)  # the one cache loaded
        if p.returncode != 0 or m is None:
            print(f"MISMATCH: load-rows: exit {p.returncode}\n{p.stdout}\n{p.stderr[-2000:]}")
            return 1
        keys, total = int(m.group(1)), int(m.group(2))
        want_keys, want_total = len(bank), sum(b["balance"] for b in bank)
        if (keys, total) != (want_keys, want_total):
            print(f"MISMATCH: increment {inc['index']} of {snapshot} loaded back into Ignite: bank holds {keys} keys "
                  f"summing to {total}; Ignite's restore held {want_keys} summing to {want_total}")
            return 1
        print(f"load_rows_truth: increment {inc['index']} of {snapshot}, restored by walcut and streamed back into "
              f"Ignite: bank holds {keys} keys summing to {total}, as Ignite's restore did")
    return 0


if __name__ == "__main__":
    sys.exit(main())
