"""Interop with CuPy, PyTorch and Numba on a GPU: zero copy checked by data pointer and by the
ledger. Skipped on the simulator and where a library is missing."""
import numpy as np
import pytest

import resident as rs

pytestmark = pytest.mark.skipif(rs.backend() != "cuda", reason="needs the CUDA backend")


def test_cupy_both_ways():
    cp = pytest.importorskip("cupy")
    c = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    with rs.ledger() as led:
        x = rs.asarray(c)                      # __cuda_array_interface__
        y = rs.from_dlpack(c)                  # DLPack
    assert led.copies == 0
    assert x.data_ptr == c.data.ptr == y.data_ptr
    np.testing.assert_array_equal((x * 2).get(), cp.asnumpy(c) * 2)
    r = rs.asarray(np.arange(6, dtype=np.float64))
    c2 = cp.asarray(r)                         # CuPy reads resident's interface
    assert c2.data.ptr == r.data_ptr
    c3 = cp.from_dlpack(r)
    assert c3.data.ptr == r.data_ptr
    np.testing.assert_array_equal(cp.asnumpy(c3 + 1), np.arange(6) + 1)
    del x, y


def test_torch_both_ways():
    torch = pytest.importorskip("torch")
    t = torch.arange(10, dtype=torch.float32, device="cuda")
    with rs.ledger() as led:
        x = rs.from_dlpack(t)
    assert led.copies == 0 and x.data_ptr == t.data_ptr()
    r = rs.asarray(np.arange(5, dtype=np.float32))
    t2 = torch.from_dlpack(r)
    assert t2.data_ptr() == r.data_ptr
    torch.cuda.synchronize()
    assert t2.cpu().tolist() == [0, 1, 2, 3, 4]
    t3 = torch.as_tensor(r, device="cuda")     # __cuda_array_interface__
    assert t3.data_ptr() == r.data_ptr


def test_numba_reads_resident_arrays():
    cuda = pytest.importorskip("numba.cuda")
    r = rs.asarray(np.arange(8, dtype=np.float64))
    d = cuda.as_cuda_array(r)
    assert int(d.__cuda_array_interface__["data"][0]) == r.data_ptr
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(8))
    x = rs.asarray(d)
    assert x.data_ptr == r.data_ptr


def test_cupy_allocator_uses_the_pool():
    cp = pytest.importorskip("cupy")
    import resident.interop
    before = rs.memory_stats()["allocations"]
    old = cp.cuda.get_allocator()
    cp.cuda.set_allocator(resident.interop.cupy_allocator)
    try:
        a = cp.ones(1 << 20, dtype=cp.float32)
        assert rs.memory_stats()["allocations"] > before
        assert float(a.sum()) == float(1 << 20)
        del a
    finally:
        cp.cuda.set_allocator(old)


def test_numba_emm_plugin_uses_the_pool():
    pytest.importorskip("numba.cuda")
    import os
    import subprocess
    import sys
    code = ("import numpy as np, resident as rs\n"
            "from numba import cuda\n"
            "before = rs.memory_stats()['allocations']\n"
            "d = cuda.to_device(np.arange(1000.0))\n"
            "assert rs.memory_stats()['allocations'] > before\n"
            "assert d.copy_to_host()[999] == 999.0\n"
            "print('ok')\n")
    env = dict(os.environ, NUMBA_CUDA_MEMORY_MANAGER="resident.interop",
               PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]
