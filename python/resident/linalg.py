"""Linear algebra: matmul, SVD and solve, and the array API's linalg extension
(cuBLAS/cuSOLVER on the GPU, OpenBLAS/LAPACKE or C loops on the host). Functions take and
return resident arrays; the factorizations need LAPACKE on the host (ResidentError
"unsupported" in a build without it)."""
import math
from collections import namedtuple
from . import _resident as _r

matmul = _r.matmul


def svd(a, full_matrices=True, compute_uv=True, *, out=None):
    """``u, s, vh = svd(a)`` with a = u @ diag(s) @ vh (s descending); ``compute_uv=False``
    returns s only; ``out=(u, s, vh)`` writes into existing arrays."""
    return _r._svd(a, full_matrices, compute_uv, out=out)


def svdvals(x, /):
    """The singular values of x (..., k), descending."""
    return _r._la_svdvals(x)


def solve(a, b, *, out=None):
    """x with a @ x = b (LU with partial pivoting); a singular a raises ValueError."""
    return _r._solve(a, b, out=out)


def matrix_transpose(x, /):
    """x with its last two axes swapped (a view)."""
    return x.mT


# ---- the array API's linalg extension --------------------------------------------------

QRResult = namedtuple("QRResult", ["Q", "R"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
LstsqResult = namedtuple("LstsqResult", ["x", "residuals", "rank", "singular_values"])


def cholesky(x, /, *, upper=False):
    """The Cholesky factor of Hermitian positive-definite x: L (x = L L^H) or, with
    upper=True, U (x = U^H U). Not positive definite: ValueError."""
    return _r._la_cholesky(x, 1 if upper else 0)


def qr(x, /, *, mode="reduced"):
    """``Q, R = qr(x, mode='reduced' | 'complete')`` (Householder, LAPACK's signs)."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', not {mode!r}")
    return QRResult(*_r._la_qr(x, 1 if mode == "complete" else 0))


def eigh(x, /):
    """``eigenvalues, eigenvectors = eigh(x)`` of Hermitian x (its lower triangle),
    ascending, the vectors as columns."""
    return EighResult(*_r._la_eigh(x))


def eigvalsh(x, /):
    """The eigenvalues of Hermitian x (its lower triangle), ascending."""
    return _r._la_eigvalsh(x)


def det(x, /):
    """The determinants of square matrices (..., n, n) (LU with partial pivoting)."""
    return _r._la_det(x)


def slogdet(x, /):
    """``sign, logabsdet = slogdet(x)`` with det = sign * exp(logabsdet)."""
    return SlogdetResult(*_r._la_slogdet(x, 0))


def inv(x, /):
    """The inverse of square matrices; a singular matrix raises ValueError."""
    return _r._la_inv(x)


def diagonal(x, /, *, offset=0):
    """The diagonal ``offset`` of the last two axes (a copy)."""
    return _r._la_diagonal(x, int(offset))


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the diagonal ``offset`` of the last two axes."""
    r = _r._la_trace(x, int(offset))
    return r if dtype is None else r.astype(dtype)


def outer(x1, x2, /):
    """The outer product of two 1-d arrays."""
    return _r._la_binary("outer", x1, x2)


def vecdot(x1, x2, /, *, axis=-1):
    """sum(conj(x1) * x2) along ``axis`` (of the broadcast shape)."""
    return _r._la_binary("vecdot", x1, x2, int(axis))


def tensordot(x1, x2, /, *, axes=2):
    """Contract the last ``axes`` axes of x1 with the first of x2, or the pairs
    ``axes=(axes_1, axes_2)``."""
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("tensordot: axes must be >= 0")
        a1 = tuple(range(x1.ndim - axes, x1.ndim))
        a2 = tuple(range(axes))
    else:
        a1, a2 = axes
        a1 = (a1,) if isinstance(a1, int) else tuple(a1)
        a2 = (a2,) if isinstance(a2, int) else tuple(a2)
    return _r._la_binary("tensordot", x1, x2, a1, a2)


def matrix_power(x, n, /):
    """x to the integer power n (n < 0: of inv(x); n = 0: the identity)."""
    return _r._la_matrix_power(x, int(n))


def matrix_rank(x, /, *, rtol=None):
    """The number of singular values above rtol * the largest (default max(m, n) * eps)."""
    return _r._la_matrix_rank(x, -1.0 if rtol is None else float(rtol))


def pinv(x, /, *, rtol=None):
    """The pseudo-inverse from the SVD (values <= rtol * the largest dropped; default
    max(m, n) * eps)."""
    return _r._la_pinv(x, -1.0 if rtol is None else float(rtol))


def lstsq(a, b, rcond=None):
    """NumPy's ``x, residuals, rank, s = lstsq(a, b)`` (a 2-d; the SVD's minimum-norm
    solution)."""
    return LstsqResult(*_r._la_binary("lstsq", a, b, -1.0 if rcond is None else float(rcond)))


_VECTOR_ORD = {"fro": 2.0}
_MATRIX_ORD = {"fro": 0, "nuc": 1, 1: 2, -1: 3, 2: 4, -2: 5, math.inf: 6, -math.inf: 7}


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector norm over ``axis`` (None: all axes): ord inf, -inf, 0, 1, 2 or any p."""
    if isinstance(axis, int):
        axis = (axis,)
    return _r._la_vector_norm(x, axis, bool(keepdims), float(_VECTOR_ORD.get(ord, ord)))


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The matrix norm of the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    if ord not in _MATRIX_ORD:
        raise ValueError(f"matrix_norm: ord {ord!r} is not one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf")
    return _r._la_matrix_norm(x, _MATRIX_ORD[ord] | (256 if keepdims else 0))
