/* Manipulation and creation to the array API standard (resident/manip.h): the C
 * primitives behind resident._manip, which gives them the standard's signatures. Copies
 * return a new array or write into out=; views keep their base alive as other views do.
 * The GIL is released while the library runs. */
#include "rsmodule.h"

/* A sequence of array-likes as handles. */
typedef struct {
  Py_ssize_t n;
  rs_py_operand *op;
  const rs_array **h;
} oplist;

static void list_done(oplist *l) {
  for (Py_ssize_t i = 0; i < l->n; i++) rs_py_operand_done(&l->op[i]);
  PyMem_Free(l->op);
  PyMem_Free(l->h);
  l->n = 0;
}

static int list_get(PyObject *seq, oplist *l) {
  l->n = 0;
  l->op = NULL;
  l->h = NULL;
  PyObject *f = PySequence_Fast(seq, "expected a sequence of arrays");
  if (!f) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
  l->op = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *l->op);
  l->h = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *l->h);
  if (!l->op || !l->h) {
    Py_DECREF(f);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (rs_py_operand_get(PySequence_Fast_GET_ITEM(f, i), &l->op[i], 0) < 0) {
      Py_DECREF(f);
      list_done(l);
      return -1;
    }
    l->h[i] = l->op[i].h;
    l->n = i + 1;
  }
  l->n = n;
  Py_DECREF(f);
  return 0;
}

/* int or sequence of ints -> int64 values (*n of them); PyMem_Free(*v) after. */
static int int64s(PyObject *o, int64_t **v, Py_ssize_t *n) {
  if (PyLong_Check(o)) {
    *v = PyMem_Malloc(sizeof **v);
    if (!*v) return PyErr_NoMemory(), -1;
    (*v)[0] = PyLong_AsLongLong(o);
    *n = 1;
    return (*v)[0] == -1 && PyErr_Occurred() ? (PyMem_Free(*v), -1) : 0;
  }
  PyObject *f = PySequence_Fast(o, "expected an int or a sequence of ints");
  if (!f) return -1;
  *n = PySequence_Fast_GET_SIZE(f);
  *v = PyMem_Malloc(sizeof **v * (size_t)(*n > 0 ? *n : 1));
  if (!*v) return Py_DECREF(f), PyErr_NoMemory(), -1;
  for (Py_ssize_t i = 0; i < *n; i++) {
    (*v)[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
    if ((*v)[i] == -1 && PyErr_Occurred()) return Py_DECREF(f), PyMem_Free(*v), -1;
  }
  Py_DECREF(f);
  return 0;
}

static int axis_of(PyObject *o, int *axis) { /* None -> RS_ALL_AXES */
  if (o == Py_None) return *axis = RS_ALL_AXES, 0;
  long v = PyLong_AsLong(o);
  if (v == -1 && PyErr_Occurred()) return -1;
  *axis = (int)v;
  return 0;
}

/* A new view v of operand op (its owner kept alive), or NULL with the exception. */
static PyObject *view_result(rs_status s, rs_array *v, PyObject *src, rs_py_operand *op) {
  if (rs_py_check(s)) return NULL;
  PyObject *base = RsArray_Check(src) ? ((RsArray *)src)->base : op->keep;
  return rs_py_wrap(v, base);
}

static PyObject *f_concat(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *seq, *axo, *out;
  int axis, stack;
  if (!PyArg_ParseTuple(args, "OOOp", &seq, &axo, &out, &stack) || axis_of(axo, &axis) < 0) return NULL;
  oplist l;
  rs_array *dst = NULL, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0 || list_get(seq, &l) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (stack) s = dst ? rs_stack_into(dst, (int)l.n, l.h, axis, NULL) : rs_stack(&res, (int)l.n, l.h, axis, NULL);
  else s = dst ? rs_concat_into(dst, (int)l.n, l.h, axis, NULL) : rs_concat(&res, (int)l.n, l.h, axis, NULL);
  Py_END_ALLOW_THREADS
  list_done(&l);
  return rs_py_result(s, res, out);
}

/* One array in, one out: flip, roll, repeat, tile, tril/triu (what selects the op). */
static PyObject *f_one(PyObject *m, PyObject *args) {
  (void)m;
  const char *what;
  PyObject *x, *p1, *p2, *out;
  if (!PyArg_ParseTuple(args, "sOOOO", &what, &x, &p1, &p2, &out)) return NULL;
  rs_array *dst = NULL, *res = NULL;
  rs_py_operand a;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  int64_t *v = NULL;
  Py_ssize_t nv = 0;
  int axes[RS_MAX_DIMS], naxes = -1, axis = 0;
  long long k = 0;
  switch (what[0]) {
    case 'f': if (rs_py_axes_from(p1, &naxes, axes) < 0) return NULL; break;
    case 'r':
      if (int64s(p1, &v, &nv) < 0) return NULL;
      if (what[1] == 'o' ? rs_py_axes_from(p2, &naxes, axes) < 0 : axis_of(p2, &axis) < 0) return PyMem_Free(v), NULL;
      break;
    case 't':
      if (what[1] == 'i') {
        if (int64s(p1, &v, &nv) < 0) return NULL;
      } else {
        k = PyLong_AsLongLong(p1);
        if (k == -1 && PyErr_Occurred()) return NULL;
      }
      break;
    default: return PyErr_Format(PyExc_ValueError, "unknown op %s", what);
  }
  if (rs_py_operand_get(x, &a, 0) < 0) return PyMem_Free(v), NULL;
  rs_status s = RS_OK;
  rs_array **o = dst ? &dst : &res;
  Py_BEGIN_ALLOW_THREADS
  if (what[0] == 'f') {
    s = dst ? rs_flip_into(dst, a.h, naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes, NULL)
            : rs_flip(o, a.h, naxes < 0 ? 0 : naxes, naxes < 0 ? NULL : axes, NULL);
  } else if (what[1] == 'o') { /* roll: one shift per axis, or the flattened array */
    const int *ax = naxes < 0 ? NULL : axes;
    s = dst ? rs_roll_into(dst, a.h, (int)nv, v, ax, NULL) : rs_roll(o, a.h, (int)nv, v, ax, NULL);
  } else if (what[0] == 'r') {
    s = dst ? rs_repeat_into(dst, a.h, nv, v, axis, NULL) : rs_repeat(o, a.h, nv, v, axis, NULL);
  } else if (what[1] == 'i') {
    s = dst ? rs_tile_into(dst, a.h, (int)nv, v, NULL) : rs_tile(o, a.h, (int)nv, v, NULL);
  } else if (what[3] == 'l') {
    s = dst ? rs_tril_into(dst, a.h, k, NULL) : rs_tril(o, a.h, k, NULL);
  } else {
    s = dst ? rs_triu_into(dst, a.h, k, NULL) : rs_triu(o, a.h, k, NULL);
  }
  Py_END_ALLOW_THREADS
  PyMem_Free(v);
  rs_py_operand_done(&a);
  return rs_py_result(s, res, out);
}

/* A tuple of n new arrays (or views of the operands, base_of set). */
static PyObject *tuple_of(rs_status s, rs_array **r, Py_ssize_t n, oplist *l, PyObject *seq, int views) {
  if (rs_py_check(s)) return NULL;
  PyObject *t = PyTuple_New(n);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *base = NULL;
    if (views) {
      PyObject *src = PySequence_GetItem(seq, i);
      base = src && RsArray_Check(src) ? ((RsArray *)src)->base : l->op[i].keep;
      Py_XDECREF(src);
    }
    PyObject *w = rs_py_wrap(r[i], base);
    if (!w || !t) {
      for (Py_ssize_t j = i + 1; j < n; j++) rs_array_release(r[j]);
      Py_XDECREF(w);
      Py_XDECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, w);
  }
  return t;
}

static PyObject *f_meshgrid(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *seq;
  int ij, views;
  if (!PyArg_ParseTuple(args, "Opp", &seq, &ij, &views)) return NULL;
  oplist l;
  if (list_get(seq, &l) < 0) return NULL;
  rs_array *r[RS_MAX_DIMS] = {0};
  rs_status s;
  if (l.n > RS_MAX_DIMS) {
    list_done(&l);
    return PyErr_Format(PyExc_ValueError, "at most %d arrays", RS_MAX_DIMS);
  }
  Py_BEGIN_ALLOW_THREADS
  s = views ? rs_array_broadcast_arrays(r, (int)l.n, l.h)
            : rs_meshgrid(r, (int)l.n, l.h, ij ? RS_MESHGRID_IJ : RS_MESHGRID_XY, NULL);
  Py_END_ALLOW_THREADS
  PyObject *t = tuple_of(s, r, l.n, &l, seq, views);
  list_done(&l);
  return t;
}

static PyObject *f_unstack(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *x;
  int axis;
  if (!PyArg_ParseTuple(args, "Oi", &x, &axis)) return NULL;
  rs_py_operand a;
  if (rs_py_operand_get(x, &a, 0) < 0) return NULL;
  int nd = rs_array_ndim(a.h), ax = axis < 0 ? axis + nd : axis;
  int64_t n = ax >= 0 && ax < nd ? rs_array_shape(a.h)[ax] : 0;
  rs_array **r = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *r);
  if (!r) return rs_py_operand_done(&a), PyErr_NoMemory();
  rs_status s = rs_array_unstack(r, n, a.h, axis);
  PyObject *t = NULL;
  if (!rs_py_check(s)) {
    t = PyTuple_New(n);
    for (int64_t i = 0; i < n; i++) {
      PyObject *w = t ? view_result(RS_OK, r[i], x, &a) : NULL;
      if (!w) {
        for (int64_t j = i + 1; j < n; j++) rs_array_release(r[j]);
        Py_CLEAR(t);
        break;
      }
      PyTuple_SET_ITEM(t, i, w);
    }
  }
  PyMem_Free(r);
  rs_py_operand_done(&a);
  return t;
}

/* broadcast_to(x, shape), moveaxis(x, src, dst), expand_dims(x, axes), squeeze(x, axes) */
static PyObject *f_view(PyObject *m, PyObject *args) {
  (void)m;
  const char *what;
  PyObject *x, *p1, *p2;
  if (!PyArg_ParseTuple(args, "sOOO", &what, &x, &p1, &p2)) return NULL;
  int64_t shape[RS_MAX_DIMS];
  int nd = 0, a1[RS_MAX_DIMS], a2[RS_MAX_DIMS], n1 = 0, n2 = 0;
  if (what[0] == 'b' ? rs_py_shape_from(p1, &nd, shape) < 0 : rs_py_axes_from(p1, &n1, a1) < 0) return NULL;
  if (what[0] == 'm' && rs_py_axes_from(p2, &n2, a2) < 0) return NULL;
  if (what[0] == 'm' && n1 != n2)
    return PyErr_Format(PyExc_ValueError, "moveaxis: source and destination must have the same number of elements");
  rs_py_operand a;
  if (rs_py_operand_get(x, &a, 0) < 0) return NULL;
  rs_array *v = NULL;
  rs_status s;
  switch (what[0]) {
    case 'b': s = rs_array_broadcast_to(&v, a.h, nd, shape); break;
    case 'm': s = rs_array_moveaxis(&v, a.h, n1, a1, a2); break;
    case 'e': s = rs_array_expand_dims_axes(&v, a.h, n1 < 0 ? 0 : n1, a1); break;
    default: s = rs_array_squeeze_axes(&v, a.h, n1 < 0 ? 0 : n1, a1); break;
  }
  PyObject *r = view_result(s, v, x, &a);
  rs_py_operand_done(&a);
  return r;
}

PyMethodDef rs_py_manip_functions[] = {
    {"_manip_concat", f_concat, METH_VARARGS, "_manip_concat(arrays, axis, out, stack): resident._manip.concat/stack."},
    {"_manip_one", f_one, METH_VARARGS, "_manip_one(op, x, p1, p2, out): flip, roll, repeat, tile, tril, triu."},
    {"_manip_meshgrid", f_meshgrid, METH_VARARGS, "_manip_meshgrid(arrays, ij, views): meshgrid or broadcast_arrays."},
    {"_manip_unstack", f_unstack, METH_VARARGS, "_manip_unstack(x, axis): views along axis."},
    {"_manip_view", f_view, METH_VARARGS, "_manip_view(op, x, p1, p2): broadcast_to, moveaxis, expand_dims, squeeze."},
    {NULL, NULL, 0, NULL},
};
