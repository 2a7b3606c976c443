/* resident.ndarray: importing host memory through the buffer protocol, basic indexing
 * (integers, slices, ..., None) and assignment, and the buffer protocol of host arrays. */
#include "rsmodule.h"

#include <string.h>

/* Holds a Py_buffer for as long as the wrapped memory is used. */
typedef struct {
  PyObject_HEAD
  Py_buffer view;
} RsBufferOwner;

static void owner_dealloc(RsBufferOwner *o) {
  PyBuffer_Release(&o->view);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

PyTypeObject RsBufferOwner_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "resident._BufferOwner",
    .tp_basicsize = sizeof(RsBufferOwner),
    .tp_dealloc = (destructor)owner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
};

/* ---- import of host memory through the buffer protocol ------------------------------ */
static int wrap_buffer(PyObject *o, rs_array **out, PyObject **keep) {
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return -1;
  RsBufferOwner *own = PyObject_New(RsBufferOwner, &RsBufferOwner_Type);
  if (!own) return -1;
  if (PyObject_GetBuffer(o, &own->view, PyBUF_RECORDS_RO) < 0) {
    PyObject_Free(own);
    return -1;
  }
  Py_buffer *b = &own->view;
  rs_dtype dt;
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  if (b->ndim > RS_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "%d dimensions: at most %d", b->ndim, RS_MAX_DIMS);
    Py_DECREF(own);
    return -1;
  }
  if (rs_py_dtype_from_format(b->format ? b->format : "B", b->itemsize, &dt) < 0) {
    Py_DECREF(own);
    return -1;
  }
  for (int i = 0; i < b->ndim; i++) {
    shape[i] = b->shape[i];
    strides[i] = b->strides[i];
  }
  rs_status s = rs_host_array_wrap(out, ctx, b->buf, b->ndim, shape, dt, strides);
  if (s != RS_OK) {
    Py_DECREF(own);
    return 1; /* a layout the library does not wrap: the caller copies */
  }
  *keep = (PyObject *)own;
  return 0;
}

int rs_py_as_handle(PyObject *o, rs_array **out, PyObject **keep) {
  *keep = NULL;
  if (RsArray_Check(o)) {
    RsArray *r = (RsArray *)o;
    if (rs_py_check(rs_array_retain(r->a))) return -1;
    *out = r->a;
    if (r->base) {
      Py_INCREF(r->base);
      *keep = r->base;
    }
    return 0;
  }
  int rc = rs_py_import_foreign(o, out);
  if (rc != 0) return rc < 0 ? -1 : 0;
  if (PyObject_CheckBuffer(o)) {
    rc = wrap_buffer(o, out, keep);
    if (rc <= 0) return rc;
  }
  /* Sequences, scalars and layouts that cannot be wrapped: through NumPy (a copy). */
  PyObject *np = rs_py_numpy();
  if (!np) return -1;
  PyObject *arr = PyObject_CallMethod(np, "asarray", "O", o);
  if (!arr) return -1;
  rc = wrap_buffer(arr, out, keep);
  if (rc > 0) { /* a layout the library does not wrap (negative strides): a C-order copy */
    PyObject *c = PyObject_CallMethod(np, "ascontiguousarray", "O", arr);
    Py_DECREF(arr);
    if (!c) return -1;
    arr = c;
    rc = wrap_buffer(arr, out, keep);
  }
  Py_DECREF(arr);
  if (rc > 0) {
    PyErr_Format(PyExc_TypeError, "cannot make an array of %.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  return rc;
}

/* ---- indexing: basic slicing, integers, Ellipsis, None ------------------------------ */
PyObject *rs_py_index_view(RsArray *self, PyObject *key) {
  PyObject *items = PyTuple_Check(key) ? (Py_INCREF(key), key) : PyTuple_Pack(1, key);
  if (!items) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(items);
  int nd = rs_array_ndim(self->a);
  int consumed = 0, ellipsis = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i);
    if (it == Py_Ellipsis) ellipsis++;
    else if (it != Py_None) consumed++;
  }
  if (ellipsis > 1 || consumed > nd) {
    Py_DECREF(items);
    PyErr_Format(PyExc_IndexError, ellipsis > 1 ? "an index can only have a single ellipsis ('...')"
                                                : "too many indices for array: array is %d-dimensional, "
                                                  "but %d were indexed", nd, consumed);
    return NULL;
  }
  rs_slice sl[RS_MAX_DIMS];
  int drop[RS_MAX_DIMS], ndrop = 0, newax[RS_MAX_DIMS], nnew = 0;
  int axis = 0, outpos = 0;
  for (int i = 0; i < nd; i++) sl[i] = RS_SLICE_ALL;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i);
    if (it == Py_None) {
      if (nnew + nd >= RS_MAX_DIMS) goto toomany;
      newax[nnew++] = outpos++;
    } else if (it == Py_Ellipsis) {
      int skip = nd - consumed;
      axis += skip;
      outpos += skip;
    } else if (PySlice_Check(it)) {
      Py_ssize_t start, stop, step, len = self->shape[axis];
      if (PySlice_Unpack(it, &start, &stop, &step) < 0) goto fail;
      Py_ssize_t cnt = PySlice_AdjustIndices(len, &start, &stop, step);
      if (cnt == 0) sl[axis] = (rs_slice){0, 0, 1};
      else if (step > 0) sl[axis] = (rs_slice){start, start + (cnt - 1) * step + 1, step};
      else {
        Py_ssize_t last = start + (cnt - 1) * step; /* >= 0 */
        sl[axis] = (rs_slice){start, last == 0 ? RS_SLICE_DEFAULT : last - 1, step};
      }
      axis++;
      outpos++;
    } else if (PyIndex_Check(it) && !PyObject_CheckBuffer(it) && !RsArray_Check(it)) {
      Py_ssize_t v = PyNumber_AsSsize_t(it, PyExc_IndexError), len = self->shape[axis];
      if (v == -1 && PyErr_Occurred()) goto fail;
      if (v < 0) v += len;
      if (v < 0 || v >= len) {
        PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %zd",
                     PyNumber_AsSsize_t(it, NULL), axis, len);
        goto fail;
      }
      sl[axis] = (rs_slice){v, v + 1, 1};
      drop[ndrop++] = axis;
      axis++;
    } else {
      PyErr_Format(PyExc_IndexError, "resident supports basic indexing only (integers, slices, "
                   "..., None), not %.100s", Py_TYPE(it)->tp_name);
      goto fail;
    }
  }
  Py_DECREF(items);
  rs_array *cur, *next;
  if (rs_py_check(rs_array_slice(&cur, self->a, nd, sl))) return NULL;
  for (int i = ndrop - 1; i >= 0; i--) {
    rs_status s = rs_array_squeeze(&next, cur, drop[i]);
    rs_array_release(cur);
    if (rs_py_check(s)) return NULL;
    cur = next;
  }
  for (int i = 0; i < nnew; i++) {
    rs_status s = rs_array_expand_dims(&next, cur, newax[i]);
    rs_array_release(cur);
    if (rs_py_check(s)) return NULL;
    cur = next;
  }
  return rs_py_wrap(cur, self->base);
toomany:
  PyErr_SetString(PyExc_IndexError, "too many dimensions");
fail:
  Py_DECREF(items);
  return NULL;
}

static PyObject *array_getitem(RsArray *self, PyObject *key) {
  if (rs_py_fancy_key(key)) return rs_py_fancy_get(self, key); /* integer array or bool mask */
  if (rs_py_tuple_fancy_key(key)) return rs_py_tuple_fancy_get(self, key); /* x[i, j] */
  return rs_py_index_view(self, key);
}


static int array_setitem(RsArray *self, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_SetString(PyExc_ValueError, "cannot delete array elements");
    return -1;
  }
  if (rs_py_fancy_key(key)) return rs_py_fancy_set(self, key, value); /* integer array or bool mask */
  if (rs_py_tuple_fancy_key(key)) return rs_py_tuple_fancy_set(self, key, value); /* x[i, j] = v */
  RsArray *v = (RsArray *)rs_py_index_view(self, key);
  if (!v) return -1;
  int rc = rs_py_assign(v->a, value);
  Py_DECREF(v);
  return rc;
}

static Py_ssize_t array_len(RsArray *self) {
  if (rs_array_ndim(self->a) == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of unsized object");
    return -1;
  }
  return self->shape[0];
}

PyMappingMethods rs_py_mapping_methods = {(lenfunc)array_len, (binaryfunc)array_getitem,
                                          (objobjargproc)array_setitem};

/* ---- the buffer protocol: host-visible memory only ---------------------------------- */
static int array_getbuffer(RsArray *self, Py_buffer *view, int flags) {
  void *p = rs_array_host_data(self->a);
  if (rs_array_kind(self->a) == RS_MEM_DEVICE || (!p && rs_array_size(self->a) > 0)) {
    PyErr_SetString(PyExc_BufferError, "resident: device memory has no host buffer; copy it to the "
                                       "host first (.get(), .copy_to_host(), .to_device('host'))");
    return -1;
  }
  if (rs_array_kind(self->a) != RS_MEM_HOST) {
    /* pinned, mapped and managed memory may still be written by queued device work (an
     * asynchronous copy into it, an op on it): NumPy sees it once that work is done. */
    rs_status s;
    rs_context *ctx = rs_array_context(self->a);
    Py_BEGIN_ALLOW_THREADS
    s = rs_context_synchronize(ctx);
    Py_END_ALLOW_THREADS
    if (rs_py_check(s)) return -1;
  }
  view->buf = p;
  view->obj = (PyObject *)self;
  Py_INCREF(self);
  view->len = (Py_ssize_t)rs_array_nbytes(self->a);
  view->readonly = 0;
  view->itemsize = (Py_ssize_t)rs_array_itemsize(self->a);
  view->format = (flags & PyBUF_FORMAT) ? (char *)rs_py_format(rs_array_dtype(self->a)) : NULL;
  view->ndim = rs_array_ndim(self->a);
  view->shape = self->shape;
  view->strides = self->strides;
  view->suboffsets = NULL;
  view->internal = NULL;
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !rs_array_is_c_contiguous(self->a)) goto nc;
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !rs_array_is_f_contiguous(self->a)) goto nc;
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !rs_array_is_c_contiguous(self->a) &&
      !rs_array_is_f_contiguous(self->a)) goto nc;
  if (!(flags & PyBUF_STRIDES) && !rs_array_is_c_contiguous(self->a)) goto nc;
  return 0;
nc:
  Py_CLEAR(view->obj);
  PyErr_SetString(PyExc_BufferError, "resident: array is not contiguous");
  return -1;
}

PyBufferProcs rs_py_array_buffer = {(getbufferproc)array_getbuffer, NULL};


