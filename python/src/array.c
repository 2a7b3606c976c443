/* resident.ndarray: metadata, views, indexing, the buffer protocol and conversions. */
#include "rsmodule.h"

#include <string.h>

PyObject *rs_py_wrap(rs_array *a, PyObject *base) {
  RsArray *o = PyObject_New(RsArray, &RsArray_Type);
  if (!o) {
    rs_array_release(a);
    return NULL;
  }
  o->a = a;
  o->base = base;
  Py_XINCREF(base);
  o->weakrefs = NULL;
  int nd = rs_array_ndim(a);
  const int64_t *sh = rs_array_shape(a), *st = rs_array_strides(a);
  for (int i = 0; i < nd; i++) {
    o->shape[i] = (Py_ssize_t)sh[i];
    o->strides[i] = (Py_ssize_t)st[i];
  }
  return (PyObject *)o;
}

static void array_dealloc(RsArray *self) {
  if (self->weakrefs) PyObject_ClearWeakRefs((PyObject *)self);
  rs_array_release(self->a);
  Py_XDECREF(self->base);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A view result of self: shares self's Python owner. */
PyObject *rs_py_view_of(RsArray *self, rs_status s, rs_array *v) {
  if (rs_py_check(s)) return NULL;
  return rs_py_wrap(v, self->base);
}

/* ---- attributes -------------------------------------------------------------------- */
static PyObject *get_shape(RsArray *self, void *c) {
  (void)c;
  int nd = rs_array_ndim(self->a);
  PyObject *t = PyTuple_New(nd);
  if (!t) return NULL;
  for (int i = 0; i < nd; i++) PyTuple_SET_ITEM(t, i, PyLong_FromSsize_t(self->shape[i]));
  return t;
}
static PyObject *get_strides(RsArray *self, void *c) {
  (void)c;
  int nd = rs_array_ndim(self->a);
  PyObject *t = PyTuple_New(nd);
  if (!t) return NULL;
  for (int i = 0; i < nd; i++) PyTuple_SET_ITEM(t, i, PyLong_FromSsize_t(self->strides[i]));
  return t;
}
static PyObject *get_dtype(RsArray *self, void *c) {
  (void)c;
  PyObject *d = rs_py_dtype_object(rs_array_dtype(self->a));
  Py_XINCREF(d);
  return d;
}
static PyObject *get_ndim(RsArray *self, void *c) { (void)c; return PyLong_FromLong(rs_array_ndim(self->a)); }
static PyObject *get_size(RsArray *self, void *c) { (void)c; return PyLong_FromLongLong(rs_array_size(self->a)); }
static PyObject *get_nbytes(RsArray *self, void *c) { (void)c; return PyLong_FromSize_t(rs_array_nbytes(self->a)); }
static PyObject *get_itemsize(RsArray *self, void *c) { (void)c; return PyLong_FromSize_t(rs_array_itemsize(self->a)); }
static PyObject *get_kind(RsArray *self, void *c) {
  (void)c;
  return PyUnicode_FromString(rs_mem_kind_name(rs_array_kind(self->a)));
}
static PyObject *get_T(RsArray *self, void *c) {
  (void)c;
  rs_array *v;
  {
    rs_status s_ = rs_array_transpose(&v, self->a);
    return rs_py_view_of(self, s_, v);
  }
}
static PyObject *get_mT(RsArray *self, void *c) {
  (void)c;
  int nd = rs_array_ndim(self->a);
  if (nd < 2) {
    PyErr_SetString(PyExc_ValueError, "mT needs at least 2 dimensions");
    return NULL;
  }
  int axes[RS_MAX_DIMS];
  for (int i = 0; i < nd; i++) axes[i] = i;
  axes[nd - 1] = nd - 2;
  axes[nd - 2] = nd - 1;
  rs_array *v;
  {
    rs_status s_ = rs_array_permute(&v, self->a, axes);
    return rs_py_view_of(self, s_, v);
  }
}
static PyObject *get_flags(RsArray *self, void *c) {
  (void)c;
  return Py_BuildValue("{s:O,s:O}", "C_CONTIGUOUS", rs_array_is_c_contiguous(self->a) ? Py_True : Py_False,
                       "F_CONTIGUOUS", rs_array_is_f_contiguous(self->a) ? Py_True : Py_False);
}
static PyObject *get_data_ptr(RsArray *self, void *c) {
  (void)c;
  void *p = rs_array_device_data(self->a);
  if (!p) p = rs_array_host_data(self->a);
  return PyLong_FromVoidPtr(p);
}

static PyGetSetDef array_getset[] = {
    {"shape", (getter)get_shape, NULL, "Tuple of the axis lengths.", NULL},
    {"strides", (getter)get_strides, NULL, "Tuple of the strides in bytes (NumPy's convention).", NULL},
    {"dtype", (getter)get_dtype, NULL, "The element type, a numpy.dtype.", NULL},
    {"ndim", (getter)get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)get_size, NULL, "Number of elements.", NULL},
    {"nbytes", (getter)get_nbytes, NULL, "size * itemsize.", NULL},
    {"itemsize", (getter)get_itemsize, NULL, "Bytes per element.", NULL},
    {"device", (getter)get_kind, NULL,
     "Where the bytes live: 'device', 'host', 'pinned', 'mapped' or 'managed' (accepted by every "
     "device= argument and by to_device).", NULL},
    {"memory_kind", (getter)get_kind, NULL, "Same as device: the memory kind's name.", NULL},
    {"T", (getter)get_T, NULL, "The axes reversed (a view).", NULL},
    {"mT", (getter)get_mT, NULL, "The last two axes swapped (a view).", NULL},
    {"flags", (getter)get_flags, NULL, "C_CONTIGUOUS and F_CONTIGUOUS.", NULL},
    {"data_ptr", (getter)get_data_ptr, NULL,
     "Address of element 0 (the device address for device, managed and mapped memory).", NULL},
    {"__cuda_array_interface__", (getter)rs_py_array_cai, NULL,
     "CUDA Array Interface version 3 (device, managed and mapped arrays), with the stream "
     "field: 1, the legacy default stream, on which resident queues its work.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- methods: views ---------------------------------------------------------------- */
static PyObject *m_reshape(RsArray *self, PyObject *args, PyObject *kw) {
  int64_t shape[RS_MAX_DIMS];
  int nd;
  PyObject *shp;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (kw && PyDict_GET_SIZE(kw)) {
    PyObject *copy = PyDict_GetItemString(kw, "copy");
    if (copy && copy == Py_True) {
      PyErr_SetString(PyExc_NotImplementedError, "reshape(copy=True): copy first, then reshape");
      return NULL;
    }
  }
  if (n == 1) shp = PyTuple_GET_ITEM(args, 0);
  else shp = args;
  if (rs_py_shape_from(shp, &nd, shape) < 0) return NULL;
  rs_array *v;
  {
    rs_status s_ = rs_array_reshape(&v, self->a, nd, shape);
    return rs_py_view_of(self, s_, v);
  }
}

static PyObject *m_transpose(RsArray *self, PyObject *args) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  rs_array *v;
  if (n == 0 || (n == 1 && PyTuple_GET_ITEM(args, 0) == Py_None))
    {
    rs_status s_ = rs_array_transpose(&v, self->a);
    return rs_py_view_of(self, s_, v);
  }
  PyObject *axo = n == 1 ? PyTuple_GET_ITEM(args, 0) : args;
  int axes[RS_MAX_DIMS], na;
  if (rs_py_axes_from(axo, &na, axes) < 0) return NULL;
  if (na != rs_array_ndim(self->a)) {
    PyErr_SetString(PyExc_ValueError, "transpose: axes don't match array");
    return NULL;
  }
  {
    rs_status s_ = rs_array_permute(&v, self->a, axes);
    return rs_py_view_of(self, s_, v);
  }
}

static PyObject *m_ravel(RsArray *self, PyObject *noargs) {
  (void)noargs;
  rs_array *v;
  {
    rs_status s_ = rs_array_ravel(&v, self->a);
    return rs_py_view_of(self, s_, v);
  }
}

static PyObject *m_squeeze(RsArray *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"axis", NULL};
  PyObject *axis = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwl, &axis)) return NULL;
  rs_array *v;
  if (axis == Py_None) {
    rs_status s_ = rs_array_squeeze(&v, self->a, RS_ALL_AXES);
    return rs_py_view_of(self, s_, v);
  }
  int ax = PyLong_AsLong(axis);
  if (ax == -1 && PyErr_Occurred()) return NULL;
  {
    rs_status s_ = rs_array_squeeze(&v, self->a, ax);
    return rs_py_view_of(self, s_, v);
  }
}

/* ---- transfers ---------------------------------------------------------------------- */
static PyObject *m_to_device(RsArray *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"device", "stream", NULL};
  PyObject *dev = NULL, *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwl, &dev, &stream)) return NULL;
  rs_mem_kind k;
  if (rs_py_kind_from(dev, &k, RS_MEM_DEVICE) < 0) return NULL;
  rs_array *out;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_asarray(&out, self->a, k, NULL);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  /* rs_asarray shares the memory when nothing moves: keep the owner then. */
  return rs_py_wrap(out, self->base);
}

static PyObject *host_numpy(PyObject *host_array) {
  PyObject *np = rs_py_numpy();
  if (!np) return NULL;
  return PyObject_CallMethod(np, "asarray", "O", host_array);
}

static PyObject *m_copy_to_host(RsArray *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"ary", "stream", NULL};
  PyObject *ary = Py_None, *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwl, &ary, &stream)) return NULL;
  rs_status s;
  if (ary != Py_None) {
    rs_array *dst;
    PyObject *keep;
    if (rs_py_as_handle(ary, &dst, &keep) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rs_copy_to_host_into(dst, self->a, NULL);
    /* Numba's copy_to_host(ary) without a stream returns with the data there; a copy into
     * pinned memory would otherwise still be running. */
    if (s == RS_OK) s = rs_context_synchronize(rs_array_context(self->a));
    Py_END_ALLOW_THREADS
    rs_array_release(dst);
    Py_XDECREF(keep);
    if (rs_py_check(s)) return NULL;
    Py_INCREF(ary);
    return ary;
  }
  rs_array *out;
  Py_BEGIN_ALLOW_THREADS
  s = rs_copy_to_host(&out, self->a, NULL);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  PyObject *h = rs_py_wrap(out, NULL);
  if (!h) return NULL;
  PyObject *r = host_numpy(h);
  Py_DECREF(h);
  return r;
}

static int host_visible(rs_array *a) { return rs_array_host_data(a) != NULL || rs_array_size(a) == 0 ? rs_array_kind(a) != RS_MEM_DEVICE : 0; }

static PyObject *m_array(RsArray *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"dtype", "copy", NULL};
  PyObject *dtype = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwl, &dtype, &copy)) return NULL;
  if (!host_visible(self->a)) {
    PyErr_SetString(PyExc_TypeError,
                    "resident: a device array is not converted to NumPy implicitly; call .get() or "
                    ".copy_to_host() (one explicit copy, recorded by the ledger)");
    return NULL;
  }
  PyObject *np = rs_py_numpy();
  if (!np) return NULL;
  PyObject *mv = PyMemoryView_FromObject((PyObject *)self);
  if (!mv) return NULL;
  PyObject *r = PyObject_CallMethod(np, "asarray", "OO", mv, dtype);
  Py_DECREF(mv);
  if (r && copy == Py_True) {
    PyObject *c = PyObject_CallMethod(r, "copy", NULL);
    Py_DECREF(r);
    r = c;
  }
  return r;
}

static PyObject *m_item(RsArray *self, PyObject *args) {
  int nd = rs_array_ndim(self->a);
  int64_t idx[RS_MAX_DIMS];
  const int64_t *index = NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n > 0) {
    PyObject *io = n == 1 ? PyTuple_GET_ITEM(args, 0) : args;
    int ni;
    if (rs_py_shape_from(io, &ni, idx) < 0) return NULL;
    if (ni == 1 && nd != 1) { /* a flat index in C order */
      int64_t flat = idx[0], size = rs_array_size(self->a);
      if (flat < 0) flat += size;
      if (flat < 0 || flat >= size) {
        PyErr_SetString(PyExc_IndexError, "index out of range");
        return NULL;
      }
      const int64_t *sh = rs_array_shape(self->a);
      for (int i = nd - 1; i >= 0; i--) {
        idx[i] = flat % sh[i];
        flat /= sh[i];
      }
    } else if (ni != nd) {
      PyErr_Format(PyExc_ValueError, "item: %d indices for %d dimensions", ni, nd);
      return NULL;
    }
    index = idx;
  } else if (rs_array_size(self->a) != 1) {
    PyErr_SetString(PyExc_ValueError, "can only convert an array of size 1 to a Python scalar");
    return NULL;
  }
  rs_dtype dt = rs_array_dtype(self->a);
  unsigned char buf[16];
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_array_item_to_host(self->a, index, buf, NULL);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  PyObject *dto = rs_py_dtype_object(dt);
  PyObject *np = rs_py_numpy();
  if (!dto || !np) return NULL;
  PyObject *bytes = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)rs_dtype_size(dt));
  if (!bytes) return NULL;
  PyObject *arr = PyObject_CallMethod(np, "frombuffer", "OO", bytes, dto);
  Py_DECREF(bytes);
  if (!arr) return NULL;
  PyObject *r = PyObject_CallMethod(arr, "item", "i", 0);
  Py_DECREF(arr);
  return r;
}

static PyObject *scalar_of(RsArray *self, PyObject *type) {
  PyObject *empty = PyTuple_New(0);
  if (!empty) return NULL;
  PyObject *v = m_item(self, empty);
  Py_DECREF(empty);
  if (!v) return NULL;
  PyObject *r = PyObject_CallOneArg(type, v);
  Py_DECREF(v);
  return r;
}
static PyObject *m_float(RsArray *self, PyObject *n) { (void)n; return scalar_of(self, (PyObject *)&PyFloat_Type); }
static PyObject *m_complex(RsArray *self, PyObject *n) { (void)n; return scalar_of(self, (PyObject *)&PyComplex_Type); }

static PyObject *m_dlpack_dev(PyObject *self, PyObject *n) { return rs_py_array_dlpack_device(self, n); }

static PyObject *m_array_namespace(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self; (void)args; (void)kw;
  return PyImport_ImportModule("resident");
}

static PyObject *m_repr(RsArray *self) {
  char buf[256];
  rs_array_describe(self->a, buf, sizeof buf);
  /* Host memory shows its values (NumPy's formatting, no copy); device memory only its
   * description - printing it would be a hidden copy. */
  if (rs_array_kind(self->a) == RS_MEM_HOST && rs_array_size(self->a) <= 1000) {
    PyObject *np = rs_py_numpy(), *mv = np ? PyMemoryView_FromObject((PyObject *)self) : NULL;
    PyObject *arr = mv ? PyObject_CallMethod(np, "asarray", "O", mv) : NULL;
    PyObject *text = arr ? PyObject_CallMethod(np, "array2string", "O", arr) : NULL;
    Py_XDECREF(mv);
    Py_XDECREF(arr);
    if (text) {
      PyObject *r = PyUnicode_FromFormat("resident.ndarray(%U, %s)", text, buf);
      Py_DECREF(text);
      return r;
    }
    PyErr_Clear();
  }
  return PyUnicode_FromFormat("resident.ndarray(%s)", buf);
}

static PyObject *sq_item(RsArray *self, Py_ssize_t i) {
  PyObject *k = PyLong_FromSsize_t(i);
  if (!k) return NULL;
  PyObject *r = rs_py_index_view(self, k);
  Py_DECREF(k);
  return r;
}
static Py_ssize_t sq_len(RsArray *self) { return rs_array_ndim(self->a) ? self->shape[0] : 0; }
/* Iteration (for row in x) walks the first axis as views; len() is the mapping's. */
static PySequenceMethods array_sequence = {.sq_length = (lenfunc)sq_len, .sq_item = (ssizeargfunc)sq_item};

static PyMethodDef array_methods[] = {
    {"reshape", (PyCFunction)(void (*)(void))m_reshape, METH_VARARGS | METH_KEYWORDS,
     "reshape(*shape) -> a view with another shape (one entry may be -1); a layout that would "
     "need a copy raises ValueError (RS_ERR_NOT_CONTIGUOUS)."},
    {"transpose", (PyCFunction)m_transpose, METH_VARARGS, "transpose(*axes) -> a view with permuted axes."},
    {"ravel", (PyCFunction)m_ravel, METH_NOARGS, "ravel() -> a 1-d view (C-contiguous arrays)."},
    {"squeeze", (PyCFunction)(void (*)(void))m_squeeze, METH_VARARGS | METH_KEYWORDS,
     "squeeze(axis=None) -> a view without axes of length 1."},
    {"to_device", (PyCFunction)(void (*)(void))m_to_device, METH_VARARGS | METH_KEYWORDS,
     "to_device(device='device', stream=None) -> this array in memory of that kind: the same "
     "memory when it already is (no copy), else one explicit copy (recorded)."},
    {"copy_to_host", (PyCFunction)(void (*)(void))m_copy_to_host, METH_VARARGS | METH_KEYWORDS,
     "copy_to_host(ary=None, stream=None) -> numpy.ndarray: one explicit copy to the host "
     "(into ary when given)."},
    {"get", (PyCFunction)(void (*)(void))m_copy_to_host, METH_VARARGS | METH_KEYWORDS,
     "get() -> numpy.ndarray (CuPy's name for copy_to_host)."},
    {"__array__", (PyCFunction)(void (*)(void))m_array, METH_VARARGS | METH_KEYWORDS,
     "NumPy's view of a host-visible array (no copy); a device array raises TypeError."},
    {"item", (PyCFunction)m_item, METH_VARARGS,
     "item(*index) -> Python scalar: one element to the host (an explicit copy, recorded)."},
    {"__float__", (PyCFunction)m_float, METH_NOARGS, NULL},
    {"__complex__", (PyCFunction)m_complex, METH_NOARGS, NULL},
    {"__dlpack__", (PyCFunction)(void (*)(void))rs_py_array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule "
     "('dltensor_versioned' for max_version >= (1, 0), else 'dltensor'), no copy."},
    {"__dlpack_device__", (PyCFunction)m_dlpack_dev, METH_NOARGS,
     "__dlpack_device__() -> (device type, device id): 1 CPU, 2 CUDA, 3 CUDA host, 13 managed."},
    {"__array_namespace__", (PyCFunction)(void (*)(void))m_array_namespace, METH_VARARGS | METH_KEYWORDS,
     "The array API namespace: the resident module."},
    {NULL, NULL, 0, NULL}};

/* Methods from ops.c are appended at type-ready time. */
static PyMethodDef all_methods[128];

static int array_bool(RsArray *self) {
  PyObject *empty = PyTuple_New(0);
  if (!empty) return -1;
  PyObject *v = m_item(self, empty);
  Py_DECREF(empty);
  if (!v) return -1;
  int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}

static PyObject *array_int(RsArray *self) { return scalar_of(self, (PyObject *)&PyLong_Type); }
static PyObject *array_float(RsArray *self) { return scalar_of(self, (PyObject *)&PyFloat_Type); }
static PyObject *array_index(RsArray *self) {
  rs_dtype d = rs_array_dtype(self->a);
  if (d == RS_BOOL || d >= RS_FLOAT16) {
    PyErr_SetString(PyExc_TypeError, "only integer scalar arrays can be converted to a scalar index");
    return NULL;
  }
  return array_int(self);
}

PyTypeObject RsArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "resident.ndarray",
    .tp_basicsize = sizeof(RsArray),
    .tp_dealloc = (destructor)array_dealloc,
    .tp_repr = (reprfunc)m_repr,
    .tp_as_number = &rs_py_number_methods,
    .tp_as_mapping = &rs_py_mapping_methods,
    .tp_as_sequence = &array_sequence,
    .tp_as_buffer = &rs_py_array_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "resident.ndarray: an n-dimensional array in one memory kind (device, host, pinned, "
              "mapped or managed). Made by resident.asarray, empty/zeros/ones/full and the ops; "
              "views share memory; every copy between host and device is explicit and recorded.",
    .tp_richcompare = rs_py_richcompare,
    .tp_weaklistoffset = offsetof(RsArray, weakrefs),
    .tp_methods = all_methods,
    .tp_getset = array_getset,
};

void rs_py_array_finish_type(void);
void rs_py_array_finish_type(void) {
  size_t n = 0;
  for (PyMethodDef *d = array_methods; d->ml_name; d++) all_methods[n++] = *d;
  for (PyMethodDef *d = rs_py_ew_methods; d->ml_name && n + 1 < 128; d++) all_methods[n++] = *d;
  for (PyMethodDef *d = rs_py_reduce_methods; d->ml_name && n + 1 < 128; d++) all_methods[n++] = *d;
  all_methods[n].ml_name = NULL;
  rs_py_number_methods.nb_bool = (inquiry)array_bool;
  rs_py_number_methods.nb_int = (unaryfunc)array_int;
  rs_py_number_methods.nb_float = (unaryfunc)array_float;
  rs_py_number_methods.nb_index = (unaryfunc)array_index;
}
