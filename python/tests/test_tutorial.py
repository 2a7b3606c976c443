"""The tutorial of python/README.md, run as written (smaller sizes)."""
import inspect
import re

import numpy as np
import pytest

import resident as rs


def test_lesson_1_explicit_copies():
    a = np.arange(100_000, dtype=np.float32)
    with rs.ledger() as led:
        x = rs.asarray(a)
        y = x * 2 + 1
        z = rs.sqrt(y, out=y)
        b = z.get()
    assert led.copies == 2 and led.bytes == 2 * a.nbytes
    np.testing.assert_allclose(b, np.sqrt(a * 2 + 1), rtol=1e-6)
    assert "H2D explicit" in str(led)


def test_lesson_2_implicit_copies_and_the_guard():
    k = rs.RawKernel(r'''
extern "C" __global__ void scale(float *v, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] *= a; }''', "scale")
    a = np.ones(10_000, dtype=np.float32)
    n = a.size
    with rs.ledger() as led:
        for _ in range(3):
            k[(n + 255) // 256, 256](a, 1.5, n)
    assert led.implicit_copies == 6
    np.testing.assert_allclose(a, 1.5 ** 3)
    d = rs.asarray(a)
    with rs.transfer_guard("disallow"):
        for _ in range(3):
            k[(n + 255) // 256, 256](d, 1.5, n)
        k(((n + 255) // 256,), (256,), (d, 1.5, n))
        with pytest.raises(rs.TransferRefused):
            k[(n + 255) // 256, 256](a, 1.5, n)
    np.testing.assert_allclose(d.get(), 1.5 ** 7, rtol=1e-5)


def test_lesson_3_pinned():
    h = rs.empty(1000, dtype="float32", device="pinned")
    h.fill(2.0)
    d = rs.asarray(h, device="device")
    out = rs.zeros(1000, dtype="float32", device="pinned")
    d.copy_to_host(out)
    np.testing.assert_array_equal(np.asarray(out), np.full(1000, 2.0, np.float32))


def test_lesson_5_host_path_copies_nothing():
    x = rs.arange(1000, dtype="float64", device="host")
    with rs.ledger() as led:
        y = rs.sin(x) * 2
    assert led.copies == 0 and y.device == "host"
    np.testing.assert_allclose(np.asarray(y), np.sin(np.arange(1000.0)) * 2)


def test_every_public_name_has_a_docstring_and_a_stub():
    with open(inspect.getfile(rs).replace("__init__.py", "_resident.pyi")) as f:
        stub = f.read()
    stubbed = set(re.findall(r"^def (\w+)", stub, re.M)) | set(re.findall(r"^class (\w+)", stub, re.M))
    from resident import _resident
    for name in dir(_resident):
        obj = getattr(_resident, name)
        if name.startswith("_") or not callable(obj) or isinstance(obj, type) and issubclass(obj, BaseException):
            continue
        assert obj.__doc__, name
        assert name in stubbed, f"{name} missing from _resident.pyi"
    for name in rs.__all__:
        assert getattr(rs, name).__doc__, name
