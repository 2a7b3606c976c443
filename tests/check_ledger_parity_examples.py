#!/usr/bin/env python3
"""Ledger parity of every example (issue 17, item 4): each program of examples/ writes the
same ledger on the simulator and on the GPU - the same entries in the same order with the
same kind, direction, implicit flag, bytes, cause and kernel argument; times are left out.
(`resident pipeline` has its own check, check_ledger_parity.py.)

Each example runs once per backend (RESIDENT_BACKEND) with RESIDENT_TRACE=<dir>/<name>-%n.json:
every context writes its trace, which holds the ledger's entries in order, when it is
destroyed; a program with several contexts (data_parallel) is compared context by context.

usage: check_ledger_parity_examples.py --bin DIR --source ROOT [--self] [--out DIR]
  --bin     where the example programs are (build/tests: example_quickstart, ...)
  --source  the source tree (kernel_reduce reads examples/kernel_reduce.cu)
  --self    the simulator against itself (two runs): no GPU needed; shows the script works,
            the traces parse and each example's ledger is deterministic
  --out     keep each backend's normalized ledgers (one line per entry) for a diff by hand
Exit 0 when the ledgers agree, 1 with the first difference of each example printed, 77
(skipped) when the CUDA backend does not answer (not with --self).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from ledger_parity import report, show, timing_dependent

# trace event category -> ledger entry kind (src/ledger/trace.c); "api" (the host call
# that queued a timed entry), "scope" and counters are not ledger entries
KINDS = {"copy.explicit": "copy", "copy.implicit": "copy", "kernel": "kernel", "wait": "wait",
         "prefetch": "prefetch", "graph": "graph", "collective": "collective"}


def examples(source, cuda_devices):
    """(name, arguments, extra environment). Sizes are kept small for the simulator on two
    cores; the ledger's entries do not depend on them beyond the bytes, which are the same
    on both backends. data_parallel runs over as many simulated devices as the GPU run saw,
    so both make the same contexts."""
    return [
        ("quickstart", [], {}),
        ("normalize", ["1000000"], {}),
        ("kernel_vector_add", [], {}),
        ("kernel_grid_stride", [], {}),
        ("kernel_shared_memory", [], {}),
        ("kernel_reduce", [os.path.join(source, "examples", "kernel_reduce.cu"), "1000000"], {}),
        ("data_parallel", ["1000003"], {"RESIDENT_SIM_DEVICES": str(cuda_devices),
                                        "RESIDENT_SIM_DEVICE_MEMORY": "256MiB"}),
    ]


def entries(path):
    """The normalized ledger entries of one trace, in the ledger's order."""
    with open(path) as f:
        doc = json.load(f)
    other = doc.get("otherData", {})
    if other.get("dropped_entries"):
        sys.exit("%s: %d ledger entries dropped; raise RESIDENT_LEDGER_ENTRIES" % (path, other["dropped_entries"]))
    out = []
    for ev in doc["traceEvents"]:
        kind = KINDS.get(ev.get("cat"))
        if kind is None or ev.get("ph") != "X":
            continue
        a = ev.get("args", {})
        e = (kind, a.get("direction"), a.get("implicit"), a.get("bytes"), a.get("cause"), a.get("kernel_argument"))
        if not timing_dependent(kind, e[4]):
            out.append(e)
    return out


def run(bindir, tmp, name, args, env_extra, backend, tag):
    """(status, [entries per context], output) of one run of an example."""
    trace = os.path.join(tmp, "%s-%s-%%n.json" % (name, tag))
    env = dict(os.environ, RESIDENT_BACKEND=backend, RESIDENT_TRACE=trace, **env_extra)
    exe = os.path.join(bindir, "example_" + name)
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=env, timeout=600)
    files = sorted(glob.glob(trace.replace("%n", "*")), key=lambda f: int(re.search(r"-(\d+)\.json$", f).group(1)))
    return p.returncode, [entries(f) for f in files], (p.stdout + p.stderr).strip()


def compare(name, a, b, labels):
    """Print and count the differences of two runs' ledgers (lists of contexts)."""
    if len(a) != len(b):
        print("FAIL %s: %d contexts' traces on %s, %d on %s" % (name, len(a), labels[0], len(b), labels[1]))
        return 1
    bad = 0
    for c, (x, y) in enumerate(zip(a, b)):
        what = "%s (context %d)" % (name, c + 1) if len(a) > 1 else name
        bad += report(what, x, y, labels)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--self", action="store_true", dest="self_check")
    ap.add_argument("--out")
    o = ap.parse_args()
    second = ("sim", "sim2") if o.self_check else ("cuda", "cuda")
    labels = ("sim", second[1])
    bad = 0
    if o.out:
        os.makedirs(o.out, exist_ok=True)
        for label in labels:
            open(os.path.join(o.out, "ledger-examples-%s.txt" % label), "w").close()
    with tempfile.TemporaryDirectory(prefix="resident-parity-") as tmp:
        cuda_devices = 4
        if not o.self_check:
            # Does CUDA answer? quickstart exits 77 when RESIDENT_BACKEND=cuda finds no device.
            p = subprocess.run([os.path.join(o.bin, "example_quickstart")], capture_output=True, text=True,
                               env=dict(os.environ, RESIDENT_BACKEND="cuda"), timeout=600)
            if p.returncode == 77:
                print("skipped: the CUDA backend does not answer (the simulator's ledger alone proves nothing)")
                return 77
            d = subprocess.run([os.path.join(o.bin, "example_data_parallel"), "8"], capture_output=True, text=True,
                               env=dict(os.environ, RESIDENT_BACKEND="cuda"), timeout=600)
            m = re.search(r"over (\d+) device", d.stdout)
            cuda_devices = int(m.group(1)) if m else 1
        for name, args, env in examples(o.source, cuda_devices):
            ra, la, ta = run(o.bin, tmp, name, args, env, "sim", "sim")
            rb, lb, tb = run(o.bin, tmp, name, args, env, second[0], second[1])
            if ra != 0 or rb != 0:
                which, text = ("sim", ta) if ra != 0 else (second[1], tb)
                if which == "cuda" and name == "data_parallel" and "NCCL" in text:
                    print("skip %s: the GPU run needs NCCL, absent here: %s" % (name, text.splitlines()[-1]))
                    continue
                print("FAIL %s: the %s run exited %d: %s" % (name, which, ra if ra != 0 else rb, text[-400:]))
                bad += 1
                continue
            if not la or not any(la):
                print("FAIL %s: no ledger entries in the simulator's trace" % name)
                bad += 1
                continue
            bad += compare(name, la, lb, labels)
            if o.out:
                for label, runs in zip(labels, (la, lb)):
                    with open(os.path.join(o.out, "ledger-examples-%s.txt" % label), "a") as f:
                        for c, es in enumerate(runs):
                            f.writelines("%s[%d] %s\n" % (name, c + 1, show(e)) for e in es)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
