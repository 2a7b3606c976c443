/* resident._resident: module set-up, the process's context, status -> exception, dtypes
 * and memory kinds. */
#include "rsmodule.h"

#include <pthread.h>
#include <string.h>

static rs_context *g_ctx;
static PyObject *g_numpy;
static PyObject *g_dtypes[RS_DTYPE_COUNT];
static PyObject *g_error_base;               /* resident.ResidentError */
static PyObject *g_errors[128];              /* by -status */

rs_context *rs_py_ctx(void) {
  if (g_ctx) return g_ctx;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_context_create(&g_ctx, RS_BACKEND_AUTO, 0);
  Py_END_ALLOW_THREADS
  if (s != RS_OK) {
    g_ctx = NULL;
    rs_py_raise(s);
    return NULL;
  }
  return g_ctx;
}

PyObject *rs_py_raise(rs_status s) {
  int idx = -(int)s;
  PyObject *cls = (idx > 0 && idx < 128 && g_errors[idx]) ? g_errors[idx] : g_error_base;
  const char *msg = rs_last_error();
  PyObject *text = PyUnicode_FromFormat("%s: %s", rs_status_name(s), (msg && *msg) ? msg : rs_status_str(s));
  if (!text) return NULL;
  PyObject *exc = PyObject_CallOneArg(cls, text);
  Py_DECREF(text);
  if (!exc) return NULL;
  PyObject *code = PyLong_FromLong((long)s);
  PyObject *name = PyUnicode_FromString(rs_status_name(s));
  PyObject *cmsg = PyUnicode_FromString(msg ? msg : "");
  if (code && name && cmsg) {
    PyObject_SetAttrString(exc, "status", code);
    PyObject_SetAttrString(exc, "status_name", name);
    PyObject_SetAttrString(exc, "c_message", cmsg);
  }
  Py_XDECREF(code);
  Py_XDECREF(name);
  Py_XDECREF(cmsg);
  if (s == RS_ERR_OUT_OF_MEMORY && g_ctx) { /* the allocator's report, as the C library prints it */
    PyObject *rep = rs_py_memory_report_text();
    if (rep) PyObject_SetAttrString(exc, "report", rep);
    else PyErr_Clear();
    Py_XDECREF(rep);
  }
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return NULL;
}

int rs_py_check(rs_status s) {
  if (s == RS_OK) return 0;
  rs_py_raise(s);
  return -1;
}

PyObject *rs_py_numpy(void) {
  if (!g_numpy) g_numpy = PyImport_ImportModule("numpy");
  return g_numpy;
}

PyObject *rs_py_dtype_object(rs_dtype d) {
  if (d < 0 || d >= RS_DTYPE_COUNT) {
    PyErr_SetString(PyExc_ValueError, "not a dtype");
    return NULL;
  }
  if (!g_dtypes[d]) {
    PyObject *np = rs_py_numpy();
    if (!np) return NULL;
    g_dtypes[d] = PyObject_CallMethod(np, "dtype", "s", rs_dtype_name(d));
  }
  return g_dtypes[d];
}

int rs_py_dtype_from(PyObject *o, rs_dtype *out) {
  for (int d = 0; d < RS_DTYPE_COUNT; d++)
    if (g_dtypes[d] == o) {
      *out = (rs_dtype)d;
      return 0;
    }
  PyObject *name = NULL;
  if (PyUnicode_Check(o)) {
    const char *s = PyUnicode_AsUTF8(o);
    if (!s) return -1;
    if (rs_dtype_from_name(s, out) == RS_OK) return 0;
  }
  if (o == (PyObject *)&PyFloat_Type) { *out = RS_FLOAT64; return 0; }
  if (o == (PyObject *)&PyLong_Type) { *out = RS_INT64; return 0; }
  if (o == (PyObject *)&PyBool_Type) { *out = RS_BOOL; return 0; }
  if (o == (PyObject *)&PyComplex_Type) { *out = RS_COMPLEX128; return 0; }
  PyObject *np = rs_py_numpy();
  if (!np) return -1;
  PyObject *dt = PyObject_CallMethod(np, "dtype", "O", o);
  if (!dt) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "dtype: %R is not a data type", o);
    return -1;
  }
  name = PyObject_GetAttrString(dt, "name");
  Py_DECREF(dt);
  if (!name) return -1;
  const char *s = PyUnicode_AsUTF8(name);
  rs_status st = s ? rs_dtype_from_name(s, out) : RS_ERR_DTYPE;
  if (st != RS_OK) {
    PyErr_Format(PyExc_TypeError, "dtype %S is not supported by resident "
                 "(bool, int8..int64, uint8..uint64, float16/32/64, complex64/128)", name);
    Py_DECREF(name);
    return -1;
  }
  Py_DECREF(name);
  return 0;
}

int rs_py_kind_from(PyObject *o, rs_mem_kind *out, rs_mem_kind dflt) {
  if (!o || o == Py_None) {
    *out = dflt;
    return 0;
  }
  if (RsArray_Check(o)) { /* device=x.device style: another array's kind */
    *out = rs_array_kind(((RsArray *)o)->a);
    return 0;
  }
  PyObject *str = PyObject_Str(o);
  if (!str) return -1;
  const char *s = PyUnicode_AsUTF8(str);
  int rc = 0;
  if (!s) rc = -1;
  else if (!strcmp(s, "device") || !strcmp(s, "cuda") || !strcmp(s, "gpu") || !strncmp(s, "cuda:", 5) ||
           !strcmp(s, "sim") || !strncmp(s, "device:", 7))
    *out = RS_MEM_DEVICE;
  else if (!strcmp(s, "host") || !strcmp(s, "cpu"))
    *out = RS_MEM_HOST;
  else if (!strcmp(s, "pinned"))
    *out = RS_MEM_PINNED;
  else if (!strcmp(s, "mapped"))
    *out = RS_MEM_MAPPED;
  else if (!strcmp(s, "managed"))
    *out = RS_MEM_MANAGED;
  else {
    PyErr_Format(PyExc_ValueError, "device %R: expected 'device' (or 'cuda', 'gpu'), 'host' (or 'cpu'), "
                 "'pinned', 'mapped' or 'managed'", o);
    rc = -1;
  }
  Py_DECREF(str);
  return rc;
}

/* PEP 3118 formats; '?' bool, 'e' half, 'Zf'/'Zd' complex. */
static const char *const rs_formats[RS_DTYPE_COUNT] = {"?", "b", "h", "i", "q", "B", "H", "I", "Q",
                                                       "e", "f", "d", "Zf", "Zd"};
const char *rs_py_format(rs_dtype d) { return (d >= 0 && d < RS_DTYPE_COUNT) ? rs_formats[d] : "B"; }

int rs_py_dtype_from_format(const char *fmt, Py_ssize_t itemsize, rs_dtype *out) {
  while (*fmt == '@' || *fmt == '=' || *fmt == '<' || *fmt == '|') fmt++;
  int cplx = 0;
  if (*fmt == 'Z') {
    cplx = 1;
    fmt++;
  }
  if (!fmt[0] || fmt[1]) goto bad;
  char c = fmt[0];
  if (cplx) {
    if (c == 'f') { *out = RS_COMPLEX64; return 0; }
    if (c == 'd') { *out = RS_COMPLEX128; return 0; }
    goto bad;
  }
  switch (c) {
  case '?': *out = RS_BOOL; return 0;
  case 'e': *out = RS_FLOAT16; return 0;
  case 'f': *out = RS_FLOAT32; return 0;
  case 'd': *out = RS_FLOAT64; return 0;
  case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
    switch (itemsize) {
    case 1: *out = RS_INT8; return 0;
    case 2: *out = RS_INT16; return 0;
    case 4: *out = RS_INT32; return 0;
    case 8: *out = RS_INT64; return 0;
    }
    break;
  case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
    switch (itemsize) {
    case 1: *out = RS_UINT8; return 0;
    case 2: *out = RS_UINT16; return 0;
    case 4: *out = RS_UINT32; return 0;
    case 8: *out = RS_UINT64; return 0;
    }
    break;
  }
bad:
  PyErr_Format(PyExc_TypeError, "buffer format '%s' has no resident dtype", fmt);
  return -1;
}

int rs_py_shape_from(PyObject *o, int *ndim, int64_t *shape) {
  if (PyLong_Check(o)) {
    shape[0] = PyLong_AsLongLong(o);
    if (shape[0] == -1 && PyErr_Occurred()) return -1;
    *ndim = 1;
    return 0;
  }
  PyObject *seq = PySequence_Fast(o, "shape must be an int or a sequence of ints");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > RS_MAX_DIMS) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "%zd dimensions: at most %d", n, RS_MAX_DIMS);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyIndex_Check(it)) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_TypeError, "shape entries must be integers, not %.100s", Py_TYPE(it)->tp_name);
      return -1;
    }
    shape[i] = PyNumber_AsSsize_t(it, PyExc_OverflowError);
    if (shape[i] == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
  }
  *ndim = (int)n;
  Py_DECREF(seq);
  return 0;
}

int rs_py_axes_from(PyObject *o, int *naxes, int *axes) {
  if (!o || o == Py_None) {
    *naxes = -1;
    return 0;
  }
  int64_t tmp[RS_MAX_DIMS];
  int n;
  if (PyLong_Check(o)) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    axes[0] = (int)v;
    *naxes = 1;
    return 0;
  }
  if (rs_py_shape_from(o, &n, tmp) < 0) return -1;
  for (int i = 0; i < n; i++) axes[i] = (int)tmp[i];
  *naxes = n;
  return 0;
}

/* ---- references dropped from threads without the GIL (release callbacks) ----------- */
static pthread_mutex_t g_defer_lock = PTHREAD_MUTEX_INITIALIZER;
static void **g_defer;
static size_t g_ndefer, g_cap_defer;

static int rs_py_drain(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&g_defer_lock);
    void *o = g_ndefer ? g_defer[--g_ndefer] : NULL;
    pthread_mutex_unlock(&g_defer_lock);
    if (!o) return 0;
    Py_DECREF((PyObject *)o);
  }
}

void rs_py_defer_decref(void *obj) {
  /* The release may run within a call that holds the GIL, or on a backend thread: never
   * take the GIL here (a thread waiting on the stream with the GIL held would deadlock);
   * queue the reference and let the interpreter drop it at its next pending-call check. */
  pthread_mutex_lock(&g_defer_lock);
  if (g_ndefer == g_cap_defer) {
    size_t cap = g_cap_defer ? 2 * g_cap_defer : 64;
    void **p = realloc(g_defer, cap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&g_defer_lock);
      return; /* leak one reference rather than crash */
    }
    g_defer = p;
    g_cap_defer = cap;
  }
  g_defer[g_ndefer++] = obj;
  pthread_mutex_unlock(&g_defer_lock);
  Py_AddPendingCall(rs_py_drain, NULL);
}

/* ---- module-level helpers ---------------------------------------------------------- */
static PyObject *py_backend(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  return PyUnicode_FromString(rs_backend_name(rs_context_backend(ctx)));
}

static PyObject *py_device_info(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_device_props p;
  if (rs_py_check(rs_context_get_props(ctx, &p))) return NULL;
  return Py_BuildValue("{s:s,s:s,s:i,s:n,s:n,s:i,s:(ii),s:i,s:d}", "backend",
                       rs_backend_name(rs_context_backend(ctx)), "name", p.name, "device",
                       rs_context_device(ctx), "total_memory", (Py_ssize_t)p.total_memory, "free_memory",
                       (Py_ssize_t)p.free_memory, "multiprocessors", p.multiprocessors,
                       "compute_capability", p.compute_major, p.compute_minor, "warp_size", p.warp_size,
                       "pcie_gbytes_per_s", p.pcie_gbytes_per_s);
}

static PyObject *py_synchronize(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_context_synchronize(ctx);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *py_live_stats(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_py_drain(NULL);
  rs_live_stats st;
  if (rs_py_check(rs_context_get_live_stats(ctx, &st))) return NULL;
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L}", "arrays", (long long)st.arrays, "buffers",
                       (long long)st.buffers, "device_bytes", (long long)st.device_bytes, "host_bytes",
                       (long long)st.host_bytes, "streams", (long long)st.streams, "events",
                       (long long)st.events);
}

static PyObject *py_version(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  return PyUnicode_FromString(rs_version());
}

static PyMethodDef rs_module_functions[] = {
    {"backend", py_backend, METH_NOARGS, "backend() -> 'cuda' or 'sim': the backend of resident's context."},
    {"device_info", py_device_info, METH_NOARGS, "device_info() -> dict: the device's properties."},
    {"synchronize", py_synchronize, METH_NOARGS,
     "synchronize(): wait for all work queued on every stream (the GIL is released)."},
    {"live_stats", py_live_stats, METH_NOARGS,
     "live_stats() -> dict: arrays, buffers, bytes, streams and events still alive in the context."},
    {"library_version", py_version, METH_NOARGS, "library_version() -> str: libresident's version."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef rs_module = {PyModuleDef_HEAD_INIT, "resident._resident",
                                       "The C extension of resident (over libresident's public API).", -1,
                                       NULL, NULL, NULL, NULL, NULL};

/* "RS_ERR_TRANSFER_REFUSED" -> "TransferRefusedError" */
static void rs_class_name(const char *status, char *buf, size_t len) {
  const char *p = status + 7; /* after RS_ERR_ */
  size_t n = 0;
  int up = 1;
  for (; *p && n + 6 < len; p++) {
    if (*p == '_') {
      up = 1;
      continue;
    }
    buf[n++] = up ? *p : (char)(*p - 'A' + 'a');
    up = 0;
  }
  memcpy(buf + n, "Error", 6);
}

static PyObject *rs_builtin_for(rs_status s) {
  switch (s) {
  case RS_ERR_OUT_OF_MEMORY: case RS_ERR_HOST_OUT_OF_MEMORY: case RS_ERR_LIMIT:
    return PyExc_MemoryError;
  case RS_ERR_INDEX: return PyExc_IndexError;
  case RS_ERR_OVERFLOW: return PyExc_OverflowError;
  case RS_ERR_NOT_CLOSE: return PyExc_AssertionError;
  case RS_ERR_UNSUPPORTED: return PyExc_NotImplementedError;
  case RS_ERR_NOT_FOUND: return PyExc_LookupError;
  case RS_ERR_INVALID_ARGUMENT: case RS_ERR_NULL_POINTER: case RS_ERR_PARSE: case RS_ERR_SHAPE:
  case RS_ERR_DTYPE: case RS_ERR_TOO_MANY_DIMS: case RS_ERR_NOT_CONTIGUOUS: case RS_ERR_AXIS:
  case RS_ERR_BROADCAST: case RS_ERR_MEMORY_KIND: case RS_ERR_LAUNCH:
    return PyExc_ValueError;
  default: return PyExc_RuntimeError;
  }
}

static int rs_add_errors(PyObject *m) {
  g_error_base = PyErr_NewExceptionWithDoc("resident.ResidentError",
      "Base of every error raised for a libresident status: .status (the code), .status_name "
      "('RS_ERR_SHAPE') and .c_message (the library's message).", PyExc_Exception, NULL);
  if (!g_error_base || PyModule_AddObjectRef(m, "ResidentError", g_error_base) < 0) return -1;
  PyObject *by_status = PyDict_New();
  if (!by_status) return -1;
#define RS_ADD_ERR_(name, value, text)                                                          \
  if (value < 0) {                                                                              \
    char cname[64], full[80];                                                                   \
    rs_class_name(#name, cname, sizeof cname);                                                  \
    if (value == RS_ERR_TRANSFER_REFUSED) snprintf(cname, sizeof cname, "TransferRefused");     \
    if (value == RS_ERR_OUT_OF_MEMORY) snprintf(cname, sizeof cname, "OutOfMemoryError");       \
    snprintf(full, sizeof full, "resident.%s", cname);                                          \
    PyObject *bases = (value == RS_ERR_AXIS)                                                    \
        ? PyTuple_Pack(3, g_error_base, PyExc_ValueError, PyExc_IndexError)                     \
        : PyTuple_Pack(2, g_error_base, rs_builtin_for((rs_status)value));                      \
    PyObject *cls = bases ? PyErr_NewExceptionWithDoc(full, #name ": " text, bases, NULL) : NULL; \
    Py_XDECREF(bases);                                                                          \
    if (!cls || PyModule_AddObjectRef(m, cname, cls) < 0) return -1;                            \
    PyObject *key = PyLong_FromLong(value);                                                     \
    if (!key || PyDict_SetItem(by_status, key, cls) < 0) return -1;                             \
    Py_DECREF(key);                                                                             \
    g_errors[-(value)] = cls;                                                                   \
  }
  RS_STATUS_LIST(RS_ADD_ERR_)
#undef RS_ADD_ERR_
  int rc = PyModule_AddObjectRef(m, "errors_by_status", by_status);
  Py_DECREF(by_status);
  return rc;
}

static int rs_add_functions(PyObject *m, PyMethodDef *defs) {
  return PyModule_AddFunctions(m, defs);
}

PyMODINIT_FUNC PyInit__resident(void) {
  PyObject *m = PyModule_Create(&rs_module);
  if (!m) return NULL;
  rs_py_array_finish_type();
  if (PyType_Ready(&RsBufferOwner_Type) < 0) goto fail;
  if (PyType_Ready(&RsArray_Type) < 0) goto fail;
  /* NumPy defers to resident's operators (np_array + x calls x.__radd__) instead of
   * converting a device array behind the user's back. */
  if (PyDict_SetItemString(RsArray_Type.tp_dict, "__array_ufunc__", Py_None) < 0) goto fail;
  PyType_Modified(&RsArray_Type);
  if (PyModule_AddObjectRef(m, "ndarray", (PyObject *)&RsArray_Type) < 0) goto fail;
  if (rs_add_errors(m) < 0) goto fail;
  if (rs_add_functions(m, rs_module_functions) < 0 || rs_add_functions(m, rs_py_ew_functions) < 0 ||
      rs_add_functions(m, rs_py_reduce_functions) < 0 || rs_add_functions(m, rs_py_create_functions) < 0 ||
      rs_add_functions(m, rs_py_interop_functions) < 0 || rs_add_functions(m, rs_py_ledger_functions) < 0 ||
      rs_add_functions(m, rs_py_kernel_functions) < 0 ||
      rs_add_functions(m, rs_py_expr_functions) < 0 ||
      rs_add_functions(m, rs_py_comm_functions) < 0 /* collectives (issue 19) */)
    goto fail;
  if (rs_add_functions(m, rs_py_stats_functions) < 0) goto fail; /* stats (issue 18) */
  if (rs_add_functions(m, rs_py_manip_functions) < 0) goto fail; /* manip (issue 18) */
  if (rs_add_functions(m, rs_py_index_functions) < 0) goto fail; /* indexing, searching, sets */
  if (rs_add_functions(m, rs_py_linalg_functions) < 0) goto fail; /* linalg extension */
  if (rs_py_ops_init(m) < 0) goto fail;
  for (int d = 0; d < RS_DTYPE_COUNT; d++)
    if (!rs_py_dtype_object((rs_dtype)d)) goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
