"""resident.linalg's array API extension against numpy.linalg (on the backend the tests
run on: the GPU when one answers, else the simulator)."""
import math

import numpy as np
import pytest

import resident as rs
from resident import linalg as la

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def tol(dt):
    return 2e-4 if dt in (np.float32, np.complex64) else 1e-10


def rand(shape, dt, seed=0):
    g = np.random.default_rng(seed)
    x = g.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * g.standard_normal(shape)
    return x.astype(dt)


def hpd(x):
    n = x.shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(x.dtype)


def dev(x):
    return rs.asarray(x)


def host(r):
    return r.get()


def close(got, want, dt, scale=1.0):
    np.testing.assert_allclose(host(got), want, rtol=tol(dt) * scale, atol=tol(dt) * scale)


@pytest.mark.parametrize("dt", DTYPES)
def test_factorizations(dt):
    a = rand((2, 4, 4), dt, 1)
    h = hpd(a)
    close(la.cholesky(dev(h)), np.linalg.cholesky(h), dt)
    close(la.cholesky(dev(h), upper=True), np.conj(np.swapaxes(np.linalg.cholesky(h), -1, -2)), dt)
    w, v = la.eigh(dev(h))
    close(w, np.linalg.eigvalsh(h), dt, 10)
    close(la.eigvalsh(dev(h)), np.linalg.eigvalsh(h), dt, 10)
    vh = host(v)
    np.testing.assert_allclose(h @ vh, vh * host(w)[..., None, :], atol=tol(dt) * 100)
    for mode in ("reduced", "complete"):
        t = rand((6, 4), dt, 2)
        q, r = la.qr(dev(t), mode=mode)
        nq, nr = np.linalg.qr(t, mode=mode)
        np.testing.assert_allclose(np.abs(host(q)), np.abs(nq), atol=tol(dt) * 10)
        np.testing.assert_allclose(np.abs(host(r)), np.abs(nr), atol=tol(dt) * 10)
        np.testing.assert_allclose(host(q) @ host(r), t, atol=tol(dt) * 10)
    close(la.det(dev(a)), np.linalg.det(a), dt, 10)
    s, l = la.slogdet(dev(a))
    ns, nl = np.linalg.slogdet(a)
    close(s, ns, dt, 10)
    close(l, nl, dt, 10)
    close(la.inv(dev(a)), np.linalg.inv(a), dt, 100)


def test_errors():
    with pytest.raises(ValueError, match="positive definite"):
        la.cholesky(dev(-np.eye(3)))
    with pytest.raises(ValueError, match="singular"):
        la.inv(dev(np.ones((3, 3))))
    with pytest.raises((ValueError, rs.ResidentError), match="square"):
        la.det(dev(np.ones((3, 4))))
    with pytest.raises(ValueError):
        la.qr(dev(np.ones((3, 4))), mode="r")
    with pytest.raises(ValueError):
        la.matrix_norm(dev(np.ones((3, 4))), ord=3)
    assert float(host(la.det(dev(np.ones((3, 3)))))) == 0.0


@pytest.mark.parametrize("dt", [np.float64, np.complex128, np.float32])
def test_compositions(dt):
    a = rand((3, 4, 5), dt, 3)
    v = rand((5,), dt, 4)
    close(la.diagonal(dev(a), offset=1), np.diagonal(a, 1, -2, -1), dt)
    close(la.trace(dev(a), offset=-1), np.trace(a, -1, -2, -1), dt)
    close(la.outer(dev(v), dev(v)), np.outer(v, v), dt)
    close(la.vecdot(dev(a), dev(v)), np.linalg.vecdot(a, v), dt)
    close(la.tensordot(dev(a), dev(a), axes=([0, 1], [0, 1])), np.tensordot(a, a, axes=([0, 1], [0, 1])), dt, 10)
    b = rand((5, 2), dt, 5)
    close(la.tensordot(dev(a), dev(b), axes=1), np.tensordot(a, b, axes=1), dt, 10)
    sq = rand((4, 4), dt, 6)
    for n in (0, 1, 3, -2):
        close(la.matrix_power(dev(sq), n), np.linalg.matrix_power(sq, n), dt, 1000)
    for ord in (2, 1, 0, 3, math.inf, -math.inf):
        close(la.vector_norm(dev(a), ord=ord), np.linalg.vector_norm(a, ord=ord), dt, 10)
        close(la.vector_norm(dev(a), axis=(0, 2), keepdims=True, ord=ord),
              np.linalg.vector_norm(a, axis=(0, 2), keepdims=True, ord=ord), dt, 10)
    for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        close(la.matrix_norm(dev(a), ord=ord), np.linalg.matrix_norm(a, ord=ord), dt, 10)
    close(la.matrix_norm(dev(a), keepdims=True), np.linalg.matrix_norm(a, keepdims=True), dt, 10)
    close(la.svdvals(dev(a)), np.linalg.svdvals(a), dt, 10)
    assert np.array_equal(host(la.matrix_rank(dev(a))), np.linalg.matrix_rank(a))
    close(la.pinv(dev(a)), np.linalg.pinv(a), dt, 100)


def test_lstsq():
    a = rand((6, 3), np.float64, 7)
    b = rand((6,), np.float64, 8)
    x, res, rank, s = la.lstsq(dev(a), dev(b))
    nx, nres, nrank, ns = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(host(x), nx, atol=1e-10)
    np.testing.assert_allclose(host(res), nres, atol=1e-10)
    assert int(host(rank)) == nrank
    np.testing.assert_allclose(host(s), ns, atol=1e-10)


def test_main_namespace():
    assert rs.vecdot is la.vecdot and rs.tensordot is la.tensordot
    x = rand((3, 4), np.complex128, 9)
    np.testing.assert_allclose(host(rs.vecdot(dev(x), dev(x))), np.linalg.vecdot(x, x), atol=1e-12)
