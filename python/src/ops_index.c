/* Indexing, searching and sets (resident/indexing.h, resident/sets.h): take,
 * take_along_axis, nonzero, count_nonzero, searchsorted, unique_* (the Python layer,
 * resident/_index.py, gives them the array API's result types), and the integer-array and
 * boolean-mask keys of __getitem__ / __setitem__ (one array as the whole key). */
#include "rsmodule.h"

/* ---- keys of x[key] ---------------------------------------------------------------- */
int rs_py_fancy_key(PyObject *key) {
  if (PyTuple_Check(key) || PySlice_Check(key) || key == Py_None || key == Py_Ellipsis) return 0;
  if (RsArray_Check(key)) return rs_array_ndim(((RsArray *)key)->a) > 0 || rs_array_dtype(((RsArray *)key)->a) == RS_BOOL;
  if (PyList_Check(key)) return 1;
  if (PyIndex_Check(key) && !PyObject_CheckBuffer(key)) return 0; /* a Python int */
  return PyObject_CheckBuffer(key) || PyObject_HasAttrString(key, "__array_interface__");
}

/* A tuple key with an integer array (or list, or NumPy array) among its items: the
 * standard's multi-axis integer indexing, composed in Python from take and put
 * (resident/_index.py). */
int rs_py_tuple_fancy_key(PyObject *key) {
  if (!PyTuple_Check(key)) return 0;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); i++)
    if (rs_py_fancy_key(PyTuple_GET_ITEM(key, i))) return 1;
  return 0;
}

static PyObject *call_index_helper(const char *name, PyObject *args) {
  PyObject *mod = PyImport_ImportModule("resident._index");
  if (!mod) return NULL;
  PyObject *fn = PyObject_GetAttrString(mod, name);
  Py_DECREF(mod);
  if (!fn) return NULL;
  PyObject *res = PyObject_CallObject(fn, args);
  Py_DECREF(fn);
  return res;
}

PyObject *rs_py_tuple_fancy_get(RsArray *self, PyObject *key) {
  PyObject *args = Py_BuildValue("(OO)", (PyObject *)self, key);
  if (!args) return NULL;
  PyObject *res = call_index_helper("_tuple_getitem", args);
  Py_DECREF(args);
  return res;
}

int rs_py_tuple_fancy_set(RsArray *self, PyObject *key, PyObject *value) {
  PyObject *args = Py_BuildValue("(OOO)", (PyObject *)self, key, value);
  if (!args) return -1;
  PyObject *res = call_index_helper("_tuple_setitem", args);
  Py_DECREF(args);
  if (!res) return -1;
  Py_DECREF(res);
  return 0;
}

/* A bool mask of x's shape or leading shape, or integer indices along axis 0. */
PyObject *rs_py_fancy_get(RsArray *self, PyObject *key) {
  rs_array *k = NULL, *res = NULL;
  PyObject *keep = NULL;
  if (rs_py_as_handle(key, &k, &keep) < 0) return NULL;
  rs_status s;
  int mask = rs_array_dtype(k) == RS_BOOL;
  Py_BEGIN_ALLOW_THREADS
  s = mask ? rs_mask_get(&res, self->a, k, NULL) : rs_take(&res, self->a, k, 0, NULL);
  Py_END_ALLOW_THREADS
  rs_array_release(k);
  Py_XDECREF(keep);
  return rs_py_result(s, res, Py_None);
}

int rs_py_fancy_set(RsArray *self, PyObject *key, PyObject *value) {
  rs_array *k = NULL;
  PyObject *keep = NULL;
  if (rs_py_as_handle(key, &k, &keep) < 0) return -1;
  rs_py_operand v;
  int mask = rs_array_dtype(k) == RS_BOOL;
  if (rs_py_operand_get(value, &v, mask) < 0) {
    rs_array_release(k);
    Py_XDECREF(keep);
    return -1;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (mask && !v.h)
    s = rs_mask_set_scalar(self->a, k, v.s, NULL);
  else if (mask)
    s = rs_mask_set(self->a, k, v.h, NULL);
  else
    s = rs_put(self->a, k, 0, v.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&v);
  rs_array_release(k);
  Py_XDECREF(keep);
  return rs_py_check(s);
}

/* ---- functions ----------------------------------------------------------------------- */
static rs_status do_take(rs_array **out, rs_array *dst, const rs_array *a, const rs_array *b, void *arg) {
  int axis = *(int *)arg;
  return out ? rs_take(out, a, b, axis, NULL) : rs_take_into(dst, a, b, axis, NULL);
}

static rs_status do_take_along(rs_array **out, rs_array *dst, const rs_array *a, const rs_array *b, void *arg) {
  int axis = *(int *)arg;
  return out ? rs_take_along_axis(out, a, b, axis, NULL) : rs_take_along_axis_into(dst, a, b, axis, NULL);
}

static PyObject *f_take(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kws[] = {"x", "indices", "axis", "out", NULL};
  PyObject *x, *i, *axis = Py_None, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OO", kws, &x, &i, &axis, &out)) return NULL;
  int ax = RS_INDEX_FLAT;
  if (axis != Py_None) {
    long v = PyLong_AsLong(axis);
    if (v == -1 && PyErr_Occurred()) return NULL;
    ax = (int)v;
  }
  return rs_py_call_two(x, i, out, do_take, &ax);
}

static PyObject *f_take_along_axis(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kws[] = {"x", "indices", "axis", "out", NULL};
  PyObject *x, *i, *out = Py_None;
  int ax = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$iO", kws, &x, &i, &ax, &out)) return NULL;
  return rs_py_call_two(x, i, out, do_take_along, &ax);
}

/* nonzero as one (ndim, count) int64 array; the Python layer splits it into a tuple */
static PyObject *f_nonzero_rows(PyObject *m, PyObject *a) {
  (void)m;
  rs_py_operand x;
  rs_array *res = NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_nonzero(&res, x.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, Py_None);
}

static PyObject *f_count_nonzero(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kws[] = {"x", "axis", "keepdims", "out", NULL};
  PyObject *a, *axis = Py_None, *out = Py_None;
  int keepdims = 0, axes[RS_MAX_DIMS], naxes;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OpO", kws, &a, &axis, &keepdims, &out)) return NULL;
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_axes_from(axis, &naxes, axes) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  int n = naxes < 0 ? 0 : naxes;
  const int *ax = naxes < 0 ? NULL : axes;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_count_nonzero_into(dst, x.h, n, ax, keepdims, NULL) : rs_count_nonzero(&res, x.h, n, ax, keepdims, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
}

static PyObject *f_searchsorted(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kws[] = {"x1", "x2", "side", "sorter", "out", NULL};
  PyObject *a, *v, *sorter = Py_None, *out = Py_None;
  const char *side = "left";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$sOO", kws, &a, &v, &side, &sorter, &out)) return NULL;
  rs_side sd;
  if (strcmp(side, "left") == 0) sd = RS_SIDE_LEFT;
  else if (strcmp(side, "right") == 0) sd = RS_SIDE_RIGHT;
  else return PyErr_Format(PyExc_ValueError, "side must be 'left' or 'right', not '%s'", side);
  rs_py_operand x, y, so = {0};
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_pair(a, v, &x, &y) < 0) return NULL;
  if (sorter != Py_None && rs_py_operand_get(sorter, &so, 0) < 0) {
    rs_py_operand_done(&x);
    rs_py_operand_done(&y);
    return NULL;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_searchsorted_into(dst, x.h, y.h, sd, so.h, NULL) : rs_searchsorted(&res, x.h, y.h, sd, so.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  if (sorter != Py_None) rs_py_operand_done(&so);
  return rs_py_result(s, res, out);
}

/* unique_*: a tuple of new arrays (values[, indices][, inverse][, counts]) */
static PyObject *unique(PyObject *a, unsigned want) {
  rs_py_operand x;
  rs_array *r[4] = {NULL, NULL, NULL, NULL};
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  switch (want) {
    case 1: s = rs_unique_values(&r[0], x.h, NULL); break;
    case 9: s = rs_unique_counts(&r[0], &r[3], x.h, NULL); break;
    case 5: s = rs_unique_inverse(&r[0], &r[2], x.h, NULL); break;
    default: s = rs_unique_all(&r[0], &r[1], &r[2], &r[3], x.h, NULL); break;
  }
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  if (rs_py_check(s)) return NULL;
  PyObject *t = PyTuple_New(0);
  for (int k = 0; k < 4 && t; k++) {
    if (!(want >> k & 1)) continue;
    PyObject *w = rs_py_wrap(r[k], NULL);
    r[k] = NULL;
    if (!w) {
      Py_CLEAR(t);
      break;
    }
    PyObject *one = PyTuple_Pack(1, w), *next = one ? PySequence_Concat(t, one) : NULL;
    Py_DECREF(w);
    Py_XDECREF(one);
    Py_DECREF(t);
    t = next;
  }
  for (int k = 0; k < 4; k++) rs_array_release(r[k]);
  return t;
}

static PyObject *f_unique_values(PyObject *m, PyObject *a) { (void)m; return unique(a, 1); }
static PyObject *f_unique_counts(PyObject *m, PyObject *a) { (void)m; return unique(a, 9); }
static PyObject *f_unique_inverse(PyObject *m, PyObject *a) { (void)m; return unique(a, 5); }
static PyObject *f_unique_all(PyObject *m, PyObject *a) { (void)m; return unique(a, 15); }

PyMethodDef rs_py_index_functions[] = {
    {"take", (PyCFunction)(void (*)(void))f_take, METH_VARARGS | METH_KEYWORDS,
     "take(x, indices, /, *, axis=None, out=None): elements of x at integer indices along axis "
     "(None: the flattened x). Out-of-range indices raise IndexError (their min/max is read back)."},
    {"take_along_axis", (PyCFunction)(void (*)(void))f_take_along_axis, METH_VARARGS | METH_KEYWORDS,
     "take_along_axis(x, indices, /, *, axis=-1, out=None)"},
    {"_nonzero_rows", f_nonzero_rows, METH_O, "_nonzero_rows(x) -> int64 (x.ndim, count) (see nonzero)"},
    {"count_nonzero", (PyCFunction)(void (*)(void))f_count_nonzero, METH_VARARGS | METH_KEYWORDS,
     "count_nonzero(x, /, *, axis=None, keepdims=False, out=None) -> int64 counts"},
    {"searchsorted", (PyCFunction)(void (*)(void))f_searchsorted, METH_VARARGS | METH_KEYWORDS,
     "searchsorted(x1, x2, /, *, side='left', sorter=None, out=None) -> int64 insertion points"},
    {"_unique_values", f_unique_values, METH_O, "(values,)"},
    {"_unique_counts", f_unique_counts, METH_O, "(values, counts)"},
    {"_unique_inverse", f_unique_inverse, METH_O, "(values, inverse)"},
    {"_unique_all", f_unique_all, METH_O, "(values, indices, inverse, counts)"},
    {NULL, NULL, 0, NULL}};
