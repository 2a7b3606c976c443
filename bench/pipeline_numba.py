"""The seed pipeline in Numba-CUDA, for side-by-side figures with bench/pipeline.

N kernels a[i] = a[i] * 1.0001 + 1 over 100 MB float32: implicit (the NumPy array passed to
every launch, which Numba copies in and out), explicit (to_device once, copy_to_host once),
from pageable and pinned host memory. Median wall time of repeated runs, synchronized.
"""
import sys
import time

import numpy as np

np.row_stack = np.vstack  # numba 0.68 still refers to it
from numba import cuda  # noqa: E402


@cuda.jit
def axpb(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = a[i] * np.float32(1.0001) + np.float32(1.0)


def run(host, kernels, implicit):
    host[:] = (np.arange(host.size) % 1024).astype(np.float32) / 1024
    threads = 256
    blocks = (host.size + threads - 1) // threads
    t0 = time.perf_counter()
    if implicit:
        for _ in range(kernels):
            axpb[blocks, threads](host)
    else:
        dev = cuda.to_device(host)
        for _ in range(kernels):
            axpb[blocks, threads](dev)
        dev.copy_to_host(host)
    cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    n = 100_000_000 // 4
    hosts = {"pageable": np.empty(n, np.float32), "pinned": cuda.pinned_array(n, np.float32)}
    print(f"{'numba pipeline 100 MB float32':34s} {'median ms':>10s} {'copies':>7s}")
    for kernels in (3, 10):
        for kind, host in hosts.items():
            for implicit in (True, False):
                run(host, kernels, implicit)  # warm-up (and JIT)
                times = sorted(run(host, kernels, implicit) for _ in range(repeat))
                copies = 2 * kernels if implicit else 2
                name = f"{kernels:2d} kernels {'implicit' if implicit else 'explicit':8s} {kind:8s}"
                print(f"{name:34s} {times[repeat // 2]:10.3f} {copies:7d}")


if __name__ == "__main__":
    main()
