#!/usr/bin/env python3
"""Host linear algebra, resident against NumPy on the same machine: matmul 1024x1024,
SVD 512x512 (economy, with U and Vh), solve 512x512 with one right-hand side, all
float64; median of a few calls after a warm-up. Prints both side by side with the core
count and the BLAS each side used.

usage: host_linalg.py BUILD/bench/host_linalg [--repeat N]

NumPy's BLAS is OpenBLAS too; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE in the environment
slow it down and should be unset (both together) in the command that runs this script.
"""
import json, os, statistics, subprocess, sys, time

import numpy as np


def numpy_ms(op, n, repeat):
    rng = np.random.default_rng(42)
    a = rng.standard_normal((n, n))
    b = rng.standard_normal((n, n) if op == "matmul" else (n,))
    fn = {"matmul": lambda: a @ b,
          "svd": lambda: np.linalg.svd(a, full_matrices=False),
          "solve": lambda: np.linalg.solve(a, b)}[op]
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def numpy_blas():
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f'{cfg.get("name")} {cfg.get("version")}'
    except Exception:  # older NumPy: no dict form
        return "unknown"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    repeat = 5
    if "--repeat" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
    out = subprocess.run([sys.argv[1], "--repeat", str(repeat)], check=True, capture_output=True, text=True).stdout
    lib, rows = None, []
    for line in out.splitlines():
        if line.startswith("LIBRARY "):
            lib = json.loads(line[8:])
        elif line.startswith("RESULT "):
            rows.append(json.loads(line[7:]))
    print(f"cores: {os.cpu_count()}")
    print(f"resident host library: {lib['library']} ({lib['threads']} threads)")
    print(f"numpy {np.__version__}, BLAS: {numpy_blas()}")
    print(f"{'workload':<22} {'resident ms':>12} {'numpy ms':>10} {'ratio':>7}")
    for r in rows:
        ref = numpy_ms(r["op"], r["n"], repeat)
        name = f'{r["op"]} {r["n"]} {r["dtype"]}'
        print(f"{name:<22} {r['median_ms']:>12.2f} {ref:>10.2f} {r['median_ms'] / ref:>6.2f}x")


if __name__ == "__main__":
    main()
