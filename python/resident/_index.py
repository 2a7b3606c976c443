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
