/* Collectives for the Python layer (resident/_comm.py): the Python package has one context
 * per process, so a communicator joins processes, one rank each (rs_comm_init_rank); the
 * handle travels in a capsule that destroys the comm when it goes. */
#include "rsmodule.h"

#include <string.h>

#define RS_PY_COMM "resident.comm"

static void comm_capsule_free(PyObject *cap) {
  rs_comm *c = PyCapsule_GetPointer(cap, RS_PY_COMM);
  if (c) rs_comm_destroy(c);
}

static rs_comm *comm_of(PyObject *cap) {
  rs_comm *c = PyCapsule_GetPointer(cap, RS_PY_COMM);
  if (!c && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the communicator was destroyed");
  return c;
}

/* A resident.ndarray's handle (borrowed), or NULL with TypeError. */
static rs_array *handle_of(PyObject *o, const char *what) {
  if (!RsArray_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: a resident.ndarray on the device is needed, not %s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  return ((RsArray *)o)->a;
}

static int op_from(const char *name, rs_reduce_op *op) {
  static const struct { const char *n; rs_reduce_op op; } ops[] = {
      {"sum", RS_REDUCE_SUM}, {"prod", RS_REDUCE_PROD}, {"min", RS_REDUCE_MIN},
      {"max", RS_REDUCE_MAX}, {"mean", RS_REDUCE_MEAN}, {"avg", RS_REDUCE_MEAN}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(name, ops[i].n) == 0) {
      *op = ops[i].op;
      return 0;
    }
  PyErr_Format(PyExc_ValueError, "op '%s': expected sum, prod, min, max or mean", name);
  return -1;
}

static PyObject *f_comm_unique_id(PyObject *m, PyObject *noargs) {
  (void)m, (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_comm_id id;
  if (rs_py_check(rs_comm_unique_id(rs_context_backend(ctx), &id))) return NULL;
  return PyBytes_FromStringAndSize((const char *)id.bytes, RS_COMM_ID_BYTES);
}

static PyObject *f_comm_init_rank(PyObject *m, PyObject *args) {
  (void)m;
  int nranks = 0, rank = 0;
  const char *bytes = NULL;
  Py_ssize_t len = 0;
  if (!PyArg_ParseTuple(args, "iiy#", &nranks, &rank, &bytes, &len)) return NULL;
  if (len != RS_COMM_ID_BYTES)
    return PyErr_Format(PyExc_ValueError, "the id has %zd bytes; comm_unique_id() gives %d", len, RS_COMM_ID_BYTES);
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_comm_id id;
  memcpy(id.bytes, bytes, RS_COMM_ID_BYTES);
  rs_comm *c = NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS /* waits for the other ranks */
  s = rs_comm_init_rank(&c, ctx, nranks, rank, &id);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  PyObject *cap = PyCapsule_New(c, RS_PY_COMM, comm_capsule_free);
  if (!cap) rs_comm_destroy(c);
  return cap;
}

static PyObject *f_comm_destroy(PyObject *m, PyObject *cap) {
  (void)m;
  rs_comm *c = comm_of(cap);
  if (!c) return NULL;
  if (PyCapsule_SetDestructor(cap, NULL) < 0) return NULL;
  rs_status s = rs_comm_destroy(c);
  PyCapsule_SetName(cap, "resident.comm (destroyed)"); /* comm_of refuses it from now on */
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_comm_info(PyObject *m, PyObject *cap) {
  (void)m;
  rs_comm *c = comm_of(cap);
  int n = 0, first = 0;
  if (!c || rs_py_check(rs_comm_get_info(c, &n, &first, NULL))) return NULL;
  return Py_BuildValue("(ii)", n, first);
}

/* (comm, kind, send, recv, op, peer): one call, the GIL released while it waits. */
static PyObject *f_comm_call(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *cap, *send_o, *recv_o;
  const char *kind, *op_name;
  int peer_to = -1, peer_from = -1;
  if (!PyArg_ParseTuple(args, "OsOOsii", &cap, &kind, &send_o, &recv_o, &op_name, &peer_to, &peer_from)) return NULL;
  rs_comm *c = comm_of(cap);
  if (!c) return NULL;
  rs_array *send = send_o == Py_None ? NULL : handle_of(send_o, "send");
  rs_array *recv = recv_o == Py_None ? NULL : handle_of(recv_o, "recv");
  if ((send_o != Py_None && !send) || (recv_o != Py_None && !recv)) return NULL;
  rs_reduce_op op = RS_REDUCE_SUM;
  if (strcmp(kind, "all_reduce") == 0 || strcmp(kind, "reduce_scatter") == 0)
    if (op_from(op_name, &op) < 0) return NULL;
  const rs_array *sends[1] = {send};
  rs_array *recvs[1] = {recv};
  rs_status s = RS_ERR_INVALID_ARGUMENT;
  Py_BEGIN_ALLOW_THREADS
  if (strcmp(kind, "all_reduce") == 0) s = rs_comm_all_reduce(c, sends, recvs, op, NULL);
  else if (strcmp(kind, "reduce_scatter") == 0) s = rs_comm_reduce_scatter(c, sends, recvs, op, NULL);
  else if (strcmp(kind, "all_gather") == 0) s = rs_comm_all_gather(c, sends, recvs, NULL);
  else if (strcmp(kind, "broadcast") == 0) s = rs_comm_broadcast(c, recvs, peer_to, NULL);
  else if (strcmp(kind, "send_recv") == 0) s = rs_comm_send_recv(c, sends, &peer_to, recvs, &peer_from, NULL);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

PyMethodDef rs_py_comm_functions[] = {
    {"_comm_unique_id", (PyCFunction)f_comm_unique_id, METH_NOARGS, NULL},
    {"_comm_init_rank", (PyCFunction)f_comm_init_rank, METH_VARARGS, NULL},
    {"_comm_destroy", (PyCFunction)f_comm_destroy, METH_O, NULL},
    {"_comm_info", (PyCFunction)f_comm_info, METH_O, NULL},
    {"_comm_call", (PyCFunction)f_comm_call, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
