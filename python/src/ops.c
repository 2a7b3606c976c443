/* Operations: operators, the ufuncs (generated from the library's RS_OP_LIST), reductions,
 * creation, sort, matmul, linear algebra, random numbers, where, casts and checks. Every
 * op takes out= (the library's _into form). The GIL is released while the library runs. */
#include "rsmodule.h"

#include <string.h>

/* ---- operands ------------------------------------------------------------------------ */
/* A Python scalar (bool, int, float, complex - NOT NumPy scalars, which are typed values
 * and go through as 0-d arrays, as NEP 50 says) as a weak rs_scalar: 1; not one: 0. */
static int py_scalar(PyObject *o, rs_scalar *s) {
  if (PyBool_Check(o)) {
    *s = rs_scalar_bool(o == Py_True);
    return 1;
  }
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for int64", o);
      return -1;
    }
    *s = rs_scalar_int(v);
    return 1;
  }
  if (PyFloat_CheckExact(o)) {
    *s = rs_scalar_float(PyFloat_AS_DOUBLE(o));
    return 1;
  }
  if (PyComplex_CheckExact(o)) {
    *s = rs_scalar_complex(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
    return 1;
  }
  return 0;
}

typedef struct {
  rs_array *h;   /* NULL for a scalar */
  rs_scalar s;
  PyObject *keep;
} operand;

static void operand_done(operand *p) {
  if (p->h) rs_array_release(p->h);
  Py_XDECREF(p->keep);
  p->h = NULL;
  p->keep = NULL;
}

/* 0 ok, -1 error. allow_scalar: 0 = a scalar becomes a 0-d array. */
static int operand_get(PyObject *o, operand *p, int allow_scalar) {
  p->h = NULL;
  p->keep = NULL;
  if (!RsArray_Check(o)) {
    int r = py_scalar(o, &p->s);
    if (r < 0) return -1;
    if (r > 0 && allow_scalar) return 0;
  }
  return rs_py_as_handle(o, &p->h, &p->keep);
}

static int get_out(PyObject *out, rs_array **dst) {
  if (!out || out == Py_None) {
    *dst = NULL;
    return 0;
  }
  if (PyTuple_Check(out) && PyTuple_GET_SIZE(out) == 1) out = PyTuple_GET_ITEM(out, 0);
  if (!RsArray_Check(out)) {
    PyErr_Format(PyExc_TypeError, "out must be a resident.ndarray, not %.100s", Py_TYPE(out)->tp_name);
    return -1;
  }
  *dst = ((RsArray *)out)->a;
  return 0;
}

static PyObject *result(rs_status s, rs_array *res, PyObject *out) {
  if (rs_py_check(s)) return NULL;
  if (out && out != Py_None) {
    if (PyTuple_Check(out)) out = PyTuple_GET_ITEM(out, 0);
    Py_INCREF(out);
    return out;
  }
  return rs_py_wrap(res, NULL);
}

/* ---- elementwise ------------------------------------------------------------------- */
static PyObject *do_binary(rs_op op, PyObject *a, PyObject *b, PyObject *out, int for_operator) {
  operand x, y;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 1) < 0) goto notimpl_x;
  if (operand_get(b, &y, x.h != NULL) < 0) {
    operand_done(&x);
    goto notimpl_x;
  }
  if (!x.h && !y.h) { /* both scalars (function form): the first as an array */
    if (rs_py_as_handle(a, &x.h, &x.keep) < 0) {
      operand_done(&y);
      return NULL;
    }
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (x.h && y.h) s = dst ? rs_binary_into(dst, op, x.h, y.h, NULL) : rs_binary(&res, op, x.h, y.h, NULL);
  else if (x.h) s = dst ? rs_binary_scalar_into(dst, op, x.h, y.s, NULL) : rs_binary_scalar(&res, op, x.h, y.s, NULL);
  else s = dst ? rs_scalar_binary_into(dst, op, x.s, y.h, NULL) : rs_scalar_binary(&res, op, x.s, y.h, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  operand_done(&y);
  return result(s, res, out);
notimpl_x:
  if (for_operator && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  return NULL;
}

static PyObject *do_unary(rs_op op, PyObject *a, PyObject *out) {
  operand x;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_unary_into(dst, op, x.h, NULL) : rs_unary(&res, op, x.h, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  return result(s, res, out);
}

#define RS_NB_BIN_(fn, op)                                                         \
  static PyObject *fn(PyObject *a, PyObject *b) { return do_binary(op, a, b, NULL, 1); } \
  static PyObject *fn##_in(PyObject *a, PyObject *b) { return do_binary(op, a, b, a, 1); }
RS_NB_BIN_(nb_add, RS_OP_ADD)
RS_NB_BIN_(nb_sub, RS_OP_SUBTRACT)
RS_NB_BIN_(nb_mul, RS_OP_MULTIPLY)
RS_NB_BIN_(nb_truediv, RS_OP_DIVIDE)
RS_NB_BIN_(nb_floordiv, RS_OP_FLOOR_DIVIDE)
RS_NB_BIN_(nb_mod, RS_OP_REMAINDER)
RS_NB_BIN_(nb_and, RS_OP_BITWISE_AND)
RS_NB_BIN_(nb_or, RS_OP_BITWISE_OR)
RS_NB_BIN_(nb_xor, RS_OP_BITWISE_XOR)
#undef RS_NB_BIN_
static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *m) {
  (void)m;
  return do_binary(RS_OP_POWER, a, b, NULL, 1);
}
static PyObject *nb_pow_in(PyObject *a, PyObject *b, PyObject *m) {
  (void)m;
  return do_binary(RS_OP_POWER, a, b, a, 1);
}
static PyObject *nb_neg(PyObject *a) { return do_unary(RS_OP_NEGATIVE, a, NULL); }
static PyObject *nb_pos(PyObject *a) { return do_unary(RS_OP_POSITIVE, a, NULL); }
static PyObject *nb_abs(PyObject *a) { return do_unary(RS_OP_ABS, a, NULL); }
static PyObject *nb_invert(PyObject *a) { return do_unary(RS_OP_INVERT, a, NULL); }

static PyObject *do_matmul(PyObject *a, PyObject *b, PyObject *out, int for_operator) {
  operand x, y;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) goto ni;
  if (operand_get(b, &y, 0) < 0) {
    operand_done(&x);
    goto ni;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_matmul_into(dst, x.h, y.h, NULL) : rs_matmul(&res, x.h, y.h, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  operand_done(&y);
  return result(s, res, out);
ni:
  if (for_operator && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  return NULL;
}
static PyObject *nb_matmul(PyObject *a, PyObject *b) { return do_matmul(a, b, NULL, 1); }
static PyObject *nb_matmul_in(PyObject *a, PyObject *b) { return do_matmul(a, b, a, 1); }

PyNumberMethods rs_py_number_methods = {
    .nb_add = nb_add, .nb_subtract = nb_sub, .nb_multiply = nb_mul, .nb_remainder = nb_mod,
    .nb_power = nb_pow, .nb_negative = nb_neg, .nb_positive = nb_pos, .nb_absolute = nb_abs,
    .nb_invert = nb_invert, .nb_and = nb_and, .nb_xor = nb_xor, .nb_or = nb_or,
    .nb_inplace_add = nb_add_in, .nb_inplace_subtract = nb_sub_in, .nb_inplace_multiply = nb_mul_in,
    .nb_inplace_remainder = nb_mod_in, .nb_inplace_power = nb_pow_in, .nb_inplace_and = nb_and_in,
    .nb_inplace_xor = nb_xor_in, .nb_inplace_or = nb_or_in, .nb_floor_divide = nb_floordiv,
    .nb_true_divide = nb_truediv, .nb_inplace_floor_divide = nb_floordiv_in,
    .nb_inplace_true_divide = nb_truediv_in, .nb_matrix_multiply = nb_matmul,
    .nb_inplace_matrix_multiply = nb_matmul_in,
};

PyObject *rs_py_richcompare(PyObject *a, PyObject *b, int op) {
  static const rs_op map[] = {RS_OP_LESS, RS_OP_LESS_EQUAL, RS_OP_EQUAL, RS_OP_NOT_EQUAL, RS_OP_GREATER,
                              RS_OP_GREATER_EQUAL};
  if (b == Py_None) Py_RETURN_NOTIMPLEMENTED;
  return do_binary(map[op], a, b, NULL, 1);
}

/* ---- the ufuncs: one function object per entry of RS_OP_LIST ------------------------ */
static PyMethodDef ufunc_defs[RS_OP_COUNT + 1];
static char ufunc_docs[RS_OP_COUNT][200];

static PyObject *ufunc_call(PyObject *opobj, PyObject *args, PyObject *kw) {
  rs_op op = (rs_op)PyLong_AsLong(opobj);
  int arity = rs_op_arity(op);
  PyObject *out = NULL;
  if (kw) {
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(kw, &pos, &k, &v)) {
      if (PyUnicode_Check(k) && PyUnicode_CompareWithASCIIString(k, "out") == 0) out = v;
      else {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", rs_op_name(op), k);
        return NULL;
      }
    }
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n == arity + 1 && !out) out = PyTuple_GET_ITEM(args, arity);
  else if (n != arity) {
    PyErr_Format(PyExc_TypeError, "%s() takes %d array argument%s (and out=)", rs_op_name(op), arity,
                 arity == 1 ? "" : "s");
    return NULL;
  }
  if (arity == 1) return do_unary(op, PyTuple_GET_ITEM(args, 0), out);
  return do_binary(op, PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1), out, 0);
}

/* ---- reductions -------------------------------------------------------------------- */
static PyObject *do_reduce(rs_reduce_op op, PyObject *a, PyObject *axis, int keepdims, PyObject *out,
                           PyObject *dtype) {
  operand x;
  rs_array *dst, *res = NULL;
  int axes[RS_MAX_DIMS], naxes;
  if (get_out(out, &dst) < 0) return NULL;
  if (rs_py_axes_from(axis, &naxes, axes) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  int arg = op == RS_REDUCE_ARGMIN || op == RS_REDUCE_ARGMAX;
  if (arg && naxes > 1) {
    operand_done(&x);
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
  operand_done(&x);
  PyObject *r = result(s, res, out);
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
static PyObject *do_sort(int arg, PyObject *a, int axis, PyObject *out) {
  operand x;
  rs_array *dst, *res = NULL, *src;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) return NULL;
  int nd = rs_array_ndim(x.h);
  if (axis < 0) axis += nd;
  if (nd == 0 || axis < 0 || axis >= nd) {
    operand_done(&x);
    PyErr_Format(PyExc_ValueError, "sort: axis out of range for a %d-d array", nd);
    return NULL;
  }
  int perm[RS_MAX_DIMS];
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[axis] = nd - 1;
  perm[nd - 1] = axis;
  rs_status s = RS_OK;
  int moved = axis != nd - 1;
  if (moved && dst) {
    operand_done(&x);
    PyErr_SetString(PyExc_NotImplementedError, "sort with out= sorts along the last axis only");
    return NULL;
  }
  src = x.h;
  if (moved) {
    s = rs_array_permute(&src, x.h, perm);
    if (rs_py_check(s)) {
      operand_done(&x);
      return NULL;
    }
  }
  Py_BEGIN_ALLOW_THREADS
  if (arg) s = dst ? rs_argsort_into(dst, src, NULL) : rs_argsort(&res, src, NULL);
  else s = dst ? rs_sort_into(dst, src, NULL) : rs_sort(&res, src, NULL);
  Py_END_ALLOW_THREADS
  if (moved) rs_array_release(src);
  operand_done(&x);
  if (s == RS_OK && moved) {
    rs_array *back;
    s = rs_array_permute(&back, res, perm);
    rs_array_release(res);
    res = back;
  }
  return result(s, res, out);
}

static PyObject *f_sort(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "axis", "out", "kind", "stable", "descending", NULL};
  PyObject *a, *out = Py_None, *kind = Py_None, *stable = Py_None;
  int axis = -1, desc = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOO$Op", kwl, &a, &axis, &out, &kind, &stable, &desc)) return NULL;
  if (desc) {
    PyErr_SetString(PyExc_NotImplementedError, "sort(descending=True)");
    return NULL;
  }
  return do_sort(0, a, axis, out);
}
static PyObject *f_argsort(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "axis", "out", "kind", "stable", "descending", NULL};
  PyObject *a, *out = Py_None, *kind = Py_None, *stable = Py_None;
  int axis = -1, desc = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iOO$Op", kwl, &a, &axis, &out, &kind, &stable, &desc)) return NULL;
  if (desc) {
    PyErr_SetString(PyExc_NotImplementedError, "argsort(descending=True)");
    return NULL;
  }
  return do_sort(1, a, axis, out);
}
static PyObject *m_sort(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"axis", NULL};
  int axis = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwl, &axis)) return NULL;
  PyObject *r = do_sort(0, self, axis, axis == -1 || axis == rs_array_ndim(((RsArray *)self)->a) - 1 ? self : NULL);
  if (!r) return NULL;
  if (r != self) { /* sorted along another axis: write back in place */
    rs_status s;
    Py_BEGIN_ALLOW_THREADS
    s = rs_array_copy(((RsArray *)self)->a, ((RsArray *)r)->a, NULL);
    Py_END_ALLOW_THREADS
    Py_DECREF(r);
    if (rs_py_check(s)) return NULL;
  } else
    Py_DECREF(r);
  Py_RETURN_NONE;
}
static PyObject *m_argsort(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"axis", NULL};
  int axis = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|i", kwl, &axis)) return NULL;
  return do_sort(1, self, axis, NULL);
}

/* ---- matmul, linalg ------------------------------------------------------------------ */
static PyObject *f_matmul(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x1", "x2", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O", kwl, &a, &b, &out)) return NULL;
  return do_matmul(a, b, out, 0);
}

static PyObject *f_svd(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "full_matrices", "compute_uv", "out", NULL};
  PyObject *a, *out = Py_None;
  int full = 1, uv = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pp$O", kwl, &a, &full, &uv, &out)) return NULL;
  operand x;
  if (operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  if (out != Py_None) {
    rs_array *d[3] = {NULL, NULL, NULL};
    if (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != 3) {
      operand_done(&x);
      PyErr_SetString(PyExc_TypeError, "svd out= must be a tuple (u, s, vh) (u and vh may be None)");
      return NULL;
    }
    for (int i = 0; i < 3; i++)
      if (PyTuple_GET_ITEM(out, i) != Py_None && get_out(PyTuple_GET_ITEM(out, i), &d[i]) < 0) {
        operand_done(&x);
        return NULL;
      }
    Py_BEGIN_ALLOW_THREADS
    s = rs_svd_into(d[0], d[1], d[2], x.h, full, NULL);
    Py_END_ALLOW_THREADS
    operand_done(&x);
    if (rs_py_check(s)) return NULL;
    Py_INCREF(out);
    return out;
  }
  rs_array *u = NULL, *sv = NULL, *vh = NULL;
  Py_BEGIN_ALLOW_THREADS
  s = rs_svd(uv ? &u : NULL, &sv, uv ? &vh : NULL, x.h, full, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
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

static PyObject *f_solve(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "b", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$O", kwl, &a, &b, &out)) return NULL;
  operand x, y;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) return NULL;
  if (operand_get(b, &y, 0) < 0) {
    operand_done(&x);
    return NULL;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_solve_into(dst, x.h, y.h, NULL) : rs_solve(&res, x.h, y.h, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  operand_done(&y);
  return result(s, res, out);
}

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
    int r = py_scalar(fill, &sv);
    if (r < 0) return NULL;
    if (r == 0) {
      PyObject *item = PyObject_CallMethod(fill, "item", NULL);
      if (!item) return NULL;
      r = py_scalar(item, &sv);
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
  return result(s, res, NULL);
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
  operand like;
  if (operand_get(x, &like, 0) < 0) return NULL;
  rs_mem_kind k;
  rs_dtype dt;
  rs_scalar sv = rs_scalar_int(0);
  PyObject *r = NULL;
  if (rs_py_kind_from(dev, &k, rs_array_kind(like.h)) < 0 || dtype_or(dto, &dt, rs_array_dtype(like.h)) < 0)
    goto done;
  if (what == 3) {
    int rr = py_scalar(fill, &sv);
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
  r = result(s, res, NULL);
done:
  operand_done(&like);
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
  return result(s, res, NULL);
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
  return result(s, res, NULL);
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
  return result(s, res, NULL);
}

/* asarray(obj, dtype=None, device=None, copy=None) */
static PyObject *f_asarray(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"obj", "dtype", "device", "copy", NULL};
  PyObject *obj, *dto = Py_None, *dev = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OO", kwl, &obj, &dto, &dev, &copy)) return NULL;
  operand x;
  if (operand_get(obj, &x, 0) < 0) return NULL;
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
  r = rs_py_wrap(cur, (moved || converted) ? NULL : x.keep);
done:
  operand_done(&x);
  return r;
}

/* where(cond, x1, x2, out=None): scalars allowed, through a fused expression. */
static PyObject *f_where(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"condition", "x1", "x2", "out", NULL};
  PyObject *c, *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$O", kwl, &c, &a, &b, &out)) return NULL;
  operand oc, oa, ob;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(c, &oc, 0) < 0) return NULL;
  if (operand_get(a, &oa, 1) < 0) {
    operand_done(&oc);
    return NULL;
  }
  if (operand_get(b, &ob, 1) < 0) {
    operand_done(&oc);
    operand_done(&oa);
    return NULL;
  }
  rs_status s;
  if (oa.h && ob.h) {
    Py_BEGIN_ALLOW_THREADS
    s = dst ? rs_where_into(dst, oc.h, oa.h, ob.h, NULL) : rs_where(&res, oc.h, oa.h, ob.h, NULL);
    Py_END_ALLOW_THREADS
  } else {
    rs_expr *e = NULL;
    s = rs_expr_create(&e, rs_array_context(oc.h));
    if (s == RS_OK) {
      int nc = rs_expr_array(e, oc.h);
      int na = oa.h ? rs_expr_array(e, oa.h) : rs_expr_scalar(e, oa.s);
      int nb = ob.h ? rs_expr_array(e, ob.h) : rs_expr_scalar(e, ob.s);
      int root = rs_expr_where(e, nc, na, nb);
      Py_BEGIN_ALLOW_THREADS
      s = dst ? rs_expr_eval_into(dst, e, root, NULL) : rs_expr_eval(&res, e, root, NULL);
      Py_END_ALLOW_THREADS
      rs_expr_destroy(e);
    }
  }
  operand_done(&oc);
  operand_done(&oa);
  operand_done(&ob);
  return result(s, res, out);
}

static PyObject *do_astype(PyObject *a, PyObject *dto, PyObject *out) {
  rs_dtype dt;
  if (rs_py_dtype_from(dto, &dt) < 0) return NULL;
  operand x;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_astype_into(dst, x.h, dt, NULL) : rs_astype(&res, x.h, dt, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  return result(s, res, out);
}
static PyObject *f_astype(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x", "dtype", "copy", "device", "out", NULL};
  PyObject *a, *dto, *copy = Py_True, *dev = Py_None, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OOO", kwl, &a, &dto, &copy, &dev, &out)) return NULL;
  return do_astype(a, dto, out);
}
static PyObject *m_astype(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"dtype", "copy", "out", NULL};
  PyObject *dto, *copy = Py_True, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$O", kwl, &dto, &copy, &out)) return NULL;
  rs_dtype dt;
  if (copy == Py_False && rs_py_dtype_from(dto, &dt) == 0 && dt == rs_array_dtype(((RsArray *)self)->a)) {
    Py_INCREF(self);
    return self;
  }
  PyErr_Clear();
  return do_astype(self, dto, out);
}

static PyObject *f_copy(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "out", NULL};
  PyObject *a, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O", kwl, &a, &out)) return NULL;
  operand x;
  rs_array *dst, *res = NULL;
  if (get_out(out, &dst) < 0) return NULL;
  if (operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_copy_into(dst, x.h, NULL) : rs_copy(&res, x.h, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  return result(s, res, out);
}
static PyObject *m_copy(PyObject *self, PyObject *noargs) {
  (void)noargs;
  PyObject *args = PyTuple_Pack(1, self);
  if (!args) return NULL;
  PyObject *r = f_copy(NULL, args, NULL);
  Py_DECREF(args);
  return r;
}

int rs_py_assign(rs_array *dst, PyObject *value);
int rs_py_assign(rs_array *dst, PyObject *value) {
  operand x;
  if (operand_get(value, &x, 1) < 0) return -1;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = x.h ? rs_copy_into(dst, x.h, NULL) : rs_full_into(dst, x.s, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  return rs_py_check(s);
}
static PyObject *m_fill(PyObject *self, PyObject *value) {
  if (rs_py_assign(((RsArray *)self)->a, value) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- checks -------------------------------------------------------------------------- */
static PyObject *f_allclose(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"a", "b", "rtol", "atol", "equal_nan", NULL};
  PyObject *a, *b;
  double rtol = 1e-5, atol = 1e-8;
  int equal_nan = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ddp", kwl, &a, &b, &rtol, &atol, &equal_nan)) return NULL;
  operand x, y;
  if (operand_get(a, &x, 0) < 0) return NULL;
  if (operand_get(b, &y, 0) < 0) {
    operand_done(&x);
    return NULL;
  }
  int r = 0;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_allclose(x.h, y.h, rtol, atol, equal_nan, &r, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  operand_done(&y);
  if (rs_py_check(s)) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *f_assert_allclose(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"actual", "desired", "rtol", "atol", NULL};
  PyObject *a, *b;
  double rtol = 1e-7, atol = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|dd", kwl, &a, &b, &rtol, &atol)) return NULL;
  operand x, y;
  if (operand_get(a, &x, 0) < 0) return NULL;
  if (operand_get(b, &y, 0) < 0) {
    operand_done(&x);
    return NULL;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_assert_allclose(x.h, y.h, rtol, atol, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  operand_done(&y);
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_array_equal(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
  operand x, y;
  if (operand_get(a, &x, 0) < 0) return NULL;
  if (operand_get(b, &y, 0) < 0) {
    operand_done(&x);
    return NULL;
  }
  int r = 0;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_array_equal(x.h, y.h, &r, NULL);
  Py_END_ALLOW_THREADS
  operand_done(&x);
  operand_done(&y);
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
  if (get_out(dsto, &dst) < 0) return NULL;
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

PyMethodDef rs_py_array_op_methods[] = {
    RS_REDUCTIONS_(RS_RED_MDEF_)
    {"sort", RS_KW_ m_sort, METH_VARARGS | METH_KEYWORDS, "sort(axis=-1): sort in place (stable)."},
    {"argsort", RS_KW_ m_argsort, METH_VARARGS | METH_KEYWORDS, "argsort(axis=-1) -> int64 indices (stable)."},
    {"astype", RS_KW_ m_astype, METH_VARARGS | METH_KEYWORDS,
     "astype(dtype, copy=True, *, out=None) -> a converted array, where this one lives."},
    {"copy", (PyCFunction)m_copy, METH_NOARGS, "copy() -> a C-order copy in the same memory kind."},
    {"fill", (PyCFunction)m_fill, METH_O, "fill(value): set every element."},
    {NULL, NULL, 0, NULL}};

PyMethodDef rs_py_ops_functions[] = {
    RS_REDUCTIONS_(RS_RED_DEF_)
    {"sort", RS_KW_ f_sort, METH_VARARGS | METH_KEYWORDS,
     "sort(a, axis=-1, out=None) -> sorted copy (stable; NaN last)."},
    {"argsort", RS_KW_ f_argsort, METH_VARARGS | METH_KEYWORDS,
     "argsort(a, axis=-1, out=None) -> int64 indices that sort a (stable)."},
    {"matmul", RS_KW_ f_matmul, METH_VARARGS | METH_KEYWORDS,
     "matmul(x1, x2, out=None) -> NumPy's matmul (batch axes broadcast)."},
    {"_svd", RS_KW_ f_svd, METH_VARARGS | METH_KEYWORDS, "see resident.linalg.svd"},
    {"_solve", RS_KW_ f_solve, METH_VARARGS | METH_KEYWORDS, "see resident.linalg.solve"},
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
    {"where", RS_KW_ f_where, METH_VARARGS | METH_KEYWORDS,
     "where(condition, x1, x2, *, out=None): x1 where condition, else x2 (scalars allowed)."},
    {"astype", RS_KW_ f_astype, METH_VARARGS | METH_KEYWORDS, "astype(x, dtype, *, copy=True, out=None)."},
    {"copy", RS_KW_ f_copy, METH_VARARGS | METH_KEYWORDS, "copy(a, *, out=None): a copy (out: broadcast, same_kind cast)."},
    {"allclose", RS_KW_ f_allclose, METH_VARARGS | METH_KEYWORDS,
     "allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool, computed where the data is."},
    {"_assert_allclose", RS_KW_ f_assert_allclose, METH_VARARGS | METH_KEYWORDS, "see resident.testing"},
    {"array_equal", (PyCFunction)f_array_equal, METH_VARARGS, "array_equal(a, b) -> bool."},
    {"_random_fill", (PyCFunction)f_random_fill, METH_VARARGS, "see resident.random"},
    {NULL, NULL, 0, NULL}};

int rs_py_ops_init(PyObject *m) {
  PyObject *names = PyList_New(0);
  if (!names) return -1;
  for (int op = 0; op < RS_OP_COUNT; op++) {
    int arity = rs_op_arity((rs_op)op);
    const char *name = rs_op_name((rs_op)op);
    snprintf(ufunc_docs[op], sizeof ufunc_docs[op],
             arity == 1 ? "%s(x, /, out=None): NumPy's %s elementwise (libresident op %d)."
                        : "%s(x1, x2, /, out=None): NumPy's %s with broadcasting and NEP 50 promotion (libresident op %d).",
             name, name, op);
    ufunc_defs[op].ml_name = name;
    ufunc_defs[op].ml_meth = (PyCFunction)(void (*)(void))ufunc_call;
    ufunc_defs[op].ml_flags = METH_VARARGS | METH_KEYWORDS;
    ufunc_defs[op].ml_doc = ufunc_docs[op];
    PyObject *self = PyLong_FromLong(op);
    PyObject *modname = PyUnicode_FromString("resident");
    PyObject *f = (self && modname) ? PyCFunction_NewEx(&ufunc_defs[op], self, modname) : NULL;
    Py_XDECREF(self);
    Py_XDECREF(modname);
    PyObject *nm = PyUnicode_FromString(name);
    int bad = !f || !nm || PyModule_AddObjectRef(m, name, f) < 0 || PyList_Append(names, nm) < 0;
    Py_XDECREF(nm);
    if (bad) {
      Py_XDECREF(f);
      Py_DECREF(names);
      return -1;
    }
    Py_DECREF(f);
  }
  int rc = PyModule_AddObjectRef(m, "ufunc_names", names);
  Py_DECREF(names);
  return rc;
}
