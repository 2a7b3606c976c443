/* Interop: DLPack both ways (the library's rs_array_to_dlpack / rs_array_from_dlpack; the
 * legacy unversioned capsule is adapted here for consumers that ask for it), the CUDA
 * Array Interface v3 both ways. */
#include "rsmodule.h"

#include <stdlib.h>
#include <string.h>

/* ---- the legacy (unversioned) DLManagedTensor, for old consumers and producers -------- */
typedef struct rs_dl_managed_tensor_legacy {
  rs_dl_tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct rs_dl_managed_tensor_legacy *self);
} rs_dl_legacy;

static void legacy_from_versioned_deleter(rs_dl_legacy *self) {
  rs_dl_managed_tensor_versioned *v = self->manager_ctx;
  if (v && v->deleter) v->deleter(v);
  free(self);
}

static void versioned_from_legacy_deleter(rs_dl_managed_tensor_versioned *self) {
  rs_dl_legacy *l = self->manager_ctx;
  if (l && l->deleter) l->deleter(l);
  free(self);
}

static void capsule_versioned_destructor(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    rs_dl_managed_tensor_versioned *t = PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (t && t->deleter) t->deleter(t);
  }
}

static void capsule_legacy_destructor(PyObject *cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    rs_dl_legacy *t = PyCapsule_GetPointer(cap, "dltensor");
    if (t && t->deleter) t->deleter(t);
  }
}

/* The array API's stream rule: the consumer's stream `sv` must not run ahead of the work
 * resident queued on the array (on the context's legacy default stream). On CUDA the
 * consumer's stream waits on an event recorded there (the host does not wait); 1, the
 * legacy stream itself, needs nothing. The simulator has no foreign streams: the context is
 * synchronized instead. */
static int rs_py_order_consumer(rs_context *ctx, long long sv) {
  rs_status s = RS_OK;
  if (sv == 0) sv = 1; /* ambiguous in the standard; producers that send it mean the default stream */
  if (rs_context_backend(ctx) != RS_BACKEND_CUDA) {
    Py_BEGIN_ALLOW_THREADS
    s = rs_context_synchronize(ctx);
    Py_END_ALLOW_THREADS
    return rs_py_check(s);
  }
  if (sv == 1) return 0;
  rs_stream *consumer = NULL, *wrapped = NULL;
  rs_event *ev = NULL;
  if (sv == 2) consumer = rs_stream_per_thread(ctx);
  else {
    s = rs_stream_wrap(&wrapped, ctx, (void *)(intptr_t)sv);
    consumer = wrapped;
  }
  if (s == RS_OK) s = rs_event_create(&ev, ctx, RS_EVENT_DISABLE_TIMING);
  if (s == RS_OK) s = rs_event_record(ev, NULL);
  if (s == RS_OK) s = rs_stream_wait_event(consumer, ev);
  rs_event_destroy(ev);
  rs_stream_destroy(wrapped);
  return rs_py_check(s);
}

PyObject *rs_py_array_dlpack(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *maxv = Py_None, *dldev = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", kwl, &stream, &maxv, &dldev, &copy)) return NULL;
  rs_array *a = ((RsArray *)self)->a;
  if (copy == Py_True) {
    PyErr_SetString(PyExc_BufferError, "__dlpack__(copy=True) is not offered: copy first");
    return NULL;
  }
  if (stream != Py_None && rs_array_kind(a) != RS_MEM_HOST) {
    long long sv = PyLong_AsLongLong(stream);
    if (sv == -1 && PyErr_Occurred()) return NULL;
    if (sv != -1 && rs_py_order_consumer(rs_array_context(a), sv) < 0) return NULL;
  }
  int versioned = 0;
  if (maxv != Py_None) {
    long major = -1;
    if (PyTuple_Check(maxv) && PyTuple_GET_SIZE(maxv) >= 1) major = PyLong_AsLong(PyTuple_GET_ITEM(maxv, 0));
    if (PyErr_Occurred()) return NULL;
    versioned = major >= 1;
  }
  rs_dl_managed_tensor_versioned *t;
  if (rs_py_check(rs_array_to_dlpack(&t, a))) return NULL;
  if (versioned) {
    PyObject *cap = PyCapsule_New(t, "dltensor_versioned", capsule_versioned_destructor);
    if (!cap) t->deleter(t);
    return cap;
  }
  rs_dl_legacy *l = malloc(sizeof *l);
  if (!l) {
    t->deleter(t);
    return PyErr_NoMemory();
  }
  l->dl_tensor = t->dl_tensor;
  l->manager_ctx = t;
  l->deleter = legacy_from_versioned_deleter;
  PyObject *cap = PyCapsule_New(l, "dltensor", capsule_legacy_destructor);
  if (!cap) legacy_from_versioned_deleter(l);
  return cap;
}

static int dl_type_of(rs_mem_kind k) {
  switch (k) {
  case RS_MEM_HOST: return RS_DL_CPU;
  case RS_MEM_DEVICE: return RS_DL_CUDA;
  case RS_MEM_MANAGED: return RS_DL_CUDA_MANAGED;
  default: return RS_DL_CUDA_HOST;
  }
}

PyObject *rs_py_array_dlpack_device(PyObject *self, PyObject *noargs) {
  (void)noargs;
  rs_array *a = ((RsArray *)self)->a;
  int id = rs_array_kind(a) == RS_MEM_HOST ? 0 : rs_context_device(rs_array_context(a));
  return Py_BuildValue("(ii)", dl_type_of(rs_array_kind(a)), id);
}

/* Import a capsule (consumed: renamed "used_...", the library owns the tensor). */
static int import_capsule(PyObject *cap, rs_array **out) {
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return -1;
  rs_dl_managed_tensor_versioned *t;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    t = PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (PyCapsule_SetName(cap, "used_dltensor_versioned") < 0) return -1;
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    rs_dl_legacy *l = PyCapsule_GetPointer(cap, "dltensor");
    t = calloc(1, sizeof *t);
    if (!t) {
      PyErr_NoMemory();
      return -1;
    }
    if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
      free(t);
      return -1;
    }
    t->version.major = 1;
    t->version.minor = 0;
    t->manager_ctx = l;
    t->deleter = versioned_from_legacy_deleter;
    t->dl_tensor = l->dl_tensor;
  } else {
    PyErr_SetString(PyExc_TypeError, "from_dlpack: not a DLPack capsule (or one already used)");
    return -1;
  }
  rs_status s = rs_array_from_dlpack(out, ctx, t); /* consumes t, success or failure */
  return rs_py_check(s);
}

static int dlpack_import(PyObject *o, long type, rs_array **out);

static PyObject *f_from_dlpack(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x", "device", "copy", NULL};
  PyObject *x, *dev = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO", kwl, &x, &dev, &copy)) return NULL;
  rs_array *a;
  if (PyCapsule_CheckExact(x)) {
    if (import_capsule(x, &a) < 0) return NULL;
    return rs_py_wrap(a, NULL);
  }
  if (PyObject_HasAttrString(x, "__dlpack__") && PyObject_HasAttrString(x, "__dlpack_device__")) {
    PyObject *dev = PyObject_CallMethod(x, "__dlpack_device__", NULL);
    if (!dev) return NULL;
    long type = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2 ? PyLong_AsLong(PyTuple_GET_ITEM(dev, 0)) : -1;
    Py_DECREF(dev);
    if (PyErr_Occurred() || dlpack_import(x, type, &a) < 0) return NULL;
    return rs_py_wrap(a, NULL);
  }
  if (rs_py_import_foreign(x, &a) <= 0) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "from_dlpack: %.100s has no __dlpack__", Py_TYPE(x)->tp_name);
    return NULL;
  }
  return rs_py_wrap(a, NULL);
}

/* ---- CUDA Array Interface --------------------------------------------------------------- */
static const char *typestr(rs_dtype d) {
  static const char *const t[RS_DTYPE_COUNT] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
                                                "<f2", "<f4", "<f8", "<c8", "<c16"};
  return t[d];
}

PyObject *rs_py_array_cai(PyObject *self, void *closure) {
  (void)closure;
  rs_array *a = ((RsArray *)self)->a;
  rs_mem_kind k = rs_array_kind(a);
  if (k == RS_MEM_HOST || k == RS_MEM_PINNED) {
    PyErr_SetString(PyExc_AttributeError, "__cuda_array_interface__: host memory (use the buffer protocol)");
    return NULL;
  }
  int nd = rs_array_ndim(a);
  PyObject *shape = PyTuple_New(nd), *strides = PyTuple_New(nd);
  if (!shape || !strides) goto fail;
  for (int i = 0; i < nd; i++) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(rs_array_shape(a)[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(rs_array_strides(a)[i]));
  }
  void *p = rs_array_device_data(a);
  PyObject *d = Py_BuildValue("{s:N,s:s,s:(NO),s:N,s:i,s:i}", "shape", shape, "typestr", typestr(rs_array_dtype(a)),
                              "data", PyLong_FromVoidPtr(p), Py_False, "strides", strides, "version", 3,
                              "stream", 1);
  return d;
fail:
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  return NULL;
}

static int dtype_from_typestr(const char *ts, rs_dtype *out) {
  if (!ts || strlen(ts) < 3) goto bad;
  char kind = ts[1];
  int bytes = atoi(ts + 2);
  for (int d = 0; d < RS_DTYPE_COUNT; d++) {
    const char *t = typestr((rs_dtype)d);
    if (t[1] == kind && atoi(t + 2) == bytes && (ts[0] == t[0] || ts[0] == '|' || ts[0] == '<' || ts[0] == '=')) {
      *out = (rs_dtype)d;
      return 0;
    }
  }
bad:
  PyErr_Format(PyExc_TypeError, "__cuda_array_interface__: typestr '%s' has no resident dtype", ts ? ts : "");
  return -1;
}

static int import_cai(PyObject *o, PyObject *cai, rs_array **out) {
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return -1;
  if (!PyDict_Check(cai)) {
    PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ is not a dict");
    return -1;
  }
  PyObject *shape = PyDict_GetItemString(cai, "shape"), *ts = PyDict_GetItemString(cai, "typestr"),
           *data = PyDict_GetItemString(cai, "data"), *strides = PyDict_GetItemString(cai, "strides"),
           *stream = PyDict_GetItemString(cai, "stream"), *mask = PyDict_GetItemString(cai, "mask");
  if (!shape || !ts || !data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
    PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: shape, typestr and data are required");
    return -1;
  }
  if (mask && mask != Py_None) {
    PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: masked arrays are not supported");
    return -1;
  }
  if (PyTuple_GET_ITEM(data, 1) == Py_True) {
    PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: read-only data (resident arrays are writable)");
    return -1;
  }
  int64_t sh[RS_MAX_DIMS], st[RS_MAX_DIMS];
  int nd, nds;
  rs_dtype dt;
  if (rs_py_shape_from(shape, &nd, sh) < 0) return -1;
  if (dtype_from_typestr(PyUnicode_Check(ts) ? PyUnicode_AsUTF8(ts) : NULL, &dt) < 0) return -1;
  const int64_t *stp = NULL;
  if (strides && strides != Py_None) {
    if (rs_py_shape_from(strides, &nds, st) < 0) return -1;
    if (nds != nd) {
      PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: strides and shape differ in length");
      return -1;
    }
    stp = st;
  }
  void *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  if (PyErr_Occurred()) return -1;
  /* The producer's stream: work it queued must finish before resident touches the memory.
   * resident can order on a foreign stream only on CUDA (rs_stream_wrap); elsewhere, and
   * for 1 / 2 (the default streams), the context is synchronized. */
  rs_stream *wait = NULL;
  if (stream && stream != Py_None) {
    long long sv = PyLong_AsLongLong(stream);
    if (PyErr_Occurred()) return -1;
    if (sv > 2 && rs_context_backend(ctx) == RS_BACKEND_CUDA) {
      if (rs_py_check(rs_stream_wrap(&wait, ctx, (void *)(intptr_t)sv))) return -1;
    } else {
      rs_status s;
      Py_BEGIN_ALLOW_THREADS
      s = rs_context_synchronize(ctx);
      Py_END_ALLOW_THREADS
      if (rs_py_check(s)) return -1;
    }
  }
  Py_INCREF(o);
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_device_array_wrap(out, ctx, ptr, nd, sh, dt, stp, wait, rs_py_defer_decref, o);
  Py_END_ALLOW_THREADS
  if (wait) rs_stream_destroy(wait);
  if (s != RS_OK) {
    Py_DECREF(o);
    return rs_py_check(s);
  }
  return 0;
}

/* Call o.__dlpack__ (versioned when the producer takes max_version) and import. */
static int dlpack_import(PyObject *o, long type, rs_array **out) {
  PyObject *kw = Py_BuildValue("{s:(ii),s:O}", "max_version", 1, 0, "stream",
                               type == RS_DL_CPU ? Py_None : PyLong_FromLong(1));
  if (!kw) return -1;
  if (type != RS_DL_CPU) Py_DECREF(PyDict_GetItemString(kw, "stream")); /* Py_BuildValue took a ref */
  PyObject *meth = PyObject_GetAttrString(o, "__dlpack__");
  PyObject *empty = PyTuple_New(0);
  PyObject *cap = (meth && empty) ? PyObject_Call(meth, empty, kw) : NULL;
  if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) { /* producers without max_version */
    PyErr_Clear();
    PyDict_DelItemString(kw, "max_version");
    cap = PyObject_Call(meth, empty, kw);
  }
  Py_XDECREF(meth);
  Py_XDECREF(empty);
  Py_DECREF(kw);
  if (!cap) return -1;
  int rc = import_capsule(cap, out);
  Py_DECREF(cap);
  return rc < 0 ? -1 : 1;
}

int rs_py_import_foreign(PyObject *o, rs_array **out) {
  if (PyCapsule_CheckExact(o)) return import_capsule(o, out) < 0 ? -1 : 1;
  PyObject *cai = PyObject_GetAttrString(o, "__cuda_array_interface__");
  if (cai) {
    int rc = import_cai(o, cai, out);
    Py_DECREF(cai);
    return rc < 0 ? -1 : 1;
  }
  PyErr_Clear();
  /* DLPack producers of device memory; host memory is wrapped through the buffer
   * protocol by the caller when the object has one. */
  if (PyObject_HasAttrString(o, "__dlpack__") && PyObject_HasAttrString(o, "__dlpack_device__")) {
    PyObject *dev = PyObject_CallMethod(o, "__dlpack_device__", NULL);
    if (!dev) return -1;
    long type = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2 ? PyLong_AsLong(PyTuple_GET_ITEM(dev, 0)) : -1;
    Py_DECREF(dev);
    if (PyErr_Occurred()) return -1;
    if (type == RS_DL_CPU && PyObject_CheckBuffer(o)) return 0;
    return dlpack_import(o, type, out);
  }
  return 0;
}

PyMethodDef rs_py_interop_functions[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))f_from_dlpack, METH_VARARGS | METH_KEYWORDS,
     "from_dlpack(x, *, device=None, copy=None) -> resident.ndarray over x's memory (no copy): "
     "x has __dlpack__ (versioned or legacy) or is a DLPack capsule. x's memory is given back "
     "only after the last view is released and the work queued on it has finished."},
    {NULL, NULL, 0, NULL}};
