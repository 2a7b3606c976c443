/* Reductions along axes, sort, SVD and solve, the checks (allclose) and random numbers. */
#include "rsmodule.h"

#include <string.h>

/* ---- reductions -------------------------------------------------------------------- */
static PyObject *do_reduce(rs_reduce_op op, PyObject *a, PyObject *axis, int keepdims, PyObject *out,
                           PyObject *dtype) {
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  int axes[RS_MAX_DIMS], naxes;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_axes_from(axis, &naxes, axes) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  int arg = op == RS_REDUCE_ARGMIN || op == RS_REDUCE_ARGMAX;
  if (arg && naxes > 1) {
    rs_py_operand_done(&x);
    PyErr_SetString(PyExc_ValueError, "argmin/argmax take one axis or None");
    return NULL;
  }
  int ax = naxes < 0 ? RS_ALL_AXES : axes[0];
  Py_BEGIN_ALLOW_THREADS
  if (op == RS_REDUCE_ARGMIN)
    s = dst ? rs_argmin_into(dst, x.h, ax, keepdims, NULL) : rs_argmin(&res, x.h, ax, keepdims, NULL);
  else if (op == RS_REDUCE_ARGMAX)
    s = dst ? rs_argmax_into(dst, x.h, ax, keepdims, NULL) : rs_argmax(&res, x.h, ax, keepdims, NULL);
  else if (dst)
    s = rs_reduce_into(dst, op, x.h, naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes, keepdims, NULL);
  else
    s = rs_reduce(&res, op, x.h, naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes, keepdims, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  PyObject *r = rs_py_result(s, res, out);
  if (r && dtype && dtype != Py_None && !dst) { /* sum(dtype=...): cast the result */
    rs_dtype dt;
    if (rs_py_dtype_from(dtype, &dt) < 0) {
      Py_DECREF(r);
      return NULL;
    }
    if (dt != rs_array_dtype(((RsArray *)r)->a)) {
      rs_array *c;
      Py_BEGIN_ALLOW_THREADS
      s = rs_astype(&c, ((RsArray *)r)->a, dt, NULL);
      Py_END_ALLOW_THREADS
      Py_DECREF(r);
      if (rs_py_check(s)) return NULL;
      r = rs_py_wrap(c, NULL);
    }
  }
  return r;
}

static char *reduce_kw[] = {"a", "axis", "dtype", "out", "keepdims", NULL};
static char *reduce_mkw[] = {"axis", "dtype", "out", "keepdims", NULL};

#define RS_RED_(name, op)                                                                    \
  static PyObject *f_##name(PyObject *m, PyObject *args, PyObject *kw) {                     \
    (void)m;                                                                                 \
    PyObject *a, *axis = Py_None, *dtype = Py_None, *out = Py_None;                          \
    int keepdims = 0;                                                                        \
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO$p", reduce_kw, &a, &axis, &dtype, &out, \
                                     &keepdims))                                             \
      return NULL;                                                                           \
    return do_reduce(op, a, axis, keepdims, out, dtype);                                     \
  }                                                                                          \
  static PyObject *m_##name(PyObject *self, PyObject *args, PyObject *kw) {                  \
    PyObject *axis = Py_None, *dtype = Py_None, *out = Py_None;                              \
    int keepdims = 0;                                                                        \
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO$p", reduce_mkw, &axis, &dtype, &out,     \
                                     &keepdims))                                             \
      return NULL;                                                                           \
    return do_reduce(op, self, axis, keepdims, out, dtype);                                  \
  }
RS_RED_(sum, RS_REDUCE_SUM)
RS_RED_(prod, RS_REDUCE_PROD)
RS_RED_(mean, RS_REDUCE_MEAN)
RS_RED_(min, RS_REDUCE_MIN)
RS_RED_(max, RS_REDUCE_MAX)
RS_RED_(argmin, RS_REDUCE_ARGMIN)
RS_RED_(argmax, RS_REDUCE_ARGMAX)
RS_RED_(all, RS_REDUCE_ALL)
RS_RED_(any, RS_REDUCE_ANY)
#undef RS_RED_

/* ---- sort ---------------------------------------------------------------------------- */
static PyObject *do_sort(int arg, PyObject *a, int axis, int desc, PyObject *out) {
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (arg)
    s = dst ? rs_argsort_axis_into(dst, x.h, axis, desc, 1, NULL) : rs_argsort_axis(&res, x.h, axis, desc, 1, NULL);
  else
    s = dst ? rs_sort_axis_into(dst, x.h, axis, desc, 1, NULL) : rs_sort_axis(&res, x.h, axis, desc, 1, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
}

static PyObject *f_sort(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "axis", "out", "kind", "stable", "descending", NULL};
  PyObject *a, *out = Py_None, *kind = Py_None, *stable = Py_None;
  int axis = -1, desc = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOO$Op", kwl, &a, &axis, &out, &kind, &stable, &desc)) return NULL;
  return do_sort(0, a, axis, desc, out);
}
static PyObject *f_argsort(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "axis", "out", "kind", "stable", "descending", NULL};
  PyObject *a, *out = Py_None, *kind = Py_None, *stable = Py_None;
  int axis = -1, desc = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOO$Op", kwl, &a, &axis, &out, &kind, &stable, &desc)) return NULL;
  return do_sort(1, a, axis, desc, out);
}
static PyObject *m_sort(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"axis", NULL};
  int axis = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwl, &axis)) return NULL;
  PyObject *r = do_sort(0, self, axis, 0, self); /* in place along any axis */
  if (!r) return NULL;
  Py_DECREF(r);
  Py_RETURN_NONE;
}
static PyObject *m_argsort(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"axis", NULL};
  int axis = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwl, &axis)) return NULL;
  return do_sort(1, self, axis, 0, NULL);
}

/* ---- matmul, linalg ------------------------------------------------------------------ */
static PyObject *f_svd(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "full_matrices", "compute_uv", "out", NULL};
  PyObject *a, *out = Py_None;
  int full = 1, uv = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pp$O", kwl, &a, &full, &uv, &out)) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  if (out != Py_None) {
    rs_array *d[3] = {NULL, NULL, NULL};
    if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != 3) {
      rs_py_operand_done(&x);
      PyErr_SetString(PyExc_TypeError, "svd out= must be a tuple (u, s, vh) (u and vh may be None)");
      return NULL;
    }
    for (int i = 0; i < 3; i++)
      if (PyTuple_GET_ITEM(out, i) != Py_None && rs_py_get_out(PyTuple_GET_ITEM(out, i), &d[i]) < 0) {
        rs_py_operand_done(&x);
        return NULL;
      }
    Py_BEGIN_ALLOW_THREADS
    s = rs_svd_into(d[0], d[1], d[2], x.h, full, NULL);
    Py_END_ALLOW_THREADS
    rs_py_operand_done(&x);
    if (rs_py_check(s)) return NULL;
    Py_INCREF(out);
    return out;
  }
  rs_array *u = NULL, *sv = NULL, *vh = NULL;
  Py_BEGIN_ALLOW_THREADS
  s = rs_svd(uv ? &u : NULL, &sv, uv ? &vh : NULL, x.h, full, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  if (rs_py_check(s)) return NULL;
  if (!uv) return rs_py_wrap(sv, NULL);
  PyObject *pu = rs_py_wrap(u, NULL), *ps = rs_py_wrap(sv, NULL), *pv = rs_py_wrap(vh, NULL);
  if (!pu || !ps || !pv) {
    Py_XDECREF(pu);
    Py_XDECREF(ps);
    Py_XDECREF(pv);
    return NULL;
  }
  PyObject *t = PyTuple_Pack(3, pu, ps, pv);
  Py_DECREF(pu);
  Py_DECREF(ps);
  Py_DECREF(pv);
  return t;
}

static rs_status do_solve(rs_array **out, rs_array *dst, const rs_array *a, const rs_array *b, void *arg) {
  (void)arg;
  return out ? rs_solve(out, a, b, NULL) : rs_solve_into(dst, a, b, NULL);
}

static PyObject *f_solve(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "b", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$O", kwl, &a, &b, &out)) return NULL;
  return rs_py_call_two(a, b, out, do_solve, NULL);
}

/* ---- checks -------------------------------------------------------------------------- */
static PyObject *f_allclose(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "b", "rtol", "atol", "equal_nan", NULL};
  PyObject *a, *b;
  double rtol = 1e-5, atol = 1e-8;
  int equal_nan = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ddp", kwl, &a, &b, &rtol, &atol, &equal_nan)) return NULL;
  rs_py_operand x, y;
  if (rs_py_operand_pair(a, b, &x, &y) < 0) return NULL;
  int r = 0;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_allclose(x.h, y.h, rtol, atol, equal_nan, &r, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  if (rs_py_check(s)) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *f_assert_allclose(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"actual", "desired", "rtol", "atol", NULL};
  PyObject *a, *b;
  double rtol = 1e-7, atol = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|dd", kwl, &a, &b, &rtol, &atol)) return NULL;
  rs_py_operand x, y;
  if (rs_py_operand_pair(a, b, &x, &y) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_assert_allclose(x.h, y.h, rtol, atol, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_array_equal(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
  rs_py_operand x, y;
  if (rs_py_operand_pair(a, b, &x, &y) < 0) return NULL;
  int r = 0;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_array_equal(x.h, y.h, &r, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  if (rs_py_check(s)) return NULL;
  return PyBool_FromLong(r);
}

/* ---- random numbers: fill an existing array; the Generator (random.py) keeps seed and
 * offset --------------------------------------------------------------------------------- */
static PyObject *f_random_fill(PyObject *m, PyObject *args) {
  (void)m;
  int kind;
  PyObject *dsto;
  unsigned long long seed, offset;
  PyObject *p1, *p2;
  if (!PyArg_ParseTuple(args, "iOKKOO", &kind, &dsto, &seed, &offset, &p1, &p2)) return NULL;
  rs_array *dst;
  if (rs_py_get_out(dsto, &dst) < 0) return NULL;
  rs_rng rng = {seed, offset};
  rs_status s;
  if (kind == 2) {
    long long lo = PyLong_AsLongLong(p1), hi = PyLong_AsLongLong(p2);
    if (PyErr_Occurred()) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rs_random_integers_into(dst, &rng, lo, hi, NULL);
    Py_END_ALLOW_THREADS
  } else {
    double a = PyFloat_AsDouble(p1), b = PyFloat_AsDouble(p2);
    if (PyErr_Occurred()) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = kind == 0 ? rs_random_uniform_into(dst, &rng, a, b, NULL) : rs_random_normal_into(dst, &rng, a, b, NULL);
    Py_END_ALLOW_THREADS
  }
  if (rs_py_check(s)) return NULL;
  return PyLong_FromUnsignedLongLong(rng.offset);
}

/* ---- tables -------------------------------------------------------------------------- */
#define RS_RED_DEF_(name, doc)                                                                     \
  {#name, (PyCFunction)(void (*)(void))f_##name, METH_VARARGS | METH_KEYWORDS,                     \
   #name "(a, axis=None, dtype=None, out=None, *, keepdims=False): " doc},
#define RS_RED_MDEF_(name, doc)                                                                    \
  {#name, (PyCFunction)(void (*)(void))m_##name, METH_VARARGS | METH_KEYWORDS,                     \
   #name "(axis=None, dtype=None, out=None, *, keepdims=False): " doc},
#define RS_REDUCTIONS_(X)                                                    \
  X(sum, "sum along axes (int64/uint64 for integers, NumPy's dtypes).")     \
  X(prod, "product along axes.")                                            \
  X(mean, "arithmetic mean along axes.")                                    \
  X(min, "minimum along axes (NaN propagates).")                            \
  X(max, "maximum along axes (NaN propagates).")                            \
  X(argmin, "index of the minimum (one axis, or the flattened array).")     \
  X(argmax, "index of the maximum (one axis, or the flattened array).")     \
  X(all, "True where every element is nonzero.")                            \
  X(any, "True where some element is nonzero.")
#define RS_KW_ (PyCFunction)(void (*)(void))

PyMethodDef rs_py_reduce_methods[] = {
    RS_REDUCTIONS_(RS_RED_MDEF_)
    {"sort", RS_KW_ m_sort, METH_VARARGS | METH_KEYWORDS, "sort(axis=-1): sort in place (stable)."},
    {"argsort", RS_KW_ m_argsort, METH_VARARGS | METH_KEYWORDS, "argsort(axis=-1) -> int64 indices (stable)."},
    {NULL, NULL, 0, NULL}};

PyMethodDef rs_py_reduce_functions[] = {
    RS_REDUCTIONS_(RS_RED_DEF_)
    {"sort", RS_KW_ f_sort, METH_VARARGS | METH_KEYWORDS,
     "sort(a, axis=-1, out=None, *, stable=True, descending=False) -> sorted copy (stable; NaN last)."},
    {"argsort", RS_KW_ f_argsort, METH_VARARGS | METH_KEYWORDS,
     "argsort(a, axis=-1, out=None, *, stable=True, descending=False) -> int64 indices that sort a (stable)."},
    {"_svd", RS_KW_ f_svd, METH_VARARGS | METH_KEYWORDS, "see resident.linalg.svd"},
    {"_solve", RS_KW_ f_solve, METH_VARARGS | METH_KEYWORDS, "see resident.linalg.solve"},
    {"allclose", RS_KW_ f_allclose, METH_VARARGS | METH_KEYWORDS,
     "allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool, computed where the data is."},
    {"_assert_allclose", RS_KW_ f_assert_allclose, METH_VARARGS | METH_KEYWORDS, "see resident.testing"},
    {"array_equal", (PyCFunction)f_array_equal, METH_VARARGS, "array_equal(a, b) -> bool."},
    {"_random_fill", (PyCFunction)f_random_fill, METH_VARARGS, "see resident.random"},
    {NULL, NULL, 0, NULL}};
