"""Manipulation and creation functions of the array API standard (resident/manip.h).

Copies (concat, stack, flip, roll, repeat, tile, meshgrid, tril, triu) return a new array
where their data is, or write into ``out=``; views (broadcast_to, broadcast_arrays,
moveaxis, unstack, expand_dims with several axes) share the input's memory, as NumPy's do.
"""
import numpy as _np

from . import _resident as _r
from ._api import to_numpy

__all__ = ["concat", "stack", "unstack", "flip", "roll", "repeat", "tile", "moveaxis",
           "broadcast_to", "broadcast_arrays", "meshgrid", "tril", "triu"]


def concat(arrays, /, *, axis=0, out=None):
    """Join arrays along an existing axis (axis=None: flattened first)."""
    return _r._manip_concat(list(arrays), axis, out, False)


def stack(arrays, /, *, axis=0, out=None):
    """Join arrays of one shape along a new axis."""
    return _r._manip_concat(list(arrays), axis, out, True)


def unstack(x, /, *, axis=0):
    """The slices of x along axis, as a tuple of views."""
    return _r._manip_unstack(x, axis)


def flip(x, /, *, axis=None, out=None):
    """x with the order of elements reversed along axis (every axis by default): a copy."""
    return _r._manip_one("flip", x, axis, None, out)


def roll(x, /, shift, *, axis=None, out=None):
    """Elements shifted along axis, wrapping around (axis=None: the flattened array)."""
    if axis is None and not isinstance(shift, int):
        shift = sum(int(s) for s in shift)
    return _r._manip_one("roll", x, shift, axis, out)


def repeat(x, repeats, /, *, axis=None, out=None):
    """Each element repeated (an int, or one count per element; counts are read on the host)."""
    if not isinstance(repeats, int):
        if isinstance(repeats, _r.ndarray):
            repeats = to_numpy(repeats)
        repeats = _np.asarray(repeats).astype(_np.int64).reshape(-1).tolist()
    return _r._manip_one("repeat", x, repeats, axis, out)


def tile(x, repetitions, /, *, out=None):
    """x repeated along each axis (NumPy's tile)."""
    return _r._manip_one("tile", x, repetitions, None, out)


def tril(x, /, *, k=0, out=None):
    """The lower triangle of the last two axes (j - i <= k), the rest 0."""
    return _r._manip_one("tril", x, k, None, out)


def triu(x, /, *, k=0, out=None):
    """The upper triangle of the last two axes (j - i >= k), the rest 0."""
    return _r._manip_one("triu", x, k, None, out)


def moveaxis(x, source, destination, /):
    """A view of x with axes moved; the others keep their order."""
    return _r._manip_view("moveaxis", x, source, destination)


def broadcast_to(x, /, shape):
    """A read-only-by-convention view of x broadcast to shape (stride 0 on new axes)."""
    return _r._manip_view("broadcast_to", x, shape, None)


def broadcast_arrays(*arrays):
    """Views of the arrays broadcast against each other."""
    return _r._manip_meshgrid(list(arrays), False, True)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays from 1-d arrays: indexing 'xy' (Cartesian) or 'ij' (matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', not {indexing!r}")
    return _r._manip_meshgrid(list(arrays), indexing == "ij", False)


def expand_dims(x, /, *, axis=0):
    """A view of x with axes of length 1 inserted (an int or a tuple of result positions)."""
    return _r._manip_view("expand_dims", x, axis, None)


def squeeze(x, /, axis):
    """A view of x without the given axes, each of length 1."""
    return _r._manip_view("squeeze", x, axis, None)
