"""var / std, cumulative_sum / cumulative_prod, clip, diff and sort / argsort on any axis
(descending too) against NumPy 2, on the default backend (device arrays) and on the host."""
import numpy as np
import pytest

import resident as rs

PLACES = ["device", "host"]


def check(got, want, rtol=1e-12, atol=0.0):
    g = got.get() if hasattr(got, "get") else np.asarray(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(g, want)
    else:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("dtype", ["int16", "uint8", "float32", "float64", "complex128", "bool"])
def test_var_std(rng, where, dtype):
    a = (rng.standard_normal((4, 5, 6)) * 10).astype(dtype)
    x = rs.asarray(a).to_device(where)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for axis in [None, 0, (0, 2), (-1, 1)]:
        for corr in [0, 1]:
            for keep in [False, True]:
                check(rs.var(x, axis=axis, correction=corr, keepdims=keep),
                      np.var(a, axis=axis, ddof=corr, keepdims=keep), rtol=tol)
                check(rs.std(x, axis=axis, correction=corr, keepdims=keep),
                      np.std(a, axis=axis, ddof=corr, keepdims=keep), rtol=tol)
    check(rs.var(x, ddof=1), np.var(a, ddof=1), rtol=tol)


def test_var_bad():
    x = rs.ones((3, 4))
    with pytest.raises(rs.ResidentError, match="correction"):
        rs.var(x, correction=-1)
    with pytest.raises(rs.ResidentError, match="degrees of freedom"):
        rs.std(x, axis=0, correction=3)
    with pytest.raises(rs.ResidentError, match="duplicate"):
        rs.var(x, axis=(0, 0))


@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "float32", "float64", "complex64", "bool"])
def test_cumulative(rng, where, dtype):
    a = (rng.integers(-4, 5, size=(3, 4, 5))).astype(dtype)
    x = rs.asarray(a).to_device(where)
    for axis in [0, 1, 2, -1]:
        for init in [False, True]:
            check(rs.cumulative_sum(x, axis=axis, include_initial=init),
                  np.cumulative_sum(a, axis=axis, include_initial=init), rtol=1e-6)
            check(rs.cumulative_prod(x, axis=axis, include_initial=init),
                  np.cumulative_prod(a, axis=axis, include_initial=init), rtol=1e-6)
    v = rs.asarray(a[0, 0]).to_device(where)
    check(rs.cumulative_sum(v), np.cumulative_sum(a[0, 0]), rtol=1e-6)
    if dtype != "complex64":  # (a complex to real cast drops the imaginary part: NumPy warns)
        check(rs.cumulative_sum(x, axis=1, dtype="float64"), np.cumulative_sum(a, axis=1, dtype="float64"))
    with pytest.raises(rs.ResidentError, match="axis"):
        rs.cumulative_sum(x)  # 3-d: an axis is required
    with pytest.raises(rs.ResidentError, match="axis"):
        rs.cumulative_sum(x, axis=3)


@pytest.mark.parametrize("where", PLACES)
def test_clip(rng, where):
    a = rng.standard_normal((5, 6)) * 3
    a[1, 2] = np.nan
    x = rs.asarray(a).to_device(where)
    lo = rs.asarray(a[0]).to_device(where)
    check(rs.clip(x, -1.0, 1.5), np.clip(a, -1.0, 1.5))
    check(rs.clip(x, None, 0.5), np.clip(a, None, 0.5))
    check(rs.clip(x, lo, 2.0), np.clip(a, a[0], 2.0))
    check(rs.clip(x, min=lo), np.clip(a, a[0], None))
    i8 = rs.asarray(np.arange(-5, 5, dtype=np.int8)).to_device(where)
    check(rs.clip(i8, -2, 3), np.clip(np.arange(-5, 5, dtype=np.int8), -2, 3))


@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("dtype", ["int64", "float32", "bool", "uint8"])
def test_diff(rng, where, dtype):
    a = rng.integers(0, 9, size=(4, 7)).astype(dtype)
    x = rs.asarray(a).to_device(where)
    for n in [0, 1, 2, 8]:
        for axis in [0, 1, -1]:
            check(rs.diff(x, n=n, axis=axis), np.diff(a, n=n, axis=axis))
    p = a[:, :2]
    check(rs.diff(x, axis=1, prepend=rs.asarray(p).to_device(where), append=rs.asarray(p).to_device(where)),
          np.diff(a, axis=1, prepend=p, append=p))


@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("dtype", ["int32", "float64", "float16", "uint8"])
def test_sort_any_axis(rng, where, dtype):
    a = rng.integers(0, 5, size=(4, 6, 5)).astype(dtype)
    if a.dtype.kind == "f":
        a.flat[::7] = np.nan
    x = rs.asarray(a).to_device(where)
    for axis in [0, 1, 2, -1, -3]:
        check(rs.sort(x, axis=axis), np.sort(a, axis=axis, kind="stable"))
        check(rs.argsort(x, axis=axis), np.argsort(a, axis=axis, kind="stable"))
        check(rs.sort(x, axis=axis, descending=True),
              np.flip(np.sort(np.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis))
        n = a.shape[axis]
        want = n - 1 - np.flip(np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable"), axis=axis)
        check(rs.argsort(x, axis=axis, descending=True, stable=True), want)
    y = x.copy()
    y.sort(axis=0)
    check(y, np.sort(a, axis=0, kind="stable"))
    out = rs.empty(a.shape, dtype="int64").to_device(where)
    rs.argsort(x, axis=1, out=out)
    check(out, np.argsort(a, axis=1, kind="stable"))
