/* Elementwise: the operators, the ufuncs (one function object per entry of the library's
 * RS_OP_LIST), where, astype, copy and assignment. The GIL is released while the library runs. */
#include "rsmodule.h"

#include <string.h>

/* ---- elementwise ------------------------------------------------------------------- */
static PyObject *do_binary(rs_op op, PyObject *a, PyObject *b, PyObject *out, int for_operator) {
  rs_py_operand x, y;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 1) < 0) goto notimpl_x;
  if (rs_py_operand_get(b, &y, x.h != NULL) < 0) {
    rs_py_operand_done(&x);
    goto notimpl_x;
  }
  if (!x.h && !y.h) { /* both scalars (function form): the first as an array */
    if (rs_py_as_handle(a, &x.h, &x.keep) < 0) {
      rs_py_operand_done(&y);
      return NULL;
    }
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (x.h && y.h) s = dst ? rs_binary_into(dst, op, x.h, y.h, NULL) : rs_binary(&res, op, x.h, y.h, NULL);
  else if (x.h) s = dst ? rs_binary_scalar_into(dst, op, x.h, y.s, NULL) : rs_binary_scalar(&res, op, x.h, y.s, NULL);
  else s = dst ? rs_scalar_binary_into(dst, op, x.s, y.h, NULL) : rs_scalar_binary(&res, op, x.s, y.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  return rs_py_result(s, res, out);
notimpl_x:
  if (for_operator && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  return NULL;
}

static PyObject *do_unary(rs_op op, PyObject *a, PyObject *out) {
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_unary_into(dst, op, x.h, NULL) : rs_unary(&res, op, x.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
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
  rs_py_operand x, y;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_pair(a, b, &x, &y) < 0) goto ni;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_matmul_into(dst, x.h, y.h, NULL) : rs_matmul(&res, x.h, y.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  return rs_py_result(s, res, out);
ni:
  if (for_operator && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  return NULL;
}
static PyObject *nb_matmul(PyObject *a, PyObject *b) { return do_matmul(a, b, NULL, 1); }
static PyObject *nb_matmul_in(PyObject *a, PyObject *b) { return do_matmul(a, b, a, 1); }

static PyObject *f_matmul(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x1", "x2", "out", NULL};
  PyObject *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O", kwl, &a, &b, &out)) return NULL;
  return do_matmul(a, b, out, 0);
}

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
  /* Inside resident.fuse the arguments are expression nodes: they build the expression. */
  for (Py_ssize_t i = 0; i < arity; i++) {
    PyObject *a = PyTuple_GET_ITEM(args, i);
    if (!RsArray_Check(a) && PyObject_HasAttrString(a, "_rs_fuse_node")) {
      if (out) {
        PyErr_SetString(PyExc_TypeError, "out= inside resident.fuse: give out= to the fused function");
        return NULL;
      }
      return PyObject_CallMethod(a, "_ufunc", "iO", (int)op, args);
    }
  }
  if (arity == 1) return do_unary(op, PyTuple_GET_ITEM(args, 0), out);
  return do_binary(op, PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1), out, 0);
}

/* where(cond, x1, x2, out=None): scalars allowed, through a fused expression. */
static PyObject *f_where(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"condition", "x1", "x2", "out", NULL};
  PyObject *c, *a, *b, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$O", kwl, &c, &a, &b, &out)) return NULL;
  PyObject *three[3] = {c, a, b};
  for (int i = 0; i < 3; i++)
    if (!RsArray_Check(three[i]) && PyObject_HasAttrString(three[i], "_rs_fuse_node"))
      return PyObject_CallMethod(three[i], "_where", "OOO", c, a, b);
  rs_py_operand oc, oa, ob;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(c, &oc, 0) < 0) return NULL;
  if (rs_py_operand_get(a, &oa, 1) < 0) {
    rs_py_operand_done(&oc);
    return NULL;
  }
  if (rs_py_operand_get(b, &ob, 1) < 0) {
    rs_py_operand_done(&oc);
    rs_py_operand_done(&oa);
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
  rs_py_operand_done(&oc);
  rs_py_operand_done(&oa);
  rs_py_operand_done(&ob);
  return rs_py_result(s, res, out);
}

static PyObject *do_astype(PyObject *a, PyObject *dto, PyObject *out) {
  rs_dtype dt;
  if (rs_py_dtype_from(dto, &dt) < 0) return NULL;
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_astype_into(dst, x.h, dt, NULL) : rs_astype(&res, x.h, dt, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
}
static PyObject *f_astype(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x", "dtype", "copy", "device", "out", NULL};
  PyObject *a, *dto, *copy = Py_True, *dev = Py_None, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OOO", kwl, &a, &dto, &copy, &dev, &out)) return NULL;
  rs_dtype dt; /* the standard's copy=False: the array itself when its dtype matches (issue 18) */
  if (copy == Py_False && out == Py_None && RsArray_Check(a) && rs_py_dtype_from(dto, &dt) == 0 &&
      dt == rs_array_dtype(((RsArray *)a)->a)) {
    Py_INCREF(a);
    return a;
  }
  PyErr_Clear();
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
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_copy_into(dst, x.h, NULL) : rs_copy(&res, x.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
}
static PyObject *m_copy(PyObject *self, PyObject *noargs) {
  (void)noargs;
  PyObject *args = PyTuple_Pack(1, self);
  if (!args) return NULL;
  PyObject *r = f_copy(NULL, args, NULL);
  Py_DECREF(args);
  return r;
}

int rs_py_assign(rs_array *dst, PyObject *value) {
  rs_py_operand x;
  if (rs_py_operand_get(value, &x, 1) < 0) return -1;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = x.h ? rs_copy_into(dst, x.h, NULL) : rs_full_into(dst, x.s, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_check(s);
}
static PyObject *m_fill(PyObject *self, PyObject *value) {
  if (rs_py_assign(((RsArray *)self)->a, value) < 0) return NULL;
  Py_RETURN_NONE;
}

#define RS_KW_ (PyCFunction)(void (*)(void))
PyMethodDef rs_py_ew_methods[] = {
    {"astype", RS_KW_ m_astype, METH_VARARGS | METH_KEYWORDS,
     "astype(dtype, copy=True, *, out=None) -> a converted array, where this one lives."},
    {"copy", (PyCFunction)m_copy, METH_NOARGS, "copy() -> a copy in the same memory kind (C order, or F order for an F-contiguous array)."},
    {"fill", (PyCFunction)m_fill, METH_O, "fill(value): set every element."},
    {NULL, NULL, 0, NULL}};

PyMethodDef rs_py_ew_functions[] = {
    {"matmul", RS_KW_ f_matmul, METH_VARARGS | METH_KEYWORDS,
     "matmul(x1, x2, out=None) -> NumPy's matmul (batch axes broadcast)."},
    {"where", RS_KW_ f_where, METH_VARARGS | METH_KEYWORDS,
     "where(condition, x1, x2, *, out=None): x1 where condition, else x2 (scalars allowed)."},
    {"astype", RS_KW_ f_astype, METH_VARARGS | METH_KEYWORDS, "astype(x, dtype, *, copy=True, out=None)."},
    {"copy", RS_KW_ f_copy, METH_VARARGS | METH_KEYWORDS, "copy(a, *, out=None): a copy (out: broadcast, same_kind cast)."},
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
