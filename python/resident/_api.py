"""Array API standard names that are aliases or small compositions of the C functions."""
import builtins as _b
import math as _math

import numpy as _np

from . import _resident as _r

__array_api_version__ = "2023.12"

bool = _np.dtype("bool")  # noqa: A001
int8, int16, int32, int64 = (_np.dtype(n) for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_np.dtype(n) for n in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (_np.dtype(n) for n in ("float16", "float32", "float64"))
complex64, complex128 = _np.dtype("complex64"), _np.dtype("complex128")
e, pi, inf, nan = _math.e, _math.pi, _math.inf, _math.nan
newaxis = None

# The standard's names for NumPy's ufuncs (the functions themselves come from the C table).
abs = _r.absolute  # noqa: A001
acos, acosh, asin, asinh = _r.arccos, _r.arccosh, _r.arcsin, _r.arcsinh
atan, atan2, atanh = _r.arctan, _r.arctan2, _r.arctanh
pow = _r.power  # noqa: A001
bitwise_invert = _r.invert
conj = _r.conjugate
max, min, all, any = _r.max, _r.min, _r.all, _r.any  # noqa: A001


def isdtype(dtype, kind):
    """The array API's isdtype, for NumPy dtypes."""
    return _np.isdtype(_np.dtype(dtype), kind) if hasattr(_np, "isdtype") else False


def result_type(*arrays_and_dtypes):
    """NumPy's result_type (NEP 50), which resident's C library follows."""
    args = [a.dtype if isinstance(a, _r.ndarray) else a for a in arrays_and_dtypes]
    return _np.result_type(*args)


def can_cast(from_, to):
    """NumPy's can_cast under the 'safe' rule."""
    return _np.can_cast(from_.dtype if isinstance(from_, _r.ndarray) else from_, to)


finfo, iinfo = _np.finfo, _np.iinfo


def reshape(x, /, shape, *, copy=None):
    """A view of x with another shape (no copy; a layout that would need one raises)."""
    if copy:
        x = _r.copy(x)
    return x.reshape(shape)


def permute_dims(x, /, axes):
    """A view of x with its axes permuted."""
    return x.transpose(axes)


def matrix_transpose(x, /):
    """A view of x with the last two axes swapped."""
    return x.mT


def squeeze(x, /, axis):
    """A view of x without the given axis (of length 1)."""
    if isinstance(axis, tuple):
        for ax in sorted((a % x.ndim for a in axis), reverse=True):
            x = x.squeeze(ax)
        return x
    return x.squeeze(axis)


def expand_dims(x, /, *, axis=0):
    """A view of x with a new axis of length 1 at position axis."""
    nd = x.ndim + 1
    axis = axis % nd if axis < 0 else axis
    return x[(slice(None),) * axis + (None,)]


def to_numpy(x):
    """A NumPy array of x: an explicit copy for device arrays, a view for host ones."""
    return x.get() if x.device in ("device", "managed") else _np.asarray(x)


from ._fuse import fuse  # noqa: E402,F401


class _Info:
    def capabilities(self):
        return {"boolean indexing": False, "data-dependent shapes": False}

    def default_device(self):
        return "device"

    def devices(self):
        return ["device", "host", "pinned", "mapped", "managed"]

    def default_dtypes(self, *, device=None):
        return {"real floating": float64, "complex floating": complex128, "integral": int64,
                "indexing": int64}

    def dtypes(self, *, device=None, kind=None):
        names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float32", "float64", "complex64", "complex128"]
        out = {n: _np.dtype(n) for n in names}
        if kind is None:
            return out
        return {n: d for n, d in out.items() if isdtype(d, kind)}


def __array_namespace_info__():
    """The array API's inspection namespace."""
    return _Info()


_ = _b  # builtins kept reachable for the names shadowed above
