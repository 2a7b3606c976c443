#!/usr/bin/env python3
"""Python-level overhead of a tiny op: y = x * 5 on 1,000 float64 elements, a new output
each call, through resident's Python package and through CuPy in the same process
(CuPy is skipped where it is not installed).

Two figures per library, each the best median of alternating rounds (against the load of a
shared machine):
  queued      n calls then one synchronize, per call (launch + allocation + Python)
  sync each   call + synchronize every time, per call (what a user's loop sees)
Both libraries synchronize their default stream (rs.Stream.null, cupy.cuda.Stream.null).
plus resident.benchmark's own line (host time with a synchronization per repeat).

  python3 bench/python_overhead.py [--calls 2000] [--rounds 7]
Needs resident importable (pip install ./python, or PYTHONPATH=build-python).
"""
import argparse
import statistics
import sys
import time

import numpy as np

import resident as rs


def per_call_us(fn, sync, calls, each):
    sync()
    t0 = time.perf_counter()
    if each:
        for _ in range(calls):
            fn()
            sync()
    else:
        for _ in range(calls):
            fn()
        sync()
    return (time.perf_counter() - t0) / calls * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--n", type=int, default=1000)
    args = p.parse_args()

    libs = {}
    xr = rs.asarray(np.arange(args.n, dtype=np.float64))
    libs["resident"] = (lambda: xr * 5, rs.Stream.null.synchronize)
    try:
        import cupy as cp
        xc = cp.arange(args.n, dtype=cp.float64)
        libs["cupy"] = (lambda: xc * 5, cp.cuda.Stream.null.synchronize)
    except Exception as e:  # noqa: BLE001 - any import or device failure: skip CuPy
        print(f"cupy: skipped ({type(e).__name__}: {e})")

    print(f"resident {rs.__version__}, backend {rs.backend()}, device "
          f"{rs.device_info()['name']}; y = x * 5, {args.n} float64, new output")
    np.testing.assert_array_equal((xr * 5).get(), np.arange(args.n) * 5.0)
    for name, (fn, sync) in libs.items():       # warm-up: compiles, pools
        for _ in range(200):
            fn()
        sync()
    results = {name: {"queued": [], "sync each": []} for name in libs}
    for _ in range(args.rounds):
        for name, (fn, sync) in libs.items():
            for mode in ("queued", "sync each"):
                results[name][mode].append(per_call_us(fn, sync, args.calls, mode == "sync each"))
    print(f"{'':10} {'queued us/call':>15} {'sync each us/call':>18}   (median of {args.rounds} "
          f"rounds of {args.calls} calls; min in brackets)")
    for name, r in results.items():
        q, s = r["queued"], r["sync each"]
        print(f"{name:10} {statistics.median(q):9.2f} ({min(q):6.2f}) {statistics.median(s):11.2f} "
              f"({min(s):6.2f})")
    if "cupy" in results:
        ratio = statistics.median(results["resident"]["sync each"]) / statistics.median(
            results["cupy"]["sync each"])
        print(f"resident / cupy, sync each: {ratio:.2f} (goal: <= 1.00)")
    print(rs.benchmark(lambda: xr * 5, n_repeat=args.calls, n_warmup=10, name="x*5 (rs.benchmark)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
