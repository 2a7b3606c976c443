/* The linalg extension's bindings (resident.linalg): factorizations and the composed
 * operations of resident/linalg.h. Argument forms the standard leaves to Python (ord
 * strings, tensordot's integer axes) are turned into the C ones in resident/linalg.py. */
#include "rsmodule.h"

#include <string.h>

/* f(&out, a, stream) */
typedef rs_status (*unary_fn)(rs_array **, const rs_array *, rs_stream *);

static PyObject *call_unary(PyObject *args, unary_fn fn) {
  PyObject *a;
  if (!PyArg_ParseTuple(args, "O", &a)) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_array *res = NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = fn(&res, x.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, Py_None);
}

#define RS_UN_(name)                                                       \
  static PyObject *f_##name(PyObject *m, PyObject *args) {                 \
    (void)m;                                                               \
    return call_unary(args, rs_##name);                                    \
  }
RS_UN_(det)
RS_UN_(inv)
RS_UN_(eigvalsh)
RS_UN_(svdvals)

/* A tuple of n new arrays (all or nothing). */
static PyObject *tuple_of(int n, rs_array **r) {
  PyObject *t = PyTuple_New(n);
  for (int i = 0; i < n; i++) {
    PyObject *w = t ? rs_py_wrap(r[i], NULL) : NULL;
    r[i] = NULL;
    if (!w) {
      for (int j = i + 1; j < n; j++) rs_array_release(r[j]);
      Py_XDECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, w);
  }
  return t;
}

/* One operand a and one scalar (int flag, int64, double) through a code path. */
enum { OP_CHOLESKY, OP_QR, OP_EIGH, OP_SLOGDET, OP_DIAGONAL, OP_TRACE, OP_POWER, OP_RANK, OP_PINV, OP_MNORM };

static PyObject *with_scalar(PyObject *args, int op) {
  PyObject *a;
  long long iv = 0;
  double dv = 0;
  int ok = op == OP_RANK || op == OP_PINV ? PyArg_ParseTuple(args, "Od", &a, &dv) : PyArg_ParseTuple(args, "OL", &a, &iv);
  if (!ok) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_array *r[2] = {NULL, NULL};
  int n = 1;
  rs_status s = RS_OK;
  Py_BEGIN_ALLOW_THREADS
  switch (op) {
    case OP_CHOLESKY: s = rs_cholesky(&r[0], x.h, iv != 0, NULL); break;
    case OP_QR: s = rs_qr(&r[0], &r[1], x.h, iv != 0, NULL), n = 2; break;
    case OP_EIGH: s = rs_eigh(&r[0], &r[1], x.h, NULL), n = 2; break;
    case OP_SLOGDET: s = rs_slogdet(&r[0], &r[1], x.h, NULL), n = 2; break;
    case OP_DIAGONAL: s = rs_diagonal(&r[0], x.h, iv, NULL); break;
    case OP_TRACE: s = rs_trace(&r[0], x.h, iv, NULL); break;
    case OP_POWER: s = rs_matrix_power(&r[0], x.h, iv, NULL); break;
    case OP_RANK: s = rs_matrix_rank(&r[0], x.h, dv, NULL); break;
    case OP_PINV: s = rs_pinv(&r[0], x.h, dv, NULL); break;
    default: s = rs_matrix_norm(&r[0], x.h, (rs_matrix_norm_ord)(iv & 0xff), (int)(iv >> 8), NULL); break;
  }
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  if (rs_py_check(s)) return NULL;
  return n == 1 ? rs_py_wrap(r[0], NULL) : tuple_of(2, r);
}

#define RS_SC_(name, op)                                                   \
  static PyObject *f_##name(PyObject *m, PyObject *args) {                 \
    (void)m;                                                               \
    return with_scalar(args, op);                                          \
  }
RS_SC_(cholesky, OP_CHOLESKY)
RS_SC_(qr, OP_QR)
RS_SC_(slogdet, OP_SLOGDET)
RS_SC_(diagonal, OP_DIAGONAL)
RS_SC_(trace, OP_TRACE)
RS_SC_(matrix_power, OP_POWER)
RS_SC_(matrix_rank, OP_RANK)
RS_SC_(pinv, OP_PINV)
RS_SC_(matrix_norm, OP_MNORM) /* the int: ord | keepdims << 8 */

static PyObject *f_eigh(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a;
  if (!PyArg_ParseTuple(args, "O", &a)) return NULL;
  PyObject *t = Py_BuildValue("(Oi)", a, 0);
  PyObject *r = t ? with_scalar(t, OP_EIGH) : NULL;
  Py_XDECREF(t);
  return r;
}

/* Two operands: outer(a, b), vecdot(a, b, axis), tensordot(a, b, axes_a, axes_b), lstsq(a, b, rcond). */
static PyObject *f_binary(PyObject *m, PyObject *args) {
  (void)m;
  const char *which;
  PyObject *a, *b, *p1 = Py_None, *p2 = Py_None;
  if (!PyArg_ParseTuple(args, "sOO|OO", &which, &a, &b, &p1, &p2)) return NULL;
  int aa[RS_MAX_DIMS], ab[RS_MAX_DIMS], na = 0, nb = 0, axis = -1;
  double rc = -1;
  if (!strcmp(which, "tensordot") && (rs_py_axes_from(p1, &na, aa) < 0 || rs_py_axes_from(p2, &nb, ab) < 0)) return NULL;
  if (!strcmp(which, "tensordot") && na != nb) {
    PyErr_SetString(PyExc_ValueError, "tensordot: the two axes sequences differ in length");
    return NULL;
  }
  if (!strcmp(which, "vecdot") && (axis = (int)PyLong_AsLong(p1)) == -1 && PyErr_Occurred()) return NULL;
  if (!strcmp(which, "lstsq") && p1 != Py_None && (rc = PyFloat_AsDouble(p1)) == -1 && PyErr_Occurred()) return NULL;
  rs_py_operand x, y;
  if (rs_py_operand_pair(a, b, &x, &y) < 0) return NULL;
  rs_array *r[4] = {NULL, NULL, NULL, NULL};
  int n = 1;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (!strcmp(which, "outer")) s = rs_outer(&r[0], x.h, y.h, NULL);
  else if (!strcmp(which, "vecdot")) s = rs_vecdot(&r[0], x.h, y.h, axis, NULL);
  else if (!strcmp(which, "tensordot")) s = rs_tensordot(&r[0], x.h, y.h, na < 0 ? 0 : na, aa, ab, NULL);
  else s = rs_lstsq(&r[0], &r[1], &r[2], &r[3], x.h, y.h, rc, NULL), n = 4;
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  rs_py_operand_done(&y);
  if (rs_py_check(s)) return NULL;
  return n == 1 ? rs_py_wrap(r[0], NULL) : tuple_of(4, r);
}

static PyObject *f_vector_norm(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *a, *axis;
  int keepdims;
  double ord;
  if (!PyArg_ParseTuple(args, "OOpd", &a, &axis, &keepdims, &ord)) return NULL;
  int axes[RS_MAX_DIMS], naxes;
  if (rs_py_axes_from(axis, &naxes, axes) < 0) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_array *res = NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_vector_norm(&res, x.h, naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes, keepdims, ord, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, Py_None);
}

#define RS_LA_(name, doc) {"_la_" #name, (PyCFunction)f_##name, METH_VARARGS, "see resident.linalg." doc}
PyMethodDef rs_py_linalg_functions[] = {
    RS_LA_(det, "det"),           RS_LA_(inv, "inv"),           RS_LA_(eigvalsh, "eigvalsh"),
    RS_LA_(svdvals, "svdvals"),   RS_LA_(cholesky, "cholesky"), RS_LA_(qr, "qr"),
    RS_LA_(slogdet, "slogdet"),   RS_LA_(diagonal, "diagonal"), RS_LA_(trace, "trace"),
    RS_LA_(matrix_power, "matrix_power"), RS_LA_(matrix_rank, "matrix_rank"), RS_LA_(pinv, "pinv"),
    RS_LA_(matrix_norm, "matrix_norm"),   RS_LA_(eigh, "eigh"),   RS_LA_(binary, "outer"),
    RS_LA_(vector_norm, "vector_norm"),   {NULL, NULL, 0, NULL}};
