"""bench/launch_py.py - launch overhead of an empty kernel in CuPy (RawKernel) and Numba,
measured as bench/launch measures resident and raw CUDA C: the host wall time of n
back-to-back launches of a kernel with one pointer argument, one synchronize, divided by
n; the median of 5 repeats after a warm-up.

    python3 bench/launch_py.py [launches per repeat, default 100000]
"""
import statistics
import sys
import time

import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
REPEATS = 5


def per_launch_us(launch, sync, n):
    launch()
    sync()
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(n):
            launch()
        sync()
        times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def row(name, us):
    print(f"{name:<58} {us:9.3f}")


print(f"empty kernel, one pointer argument, per launch ({N} launches, median of {REPEATS})")
try:
    import cupy as cp

    k = cp.RawKernel(r'extern "C" __global__ void empty_k(float *p) {}', "empty_k")
    d = cp.zeros(1, dtype=cp.float32)
    row("CuPy RawKernel k((1,), (1,), (d,))", per_launch_us(lambda: k((1,), (1,), (d,)), cp.cuda.Device().synchronize, N))
except Exception as e:  # report and go on to Numba
    print("CuPy: not measured:", repr(e))

try:
    np.row_stack = np.vstack  # numba 0.68 still calls it; NumPy 2 removed it
    from numba import cuda

    @cuda.jit
    def empty_k(p):
        pass

    dn = cuda.device_array(1, dtype=np.float32)
    n = max(N // 5, 1000)  # Numba is ~7x slower per launch: fewer launches, same method
    row(f"Numba @cuda.jit empty_k[1, 1](d) ({n} launches)", per_launch_us(lambda: empty_k[1, 1](dn), cuda.synchronize, n))
except Exception as e:
    print("Numba: not measured:", repr(e))
