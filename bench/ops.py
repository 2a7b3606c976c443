#!/usr/bin/env python3
"""resident's array operations next to CuPy's, on the seed workloads, in one run.

    python3 bench/ops.py [path/to/ops] [--repeat N] [--quick] [--markdown]

Runs the resident side (bench/ops.c, built as <build>/bench/ops; default
build-gpu/bench/ops) and times the same workloads with CuPy through
cupyx.profiler.benchmark (GPU time from events, warm-up excluded), then prints both
with the ratio and checks the targets of design.md:

  - elementwise, fused and reduction kernels at >= 90% of the measured copy bandwidth;
  - sort within 5% of CUB (CuPy's sort is CUB's radix sort underneath);
  - SVD of 3000 x 1000 float64 at least 5x faster than CuPy, errors below 1e-12.

Bandwidth workloads are timed two ways on both sides: "call" (an event pair around one
call after a synchronize: includes the host's launch latency, during which the GPU
idles) and "queued" (20 calls back to back between one event pair, per call: the
kernel's own time plus the GPU's gap between kernels, what a loop costs). The kernel
bandwidth targets are read on "queued", against the copy timed the same way; both are
printed.

Where the resident side writes into an existing array, the CuPy side allocates its
result (CuPy has no `out` for most of these): that difference is the point of `out`,
and the note column says so. Without CuPy only resident's figures are printed.
"""
import json
import os
import subprocess
import sys


def resident_results(path, repeat, quick):
    cmd = [path, "--repeat", str(repeat)] + (["--quick"] if quick else [])
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(out.stderr)
    results = {}
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT "):])
            results[r["name"]] = r
        else:
            print(line)
    if out.returncode != 0:
        print("note: bench/ops exited with %d (a check failed; see above)" % out.returncode)
    return results


def cupy_results(repeat, quick):
    try:
        import cupy as cp
        from cupyx.profiler import benchmark
    except ImportError:
        print("note: CuPy is not installed - resident's figures only")
        return None
    div = 100 if quick else 1
    res = {}

    def queued(fn, n_repeat, n_queue=20):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(n_queue):
            fn()
        cp.cuda.Device().synchronize()
        ms = []
        for _ in range(n_repeat):
            start.record()
            for _ in range(n_queue):
                fn()
            end.record()
            end.synchronize()
            ms.append(cp.cuda.get_elapsed_time(start, end) / n_queue)
        return sorted(ms)[len(ms) // 2]

    def t(name, fn, n_repeat=repeat, bandwidth=False):
        r = benchmark(fn, n_repeat=n_repeat, n_warmup=3)
        res[name] = float(sorted(r.gpu_times[0])[len(r.gpu_times[0]) // 2]) * 1e3
        if bandwidth:
            res[name + " queued"] = queued(fn, n_repeat)

    t("ones (new array)", lambda: cp.ones((50, 500 // (10 if quick else 1), 500 // (10 if quick else 1)), cp.float64),
      bandwidth=True)
    n = 12500000 // div
    x = cp.random.random(n, dtype=cp.float64)
    t("x*5", lambda: x * 5, bandwidth=True)

    def three(x):
        y = x * 5
        y = y * y
        return y + y

    t("x*5; x*x; x+x unfused", lambda: three(x), bandwidth=True)
    fused = cp.fuse(three)
    t("x*5; x*x; x+x fused", lambda: fused(x), bandwidth=True)
    x32 = cp.random.random(100000000 // div, dtype=cp.float32)
    t("sum 100M float32", lambda: x32.sum(), bandwidth=True)
    del x32
    r = cp.random.random((10000000 // div, 5), dtype=cp.float64)
    t("sum axis 1 of (10M, 5)", lambda: r.sum(axis=1), bandwidth=True)
    del r

    def normalize(n):
        v = cp.random.random(n, dtype=cp.float64)
        v.sort()
        rows = v.reshape(-1, 5)
        rows /= rows.sum(axis=1, keepdims=True)
        return float(cp.abs(rows.sum(axis=1) - 1).max())

    t("normalize 50M", lambda: normalize(50000000 // div), max(1, repeat // 2))
    s = cp.random.random(50000000 // div, dtype=cp.float64)
    t("sort 50M float64", lambda: cp.sort(s))
    del s
    a = cp.random.standard_normal((3000 // (10 if quick else 1), 1000 // (10 if quick else 1)))
    t("svd 3000x1000 economy", lambda: cp.linalg.svd(a, full_matrices=False), max(1, repeat // 4))
    t("svd 3000x1000 full", lambda: cp.linalg.svd(a), max(1, repeat // 4))
    return res


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeat = 20
    if "--repeat" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
        if str(repeat) in args:
            args.remove(str(repeat))
    quick = "--quick" in sys.argv
    markdown = "--markdown" in sys.argv
    path = args[0] if args else os.path.join("build-gpu", "bench", "ops")
    print("== resident (bench/ops) ==")
    ours = resident_results(path, repeat, quick)
    print("\n== CuPy ==")
    theirs = cupy_results(repeat, quick) or {}
    for k, v in theirs.items():
        print("%-24s %10.4f ms" % (k, v))
    copy = next((r["copy_gbs"] for r in ours.values() if r.get("copy_gbs", 0) > 0), 0)
    qcopy = next((r["copy_queued_gbs"] for r in ours.values() if r.get("copy_queued_gbs", 0) > 0), 0)

    def pct(gbs, ref):
        return 100 * gbs / ref if ref and gbs and gbs > 0 else None

    def f(v, fmt):
        return fmt % v if v else "-"

    rows = []
    for name, r in ours.items():
        if "device_ms" not in r or name.startswith("d2d"):
            continue
        cp_ms, cp_q = theirs.get(name), theirs.get(name + " queued")
        q = r.get("queued_ms", 0)
        rows.append((name, f(r["device_ms"], "%.4f"), f(cp_ms, "%.4f"),
                     f(cp_ms / r["device_ms"] if cp_ms and r["device_ms"] > 0 else None, "%.2fx"),
                     f(pct(r["gbs"], copy), "%.1f%%"), f(q, "%.4f"), f(cp_q, "%.4f"),
                     f(cp_q / q if cp_q and q else None, "%.2fx"), f(pct(r.get("queued_gbs", 0), qcopy), "%.1f%%"),
                     r.get("note", "")))
    print("\n== side by side (device time, median; copy %.0f GB/s per call, %.0f GB/s queued) ==" % (copy, qcopy))
    head = ("workload", "resident ms", "CuPy ms", "CuPy/resident", "% of copy", "resident queued", "CuPy queued",
            "CuPy/resident", "% of copy", "note")
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|" + "---:|" * 8 + "---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        print("%-24s %12s %10s %13s %9s %15s %11s %13s %9s  %s" % head)
        for row in rows:
            print("%-24s %12s %10s %13s %9s %15s %11s %13s %9s  %s" % row)
    # the targets
    print("\n== targets ==")
    for name in ("x*5", "x*5; x*x; x+x fused", "sum 100M float32", "sum axis 1 of (10M, 5)"):
        r = ours.get(name)
        if not r:
            continue
        call, qd = pct(r["gbs"], copy), pct(r.get("queued_gbs", 0), qcopy)
        verdict = "MET" if qd and qd >= 90 else "missed (target 90%)"
        print("%-32s queued %s of copy bandwidth  %s   (per call %s)" % (name, f(qd, "%5.1f%%"), verdict, f(call, "%.1f%%")))
    if "sort 50M float64" in ours and "sort 50M float64" in theirs:
        ratio = ours["sort 50M float64"]["device_ms"] / theirs["sort 50M float64"]
        print("%-32s %.3fx CuPy/CUB's time  %s" % ("sort 50M float64", ratio, "MET" if ratio <= 1.05 else "missed (target <= 1.05x)"))
    for kind in ("economy", "full"):
        name = "svd 3000x1000 " + kind
        if name in ours and name in theirs:
            speed = theirs[name] / ours[name]["device_ms"]
            print("%-32s %.2fx faster than CuPy  %s" % (name, speed, "MET" if speed >= 5 else "missed (target 5x)"))
    err = ours.get("svd errors")
    if err:
        ok = err["reconstruction"] < 1e-12 and err["orthogonality"] < 1e-12
        print("%-32s reconstruction %.2g, orthogonality %.2g  %s" % ("svd errors", err["reconstruction"],
                                                                     err["orthogonality"], "MET" if ok else "missed (1e-12)"))


if __name__ == "__main__":
    main()
