"""resident's pool serving other libraries: a CuPy allocator and a Numba External Memory
Management (EMM) plugin. Their allocations then come from resident's caching pool and show
in ``resident.memory_stats()``.

    import cupy, resident.interop
    cupy.cuda.set_allocator(resident.interop.cupy_allocator)

    import numba.cuda, resident.interop
    numba.cuda.set_memory_manager(resident.interop.ResidentNumbaMemoryManager)
    # (or NUMBA_CUDA_MEMORY_MANAGER=resident.interop before numba starts)

Both hand out device memory of resident's context (the same CUDA primary context CuPy and
Numba use), ordered on the default stream; freed blocks go back to the pool.
"""
import contextlib

from . import _resident as _r


class _Block:
    """Owner of one allocation: given back to the pool when the last reference goes."""

    __slots__ = ("ptr", "size")

    def __init__(self, size):
        self.size = size
        self.ptr = _r._memory_alloc(size) if size else 0

    def __del__(self):
        if self.ptr:
            try:
                _r._memory_free(self.ptr)
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
            self.ptr = 0


def cupy_allocator(size):
    """An allocator for ``cupy.cuda.set_allocator``: memory from resident's pool."""
    import cupy
    blk = _Block(size)
    mem = cupy.cuda.UnownedMemory(blk.ptr, size, blk, cupy.cuda.runtime.getDevice())
    return cupy.cuda.MemoryPointer(mem, 0)


def _numba_manager_class():
    import inspect

    from numba import cuda as _cuda
    from numba.cuda.cudadrv import driver as _drv

    class cuda:  # the EMM names, from numba.cuda or (older layouts) its driver module
        pass
    for name in ("GetIpcHandleMixin", "HostOnlyCUDAMemoryManager", "MemoryPointer", "MemoryInfo"):
        setattr(cuda, name, getattr(_cuda, name, None) or getattr(_drv, name))

    use_binding = getattr(_drv, "USE_NV_BINDING", False)
    takes_context = "context" in inspect.signature(cuda.MemoryPointer.__init__).parameters

    def devptr(ptr):
        if use_binding:
            try:
                from cuda.bindings import driver as cudrv
            except ImportError:  # older cuda-python
                from cuda import cuda as cudrv
            return cudrv.CUdeviceptr(ptr)
        import ctypes
        return ctypes.c_void_p(ptr)

    class ResidentNumbaMemoryManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        """Numba EMM plugin: device allocations from resident's pool."""

        def initialize(self):
            _r.backend()  # makes resident's context

        def memalloc(self, size):
            blk = _Block(size)

            def finalizer(blk=blk):
                blk.__del__()

            args = (self.context,) if takes_context else ()
            return cuda.MemoryPointer(*args, devptr(blk.ptr), size, finalizer=finalizer)

        def get_memory_info(self):
            info = _r.device_info()
            return cuda.MemoryInfo(free=info["free_memory"], total=info["total_memory"])

        @contextlib.contextmanager
        def defer_cleanup(self):
            with super().defer_cleanup():
                yield

        @property
        def interface_version(self):
            return 1

    return ResidentNumbaMemoryManager


def __getattr__(name):
    # numba.cuda.set_memory_manager and NUMBA_CUDA_MEMORY_MANAGER look up _numba_memory_manager
    if name in ("ResidentNumbaMemoryManager", "_numba_memory_manager"):
        return _numba_manager_class()
    raise AttributeError(name)
