"""Collectives between processes (resident.Comm, issue 19): a comm of one rank here (NCCL's
on CUDA), and on the simulator three processes over shared memory."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import resident as rs


def _one_rank():
    try:
        return rs.Comm(1, 0, rs.comm_unique_id())
    except NotImplementedError as e:  # CUDA without NCCL: the message names it
        assert "nccl" in str(e).lower()
        pytest.skip(str(e))


def test_one_rank_collectives():
    with _one_rank() as comm:
        assert (comm.nranks, comm.rank) == (1, 0)
        a = np.arange(1000, dtype=np.float32)
        x = rs.asarray(a)
        with rs.ledger() as led:
            comm.all_reduce(x)
            y = rs.empty(1000, dtype=np.float32)
            comm.all_reduce(x, out=y, op="max")
            comm.broadcast(y, root=0)
        np.testing.assert_array_equal(y.get(), a)
        kinds = [e["kind"] for e in led.entries]
        assert kinds.count("collective") == 3


def test_bad_arguments():
    with pytest.raises(ValueError):
        rs.Comm(2, 2, rs.comm_unique_id())  # rank out of range
    with pytest.raises(ValueError):
        rs.Comm(1, 0, b"short")
    with _one_rank() as comm:
        x = rs.asarray(np.zeros(8, dtype=np.float32))
        with pytest.raises(ValueError):
            comm.all_reduce(x, op="median")
        with pytest.raises(TypeError):
            comm.all_reduce(np.zeros(8, dtype=np.float32))
        with pytest.raises(ValueError):
            comm.broadcast(x, root=3)
        with pytest.raises(ValueError):
            comm.all_reduce(x, out=rs.asarray(np.zeros(4, dtype=np.float32)))


CHILD = textwrap.dedent("""
    import sys, numpy as np, resident as rs
    nranks, rank, hexid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    with rs.Comm(nranks, rank, bytes.fromhex(hexid)) as comm:
        x = rs.asarray(np.full(100000, rank + 1, dtype=np.float64))
        comm.all_reduce(x)
        assert float(x.get()[-1]) == nranks * (nranks + 1) / 2, x.get()[-1]
        g = rs.empty(nranks * 10, dtype=np.float64)
        comm.all_gather(rs.asarray(np.full(10, rank, dtype=np.float64)), g)
        assert list(g.get()[::10]) == list(range(nranks))
    print("rank", rank, "ok")
""")


@pytest.mark.skipif(rs.backend() != "sim", reason="one process per GPU: needs as many GPUs")
def test_three_processes():
    hexid = rs.comm_unique_id().hex()
    env = dict(os.environ, RESIDENT_BACKEND="sim", RESIDENT_COMM_TIMEOUT="60")
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, "3", str(r), hexid], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(3)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    for r, (p, out) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, out
        assert f"rank {r} ok" in out
