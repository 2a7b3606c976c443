#!/usr/bin/env python3
"""resident's statistics and scans next to CuPy, in one run (issue 18, part "stats").

    PYTHONPATH=build-gpu-python python3 bench/stats.py [--repeat 20] [--quick]

Workloads (device arrays, a new result each call on both sides):
  cumulative_sum of 100M float32 (one row: one CUB DeviceScan) beside cupy.cumsum -
      target: no slower than CuPy;
  cumulative_sum along axis 1 (CUB scan by key) and axis 0 (the column scans, where the
      axis lies) of 10000 x 10000 float32 (and float64 along axis 0) beside cupy.cumsum;
  sum over axes (0, 2) (the column scheme of the generated reductions) and over axis 0
      (the float column-sum tile, cuda_ops_col_sum.cu); var / std over
      axis 1 and over everything (the one-pass Welford backend op, rows), var over axis 0
      (the same op, columns); sort along axis 0, argsort along axis 1; beside CuPy;
and the device copy (x.copy()) for the bandwidth figures. GB/s counts the bytes a
workload must move at least (input read + result written; var / std read the input
once since they are one Welford pass - earlier versions counted two reads); the last column is that against the copy's GB/s (target >= 90% where
bandwidth-bound). Times are per call, the
median of `--rounds` rounds of `--repeat` calls queued back to back then one
synchronize (launch gaps included, as a loop sees them).
"""
import argparse
import statistics
import time

import numpy as np

import resident as rs


def timed(fn, sync, repeat, rounds):
    fn()
    sync()  # warm-up: compiles, pools
    per = []
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        sync()
        per.append((time.perf_counter() - t0) / repeat)
    return statistics.median(per)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="100x smaller arrays (a smoke test)")
    a = p.parse_args()
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001 - no CuPy: resident's figures alone
        print(f"cupy: skipped ({type(e).__name__}: {e})")
        cp = None
    scale = 100 if a.quick else 1
    n1 = 100_000_000 // scale
    side = 10_000 // (10 if a.quick else 1)
    rsync = rs.Stream.null.synchronize
    csync = cp.cuda.Stream.null.synchronize if cp else None
    print(f"resident {rs.__version__}, backend {rs.backend()}, device {rs.device_info()['name']}")

    rng = np.random.default_rng(0)
    h1 = rng.standard_normal(n1, dtype=np.float32)
    h2 = rng.standard_normal((side, side), dtype=np.float32)
    h3 = rng.standard_normal((side // 10, side, 10)).astype(np.float32)
    h2d = h2.astype(np.float64)
    r1, r2, r3, r2d = (rs.asarray(h).to_device("device") for h in (h1, h2, h3, h2d))
    c1, c2, c3, c2d = (cp.asarray(h) for h in (h1, h2, h3, h2d)) if cp else (None,) * 4

    # correctness first (against NumPy on the host)
    got = rs.cumulative_sum(r1).get()
    want = np.cumsum(h1.astype(np.float64))
    err = np.max(np.abs(got - want)) / max(1.0, np.max(np.abs(want)))
    print(f"cumulative_sum {n1:,} float32: max |error| / max |sum| = {err:.2e} (float32 scan vs float64 reference)")
    np.testing.assert_allclose(rs.var(r2, axis=1).get(), np.var(h2, axis=1), rtol=1e-5)
    np.testing.assert_allclose(rs.var(r2, axis=0).get(), np.var(h2.astype(np.float64), axis=0), rtol=1e-5)
    np.testing.assert_allclose(rs.var(r2).get(), np.var(h2.astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(rs.sum(r3, axis=(0, 2)).get(), np.sum(h3.astype(np.float64), axis=(0, 2)),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(rs.sort(r2, axis=0).get(), np.sort(h2, axis=0))
    for ax in (0, 1):  # the column scan and the block-per-row scan (float32 sums of ~100)
        np.testing.assert_allclose(rs.cumulative_sum(r2, axis=ax).get(), np.cumsum(h2.astype(np.float64), axis=ax),
                                   rtol=1e-4, atol=5e-2)
    np.testing.assert_allclose(rs.std(r2d, axis=1).get(), np.std(h2d, axis=1), rtol=1e-12)

    f8 = 8  # bytes of an int64 index
    work = [  # name, resident fn, cupy fn, bytes moved, bandwidth-bound
        ("copy float32 (reference)", lambda: r2.copy(), (lambda: c2.copy()) if cp else None, 2 * h2.nbytes, True),
        (f"cumulative_sum {n1 // 1_000_000}M float32", lambda: rs.cumulative_sum(r1), (lambda: cp.cumsum(c1)) if cp else None,
         2 * h1.nbytes, True),
        (f"cumulative_sum axis 1, {side}^2 f32", lambda: rs.cumulative_sum(r2, axis=1),
         (lambda: cp.cumsum(c2, axis=1)) if cp else None, 2 * h2.nbytes, True),
        (f"cumulative_sum axis 0, {side}^2 f32", lambda: rs.cumulative_sum(r2, axis=0),
         (lambda: cp.cumsum(c2, axis=0)) if cp else None, 2 * h2.nbytes, True),
        (f"cumulative_sum axis 0, {side}^2 f64", lambda: rs.cumulative_sum(r2d, axis=0),
         (lambda: cp.cumsum(c2d, axis=0)) if cp else None, 2 * h2d.nbytes, True),
        ("sum axes (0, 2) f32", lambda: rs.sum(r3, axis=(0, 2)), (lambda: cp.sum(c3, axis=(0, 2))) if cp else None,
         h3.nbytes, True),
        ("sum axis 0 f32", lambda: rs.sum(r2, axis=0), (lambda: cp.sum(c2, axis=0)) if cp else None,
         h2.nbytes + side * 4, True),
        ("var axis 1 f32 (1 read)", lambda: rs.var(r2, axis=1), (lambda: cp.var(c2, axis=1)) if cp else None,
         h2.nbytes + side * 4, True),
        ("std axis 1 f64 (1 read)", lambda: rs.std(r2d, axis=1), (lambda: cp.std(c2d, axis=1)) if cp else None,
         h2d.nbytes + side * 8, True),
        ("var all f32 (1 read)", lambda: rs.var(r2), (lambda: cp.var(c2)) if cp else None, h2.nbytes + 4, True),
        ("var axis 0 f32 (1 read)", lambda: rs.var(r2, axis=0), (lambda: cp.var(c2, axis=0)) if cp else None,
         h2.nbytes + side * 4, True),
        ("sort axis 0 f32", lambda: rs.sort(r2, axis=0), (lambda: cp.sort(c2, axis=0)) if cp else None,
         2 * h2.nbytes, False),
        ("argsort axis 1 f32", lambda: rs.argsort(r2, axis=1), (lambda: cp.argsort(c2, axis=1)) if cp else None,
         h2.nbytes + side * side * f8, False),
    ]
    copy_gbs = None
    print(f"{'workload':40s} {'resident ms':>12s} {'GB/s':>8s} {'cupy ms':>10s} {'GB/s':>8s} {'res/cupy':>9s} "
          f"{'% of copy':>9s}")
    for name, rf, cf, nbytes, bw in work:
        tr = timed(rf, rsync, a.repeat, a.rounds)
        gr = nbytes / tr / 1e9
        if copy_gbs is None:
            copy_gbs = gr
        tc = timed(cf, csync, a.repeat, a.rounds) if cf else None
        gc = nbytes / tc / 1e9 if tc else float("nan")
        ratio = f"{tc / tr:9.2f}" if tc else f"{'-':>9s}"
        pct = f"{100 * gr / copy_gbs:8.0f}%" if bw else f"{'-':>9s}"
        tcs = f"{tc * 1e3:10.3f}" if tc else f"{'-':>10s}"
        print(f"{name:40s} {tr * 1e3:12.3f} {gr:8.0f} {tcs} {gc:8.0f} {ratio} {pct}")
    print("res/cupy > 1: resident faster. '% of copy': resident's GB/s against its device copy's.")


if __name__ == "__main__":
    main()
