/* Fused expressions (rs_expr) for resident.fuse: a tree of nodes evaluated as one kernel. */
#include "rsmodule.h"

static void expr_free(PyObject *cap) {
  rs_expr *e = PyCapsule_GetPointer(cap, "resident.expr");
  if (e) rs_expr_destroy(e);
}

static rs_expr *expr_of(PyObject *cap) { return PyCapsule_GetPointer(cap, "resident.expr"); }

static PyObject *node_or_raise(rs_expr *e, int id) {
  if (id < 0) return rs_py_raise(rs_expr_status(e) != RS_OK ? rs_expr_status(e) : RS_ERR_INVALID_ARGUMENT);
  return PyLong_FromLong(id);
}

static PyObject *f_expr_create(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_expr *e;
  if (rs_py_check(rs_expr_create(&e, ctx))) return NULL;
  PyObject *cap = PyCapsule_New(e, "resident.expr", expr_free);
  if (!cap) rs_expr_destroy(e);
  return cap;
}

/* _expr_leaf(cap, value): an array (any array-like) or a Python scalar -> node id */
static PyObject *f_expr_leaf(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *v;
  if (!PyArg_ParseTuple(args, "OO", &cap, &v)) return NULL;
  rs_expr *e = expr_of(cap);
  if (!e) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(v, &x, 1) < 0) return NULL;
  int id = x.h ? rs_expr_array(e, x.h) : rs_expr_scalar(e, x.s); /* the expression keeps a reference */
  rs_py_operand_done(&x);
  return node_or_raise(e, id);
}

static PyObject *f_expr_op(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  int op, a, b = -1;
  if (!PyArg_ParseTuple(args, "Oii|i", &cap, &op, &a, &b)) return NULL;
  rs_expr *e = expr_of(cap);
  if (!e) return NULL;
  int id = rs_op_arity((rs_op)op) == 1 ? rs_expr_unary(e, (rs_op)op, a) : rs_expr_binary(e, (rs_op)op, a, b);
  return node_or_raise(e, id);
}

static PyObject *f_expr_where(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap;
  int c, a, b;
  if (!PyArg_ParseTuple(args, "Oiii", &cap, &c, &a, &b)) return NULL;
  rs_expr *e = expr_of(cap);
  if (!e) return NULL;
  return node_or_raise(e, rs_expr_where(e, c, a, b));
}

static PyObject *f_expr_astype(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *dto;
  int a;
  if (!PyArg_ParseTuple(args, "OiO", &cap, &a, &dto)) return NULL;
  rs_expr *e = expr_of(cap);
  rs_dtype dt;
  if (!e || rs_py_dtype_from(dto, &dt) < 0) return NULL;
  return node_or_raise(e, rs_expr_astype(e, a, dt));
}

static PyObject *f_expr_rebind(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *v;
  int node;
  if (!PyArg_ParseTuple(args, "OiO", &cap, &node, &v)) return NULL;
  rs_expr *e = expr_of(cap);
  if (!e) return NULL;
  rs_py_operand x;
  if (rs_py_operand_get(v, &x, 0) < 0) return NULL;
  rs_status s = rs_expr_rebind(e, node, x.h);
  rs_py_operand_done(&x);
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_expr_eval(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *out = Py_None;
  int root;
  if (!PyArg_ParseTuple(args, "Oi|O", &cap, &root, &out)) return NULL;
  rs_expr *e = expr_of(cap);
  rs_array *dst, *res = NULL;
  if (!e || rs_py_get_out(out, &dst) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_expr_eval_into(dst, e, root, NULL) : rs_expr_eval(&res, e, root, NULL);
  Py_END_ALLOW_THREADS
  return rs_py_result(s, res, out);
}

PyMethodDef rs_py_expr_functions[] = {
    {"_expr_create", (PyCFunction)f_expr_create, METH_NOARGS, NULL},
    {"_expr_leaf", (PyCFunction)f_expr_leaf, METH_VARARGS, NULL},
    {"_expr_op", (PyCFunction)f_expr_op, METH_VARARGS, NULL},
    {"_expr_where", (PyCFunction)f_expr_where, METH_VARARGS, NULL},
    {"_expr_astype", (PyCFunction)f_expr_astype, METH_VARARGS, NULL},
    {"_expr_rebind", (PyCFunction)f_expr_rebind, METH_VARARGS, NULL},
    {"_expr_eval", (PyCFunction)f_expr_eval, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
