"""Indexing, searching and sets from Python against NumPy: take, take_along_axis,
integer-array and boolean-mask keys (reads and writes), nonzero, count_nonzero,
searchsorted and the unique_* functions."""
import numpy as np
import pytest

import resident as rs


def same(actual, desired):
    got = actual.get() if hasattr(actual, "get") else np.asarray(actual)
    desired = np.asarray(desired)
    assert got.dtype == desired.dtype, (got.dtype, desired.dtype)
    np.testing.assert_array_equal(got, desired)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take(axis, rng):
    a = rng.normal(size=(4, 5, 6))
    i = rng.integers(-4, 4, (3, 2))
    same(rs.take(rs.asarray(a), rs.asarray(i), axis=axis), np.take(a, i, axis=axis))


def test_take_out_of_range_raises_and_writes_nothing():
    x = rs.asarray(np.arange(5.0))
    out = rs.asarray(np.full(2, -1.0))
    with pytest.raises(IndexError, match="out of bounds"):
        rs.take(x, rs.asarray(np.array([1, 5])), axis=0, out=out)
    same(out, np.full(2, -1.0))


def test_take_along_axis_argsort(rng):
    a = rng.integers(0, 50, (6, 7)).astype(np.int32)
    x = rs.asarray(a)
    same(rs.take_along_axis(x, rs.argsort(x), axis=-1), np.sort(a, axis=-1))


def test_integer_and_mask_keys(rng):
    a = rng.normal(size=(6, 4))
    x = rs.asarray(a)
    idx = np.array([5, 0, -1])
    same(x[rs.asarray(idx)], a[idx])
    same(x[[1, 2]], a[[1, 2]])
    m = a > 0
    same(x[rs.asarray(m)], a[m])
    rows = a[:, 0] > 0
    same(x[rs.asarray(rows)], a[rows])
    b = a.copy()
    b[m] = 7.0
    x[rs.asarray(m)] = 7.0
    same(x, b)
    b[idx] = np.arange(4.0)
    x[rs.asarray(idx)] = rs.asarray(np.arange(4.0))
    same(x, b)
    b[rows] = np.array([1.0, 2.0, 3.0, 4.0])
    x[rs.asarray(rows)] = rs.asarray(np.array([1.0, 2.0, 3.0, 4.0]))
    same(x, b)


def test_tuple_of_integer_arrays(rng):
    """The standard's multi-axis integer indexing: x[i, j] with arrays broadcast together,
    Python ints among them, fewer indices than axes, negative indices, non-contiguous x."""
    a = rng.normal(size=(5, 6, 7))
    x = rs.asarray(a)
    i = rng.integers(-5, 5, (3, 4))
    j = rng.integers(-6, 6, (4,))
    same(x[rs.asarray(i), rs.asarray(j)], a[i, j])
    same(x[rs.asarray(i), rs.asarray(j), 2], a[i, j, 2])
    same(x[[0, 4], [1, -1]], a[[0, 4], [1, -1]])
    same(x[np.array([1, 2]), 3], a[np.array([1, 2]), 3])
    t = x.T  # a view whose leading axes cannot be flattened in place
    same(t[rs.asarray(j), rs.asarray(i[:, :1])], a.T[j, i[:, :1]])
    ints = rs.asarray(rng.integers(0, 100, (4, 5)).astype(np.int32))
    same(ints[[3, 0], [4, 1]], ints.get()[[3, 0], [4, 1]])


def test_tuple_of_integer_arrays_write(rng):
    a = rng.normal(size=(5, 6))
    x = rs.asarray(a)
    i, j = np.array([0, 4, -1]), np.array([5, 0, 2])
    b = a.copy()
    b[i, j] = 9.0
    x[rs.asarray(i), rs.asarray(j)] = 9.0
    same(x, b)
    b[i, j] = np.array([1.0, 2.0, 3.0])
    x[i, j] = rs.asarray(np.array([1.0, 2.0, 3.0]))
    same(x, b)
    full = rng.normal(size=(4, 6))
    xt = rs.asarray(full.T.copy()).T  # non-contiguous target: written through a copy
    e = full.copy()
    e[[1, 3], [0, 5]] = -2.0
    xt[[1, 3], [0, 5]] = -2.0
    same(xt, e)


def test_tuple_of_integer_arrays_bad_keys():
    a = np.arange(12.0).reshape(3, 4)
    x = rs.asarray(a)
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 4"):
        x[[0, 1], [1, 4]]
    with pytest.raises(IndexError, match="out of bounds for axis 0"):
        x[[-4], [0]] = 1.0
    same(x, a)  # nothing written
    with pytest.raises(IndexError, match="slices"):
        x[[0, 1], 1:3]
    with pytest.raises(IndexError, match="integer type"):
        x[[0, 1], rs.asarray(np.array([0.5, 1.0]))]
    with pytest.raises(IndexError, match="boolean"):
        x[[0, 1], rs.asarray(np.array([True, False, True, True]))]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0]]
    with pytest.raises(ValueError):
        x[rs.asarray(np.array([0, 1])), rs.asarray(np.array([0, 1, 2]))]  # shapes do not broadcast


def test_nonzero_count_nonzero(rng):
    a = rng.integers(-1, 2, (5, 6)).astype(np.float32)
    a[0, 0] = np.nan
    x = rs.asarray(a)
    got = rs.nonzero(x)
    want = np.nonzero(a)
    assert len(got) == 2
    for g, w in zip(got, want):
        same(g, w)
    same(rs.count_nonzero(x), np.asarray(np.count_nonzero(a)))
    same(rs.count_nonzero(x, axis=1, keepdims=True), np.count_nonzero(a, axis=1, keepdims=True))
    with pytest.raises(ValueError):
        rs.nonzero(rs.asarray(np.float64(1.0)))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side, rng):
    a = rng.integers(0, 20, 50)
    v = rng.integers(-2, 22, (4, 5))
    s = np.sort(a)
    same(rs.searchsorted(rs.asarray(s), rs.asarray(v), side=side), np.searchsorted(s, v, side=side))
    order = np.argsort(a, kind="stable")
    same(rs.searchsorted(rs.asarray(a), rs.asarray(v), side=side, sorter=rs.asarray(order)),
         np.searchsorted(a, v, side=side, sorter=order))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint32, np.float32, np.float64, np.bool_])
def test_unique(dtype, rng):
    a = rng.integers(0, 9, (7, 8)).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        a[1, 1] = a[3, 3] = np.nan
        a[2, 2] = -0.0
    x = rs.asarray(a)
    want = np.unique_all(a)
    got = rs.unique_all(x)
    same(got.values, want.values)
    same(got.indices, want.indices)
    same(got.inverse_indices, want.inverse_indices)
    same(got.counts, want.counts)
    same(rs.unique_values(x), np.sort(np.unique_values(a)))
    c = rs.unique_counts(x)
    same(c.counts, np.unique_counts(a).counts)
    inv = rs.unique_inverse(x)
    if not np.issubdtype(dtype, np.floating):  # NaN != NaN
        same(rs.take(inv.values, inv.inverse_indices), a)
    assert inv.inverse_indices.shape == a.shape


def test_mask_count_read_is_recorded():
    x = rs.asarray(np.arange(100))
    m = x < 30
    with rs.ledger() as led:
        r = x[m]
    assert r.shape == (30,)
    assert led.implicit_copies == 1 and led.implicit_bytes == 8
