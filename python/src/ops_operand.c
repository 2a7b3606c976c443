/* Operands of the ops: Python scalars (weak, NEP 50), array-likes as handles, out=. */
#include "rsmodule.h"

#include <string.h>

/* ---- operands ------------------------------------------------------------------------ */
/* A Python scalar (bool, int, float, complex - NOT NumPy scalars, which are typed values
 * and go through as 0-d arrays, as NEP 50 says) as a weak rs_scalar: 1; not one: 0. */
int rs_py_scalar(PyObject *o, rs_scalar *s) {
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

void rs_py_operand_done(rs_py_operand *p) {
  if (p->h && !p->borrowed) rs_array_release(p->h);
  Py_XDECREF(p->keep);
  p->h = NULL;
  p->keep = NULL;
}

/* 0 ok, -1 error. allow_scalar: 0 = a scalar becomes a 0-d array. */
int rs_py_operand_get(PyObject *o, rs_py_operand *p, int allow_scalar) {
  p->h = NULL;
  p->keep = NULL;
  p->borrowed = 0;
  if (RsArray_Check(o)) { /* the caller holds o for the whole call: no reference needed */
    p->h = ((RsArray *)o)->a;
    p->borrowed = 1;
    return 0;
  }
  {
    int r = rs_py_scalar(o, &p->s);
    if (r < 0) return -1;
    if (r > 0 && allow_scalar) return 0;
  }
  return rs_py_as_handle(o, &p->h, &p->keep);
}

int rs_py_operand_pair(PyObject *a, PyObject *b, rs_py_operand *x, rs_py_operand *y) {
  if (rs_py_operand_get(a, x, 0) < 0) return -1;
  if (rs_py_operand_get(b, y, 0) < 0) {
    rs_py_operand_done(x);
    return -1;
  }
  return 0;
}

int rs_py_get_out(PyObject *out, rs_array **dst) {
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

PyObject *rs_py_result(rs_status s, rs_array *res, PyObject *out) {
  if (rs_py_check(s)) return NULL;
  if (out && out != Py_None) {
    if (PyTuple_Check(out)) out = PyTuple_GET_ITEM(out, 0);
    Py_INCREF(out);
    return out;
  }
  return rs_py_wrap(res, NULL);
}

/* Two array operands, an optional out=, then fn without the GIL (see rsmodule.h). */
PyObject *rs_py_call_two(PyObject *a, PyObject *b, PyObject *out, rs_py_two_fn fn, void *arg) {
  rs_py_operand x, y;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_pair(a, b, &x, &y) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = fn(dst ? NULL : &res, dst, x.h, y.h, arg);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  return rs_py_result(s, res, out);
}
