/* User kernels (resident.RawKernel in resident/_kernel.py) and streams. */
#include "rsmodule.h"

#include <string.h>

static void kernel_capsule_free(PyObject *cap) {
  rs_kernel *k = PyCapsule_GetPointer(cap, "resident.kernel");
  if (!k) return;
  /* rs_kernel_destroy needs the kernel's launches finished: a RawKernel dropped right after
   * an asynchronous launch waits for the context's work first. */
  rs_context *ctx = rs_py_ctx();
  if (ctx) {
    Py_BEGIN_ALLOW_THREADS
    rs_context_synchronize(ctx);
    Py_END_ALLOW_THREADS
  }
  PyErr_Clear();
  rs_kernel_destroy(k);
}

static PyObject *f_kernel_create(PyObject *m, PyObject *args) {
  (void)m;
  const char *src, *name;
  PyObject *opts = Py_None;
  if (!PyArg_ParseTuple(args, "ss|O", &src, &name, &opts)) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  const char *optv[64];
  int nopt = 0;
  PyObject *seq = NULL;
  if (opts != Py_None) {
    seq = PySequence_Fast(opts, "options must be a sequence of strings");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && i < 64; i++) {
      optv[nopt] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
      if (!optv[nopt]) {
        Py_DECREF(seq);
        return NULL;
      }
      nopt++;
    }
  }
  rs_kernel_options o = {nopt, optv, 0, NULL, 0};
  rs_kernel *k;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_kernel_create(&k, ctx, src, name, &o);
  Py_END_ALLOW_THREADS
  Py_XDECREF(seq);
  if (s != RS_OK) {
    rs_py_raise(s);
    const char *log = rs_kernel_last_log();
    if (log && *log) { /* the whole compiler log on the exception */
      PyObject *t, *v, *tb;
      PyErr_Fetch(&t, &v, &tb);
      PyErr_NormalizeException(&t, &v, &tb);
      PyObject *l = PyUnicode_FromString(log);
      if (l && v) PyObject_SetAttrString(v, "log", l);
      Py_XDECREF(l);
      PyErr_Restore(t, v, tb);
    }
    return NULL;
  }
  return PyCapsule_New(k, "resident.kernel", kernel_capsule_free);
}

static PyObject *f_kernel_params(PyObject *m, PyObject *cap) {
  (void)m;
  rs_kernel *k = PyCapsule_GetPointer(cap, "resident.kernel");
  if (!k) return NULL;
  rs_kernel_info info;
  if (rs_py_check(rs_kernel_get_info(k, &info))) return NULL;
  PyObject *l = PyList_New(info.nparams);
  for (int i = 0; l && i < info.nparams; i++) {
    rs_kernel_param p;
    if (rs_py_check(rs_kernel_get_param(k, i, &p))) {
      Py_DECREF(l);
      return NULL;
    }
    static const char *const kinds[] = {"scalar", "pointer", "descriptor"};
    PyList_SET_ITEM(l, i, Py_BuildValue("{s:s,s:s,s:s,s:O,s:n}", "name", p.name, "type", p.type, "kind",
                                        kinds[p.kind], "read_only", p.read_only ? Py_True : Py_False, "size",
                                        (Py_ssize_t)p.size));
  }
  return l;
}

/* A Python scalar for a scalar parameter: typed by the declaration's size and kind. */
static int scalar_arg(PyObject *o, const rs_kernel_param *p, rs_arg *out) {
  int is_float = strstr(p->type, "float") || strstr(p->type, "double") || strstr(p->type, "half");
  int is_unsigned = strstr(p->type, "unsigned") || strstr(p->type, "size_t") || strstr(p->type, "uint");
  if (is_float) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    if (p->size == 4) *out = rs_arg_f32((float)v);
    else if (p->size == 8) *out = rs_arg_f64(v);
    else goto bad;
    return 0;
  }
  if (PyFloat_Check(o)) {
    PyErr_Format(PyExc_TypeError, "kernel argument '%s' (%s): a float was given", p->name, p->type);
    return -1;
  }
  long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "kernel argument '%s' (%s): expected a number, got %.100s", p->name, p->type,
                   Py_TYPE(o)->tp_name);
    }
    return -1;
  }
  switch (p->size) {
  case 1: *out = is_unsigned ? rs_arg_u8((unsigned char)v) : rs_arg_i8((signed char)v); return 0;
  case 2: *out = is_unsigned ? rs_arg_u16((unsigned short)v) : rs_arg_i16((short)v); return 0;
  case 4: *out = is_unsigned ? rs_arg_u32((unsigned)v) : rs_arg_i32((int)v); return 0;
  case 8: *out = is_unsigned ? rs_arg_u64((unsigned long long)v) : rs_arg_i64(v); return 0;
  }
bad:
  PyErr_Format(PyExc_TypeError, "kernel argument '%s' (%s): unsupported scalar size %zu", p->name, p->type, p->size);
  return -1;
}

static int dims3(PyObject *o, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  if (PyLong_Check(o)) {
    unsigned long v = PyLong_AsUnsignedLong(o);
    if (PyErr_Occurred()) return -1;
    d[0] = (unsigned)v;
    return 0;
  }
  PyObject *seq = PySequence_Fast(o, "grid and block are ints or tuples of up to 3 ints");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n < 1 || n > 3) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "grid and block have 1 to 3 dimensions");
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
    if (PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    d[i] = (unsigned)v;
  }
  Py_DECREF(seq);
  return 0;
}

static rs_stream *stream_of(PyObject *o) {
  if (!o || o == Py_None) return NULL;
  PyObject *cap = PyObject_GetAttrString(o, "_capsule");
  if (!cap) {
    PyErr_Clear();
    return NULL;
  }
  rs_stream *s = PyCapsule_GetPointer(cap, "resident.stream");
  Py_DECREF(cap);
  if (!s) PyErr_Clear();
  return s;
}

/* _kernel_launch(capsule, grid, block, args, shared_mem, stream, elements, sync) */
static PyObject *f_kernel_launch(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *grid, *block, *argseq, *stream;
  unsigned long long shared;
  long long elements;
  int sync;
  if (!PyArg_ParseTuple(args, "OOOOKOLp", &cap, &grid, &block, &argseq, &shared, &stream, &elements, &sync))
    return NULL;
  rs_kernel *k = PyCapsule_GetPointer(cap, "resident.kernel");
  if (!k) return NULL;
  rs_launch_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (dims3(grid, cfg.grid) < 0 || dims3(block, cfg.block) < 0) return NULL;
  cfg.shared_bytes = (size_t)shared;
  cfg.stream = stream_of(stream);
  cfg.elements = elements;
  cfg.flags = sync ? RS_LAUNCH_SYNC : 0;
  PyObject *seq = PySequence_Fast(argseq, "kernel arguments must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  rs_kernel_info info;
  if (rs_py_check(rs_kernel_get_info(k, &info))) {
    Py_DECREF(seq);
    return NULL;
  }
  if (n != info.nparams) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_TypeError, "kernel %s takes %d arguments, %zd given", info.name, info.nparams, n);
    return NULL;
  }
  rs_arg argv[64];
  PyObject *keeps[64];
  rs_array *handles[64];
  int nkeep = 0;
  PyObject *r = NULL;
  if (n > 64) {
    PyErr_SetString(PyExc_ValueError, "at most 64 kernel arguments");
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    rs_kernel_param p;
    if (rs_py_check(rs_kernel_get_param(k, (int)i, &p))) goto done;
    if (p.kind == RS_PARAM_SCALAR) {
      if (scalar_arg(o, &p, &argv[i]) < 0) goto done;
      continue;
    }
    /* An array: resident arrays as they are; NumPy arrays wrapped as host memory, which
     * the launch copies in (and back unless the parameter is const) IMPLICITLY. */
    rs_array *h;
    PyObject *keep;
    if (rs_py_as_handle(o, &h, &keep) < 0) goto done;
    argv[i] = p.kind == RS_PARAM_DESCRIPTOR ? rs_arg_desc(h) : rs_arg_array(h);
    handles[nkeep] = h;
    keeps[nkeep++] = keep;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_kernel_launch(k, &cfg, (int)n, argv);
  Py_END_ALLOW_THREADS
  if (!rs_py_check(s)) {
    Py_INCREF(Py_None);
    r = Py_None;
  }
done:
  for (int j = 0; j < nkeep; j++) {
    rs_array_release(handles[j]);
    Py_XDECREF(keeps[j]);
  }
  Py_DECREF(seq);
  return r;
}

static PyObject *f_kernel_sync(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *stream = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &cap, &stream)) return NULL;
  rs_kernel *k = PyCapsule_GetPointer(cap, "resident.kernel");
  if (!k) return NULL;
  rs_stream *st = stream_of(stream);
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_kernel_synchronize(k, st);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static void stream_capsule_free(PyObject *cap) {
  rs_stream *s = PyCapsule_GetPointer(cap, "resident.stream");
  if (s) rs_stream_destroy(s);
}

static PyObject *f_stream_create(PyObject *m, PyObject *args) {
  (void)m;
  int nonblocking = 0;
  if (!PyArg_ParseTuple(args, "|p", &nonblocking)) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_stream *s;
  if (rs_py_check(rs_stream_create(&s, ctx, nonblocking ? RS_STREAM_NON_BLOCKING : 0))) return NULL;
  return PyCapsule_New(s, "resident.stream", stream_capsule_free);
}

static PyObject *f_stream_sync(PyObject *m, PyObject *cap) {
  (void)m;
  rs_stream *st = cap == Py_None ? rs_stream_legacy(rs_py_ctx()) : PyCapsule_GetPointer(cap, "resident.stream");
  if (!st && PyErr_Occurred()) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_stream_synchronize(st);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_stream_native(PyObject *m, PyObject *cap) {
  (void)m;
  rs_stream *st = PyCapsule_GetPointer(cap, "resident.stream");
  if (!st) return NULL;
  return PyLong_FromVoidPtr(rs_stream_native(st));
}

PyMethodDef rs_py_kernel_functions[] = {
    {"_kernel_create", (PyCFunction)f_kernel_create, METH_VARARGS, NULL},
    {"_kernel_params", (PyCFunction)f_kernel_params, METH_O, NULL},
    {"_kernel_launch", (PyCFunction)f_kernel_launch, METH_VARARGS, NULL},
    {"_kernel_sync", (PyCFunction)f_kernel_sync, METH_VARARGS, NULL},
    {"_stream_create", (PyCFunction)f_stream_create, METH_VARARGS, NULL},
    {"_stream_sync", (PyCFunction)f_stream_sync, METH_O, NULL},
    {"_stream_native", (PyCFunction)f_stream_native, METH_O, NULL},
    {NULL, NULL, 0, NULL}};
