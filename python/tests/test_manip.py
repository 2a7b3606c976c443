"""Manipulation, creation and the new elementwise functions (issue 18) against NumPy,
on device arrays (the default placement) and host ones."""
import numpy as np
import pytest

import resident as rs

PLACES = ["device", "host"]


def arr(x, where):
    return rs.asarray(np.asarray(x), device=where)


def check(actual, desired):
    got = rs.to_numpy(actual)
    desired = np.asarray(desired)
    assert got.dtype == desired.dtype, (got.dtype, desired.dtype)
    assert got.shape == desired.shape, (got.shape, desired.shape)
    np.testing.assert_array_equal(got, desired)


@pytest.fixture
def a3(rng):
    return rng.integers(-50, 50, (3, 4, 5)).astype(np.int32)


@pytest.mark.parametrize("where", PLACES)
def test_concat_stack(a3, where):
    x = arr(a3, where)
    b = arr(a3[:, :2].astype(np.float32), where)
    check(rs.concat([x, b], axis=1), np.concat([a3, a3[:, :2].astype(np.float32)], axis=1))
    check(rs.concat([x, x.mT], axis=None), np.concat([a3, a3.mT], axis=None))
    check(rs.stack([x, x], axis=-1), np.stack([a3, a3], axis=-1))
    out = rs.zeros((2, 3, 4, 5), dtype=rs.float64, device=where)
    assert rs.stack([x, x], out=out) is out
    check(out, np.stack([a3, a3]).astype(np.float64))
    for i, v in enumerate(rs.unstack(x, axis=1)):
        check(v, a3[:, i])


@pytest.mark.parametrize("where", PLACES)
def test_flip_roll_repeat_tile(a3, where):
    x = arr(a3, where)
    check(rs.flip(x), np.flip(a3))
    check(rs.flip(x, axis=(0, 2)), np.flip(a3, (0, 2)))
    check(rs.roll(x, 3), np.roll(a3, 3))
    check(rs.roll(x, (1, -2), axis=(0, 2)), np.roll(a3, (1, -2), axis=(0, 2)))
    check(rs.repeat(x, 2), np.repeat(a3, 2))
    check(rs.repeat(x, [1, 0, 3, 2], axis=1), np.repeat(a3, [1, 0, 3, 2], axis=1))
    check(rs.repeat(x, arr(np.array([2, 1, 0]), where), axis=0), np.repeat(a3, [2, 1, 0], axis=0))
    check(rs.tile(x, (2, 1, 3)), np.tile(a3, (2, 1, 3)))
    check(rs.tile(x, (2, 1, 1, 2)), np.tile(a3, (2, 1, 1, 2)))


@pytest.mark.parametrize("where", PLACES)
def test_views(a3, where):
    x = arr(a3, where)
    check(rs.moveaxis(x, 0, -1), np.moveaxis(a3, 0, -1))
    check(rs.broadcast_to(x[:, :1], (2, 3, 4, 5)), np.broadcast_to(a3[:, :1], (2, 3, 4, 5)))
    u, v = rs.broadcast_arrays(x, arr(np.arange(5.0), where))
    check(u, a3)
    check(v, np.broadcast_to(np.arange(5.0), a3.shape))
    check(rs.expand_dims(x, axis=(0, -1)), np.expand_dims(a3, (0, -1)))
    check(rs.squeeze(rs.expand_dims(x, axis=1), axis=1), a3)


@pytest.mark.parametrize("where", PLACES)
def test_creation(a3, where):
    x = arr(a3, where)
    for k in (-1, 0, 2):
        check(rs.tril(x, k=k), np.tril(a3, k))
        check(rs.triu(x, k=k), np.triu(a3, k))
    p, q = np.arange(3.0), np.arange(4, dtype=np.int16)
    for ind in ("xy", "ij"):
        for got, want in zip(rs.meshgrid(arr(p, where), arr(q, where), indexing=ind),
                             np.meshgrid(p, q, indexing=ind)):
            check(got, want)
    f = arr(np.ones(3, np.float32), where)
    assert f.astype(rs.float32, copy=False) is f
    assert rs.astype(f, rs.float32, copy=False) is f
    assert rs.astype(f, rs.float32) is not f


@pytest.mark.parametrize("where", PLACES)
def test_new_ufuncs(where):
    i = np.arange(-20, 20, dtype=np.int8)
    k = np.arange(-2, 38, dtype=np.int8)
    check(rs.bitwise_left_shift(arr(i, where), arr(k, where)), np.bitwise_left_shift(i, k))
    check(rs.bitwise_right_shift(arr(i, where), arr(k, where)), np.bitwise_right_shift(i, k))
    f = np.arange(-3, 3.25, 0.25)
    for dt in (np.float16, np.float32, np.float64):
        v = f.astype(dt)
        check(rs.round(arr(v, where)), np.round(v))
        check(rs.signbit(arr(v, where)), np.signbit(v))
        check(rs.nextafter(arr(v, where), arr(np.full_like(v, np.inf), where)), np.nextafter(v, dt(np.inf)))
        np.testing.assert_allclose(rs.to_numpy(rs.logaddexp(arr(v, where), arr(v[::-1], where))),
                                   np.logaddexp(v, v[::-1]), rtol=2e-3 if dt == np.float16 else 1e-6)


def test_bad_input(a3):
    x = rs.asarray(a3)
    with pytest.raises(rs.ResidentError):
        rs.concat([x, x[:, :, :2]], axis=1)
    with pytest.raises(rs.ResidentError):
        rs.flip(x, axis=(0, 0))
    with pytest.raises(rs.ResidentError):
        rs.repeat(x, -1)
    with pytest.raises(rs.ResidentError):
        rs.stack([x, x], axis=4)
    with pytest.raises(ValueError):
        rs.meshgrid(x, indexing="xx")
