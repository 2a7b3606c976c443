#!/usr/bin/env python3
"""Indexing and sets on the GPU beside CuPy, in one process (issue 18's targets):

  unique       unique_values of 50M int64 (10M distinct) vs cupy.unique(x) - target: no slower
  unique_counts, unique_all   vs cupy.unique(return_counts / return_index+inverse+counts)
  take         x.take(idx): 100M float32, 50M random int64 indices -> GB/s (idx + out +
               the gathered reads) vs cupy.take
  mask         x[mask]: 100M float32, half the mask true -> GB/s (x + mask + out) vs x[mask]
  put          x[idx] = v (50M distinct indices)

Each figure is the median wall time of --repeat calls, every call followed by a device
synchronize (the results' lengths are data-dependent on both sides, so both wait anyway).
The inputs are made by CuPy and shared with resident through DLPack (no copy), so both
work on the same memory. Results are checked equal.

  PYTHONPATH=build-python python3 bench/index_cupy.py [--repeat 9] [--quick]
"""
import argparse
import statistics
import time

import numpy as np

import resident as rs


def timed(fn, sync, repeat):
    fn()  # warm-up (compilation, pool growth)
    sync()
    ts = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="1/100 of the sizes")
    args = ap.parse_args()
    div = 100 if args.quick else 1
    try:
        import cupy as cp
    except ImportError:
        cp = None
        print("note: CuPy is not installed - resident's figures only")
    print(f"backend: {rs.backend()}")
    rs_sync = rs.synchronize
    cp_sync = (lambda: cp.cuda.Device().synchronize()) if cp else None
    rng = np.random.default_rng(0)

    def make(host):
        if cp is not None:
            d = cp.asarray(host)
            return d, rs.from_dlpack(d)
        return None, rs.asarray(host)

    rows = []

    def row(name, t_rs, t_cp, gbytes=None):
        r = {"name": name, "resident_ms": t_rs * 1e3, "cupy_ms": t_cp * 1e3 if t_cp else None}
        if gbytes:
            r["resident_GBs"] = gbytes / t_rs
            r["cupy_GBs"] = gbytes / t_cp if t_cp else None
        rows.append(r)

    # ---- unique of 50M int64 ----
    n = 50_000_000 // div
    hx = rng.integers(0, n // 5, n, dtype=np.int64)
    cx, x = make(hx)
    t_rs = timed(lambda: rs.unique_values(x), rs_sync, args.repeat)
    t_cp = timed(lambda: cp.unique(cx), cp_sync, args.repeat) if cp else None
    got = rs.unique_values(x).get()
    assert np.array_equal(got, np.unique(hx)), "unique_values differs from NumPy"
    row(f"unique_values {n} int64", t_rs, t_cp)
    t_rs = timed(lambda: rs.unique_counts(x), rs_sync, args.repeat)
    t_cp = timed(lambda: cp.unique(cx, return_counts=True), cp_sync, args.repeat) if cp else None
    row(f"unique_counts {n} int64", t_rs, t_cp)
    t_rs = timed(lambda: rs.unique_all(x), rs_sync, args.repeat)
    t_cp = (timed(lambda: cp.unique(cx, return_index=True, return_inverse=True, return_counts=True), cp_sync,
                  args.repeat) if cp else None)
    row(f"unique_all {n} int64", t_rs, t_cp)
    del x, cx

    # ---- take ----
    n, m = 100_000_000 // div, 50_000_000 // div
    hv = rng.random(n, dtype=np.float32)
    hi = rng.integers(0, n, m, dtype=np.int64)
    cv, v = make(hv)
    ci, i = make(hi)
    gb = (m * 8 + m * 4 + m * 4) / 1e9
    t_rs = timed(lambda: rs.take(v, i, axis=0), rs_sync, args.repeat)
    t_cp = timed(lambda: cp.take(cv, ci), cp_sync, args.repeat) if cp else None
    assert np.array_equal(rs.take(v, i, axis=0).get(), hv[hi]), "take differs"
    row(f"take {m} of {n} float32", t_rs, t_cp, gb)

    # ---- mask ----
    hm = rng.random(n) < 0.5
    cm, mk = make(hm)
    k = int(hm.sum())
    gb = (n * 4 + n * 1 + k * 4) / 1e9
    t_rs = timed(lambda: v[mk], rs_sync, args.repeat)
    t_cp = timed(lambda: cv[cm], cp_sync, args.repeat) if cp else None
    assert np.array_equal(v[mk].get(), hv[hm]), "mask read differs"
    row(f"x[mask] {n} float32, {k} true", t_rs, t_cp, gb)

    # ---- put (distinct indices) ----
    hp = rng.permutation(n)[:m].astype(np.int64)
    cpi, pi = make(hp)
    hvals = rng.random(m, dtype=np.float32)
    cvals, vals = make(hvals)
    gb = (m * 8 + m * 4 + m * 4) / 1e9

    def rs_put():
        v[pi] = vals

    def cp_put():
        cv[cpi] = cvals

    t_rs = timed(rs_put, rs_sync, args.repeat)
    t_cp = timed(cp_put, cp_sync, args.repeat) if cp else None
    row(f"x[idx] = v, {m} of {n} float32", t_rs, t_cp, gb)

    print(f"{'workload':44s} {'resident ms':>12s} {'CuPy ms':>10s} {'ratio':>7s} {'rs GB/s':>9s} {'CuPy GB/s':>10s}")
    for r in rows:
        ratio = r["resident_ms"] / r["cupy_ms"] if r["cupy_ms"] else float("nan")
        gbs = f"{r['resident_GBs']:9.1f}" if "resident_GBs" in r else " " * 9
        cgbs = f"{r['cupy_GBs']:10.1f}" if r.get("cupy_GBs") else " " * 10
        cms = f"{r['cupy_ms']:10.3f}" if r["cupy_ms"] else " " * 10
        print(f"{r['name']:44s} {r['resident_ms']:12.3f} {cms} {ratio:7.2f} {gbs} {cgbs}")
    if cp:
        u = rows[0]
        verdict = "MET" if u["resident_ms"] <= u["cupy_ms"] * 1.0 else "NOT MET"
        print(f"target unique 50M int64 no slower than cupy.unique: {verdict} "
              f"({u['resident_ms']:.3f} ms vs {u['cupy_ms']:.3f} ms)")


if __name__ == "__main__":
    main()
