#!/usr/bin/env python3
"""Check a trace written by rs_trace_write against the Trace Event Format rules and the
ledger's own counts (tests/test_trace.c passes those on the command line).

TEF rules checked: the document parses (Python's json); every event has ph, and pid/ts
where the format needs them; every B has its E on the same track, else the event is a
complete X with a dur >= 0; timestamps never go back on a track (pid, tid) nor on a
counter (pid, name); X slices on a track nest (disjoint or one inside the other).
Ledger checks: the copy events (cat copy.implicit / copy.explicit) are as many, and carry
as many bytes, as the ledger counted; kernels and waits likewise; named scopes appear.
Exit 0 when all hold, 1 with the reasons otherwise."""
import argparse
import json
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--copies", type=int)
    ap.add_argument("--implicit", type=int)
    ap.add_argument("--bytes", type=int)
    ap.add_argument("--kernels", type=int)
    ap.add_argument("--waits", type=int)
    ap.add_argument("--scope", action="append", default=[])
    ap.add_argument("--pool", action="store_true", help="device pool counters expected")
    ap.add_argument("--device-times", action="store_true", help="every copy on a device track")
    ap.add_argument("--truncated", action="store_true", help="a truncated trace: counts are at most")
    a = ap.parse_args()
    bad = []
    with open(a.trace, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw)
    except ValueError as e:
        print(f"{a.trace}: not JSON: {e}; ends with {raw[-200:]!r}")
        return 1
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        print("traceEvents is not a list")
        return 1
    last = {}
    stacks = defaultdict(list)
    slices = defaultdict(list)
    copies = implicit = nbytes = kernels = waits = 0
    scopes = set()
    pool = 0
    truncated = 0
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("X", "B", "E", "C", "M", "i", "I"):
            bad.append(f"event {i}: phase {ph!r}")
            continue
        if ph == "M":
            continue
        if "ts" not in e or "pid" not in e:
            bad.append(f"event {i}: no ts or pid: {e}")
            continue
        track = (e["pid"], e.get("tid", 0))
        key = (e["pid"], "counter", e.get("name")) if ph == "C" else track
        if key in last and e["ts"] < last[key]:
            bad.append(f"event {i}: ts {e['ts']} before {last[key]} on track {key}")
        last[key] = e["ts"]
        if ph == "B":
            stacks[track].append(e.get("name"))
        elif ph == "E":
            if not stacks[track]:
                bad.append(f"event {i}: E without B on {track}")
            else:
                stacks[track].pop()
        elif ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                bad.append(f"event {i}: X without a duration >= 0: {e}")
                continue
            slices[track].append((e["ts"], e["ts"] + e["dur"], e.get("name")))
        elif ph == "C":
            args = e.get("args", {})
            if args.get("in_use_bytes", -1) < 0 or args.get("held_bytes", -1) < args.get("in_use_bytes", 0):
                bad.append(f"event {i}: counter values {args}")
            if e.get("name") == "device pool":
                pool += 1
        if ph in ("i", "I") and e.get("name") == "trace truncated":
            truncated += 1
        cat = e.get("cat", "")
        if ph == "X" and cat.startswith("copy."):
            copies += 1
            implicit += cat == "copy.implicit"
            nbytes += e["args"]["bytes"]
            if not e["args"].get("shape", "").startswith("("):
                bad.append(f"event {i}: a copy without its array's shape: {e['args']}")
            if (cat == "copy.implicit") != e["args"]["implicit"]:
                bad.append(f"event {i}: category {cat} but implicit={e['args']['implicit']}")
            if not e["name"].endswith("implicit" if cat == "copy.implicit" else "explicit"):
                bad.append(f"event {i}: name {e['name']!r} does not say {cat}")
            if a.device_times and "device_ms" not in e["args"]:
                bad.append(f"event {i}: copy without a device time")
        if ph == "X" and cat == "kernel":
            kernels += 1
        if ph == "X" and cat == "wait":
            waits += 1
            if not e["args"].get("cause"):
                bad.append(f"event {i}: a wait without its cause")
        if ph == "X" and cat == "scope":
            scopes.add(e["name"])
    for track, st in stacks.items():
        if st:
            bad.append(f"track {track}: B without E: {st}")
    # Slices on one track nest: sorted by start, each one starts after the enclosing one
    # ends or ends inside it (0.002 us: the three decimals of the writer's microseconds).
    eps = 0.002
    for track, sl in slices.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        open_ = []
        for s, t, name in sl:
            while open_ and s >= open_[-1][1] - eps:
                open_.pop()
            if open_ and t > open_[-1][1] + eps:
                bad.append(f"track {track}: {name!r} [{s}, {t}] overlaps {open_[-1][2]!r} ending at {open_[-1][1]}")
                break
            open_.append((s, t, name))

    def want(name, got, expected):
        if expected is None:
            return
        if a.truncated and got > expected or not a.truncated and got != expected:
            bad.append(f"{name}: {got} in the trace, the ledger has {expected}")

    want("copies", copies, a.copies)
    want("implicit copies", implicit, a.implicit)
    want("copy bytes", nbytes, a.bytes)
    want("kernels", kernels, a.kernels)
    want("waits", waits, a.waits)
    for s in a.scope:
        if s not in scopes and not a.truncated:
            bad.append(f"scope {s!r} missing (have {sorted(scopes)})")
    if a.pool and pool == 0 and not a.truncated:
        bad.append("no device pool counter")
    if a.truncated != (truncated == 1) or truncated > 1:
        bad.append(f"{truncated} 'trace truncated' events, expected {1 if a.truncated else 0}")
    if a.truncated and events[-1].get("name") != "trace truncated":
        bad.append("the truncated trace does not end with its marker")
    for b in bad[:20]:
        print(b)
    print(f"{a.trace}: {len(events)} events, {copies} copies ({implicit} implicit, {nbytes} bytes), "
          f"{kernels} kernels, {waits} waits, scopes {sorted(scopes)}, {pool} pool samples: "
          f"{'OK' if not bad else 'BAD'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
