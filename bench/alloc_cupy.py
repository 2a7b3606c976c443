#!/usr/bin/env python3
"""bench/alloc_cupy.py: CuPy's memory pool timed the way bench/alloc times resident.

Allocate + free of 4 KiB and 100 MiB, in microseconds per pair: a loop of `iters` pairs
timed as a whole after a warm-up loop (so the pool serves hits), closed by one device
synchronize, and the median of 5 such loops. Two ways in: cupy.cuda.alloc (raw memory
from the current allocator, the default MemoryPool) and cupy.empty (an ndarray).

Usage: python3 bench/alloc_cupy.py [iterations for 4 KiB]   (default 20000; 100 MiB uses a
tenth). Run it in the same session as build-gpu/bench/alloc so the figures sit side by
side.
"""
import statistics
import sys
import time

try:
    import cupy
except ImportError:  # pragma: no cover - the GPU run has CuPy
    print("alloc_cupy: CuPy is not installed", file=sys.stderr)
    sys.exit(77)

REPS = 5


def loop(fn, nbytes, iters):
    t0 = time.perf_counter()
    for _ in range(iters):
        fn(nbytes)  # the object dies at once: its memory goes back to the pool
    cupy.cuda.Device().synchronize()
    return (time.perf_counter() - t0) * 1e6 / iters


def measure(fn, nbytes, iters):
    loop(fn, nbytes, max(iters // 10, 2))
    return statistics.median(loop(fn, nbytes, iters) for _ in range(REPS))


def raw_alloc(nbytes):
    cupy.cuda.alloc(nbytes)


def empty(nbytes):
    cupy.empty(nbytes, dtype=cupy.uint8)


def main():
    base = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    base = max(base, 20)
    pool = cupy.get_default_memory_pool()
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    if isinstance(name, bytes):
        name = name.decode()
    print(f"bench/alloc_cupy on {name} (CuPy {cupy.__version__}): allocate + free, "
          f"us per pair (median of {REPS} loops)")
    print(f"{'size':<8} {'cupy alloc':>12} {'cupy.empty':>12}")
    for label, nbytes, iters in (("4 KiB", 4 << 10, base), ("100 MiB", 100 << 20, base // 10)):
        a = measure(raw_alloc, nbytes, iters)
        e = measure(empty, nbytes, iters)
        print(f"{label:<8} {a:12.2f} {e:12.2f}")
    print(f"pool: {pool.used_bytes()} bytes used, {pool.total_bytes()} bytes held")


if __name__ == "__main__":
    main()
