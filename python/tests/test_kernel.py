import numpy as np
import pytest

import resident as rs

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""


def test_numba_and_cupy_launch_syntax():
    k = rs.RawKernel(SAXPY, "saxpy")
    n = 1000
    x = rs.asarray(np.arange(n, dtype=np.float32))
    y = rs.ones(n, dtype="float32")
    k[(n + 127) // 128, 128](2.0, x, y, n)
    np.testing.assert_allclose(y.get(), 2 * np.arange(n) + 1)
    k(((n + 127) // 128,), (128,), (1.0, x, y, n))
    np.testing.assert_allclose(y.get(), 3 * np.arange(n) + 1)
    assert [p["read_only"] for p in k.params] == [False, True, False, False]


def test_numpy_arguments_are_implicit_copies():
    k = rs.RawKernel(SAXPY, "saxpy")
    n = 256
    xh = np.arange(n, dtype=np.float32)
    yh = np.zeros(n, dtype=np.float32)
    with rs.ledger() as led:
        k[2, 128](3.0, xh, yh, n)
    np.testing.assert_allclose(yh, 3 * xh)
    # x is const: copied in only; y: in and out
    assert led.implicit_copies == 3
    assert led.h2d["implicit"] == 2 and led.d2h["implicit"] == 1
    with rs.transfer_guard("disallow"):
        with pytest.raises(rs.TransferRefused):
            k[2, 128](3.0, xh, yh, n)


def test_kernel_errors_are_exceptions():
    with pytest.raises(rs.CompileError) as ei:
        rs.RawKernel("__global__ void f( { }", "f")
    assert ei.value.status_name == "RS_ERR_COMPILE"
    with pytest.raises(LookupError):
        rs.RawKernel(SAXPY, "nope")
    k = rs.RawKernel(SAXPY, "saxpy")
    with pytest.raises(TypeError):
        k[1, 32](1.0, rs.ones(3, dtype="float32"))
    with pytest.raises(TypeError):
        k[1, 32](1.0, rs.ones(3, dtype="float32"), rs.ones(3, dtype="float32"), "n")


def test_stream_launch():
    k = rs.RawKernel(SAXPY, "saxpy")
    s = rs.Stream()
    y = rs.zeros(64, dtype="float32")
    x = rs.ones(64, dtype="float32")
    k[1, 64, s, 0](1.0, x, y, 64)
    s.synchronize()
    np.testing.assert_allclose(y.get(), np.ones(64))
