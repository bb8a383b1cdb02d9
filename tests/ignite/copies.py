"""Ignite's data as the harness records it (truth.json: copies and content of a restore, values in
Workload.canon's spelling) beside walcut's data --json of the same data, copy by copy.

The canonical spelling: int:N, long:N, string:S, bytes:LEN:SHA-256, binary:TYPE{field=V,...} with the
fields sorted by name and a field's number as num:N.
"""
import hashlib
import json
import re
import subprocess


class Mismatch(Exception):
    pass


def _fields(body):
    """'f=v,g="a,b"' -> [(f, ('s'|'r', v))], honouring quotes and nested braces."""
    out, i, n = [], 0, len(body)
    while i < n:
        eq = body.index('=', i)
        name, j = body[i:eq], eq + 1
        if j < n and body[j] == '"':
            k, val = j + 1, []
            while body[k] != '"':
                if body[k] == '\\':
                    k += 1
                val.append(body[k])
                k += 1
            out.append((name, ('s', ''.join(val))))
            j = k + 1
        else:
            k, depth = j, 0
            while k < n and (body[k] != ',' or depth):
                depth += body[k] in '{(' and 1 or (-1 if body[k] in '})' else 0)
                k += 1
            out.append((name, ('r', body[j:k])))
            j = k
        i = j + 1
    return out


def canon(text, cls):
    """walcut's text of a cache object (data --json key/value and its class) in the truth's spelling."""
    if cls in ('int', 'long'):
        return f"{cls}:{text}"
    if cls == 'String':
        return f"string:{text}"
    if cls == 'byte[]':
        b = bytes.fromhex(text[2:]) if text.startswith('0x') else b''
        return f"bytes:{len(b)}:{hashlib.sha256(b).hexdigest()}"
    if cls == 'binary':
        m = re.match(r'binary\(-?\d+ ([^)]*)\)\{(.*)\}$', text, re.S)
        if not m:
            return f"unparsed-binary:{text}"
        fields = sorted((name, f"string:{v}" if kind == 's' else
                         (f"num:{v}" if re.fullmatch(r'-?\d+', v) else v)) for name, (kind, v) in _fields(m.group(2)))
        return f"binary:{m.group(1)}{{" + ",".join(f"{k}={v}" for k, v in fields) + "}"
    return f"other:{cls}:{text}"


def signed(x):
    return x - (1 << 32) if x >= (1 << 31) else x


def folder(consistent_id):
    return re.sub(r'[^A-Za-z0-9]', '_', consistent_id)


def walcut_copies(walcut, *args):
    """{node folder: {cache name or id: [[partition, key, value], ...]}} from walcut data --json ARGS."""
    p = subprocess.run([walcut, "data", "--json"] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise Mismatch(f"walcut data --json {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    out = {}
    for node in json.loads(p.stdout)["nodes"]:
        per = out.setdefault(node["node"], {})
        for part in node["partitions"]:
            name = part.get("cache_name") or str(signed(part["cache"]))
            rows = per.setdefault(name, [])
            for e in part["entries"]:
                rows.append([part["partition"], canon(e["key"], e["key_class"]), canon(e["value"], e["value_class"])])
    for per in out.values():
        for rows in per.values():
            rows.sort()
    return out


def truth_copies(restored):
    """The truth's copies keyed as walcut_copies keys them (node folder)."""
    return {folder(n): {c: sorted(rows) for c, rows in per.items()} for n, per in restored["copies"].items()}


def compare_copies(where, want, got, names=None):
    """Every node's copy of every cache equal, row for row; caches by name (ids mapped by `names`)."""
    if names:
        got = {n: {names.get(c, c): rows for c, rows in per.items()} for n, per in got.items()}
    rows = 0
    for node in sorted(set(want) | set(got)):
        w, g = want.get(node, {}), got.get(node, {})
        for cache in sorted(set(w) | set(g)):
            wr, gr = w.get(cache, []), g.get(cache, [])
            if wr != gr:
                missing = [r for r in wr if r not in gr][:2]
                extra = [r for r in gr if r not in wr][:2]
                raise Mismatch(f"{where}: {node} cache {cache}: Ignite's copy has {len(wr)} rows, walcut's {len(gr)}; "
                               f"only Ignite's: {missing}; only walcut's: {extra}")
            rows += len(wr)
    return rows


def differing_partitions(copies):
    """{(cache, partition)} whose rows differ between the nodes that hold rows of it."""
    by = {}
    for node, per in copies.items():
        for cache, rows in per.items():
            for r in rows:
                by.setdefault((cache, r[0]), {}).setdefault(node, []).append(r)
    return {k for k, nodes in by.items() if len({repr(sorted(v)) for v in nodes.values()}) > 1}
