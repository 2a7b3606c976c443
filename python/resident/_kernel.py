"""User kernels (CUDA C source) and streams."""
from . import _resident as _r


class _NullStream:
    """The legacy default stream of resident's context, where every op is queued."""

    _capsule = None

    def synchronize(self):
        """Wait for the work queued on the default stream (the GIL is released)."""
        _r._stream_sync(None)

    @property
    def ptr(self):
        return 0


class Stream:
    """A stream (an in-order queue of device work). ``Stream.null`` is the legacy default
    stream, on which resident's ops run."""

    null = _NullStream()

    def __init__(self, non_blocking=False):
        self._capsule = _r._stream_create(non_blocking)

    def synchronize(self):
        """Wait for the work queued on this stream (the GIL is released)."""
        _r._stream_sync(self._capsule)

    @property
    def ptr(self):
        """The backend's handle (a cudaStream_t on CUDA)."""
        return _r._stream_native(self._capsule)


class _Launcher:
    def __init__(self, kernel, grid, block, stream, shared):
        self.kernel, self.grid, self.block, self.stream, self.shared = kernel, grid, block, stream, shared

    def __call__(self, *args):
        self.kernel._launch(self.grid, self.block, args, self.shared, self.stream)


class RawKernel:
    """A kernel from CUDA C source, compiled once (cached in memory and on disk).

    Launch with Numba's syntax ``k[grid, block](*args)`` (also ``k[grid, block, stream,
    shared_mem]``) or CuPy's ``k((grid,), (block,), (args...), shared_mem=0)``. Arguments:
    resident arrays, NumPy arrays (copied to the device before the launch and back after
    it, IMPLICITLY - recorded by the ledger, refusable by the guard; a ``const T *``
    parameter is never copied back), and Python numbers typed by the kernel's declaration.
    A grid of 0 covers ``elements`` (a keyword of the CuPy form) from occupancy.
    """

    def __init__(self, code, name, options=(), *, backend=None):
        self.code = code
        self.name = name
        self.options = tuple(options)
        self._capsule = _r._kernel_create(code, name, list(self.options))

    @property
    def params(self):
        """The parameters as parsed: name, type, kind, read_only, size."""
        return _r._kernel_params(self._capsule)

    def _launch(self, grid, block, args, shared=0, stream=None, elements=0, sync=False):
        _r._kernel_launch(self._capsule, grid, block, list(args), int(shared), stream,
                          int(elements), sync)

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("launch configuration: k[grid, block] or k[grid, block, stream, "
                            "shared_mem]")
        grid, block = config[0], config[1]
        stream = config[2] if len(config) > 2 else None
        shared = config[3] if len(config) > 3 else 0
        if stream is not None and not isinstance(stream, Stream):
            if stream == 0:
                stream = None
            else:
                raise TypeError("stream must be a resident.Stream (or 0 / None: the default)")
        return _Launcher(self, grid, block, stream, shared)

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None, elements=0):
        self._launch(grid, block, args, shared_mem, stream, elements)

    def synchronize(self, stream=None):
        """Wait for this kernel's launches and raise the first fault among them."""
        _r._kernel_sync(self._capsule, stream)
