#!/usr/bin/env python3
"""Host linear algebra, resident against NumPy on the same machine: matmul 1024x1024 (into
a new array, and into an existing one: out=),
SVD 512x512 (economy, with U and Vh), solve 512x512 with one right-hand side, all
float64; median of a few calls after a warm-up. Prints both side by side with the core
count and the BLAS each side used.

usage: host_linalg.py BUILD/bench/host_linalg [--repeat N] [--rounds R]

NumPy's BLAS is OpenBLAS too; OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE in the environment
slow it down and should be unset (both together) in the command that runs this script.
"""
import json, os, statistics, subprocess, sys, time

import numpy as np


def numpy_ms(op, n, repeat):
    rng = np.random.default_rng(42)
    a = rng.standard_normal((n, n))
    b = rng.standard_normal((n, n) if op.startswith("matmul") else (n,))
    c = np.empty((n, n))
    fn = {"matmul": lambda: a @ b,
          "matmul_into": lambda: np.matmul(a, b, out=c),
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
    repeat, rounds = 5, 3
    if "--repeat" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
    if "--rounds" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
    # Rounds alternate the two sides so that both meet the same background load; each
    # side's figure is its best median over the rounds.
    lib, best, ref = None, {}, {}
    for _ in range(rounds):
        out = subprocess.run([sys.argv[1], "--repeat", str(repeat)], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            if line.startswith("LIBRARY "):
                lib = json.loads(line[8:])
            elif line.startswith("RESULT "):
                r = json.loads(line[7:])
                key = (r["op"], r["n"], r["dtype"])
                best[key] = min(best.get(key, float("inf")), r["median_ms"])
        for key in best:
            ref[key] = min(ref.get(key, float("inf")), numpy_ms(key[0], key[1], repeat))
    print(f"cores: {os.cpu_count()}")
    print(f"resident host library: {lib['library']} ({lib['threads']} threads)")
    print(f"numpy {np.__version__}, BLAS: {numpy_blas()}")
    print(f"best median of {repeat} calls over {rounds} alternating rounds")
    print(f"{'workload':<26} {'resident ms':>12} {'numpy ms':>10} {'ratio':>7}")
    for key, ms in best.items():
        name = f"{key[0]} {key[1]} {key[2]}"
        print(f"{name:<26} {ms:>12.2f} {ref[key]:>10.2f} {ms / ref[key]:>6.2f}x")


if __name__ == "__main__":
    main()
