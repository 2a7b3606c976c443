"""Linear algebra: matmul, SVD and solve (cuBLAS/cuSOLVER on the GPU, OpenBLAS or C loops
on the host)."""
from . import _resident as _r

matmul = _r.matmul


def svd(a, full_matrices=True, compute_uv=True, *, out=None):
    """``u, s, vh = svd(a)`` with a = u @ diag(s) @ vh (s descending); ``compute_uv=False``
    returns s only; ``out=(u, s, vh)`` writes into existing arrays."""
    return _r._svd(a, full_matrices, compute_uv, out=out)


def svdvals(x, /):
    """The singular values of x."""
    return _r._svd(x, False, False)


def solve(a, b, *, out=None):
    """x with a @ x = b (LU with partial pivoting); a singular a raises ValueError."""
    return _r._solve(a, b, out=out)


def matrix_transpose(x, /):
    """x with its last two axes swapped (a view)."""
    return x.mT
