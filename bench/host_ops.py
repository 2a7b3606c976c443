#!/usr/bin/env python3
"""Host array operations, resident against NumPy on the same machine: x * 5 over 100 MB of
float32, the sum of 100M float32, the sort of 10M float64 (uniform [0, 1) values), each
making a new output as NumPy does; median of a few calls after a warm-up. Prints both side
by side with the core count and resident's host thread count.

usage: host_ops.py BUILD/bench/host_ops [--repeat N] [--rounds R]

Rounds alternate the two sides so that both meet the same background load; each side's
figure is its best median over the rounds. The CPU columns (every thread's CPU time) show
the work done where a shared machine's wall clock also shows the waiting.
"""
import json, os, statistics, subprocess, sys, time

import numpy as np

SIZES = {"mul5": (100 * 1024 * 1024 // 4, np.float32), "sum": (100_000_000, np.float32),
         "sort": (10_000_000, np.float64)}


def numpy_ms(op, repeat):
    n, dt = SIZES[op]
    x = np.random.default_rng(42).random(n).astype(dt)
    fn = {"mul5": lambda: x * 5, "sum": lambda: x.sum(), "sort": lambda: np.sort(x)}[op]
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    repeat, rounds = 5, 3
    if "--repeat" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
    if "--rounds" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
    host, best, bcpu, ref, rcpu = None, {}, {}, {}, {}
    for _ in range(rounds):
        for op in SIZES:  # one op at a time, each side in turn
            out = subprocess.run([sys.argv[1], "--repeat", str(repeat), "--only", op], check=True,
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                if line.startswith("HOST "):
                    host = json.loads(line[5:])
                elif line.startswith("RESULT "):
                    r = json.loads(line[7:])
                    best[op] = min(best.get(op, float("inf")), r["median_ms"])
                    bcpu[op] = min(bcpu.get(op, float("inf")), r["cpu_ms"])
            ms, cpu = numpy_ms(op, repeat)
            ref[op] = min(ref.get(op, float("inf")), ms)
            rcpu[op] = min(rcpu.get(op, float("inf")), cpu)
    print(f"cores: {os.cpu_count()}, load average before the last round: {os.getloadavg()[0]:.1f}")
    print(f"resident host threads: {host['threads']}, BLAS: {host['blas']} ({host['blas_threads']} threads)")
    print(f"numpy {np.__version__}")
    print(f"best median of {repeat} calls over {rounds} alternating rounds")
    print(f"{'workload':<24} {'resident ms':>12} {'numpy ms':>10} {'ratio':>7} {'resident cpu':>13} {'numpy cpu':>10}")
    for op, ms in best.items():
        n, dt = SIZES[op]
        name = f"{op} {n} {np.dtype(dt).name}"
        print(f"{name:<24} {ms:>12.2f} {ref[op]:>10.2f} {ms / ref[op]:>6.2f}x {bcpu[op]:>13.2f} {rcpu[op]:>10.2f}")


if __name__ == "__main__":
    main()
