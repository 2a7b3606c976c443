#!/usr/bin/env python3
"""Issue 13 on a GPU: a resident array handed to PyTorch and CuPy through DLPack and back.

Checks that the data pointer never changes, that the ledger records no copy, and that a
tensor PyTorch created is modified in place by a resident op. ctypes over libresident.so
stands in for the Python package this project does not have yet - ONLY in this test.
Exit 77 (skipped) where torch, cupy or a GPU is missing.

usage: test_dlpack_torch_cupy.py path/to/libresident.so
"""
import ctypes as C
import os
import shutil
import sys

SKIP = 77


def interpreter_with_packages():
    """Another python3 that has torch and cupy (the test's own may be a venv without them)."""
    for cand in (shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"):
        if cand and os.path.realpath(cand) != os.path.realpath(sys.executable) and os.path.exists(cand):
            return cand
    return None


try:
    import torch
    import cupy
except ImportError as e:
    other = interpreter_with_packages()
    if other and not os.environ.get("RS_T_REEXEC"):
        os.environ["RS_T_REEXEC"] = "1"
        os.execv(other, [other] + sys.argv)
    print(f"skipped: {e}")
    sys.exit(SKIP)
if not torch.cuda.is_available():
    print("skipped: torch sees no GPU")
    sys.exit(SKIP)

lib = C.CDLL(sys.argv[1])
RS_BACKEND_CUDA, RS_MEM_DEVICE, RS_FLOAT32 = 1, 0, 10
P = C.c_void_p


class DLVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", P), ("device", DLDevice), ("ndim", C.c_int32), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensorVersioned(C.Structure):
    pass


DELETER = C.CFUNCTYPE(None, C.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLVersion), ("manager_ctx", P), ("deleter", DELETER),
                                     ("flags", C.c_uint64), ("dl_tensor", DLTensor)]

for name, res, args in [
    ("rs_context_create", C.c_int, [C.POINTER(P), C.c_int, C.c_int]),
    ("rs_context_destroy", C.c_int, [P]),
    ("rs_context_synchronize", C.c_int, [P]),
    ("rs_arange", C.c_int, [C.POINTER(P), P, C.c_int, C.c_double, C.c_double, C.c_double, C.c_int, P]),
    ("rs_add_into", C.c_int, [P, P, P, P]),
    ("rs_array_release", C.c_int, [P]),
    ("rs_array_device_data", P, [P]),
    ("rs_array_to_dlpack_on", C.c_int, [C.POINTER(P), P, P, C.c_ssize_t]),
    ("rs_array_from_dlpack", C.c_int, [C.POINTER(P), P, P]),
    ("rs_array_from_dlpack_legacy", C.c_int, [C.POINTER(P), P, P]),
    ("rs_ledger_reset", C.c_int, [P]),
    ("rs_ledger_get_stats", C.c_int, [P, P]),
    ("rs_ledger_copies", C.c_int64, [P, C.c_int]),
    ("rs_last_error", C.c_char_p, []),
]:
    f = getattr(lib, name)
    f.restype, f.argtypes = res, args

api = C.pythonapi
api.PyCapsule_New.restype, api.PyCapsule_New.argtypes = C.py_object, [P, P, P]
api.PyCapsule_GetPointer.restype, api.PyCapsule_GetPointer.argtypes = P, [C.py_object, C.c_char_p]
api.PyCapsule_SetName.restype, api.PyCapsule_SetName.argtypes = C.c_int, [C.py_object, P]
# A capsule keeps the pointer to its name, not a copy: names that outlive every capsule.
libc = C.CDLL(None)
libc.strdup.restype, libc.strdup.argtypes = P, [C.c_char_p]
NAME = {n: libc.strdup(n) for n in (b"dltensor_versioned", b"dltensor", b"used_dltensor_versioned", b"used_dltensor")}
failures = []


def ok(st, what):
    if st != 0:
        raise SystemExit(f"FAIL {what}: status {st}: {lib.rs_last_error().decode()}")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


class DLManagedTensor(C.Structure):  # the legacy form, for consumers that ask for no version
    pass


LEGACY_DELETER = C.CFUNCTYPE(None, C.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", P), ("deleter", LEGACY_DELETER)]
raw_get = C.PYFUNCTYPE(P, P, C.c_char_p)(("PyCapsule_GetPointer", C.pythonapi))
raw_valid = C.PYFUNCTYPE(C.c_int, P, C.c_char_p)(("PyCapsule_IsValid", C.pythonapi))
legacy_alive = {}  # address of a legacy wrapper -> (wrapper, the versioned tensor it owns)


@LEGACY_DELETER
def legacy_deleter(self):
    _, t = legacy_alive.pop(C.addressof(self.contents))
    t.contents.deleter(t)


# A capsule nobody consumed still owns its tensor (the DLPack rule): its destructor deletes it.
@C.CFUNCTYPE(None, P)
def capsule_destructor(cap, valid=raw_valid, get=raw_get, cast=C.cast, legacy=C.POINTER(DLManagedTensor),
                       versioned=C.POINTER(DLManagedTensorVersioned)):
    # (everything it uses is bound here: it may run at interpreter exit, after the globals)
    for name, kind in ((b"dltensor_versioned", versioned), (b"dltensor", legacy)):
        if valid(cap, name):
            t = cast(get(cap, name), kind)
            t.contents.deleter(t)


class Exported:
    """What a Python package's array would be: __dlpack__ with the stream handshake."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        t = P()
        if stream == 0:  # a consumer on the null stream may say 0 (ambiguous in DLPack): the legacy one
            stream = 1
        ok(lib.rs_array_to_dlpack_on(C.byref(t), self.arr, None, -1 if stream is None else stream),
           f"rs_array_to_dlpack_on(stream={stream})")
        if max_version is not None and max_version[0] >= 1:
            return api.PyCapsule_New(t, NAME[b"dltensor_versioned"], C.cast(capsule_destructor, P))
        v = C.cast(t, C.POINTER(DLManagedTensorVersioned))
        m = DLManagedTensor(v.contents.dl_tensor, None, legacy_deleter)
        legacy_alive[C.addressof(m)] = (m, v)
        return api.PyCapsule_New(C.addressof(m), NAME[b"dltensor"], C.cast(capsule_destructor, P))


def import_capsule(ctx, cap):
    """resident array over a capsule a producer made, consuming it (the DLPack rule)."""
    out = P()
    for name, fn in ((b"dltensor_versioned", lib.rs_array_from_dlpack), (b"dltensor", lib.rs_array_from_dlpack_legacy)):
        try:
            ptr = api.PyCapsule_GetPointer(cap, name)
        except ValueError:
            continue
        ok(fn(C.byref(out), ctx, ptr), f"import {name.decode()}")
        api.PyCapsule_SetName(cap, NAME[b"used_" + name])  # ours now: the producer's destructor must not delete it
        return out
    raise SystemExit("FAIL: the capsule is neither dltensor_versioned nor dltensor")


def producer_capsule(x):
    """x's capsule, its producer told that resident will use it on the legacy default stream."""
    try:
        return x.__dlpack__(stream=1, max_version=(1, 0))
    except TypeError:
        return x.__dlpack__(stream=1)  # an older producer: the legacy capsule


def copies(ctx):
    stats = C.create_string_buffer(8192)  # larger than rs_ledger_stats
    ok(lib.rs_ledger_get_stats(ctx, stats), "rs_ledger_get_stats")
    return lib.rs_ledger_copies(stats, -1)


N = 1 << 20
ctx = P()
ok(lib.rs_context_create(C.byref(ctx), RS_BACKEND_CUDA, 0), "rs_context_create")
a = P()
ok(lib.rs_arange(C.byref(a), ctx, RS_MEM_DEVICE, 0, N, 1, RS_FLOAT32, None), "rs_arange")
ok(lib.rs_context_synchronize(ctx), "synchronize")
ok(lib.rs_ledger_reset(ctx), "rs_ledger_reset")
ptr = lib.rs_array_device_data(a)
want = torch.arange(N, dtype=torch.float32, device="cuda")

# resident -> PyTorch -> resident
t = torch.from_dlpack(Exported(a))
check(t.data_ptr() == ptr, "torch.from_dlpack: the same device memory")
check(torch.equal(t, want), "torch sees resident's values")
b = import_capsule(ctx, producer_capsule(t))
check(lib.rs_array_device_data(b) == ptr, "back from torch: the same device memory")

# resident -> CuPy -> resident
c = cupy.from_dlpack(Exported(a))
check(c.data.ptr == ptr, "cupy.from_dlpack: the same device memory")
check(bool((c == cupy.arange(N, dtype=cupy.float32)).all()), "cupy sees resident's values")
d = import_capsule(ctx, producer_capsule(c))
check(lib.rs_array_device_data(d) == ptr, "back from cupy: the same device memory")

# a tensor PyTorch made, modified in place by a resident op
p = torch.arange(N, dtype=torch.float32, device="cuda")
torch.cuda.synchronize()
pptr = p.data_ptr()
e = import_capsule(ctx, producer_capsule(p))
check(lib.rs_array_device_data(e) == pptr, "torch tensor imported without a copy")
ok(lib.rs_add_into(e, e, e, None), "rs_add_into(e, e, e)")  # e = 2e, in place
ok(lib.rs_context_synchronize(ctx), "synchronize")
check(p.data_ptr() == pptr and torch.equal(p, 2 * want), "the torch tensor was doubled in place by resident")
check(copies(ctx) == 0, "the ledger shows no copy")

for x in (e, d, b, a):
    ok(lib.rs_array_release(x), "rs_array_release")
del t, c, p
torch.cuda.synchronize()
ok(lib.rs_context_destroy(ctx), "rs_context_destroy")
print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
