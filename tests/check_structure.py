#!/usr/bin/env python3
"""The layers of design.md, checked on what the compiler produced and on the sources.

usage: check_structure.py SOURCE_ROOT OBJECT...

From the object files of the library (nm): every call between files is resolved to the
file that defines the symbol, and it fails on
  - a call that points up the layer list (core, native, backend interface, memory, ledger,
    stream, transfer, kernel, ops, context; a backend implementation under
    src/backend/<name>/ counts as the backend layer and may not call another one),
  - a circle of files that call each other (strongly connected files);
from the sources, it fails on an #include that points up and on a file in src/ over 500
lines. ../shared/tools/layers.py checks the includes the same way; this test keeps the rest
from coming back.
"""
import collections, os, re, subprocess, sys

ORDER = ["core", "native", "backend", "memory", "ledger", "stream", "transfer", "kernel", "ops", "context"]
RANK = {n: i for i, n in enumerate(ORDER)}
MAX_LINES = 500
INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer(rel):
    parts = rel.split("/")
    if parts[0] == "backend" and len(parts) > 2:
        return "backend", parts[1]
    return parts[0], None


def points_up(a, b):
    (la, ia), (lb, ib) = layer(a), layer(b)
    if la not in RANK or lb not in RANK:
        return False
    if ib and ib != ia and a != "backend/registry.c":
        return True  # into another backend's implementation
    return RANK[lb] > RANK[la]


def source_of(obj, src_root):
    """src-relative path of an object file's source (.../src/<rel>.o)."""
    norm = obj.replace(os.sep, "/")
    i = norm.rfind("/src/")
    if i < 0:
        return None
    rel = norm[i + 5:]
    rel = rel[:-2] if rel.endswith(".o") else rel
    return rel if os.path.isfile(os.path.join(src_root, rel)) else None


def call_graph(objs, src_root):
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        rel = source_of(o, src_root)
        if not rel:
            continue
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRVW":
                defs[p[2]] = rel
            elif len(p) == 2 and p[0] == "U":
                uses[rel].add(p[1])
    edges = collections.defaultdict(dict)
    for f, syms in uses.items():
        for s in sorted(syms):
            t = defs.get(s)
            if t and t != f:
                edges[f].setdefault(t, s)
    return edges


def circles(edges):
    index, low, stack, on, found = {}, {}, [], set(), []
    sys.setrecursionlimit(20000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    # CTest passes $<TARGET_OBJECTS:...> as one ';'-separated argument
    root, objs = sys.argv[1], [o for a in sys.argv[2:] for o in a.split(";") if o]
    src = os.path.join(root, "src")
    bad = []
    edges = call_graph(objs, src)
    if not edges:
        bad.append("no calls found: are the object files given?")
    for f in sorted(edges):
        for t, sym in sorted(edges[f].items()):
            if points_up(f, t):
                bad.append(f"call up: src/{f} -> src/{t} ({sym})")
    for comp in circles(edges):
        detail = "; ".join(f"{a} -> {b} ({edges[a][b]})" for a in comp for b in edges[a] if b in comp)
        bad.append(f"circle: {' '.join(comp)}: {detail}")
    nfiles = 0
    for dirpath, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".c", ".h", ".cu", ".cuh", ".cpp", ".inc")):
                continue
            nfiles += 1
            rel = os.path.relpath(os.path.join(dirpath, name), src).replace(os.sep, "/")
            with open(os.path.join(src, rel), errors="replace") as fh:
                lines = fh.readlines()
            if len(lines) > MAX_LINES:
                bad.append(f"src/{rel}: {len(lines)} lines (at most {MAX_LINES})")
            for n, line in enumerate(lines, 1):
                m = INC.match(line)
                if not m:
                    continue
                for base in (os.path.dirname(rel), ""):
                    cand = os.path.normpath(os.path.join(base, m.group(1))).replace(os.sep, "/")
                    if os.path.isfile(os.path.join(src, cand)):
                        if points_up(rel, cand):
                            bad.append(f"include up: src/{rel}:{n} -> src/{cand}")
                        break
    for b in bad:
        print(b)
    ncalls = sum(len(v) for v in edges.values())
    print(f"{len(edges)} files calling {ncalls} file pairs, {nfiles} source files: {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
