#!/usr/bin/env python3
"""Adds Ignite's own check of each increment to a fixture's truth.json (increments[].check).

    add_increment_checks.py FIXTURE...

A run of the harness records it for every increment it restores; a fixture made before that
has none. This runs `tests/ignite/run check-increments` (Ignite's check, what control.sh
--snapshot check NAME --increment K reports, on a cluster of the fixture's servers started
afresh with their snapshots/) for each increment the truth restores, and writes each result
into the increment's entry, after its request_id, leaving the rest of the file as it is.
Needs Java 17 and Maven, as tests/ignite/run does.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def add(fixture):
    path = os.path.join(fixture, "truth.json")
    text = open(path, encoding="utf-8").read()
    truth = json.loads(text)
    first = truth["snapshot"]["name"]
    wanted = [i for i in truth["increments"] if i.get("index") is not None and "restored" in i and "check" not in i]
    if not wanted:
        print(f"{fixture}: nothing to add")
        return
    names = [f"{i.get('snapshot') or first}/{i['index']}" for i in wanted]
    p = subprocess.run([os.path.join(HERE, "run"), "check-increments", "--scenario", truth["scenario"]["name"],
                        fixture] + names, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{fixture}: check-increments failed (exit {p.returncode}):\n{p.stderr[-2000:]}")
    checks = json.loads(p.stdout.strip().splitlines()[-1])
    failed = {name: c["error"] for name, c in checks.items() if "error" in c}
    if failed:
        sys.exit(f"{fixture}: Ignite's check did not run, nothing written: {json.dumps(failed)[:1000]}")
    for inc, name in zip(wanted, names):
        # The entry's request_id line, in the increments array (each attempt's id is its own).
        m = re.search(r'\n( *)"request_id": "%s",\n' % re.escape(inc["request_id"]), text[text.index('\n  "increments": ['):])
        if m is None:
            sys.exit(f"{fixture}: increment {name}'s request_id not found in truth.json")
        at = text.index('\n  "increments": [') + m.end()
        text = text[:at] + f'{m.group(1)}"check": {json.dumps(checks[name], separators=(", ", ": "))},\n' + text[at:]
        print(f"{fixture}: increment {name}: {json.dumps(checks[name])[:200]}")
    json.loads(text)  # still JSON
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for fixture in sys.argv[1:]:
        add(fixture)
