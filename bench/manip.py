#!/usr/bin/env python3
"""Manipulation kernels (issue 18) on the GPU: concat, flip, roll, tile and repeat in GB/s
against the device copy bandwidth measured the same way, beside CuPy in the same run.

    PYTHONPATH=<build>-python python3 bench/manip.py [--mb 512] [--repeat 20]

Each workload writes into an existing array (resident's out=; CuPy allocates its result,
from its pool) and is timed queued: `repeat` calls back to back between two synchronizes,
per call, after a warm-up that also compiles the kernels. Bytes are those read plus those
written. The target (issue 18): every manipulation kernel at >= 90% of the copy bandwidth.
"""
import argparse
import time

import numpy as np

import resident as rs


def timed(fn, sync, repeat):
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    sync()
    return (time.perf_counter() - t0) / repeat


def workloads(xp, n, out_of):
    """(name, bytes moved, fn) for one array library; out_of(shape) gives a result array
    (None for CuPy, which allocates)."""
    x = xp.arange(n, dtype=xp.float32)
    half = x[: n // 2]
    m = xp.reshape(x, (n // 4096, 4096))
    q = x[: n // 4]
    b = 4 * n
    res = []

    def add(name, nbytes, f):
        res.append((name, nbytes, f))

    o = out_of((n,))
    if o is None:
        add("copy (reference)", 2 * b, lambda: x.copy())
        z = xp.empty(n, dtype=xp.float32)
        add("fill (write only)", b, lambda: z.fill(0))  # (CuPy: cudaMemsetAsync for 0)
        add("concat 2 x n/2 (1-d)", 2 * b, lambda: xp.concatenate([half, half]))
        add("concat axis 1 of (n/4096, 2048) x 2", 2 * b,
            lambda: xp.concatenate([m[:, :2048], m[:, 2048:]], axis=1))
        add("flip 1-d", 2 * b, lambda: xp.flip(x).copy())
        add("flip axis 1 of (n/4096, 4096)", 2 * b, lambda: xp.flip(m, 1).copy())
        add("roll n/3 1-d", 2 * b, lambda: xp.roll(x, n // 3))
        add("tile n/4 x 4", b + b // 4, lambda: xp.tile(q, 4))
        add("repeat n/4 x 4", b + b // 4, lambda: xp.repeat(q, 4))
        return res
    om = out_of((n // 4096, 4096))
    add("copy (reference)", 2 * b, lambda: rs.copy(x, out=o))
    # tile and repeat write 4 bytes for each they read: the write-only bandwidth beside
    add("fill (write only)", b, lambda: o.fill(1.5))
    add("concat 2 x n/2 (1-d)", 2 * b, lambda: rs.concat([half, half], out=o))
    add("concat axis 1 of (n/4096, 2048) x 2", 2 * b,
        lambda: rs.concat([m[:, :2048], m[:, 2048:]], axis=1, out=om))
    add("flip 1-d", 2 * b, lambda: rs.flip(x, out=o))
    add("flip axis 1 of (n/4096, 4096)", 2 * b, lambda: rs.flip(m, axis=1, out=om))
    add("roll n/3 1-d", 2 * b, lambda: rs.roll(x, n // 3, out=o))
    add("tile n/4 x 4", b + b // 4, lambda: rs.tile(q, (4,), out=o))
    add("repeat n/4 x 4", b + b // 4, lambda: rs.repeat(q, 4, out=o))
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mb", type=int, default=512, help="array size in MB (float32)")
    p.add_argument("--repeat", type=int, default=20)
    a = p.parse_args()
    n = a.mb * 1000 * 1000 // 4 // 4096 * 4096
    print(f"resident backend {rs.backend()}, {n} float32 elements ({4 * n / 1e6:.0f} MB)")
    mine = {name: (nb, timed(f, rs.synchronize, a.repeat))
            for name, nb, f in workloads(rs, n, lambda s: rs.empty(s, dtype=rs.float32))}
    theirs = {}
    try:
        import cupy as cp
        sync = cp.cuda.Device().synchronize
        theirs = {name: (nb, timed(f, sync, a.repeat)) for name, nb, f in workloads(cp, n, lambda s: None)}
    except ImportError:
        print("note: CuPy is not installed - resident's figures only")
    copy_gbs = mine["copy (reference)"][0] / mine["copy (reference)"][1] / 1e9
    if "copy (reference)" in theirs:  # the faster of the two copies is the reference
        copy_gbs = max(copy_gbs, theirs["copy (reference)"][0] / theirs["copy (reference)"][1] / 1e9)
    print(f"copy bandwidth (reference, the faster of resident's and CuPy's copy): {copy_gbs:.0f} GB/s")
    print(f"| workload | resident GB/s | % of copy | CuPy GB/s | resident / CuPy | target >= 90% |")
    print("|---|---|---|---|---|---|")
    worst = 1e9
    for name, (nb, t) in mine.items():
        gbs = nb / t / 1e9
        pct = 100 * gbs / copy_gbs
        if name not in ("copy (reference)", "fill (write only)"):
            worst = min(worst, pct)
        c = theirs.get(name)
        cg = f"{c[0] / c[1] / 1e9:.0f}" if c else "-"
        ratio = f"{c[1] / t:.2f}x" if c else "-"
        ok = "" if name in ("copy (reference)", "fill (write only)") else ("yes" if pct >= 90 else "NO")
        print(f"| {name} | {gbs:.0f} | {pct:.0f}% | {cg} | {ratio} | {ok} |")
    print(f"worst manipulation kernel: {worst:.0f}% of the copy bandwidth")
    x = np.arange(1000, dtype=np.float32)  # a quick correctness check beside the timing
    assert np.array_equal(rs.to_numpy(rs.roll(rs.asarray(x), 7)), np.roll(x, 7))


if __name__ == "__main__":
    main()
