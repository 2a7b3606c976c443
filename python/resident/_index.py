"""Indexing, searching and sets under the array API standard's names (resident/indexing.h
and resident/sets.h underneath). ``take``, ``take_along_axis``, ``count_nonzero`` and
``searchsorted`` come straight from the extension; here are the ones whose results the
standard shapes: ``nonzero`` (a tuple of arrays) and the ``unique_*`` named tuples.

Results whose length depends on the data (``nonzero``, ``unique_*``, ``x[mask]``) read one
count back from the device: a recorded 8-byte copy (the ledger shows it as implicit).
"""
from collections import namedtuple

from . import _resident as _r

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def nonzero(x, /):
    """The indices of x's nonzero elements, one int64 array per axis (C order); a 0-d x
    raises ValueError, as NumPy 2 does."""
    rows = _r._nonzero_rows(x)
    return tuple(rows[k] for k in range(rows.shape[0]))


def unique_values(x, /):
    """x's distinct values, ascending (NaN last, each NaN distinct), from the flattened x."""
    return _r._unique_values(x)[0]


def unique_counts(x, /):
    """(values, counts): distinct values and how often each occurs."""
    return UniqueCountsResult(*_r._unique_counts(x))


def unique_inverse(x, /):
    """(values, inverse_indices): values[inverse_indices] == x, inverse of x's shape."""
    return UniqueInverseResult(*_r._unique_inverse(x))


def unique_all(x, /):
    """(values, indices, inverse_indices, counts): indices are the first occurrences in the
    flattened x."""
    return UniqueAllResult(*_r._unique_all(x))


# ---- integer-array indexing in a tuple key: x[i, j], x[i, 2], x[i, j] = v ------------------
# The standard's multi-axis integer indexing: one integer array (or Python int) per leading
# axis, broadcast together; the result has their broadcast shape followed by x's remaining
# axes. Built from the one-axis ops: the indices flattened to positions along x's leading
# axes seen as one (C order), then one take (or put, for writes) along that axis.

def _index_arrays(x, key):
    """The key's items as int64 device arrays, broadcast together, negative indices
    wrapped; IndexError for what the standard leaves out or what is out of bounds (one
    read of a flag back per indexed axis, recorded in the ledger)."""
    from ._resident import ndarray
    from ._api import isdtype, bool as bool_, int64
    from ._manip import broadcast_arrays
    if len(key) > x.ndim:
        raise IndexError(f"too many indices: {len(key)} for an array of {x.ndim} dimensions")
    arrays = []
    for k, item in enumerate(key):
        if item is None or item is Ellipsis or isinstance(item, slice):
            raise IndexError("resident does not mix integer arrays with slices, None or ... in one key "
                             "(the array API standard leaves that unspecified); index in two steps")
        if isinstance(item, bool):
            raise IndexError(f"index {k}: a Python bool is not an index")
        a = item if isinstance(item, ndarray) else _r.asarray(item)
        if a.dtype == bool_:
            raise IndexError(f"index {k}: a boolean array inside a tuple key is not supported; use x[mask] "
                             "with a mask of x's leading shape")
        if not isdtype(a.dtype, "integral"):
            raise IndexError(f"index {k}: arrays used as indices must be of integer type, not {a.dtype}")
        arrays.append(_r.astype(a, int64))
    arrays = list(broadcast_arrays(*arrays))
    for k, a in enumerate(arrays):
        n = x.shape[k]
        if _r.any((a < -n) | (a >= n)):
            raise IndexError(f"index out of bounds for axis {k} with size {n}")
        arrays[k] = _r.where(a < 0, a + n, a)
    return arrays


def _flat_positions(x, arrays):
    """Positions along x's first len(arrays) axes seen as one axis (C order)."""
    flat = arrays[0]
    for k in range(1, len(arrays)):
        flat = flat * x.shape[k] + arrays[k]
    return flat


def _leading_as_one(x, m):
    """x with its first m axes as one: a view when the strides allow, else None."""
    lead = 1
    for n in x.shape[:m]:
        lead *= n
    try:
        return x.reshape((lead,) + tuple(x.shape[m:]))
    except _r.NotContiguousError:
        return None


def _c_copy(x):
    """A C-contiguous copy of x in its memory kind (a copy on the device, recorded as such)."""
    c = _r.empty(x.shape, dtype=x.dtype, device=x.device)
    _r.copy(x, out=c)
    return c


def _tuple_getitem(x, key):
    arrays = _index_arrays(x, key)
    flat = _flat_positions(x, arrays)
    m = len(arrays)
    xs = _leading_as_one(x, m)
    if xs is None:  # a view the reshape cannot express: a contiguous copy first (on the device)
        xs = _leading_as_one(_c_copy(x), m)
    return _r.take(xs, flat, axis=0)


def _tuple_setitem(x, key, value):
    arrays = _index_arrays(x, key)
    flat = _flat_positions(x, arrays)
    m = len(arrays)
    xs = _leading_as_one(x, m)
    if xs is not None:
        xs[flat] = value
        return
    tmp = _c_copy(x)  # written through a contiguous copy, then copied back
    _leading_as_one(tmp, m)[flat] = value
    x[...] = tmp
