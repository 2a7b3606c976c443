"""resident: n-dimensional arrays that live on the GPU, with every copy counted.

A Python binding of libresident (a C extension over its public C API). Arrays live in one
memory kind - 'device', 'host', 'pinned', 'mapped' or 'managed' - and stay there: results
of operations on device arrays are device arrays, and data reaches the host only through
an explicit, recorded copy (``x.get()``, ``x.copy_to_host()``, ``x.to_device('host')``).
The ledger (``with resident.ledger() as led``) shows every copy, the transfer guard
(``with resident.transfer_guard('disallow')``) refuses the implicit ones.

The backend is CUDA when a GPU answers, else the CPU simulator that runs the same
programs copy for copy (``RESIDENT_BACKEND=sim`` forces it).
"""
from . import _resident
from ._resident import *  # noqa: F401,F403  (ndarray, the ufuncs, creation, reductions, errors)
from ._resident import (ndarray, ResidentError, TransferRefused, OutOfMemoryError, asarray,
                        from_dlpack, ufunc_names)
from ._ledger import ledger, Ledger, transfer_guard, benchmark, BenchmarkResult
from ._kernel import RawKernel, Stream
from . import linalg, random, testing
from ._comm import Comm, comm_unique_id  # collectives between processes (issue 19)
from ._index import (nonzero, unique_values, unique_counts, unique_inverse, unique_all,  # indexing, sets
                     UniqueAllResult, UniqueCountsResult, UniqueInverseResult)
from ._api import (__array_api_version__, bool, int8, int16, int32, int64, uint8, uint16,  # noqa: A004
                   uint32, uint64, float16, float32, float64, complex64, complex128, e, pi, inf,
                   nan, newaxis, isdtype, result_type, can_cast, finfo, iinfo, reshape,
                   permute_dims, matrix_transpose, squeeze, expand_dims, to_numpy, fuse,
                   __array_namespace_info__)
from ._api import (abs, acos, acosh, asin, asinh, atan, atan2, atanh, pow,  # noqa: A004
                   bitwise_invert, conj, max, min, all, any)  # noqa: A004
from ._manip import (concat, stack, unstack, flip, roll, repeat, tile, moveaxis,  # manip (issue 18)
                     broadcast_to, broadcast_arrays, meshgrid, tril, triu, expand_dims, squeeze)

__version__ = _resident.library_version()

__all__ = ["ndarray", "asarray", "from_dlpack", "ledger", "transfer_guard", "benchmark",
           "RawKernel", "Stream", "linalg", "random", "testing", "ResidentError",
           "TransferRefused", "OutOfMemoryError", "Comm", "comm_unique_id"] + list(ufunc_names)
__all__ += ["concat", "stack", "unstack", "flip", "roll", "repeat", "tile", "moveaxis",  # manip (issue 18)
            "broadcast_to", "broadcast_arrays", "meshgrid", "tril", "triu"]

# linalg extension: the main namespace's linear algebra names (the standard has them in both)
from .linalg import tensordot, vecdot  # noqa: E402
