/* Creation: empty, zeros, ones, full (and _like), arange, linspace, eye, asarray. */
#include "rsmodule.h"

#include <string.h>

/* ---- creation ------------------------------------------------------------------------ */
static int dtype_or(PyObject *o, rs_dtype *d, rs_dtype dflt) {
  if (!o || o == Py_None) {
    *d = dflt;
    return 0;
  }
  return rs_py_dtype_from(o, d);
}

static rs_dtype scalar_dtype(const rs_scalar *s) {
  switch (s->kind) {
  case RS_SCALAR_BOOL: return RS_BOOL;
  case RS_SCALAR_INT: return RS_INT64;
  case RS_SCALAR_FLOAT: return RS_FLOAT64;
  default: return RS_COMPLEX128;
  }
}

/* what: 0 empty, 1 zeros, 2 ones, 3 full */
static PyObject *do_create(int what, PyObject *args, PyObject *kw) {
  static char *kw3[] = {"shape", "fill_value", "dtype", "device", "order", NULL};
  static char *kw0[] = {"shape", "dtype", "device", "order", NULL};
  PyObject *shp, *fill = NULL, *dto = Py_None, *dev = Py_None, *order = Py_None;
  if (what == 3) {
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOO", kw3, &shp, &fill, &dto, &dev, &order)) return NULL;
  } else if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO", kw0, &shp, &dto, &dev, &order))
    return NULL;
  int64_t shape[RS_MAX_DIMS];
  int nd;
  rs_mem_kind k;
  rs_dtype dt;
  rs_scalar sv = rs_scalar_int(0);
  if (rs_py_shape_from(shp, &nd, shape) < 0 || rs_py_kind_from(dev, &k, RS_MEM_DEVICE) < 0) return NULL;
  if (what == 3) {
    int r = rs_py_scalar(fill, &sv);
    if (r < 0) return NULL;
    if (r == 0) {
      PyObject *item = PyObject_CallMethod(fill, "item", NULL);
      if (!item) return NULL;
      r = rs_py_scalar(item, &sv);
      Py_DECREF(item);
      if (r <= 0) {
        if (!r) PyErr_SetString(PyExc_TypeError, "full: fill_value must be a scalar");
        return NULL;
      }
      if (dto == Py_None) dto = PyObject_GetAttrString(fill, "dtype"), Py_XDECREF(dto);
    }
    if (dtype_or(dto, &dt, scalar_dtype(&sv)) < 0) return NULL;
  } else if (dtype_or(dto, &dt, RS_FLOAT64) < 0)
    return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_array *res;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  switch (what) {
  case 0: s = rs_empty(&res, ctx, k, nd, shape, dt); break;
  case 1: s = rs_zeros(&res, ctx, k, nd, shape, dt, NULL); break;
  case 2: s = rs_ones(&res, ctx, k, nd, shape, dt, NULL); break;
  default: s = rs_full(&res, ctx, k, nd, shape, dt, sv, NULL); break;
  }
  Py_END_ALLOW_THREADS
  return rs_py_result(s, res, NULL);
}
static PyObject *f_empty(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create(0, a, k); }
static PyObject *f_zeros(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create(1, a, k); }
static PyObject *f_ones(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create(2, a, k); }
static PyObject *f_full(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create(3, a, k); }

static PyObject *do_create_like(int what, PyObject *args, PyObject *kw) {
  static char *kw3[] = {"x", "fill_value", "dtype", "device", NULL};
  static char *kw0[] = {"x", "dtype", "device", NULL};
  PyObject *x, *fill = NULL, *dto = Py_None, *dev = Py_None;
  if (what == 3) {
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OO", kw3, &x, &fill, &dto, &dev)) return NULL;
  } else if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO", kw0, &x, &dto, &dev))
    return NULL;
  rs_py_operand like;
  if (rs_py_operand_get(x, &like, 0) < 0) return NULL;
  rs_mem_kind k;
  rs_dtype dt;
  rs_scalar sv = rs_scalar_int(0);
  PyObject *r = NULL;
  if (rs_py_kind_from(dev, &k, rs_array_kind(like.h)) < 0 || dtype_or(dto, &dt, rs_array_dtype(like.h)) < 0)
    goto done;
  if (what == 3) {
    int rr = rs_py_scalar(fill, &sv);
    if (rr <= 0) {
      if (!rr) PyErr_SetString(PyExc_TypeError, "full_like: fill_value must be a Python scalar");
      goto done;
    }
  }
  rs_array *res = NULL;
  rs_status s;
  if (dt == rs_array_dtype(like.h)) {
    Py_BEGIN_ALLOW_THREADS
    switch (what) {
    case 0: s = rs_empty_like(&res, like.h, k); break;
    case 1: s = rs_zeros_like(&res, like.h, k, NULL); break;
    case 2: s = rs_ones_like(&res, like.h, k, NULL); break;
    default: s = rs_full_like(&res, like.h, k, sv, NULL); break;
    }
    Py_END_ALLOW_THREADS
  } else {
    rs_context *ctx = rs_array_context(like.h);
    int nd = rs_array_ndim(like.h);
    const int64_t *shape = rs_array_shape(like.h);
    Py_BEGIN_ALLOW_THREADS
    switch (what) {
    case 0: s = rs_empty(&res, ctx, k, nd, shape, dt); break;
    case 1: s = rs_zeros(&res, ctx, k, nd, shape, dt, NULL); break;
    case 2: s = rs_ones(&res, ctx, k, nd, shape, dt, NULL); break;
    default: s = rs_full(&res, ctx, k, nd, shape, dt, sv, NULL); break;
    }
    Py_END_ALLOW_THREADS
  }
  r = rs_py_result(s, res, NULL);
done:
  rs_py_operand_done(&like);
  return r;
}
static PyObject *f_empty_like(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create_like(0, a, k); }
static PyObject *f_zeros_like(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create_like(1, a, k); }
static PyObject *f_ones_like(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create_like(2, a, k); }
static PyObject *f_full_like(PyObject *m, PyObject *a, PyObject *k) { (void)m; return do_create_like(3, a, k); }

static PyObject *f_arange(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"start", "stop", "step", "dtype", "device", NULL};
  PyObject *a, *b = Py_None, *c = Py_None, *dto = Py_None, *dev = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO$OO", kwl, &a, &b, &c, &dto, &dev)) return NULL;
  PyObject *start = b == Py_None ? NULL : a, *stop = b == Py_None ? a : b;
  int all_int = PyLong_Check(stop) && (!start || PyLong_Check(start)) && (c == Py_None || PyLong_Check(c));
  double d0 = start ? PyFloat_AsDouble(start) : 0.0, d1 = PyFloat_AsDouble(stop),
         d2 = c == Py_None ? 1.0 : PyFloat_AsDouble(c);
  if (PyErr_Occurred()) return NULL;
  rs_dtype dt;
  rs_mem_kind k;
  if (dtype_or(dto, &dt, all_int ? RS_INT64 : RS_FLOAT64) < 0 || rs_py_kind_from(dev, &k, RS_MEM_DEVICE) < 0)
    return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_array *res;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_arange(&res, ctx, k, d0, d1, d2, dt, NULL);
  Py_END_ALLOW_THREADS
  return rs_py_result(s, res, NULL);
}

static PyObject *f_linspace(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"start", "stop", "num", "dtype", "device", "endpoint", NULL};
  double a, b;
  long long num;
  PyObject *dto = Py_None, *dev = Py_None;
  int endpoint = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "ddL|$OOp", kwl, &a, &b, &num, &dto, &dev, &endpoint)) return NULL;
  rs_dtype dt;
  rs_mem_kind k;
  if (dtype_or(dto, &dt, RS_FLOAT64) < 0 || rs_py_kind_from(dev, &k, RS_MEM_DEVICE) < 0) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_array *res;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_linspace(&res, ctx, k, a, b, num, endpoint, dt, NULL);
  Py_END_ALLOW_THREADS
  return rs_py_result(s, res, NULL);
}

static PyObject *f_eye(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"n_rows", "n_cols", "k", "dtype", "device", NULL};
  long long n;
  PyObject *mo = Py_None, *dto = Py_None, *dev = Py_None;
  long long kk = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "L|O$LOO", kwl, &n, &mo, &kk, &dto, &dev)) return NULL;
  long long mm = mo == Py_None ? -1 : PyLong_AsLongLong(mo);
  if (PyErr_Occurred()) return NULL;
  rs_dtype dt;
  rs_mem_kind k;
  if (dtype_or(dto, &dt, RS_FLOAT64) < 0 || rs_py_kind_from(dev, &k, RS_MEM_DEVICE) < 0) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_array *res;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_eye(&res, ctx, k, n, mm, kk, dt, NULL);
  Py_END_ALLOW_THREADS
  return rs_py_result(s, res, NULL);
}

/* asarray(obj, dtype=None, device=None, copy=None) */
static PyObject *f_asarray(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"obj", "dtype", "device", "copy", NULL};
  PyObject *obj, *dto = Py_None, *dev = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OO", kwl, &obj, &dto, &dev, &copy)) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(obj, &x, 0) < 0) return NULL;
  int ours = RsArray_Check(obj);
  /* Foreign host data (NumPy, lists) goes to the device by default, as in CuPy; resident
   * and foreign device arrays stay where they are. */
  rs_mem_kind dflt = (!ours && rs_array_kind(x.h) == RS_MEM_HOST) ? RS_MEM_DEVICE : rs_array_kind(x.h);
  rs_mem_kind k;
  rs_dtype dt;
  PyObject *r = NULL;
  rs_array *cur = x.h, *next;
  rs_status s = RS_OK;
  if (rs_py_kind_from(dev, &k, dflt) < 0 || dtype_or(dto, &dt, rs_array_dtype(x.h)) < 0) goto done;
  int moved = 0, converted = 0;
  rs_array_retain(cur);
  if (k != rs_array_kind(cur)) {
    if (copy == Py_False) {
      PyErr_SetString(PyExc_ValueError, "asarray(copy=False): the data is in another memory kind");
      rs_array_release(cur);
      goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    s = rs_asarray(&next, cur, k, NULL);
    Py_END_ALLOW_THREADS
    rs_array_release(cur);
    if (rs_py_check(s)) goto done;
    cur = next;
    moved = 1;
  }
  if (dt != rs_array_dtype(cur)) {
    if (copy == Py_False) {
      PyErr_SetString(PyExc_ValueError, "asarray(copy=False): another dtype needs a copy");
      rs_array_release(cur);
      goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    s = rs_astype(&next, cur, dt, NULL);
    Py_END_ALLOW_THREADS
    rs_array_release(cur);
    if (rs_py_check(s)) goto done;
    cur = next;
    converted = 1;
  }
  if (copy == Py_True && !moved && !converted) {
    Py_BEGIN_ALLOW_THREADS
    s = rs_copy(&next, cur, NULL);
    Py_END_ALLOW_THREADS
    rs_array_release(cur);
    if (rs_py_check(s)) goto done;
    cur = next;
    converted = 1;
  }
  r = rs_py_wrap(cur, (moved || converted) ? NULL : x.borrowed ? ((RsArray *)obj)->base : x.keep);
done:
  rs_py_operand_done(&x);
  return r;
}

#define RS_KW_ (PyCFunction)(void (*)(void))
PyMethodDef rs_py_create_functions[] = {
    {"empty", RS_KW_ f_empty, METH_VARARGS | METH_KEYWORDS,
     "empty(shape, dtype=float64, device='device') -> uninitialised array."},
    {"zeros", RS_KW_ f_zeros, METH_VARARGS | METH_KEYWORDS, "zeros(shape, dtype=float64, device='device')."},
    {"ones", RS_KW_ f_ones, METH_VARARGS | METH_KEYWORDS, "ones(shape, dtype=float64, device='device')."},
    {"full", RS_KW_ f_full, METH_VARARGS | METH_KEYWORDS,
     "full(shape, fill_value, dtype=None, device='device'): dtype from the value when None."},
    {"empty_like", RS_KW_ f_empty_like, METH_VARARGS | METH_KEYWORDS,
     "empty_like(x, *, dtype=None, device=None): x's shape, dtype and kind unless given."},
    {"zeros_like", RS_KW_ f_zeros_like, METH_VARARGS | METH_KEYWORDS, "zeros_like(x, *, dtype=None, device=None)."},
    {"ones_like", RS_KW_ f_ones_like, METH_VARARGS | METH_KEYWORDS, "ones_like(x, *, dtype=None, device=None)."},
    {"full_like", RS_KW_ f_full_like, METH_VARARGS | METH_KEYWORDS,
     "full_like(x, fill_value, *, dtype=None, device=None)."},
    {"arange", RS_KW_ f_arange, METH_VARARGS | METH_KEYWORDS,
     "arange(start, stop=None, step=1, *, dtype=None, device='device')."},
    {"linspace", RS_KW_ f_linspace, METH_VARARGS | METH_KEYWORDS,
     "linspace(start, stop, num, *, dtype=None, device='device', endpoint=True)."},
    {"eye", RS_KW_ f_eye, METH_VARARGS | METH_KEYWORDS,
     "eye(n_rows, n_cols=None, *, k=0, dtype=None, device='device')."},
    {"asarray", RS_KW_ f_asarray, METH_VARARGS | METH_KEYWORDS,
     "asarray(obj, dtype=None, *, device=None, copy=None) -> resident.ndarray. NumPy arrays and "
     "other host data go to the device by default (one explicit copy; device='host' wraps them "
     "without a copy); resident arrays and foreign device arrays (__cuda_array_interface__, "
     "__dlpack__) are used in place unless device or dtype asks otherwise."},
    {NULL, NULL, 0, NULL}};
