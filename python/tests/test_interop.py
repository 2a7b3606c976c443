import subprocess
import sys

import numpy as np
import pytest

import resident as rs


def test_dlpack_round_trip_device():
    x = rs.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert x.__dlpack_device__()[0] in (2, 13)
    with rs.ledger() as led:
        y = rs.from_dlpack(x)
    assert led.copies == 0
    assert y.data_ptr == x.data_ptr and y.shape == (3, 4)
    np.testing.assert_array_equal(y.get(), np.arange(12).reshape(3, 4))
    cap = x.T.__dlpack__(max_version=(1, 0))
    z = rs.from_dlpack(cap)
    np.testing.assert_array_equal(z.get(), np.arange(12).reshape(3, 4).T)
    legacy = x.__dlpack__()
    w = rs.from_dlpack(legacy)
    np.testing.assert_array_equal(w.get(), np.arange(12).reshape(3, 4))


def test_dlpack_host_with_numpy():
    h = rs.asarray(np.arange(6.0), device="host")
    assert h.__dlpack_device__() == (1, 0)
    n = np.from_dlpack(h)
    assert n.__array_interface__["data"][0] == h.data_ptr
    a = np.arange(5, dtype=np.int16)
    r = rs.from_dlpack(a)
    assert r.device == "host" and r.data_ptr == a.__array_interface__["data"][0]
    np.testing.assert_array_equal(np.asarray(r), a)


def test_cuda_array_interface_round_trip():
    x = rs.asarray(np.arange(6, dtype=np.float64).reshape(2, 3))
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (2, 3) and cai["typestr"] == "<f8"
    assert cai["stream"] == 1 and cai["data"][0] == x.data_ptr

    class Foreign:
        def __init__(self, iface):
            self.__cuda_array_interface__ = iface

    f = Foreign(dict(cai))
    with rs.ledger() as led:
        y = rs.asarray(f)
    assert led.copies == 0 and y.data_ptr == x.data_ptr
    np.testing.assert_array_equal((y + 1).get(), np.arange(6).reshape(2, 3) + 1)
    with pytest.raises(AttributeError):
        rs.ones(2, device="host").__cuda_array_interface__
    # the foreign owner is held while resident uses its memory, and let go after
    before = sys.getrefcount(f)
    z = rs.asarray(f)
    assert sys.getrefcount(f) == before + 1
    del z
    rs.synchronize()
    for _ in range(3):
        rs.live_stats()
    assert sys.getrefcount(f) == before


def test_python_m_resident_pipeline():
    r = subprocess.run([sys.executable, "-m", "resident", "pipeline", "--size", "1MB",
                        "--kernels", "2", "--backend", "sim"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "implicit" in r.stdout and "explicit" in r.stdout
