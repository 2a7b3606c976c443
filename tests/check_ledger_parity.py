#!/usr/bin/env python3
"""Ledger parity (issue 17, item 4): `resident pipeline` in every mode, from pinned and from
pageable host memory, must write the same
ledger on the simulator and on the GPU - the same entries in the same order with the same
kind, direction, implicit flag, bytes, cause and kernel argument; times are left out.

usage: check_ledger_parity.py RESIDENT_CLI [--out DIR]
Exit 0 when both backends agree, 1 with the first difference of each run printed, 77
(skipped) when the CUDA backend does not answer. --out keeps each backend's normalized
ledger (one line per entry) for a diff by hand.
"""
import json
import os
import subprocess
import sys

from ledger_parity import FIELDS, report, show, timing_dependent

# Fixed chunks and streams: the streamed mode otherwise sizes them from a timed first chunk.
PIPELINE = ["pipeline", "--mode", "all", "--kernels", "3", "--size", "4MB", "--chunks", "4", "--streams", "2"]
HOSTS = ("pinned", "pageable")
def ledger(cli, backend):
    """{mode: [normalized entry, ...]} of one pipeline run, or None when the backend is absent."""
    env = dict(os.environ, RESIDENT_BACKEND=backend)
    runs = {}
    for host in HOSTS:
        p = subprocess.run([cli] + PIPELINE + ["--host", host, "--backend", backend, "--json"], capture_output=True,
                           text=True, env=env, timeout=600)
        if p.returncode != 0:
            if backend == "cuda":
                return None
            sys.exit("resident pipeline --backend %s failed (%d): %s" % (backend, p.returncode, p.stderr.strip()))
        for run in json.loads(p.stdout)["runs"]:
            if run.get("entries_dropped"):
                sys.exit("%s %s: %d ledger entries dropped; raise RESIDENT_LEDGER_ENTRIES" %
                         (backend, run["mode"], run["entries_dropped"]))
            runs["%s host, %s" % (host, run["mode"])] = [tuple(e.get(f) for f in FIELDS) for e in run["entries"]
                                                         if not timing_dependent(e.get("kind"), e.get("cause"))]
    return runs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    sim = ledger(cli, "sim")
    gpu = ledger(cli, "cuda")
    if gpu is None:
        print("skipped: the CUDA backend does not answer (the simulator's ledger alone proves nothing)")
        return 77
    if out:
        os.makedirs(out, exist_ok=True)
        for name, runs in (("sim", sim), ("cuda", gpu)):
            with open(os.path.join(out, "ledger-%s.txt" % name), "w") as f:
                for mode, entries in runs.items():
                    f.writelines("%s %s\n" % (mode, show(e)) for e in entries)
    bad = 0
    for mode in sorted(set(sim) | set(gpu)):
        a, b = sim.get(mode), gpu.get(mode)
        if a is None or b is None:
            print("FAIL %s: only on %s" % (mode, "sim" if b is None else "cuda"))
            bad += 1
            continue
        bad += report(mode, a, b, ("sim", "cuda"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
