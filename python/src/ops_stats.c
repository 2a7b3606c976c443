/* Statistics and scans (resident/stats.h) under the array API's names: var, std,
 * cumulative_sum, cumulative_prod, clip, diff. */
#include "rsmodule.h"

/* ---- var / std ------------------------------------------------------------------------ */
static PyObject *do_var(int sq, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"x", "axis", "out", "correction", "keepdims", "ddof", NULL};
  PyObject *a, *axis = Py_None, *out = Py_None, *ddof = Py_None;
  double corr = 0;
  int keepdims = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO$dpO", kwl, &a, &axis, &out, &corr, &keepdims, &ddof)) return NULL;
  if (ddof != Py_None) { /* NumPy's name of the same thing */
    corr = PyFloat_AsDouble(ddof);
    if (PyErr_Occurred()) return NULL;
  }
  rs_py_operand x;
  rs_array *dst, *res = NULL;
  int axes[RS_MAX_DIMS], naxes;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_axes_from(axis, &naxes, axes) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  int n = naxes < 0 ? 0 : naxes;
  const int *ax = naxes < 0 ? NULL : axes;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  if (sq)
    s = dst ? rs_std_into(dst, x.h, n, ax, corr, keepdims, NULL) : rs_std(&res, x.h, n, ax, corr, keepdims, NULL);
  else
    s = dst ? rs_var_into(dst, x.h, n, ax, corr, keepdims, NULL) : rs_var(&res, x.h, n, ax, corr, keepdims, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
}
static PyObject *f_var(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  return do_var(0, args, kw);
}
static PyObject *f_std(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  return do_var(1, args, kw);
}

/* ---- cumulative_sum / cumulative_prod ---------------------------------------------------- */
static PyObject *do_scan(int prod, PyObject *args, PyObject *kw) {
  static char *kwl[] = {"x", "axis", "dtype", "include_initial", "out", NULL};
  PyObject *a, *axis_o = Py_None, *dtype = Py_None, *out = Py_None;
  int init = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OpO", kwl, &a, &axis_o, &dtype, &init, &out)) return NULL;
  int axis = RS_ALL_AXES;
  if (axis_o != Py_None) {
    axis = PyLong_AsLong(axis_o);
    if (axis == -1 && PyErr_Occurred()) return NULL;
    if (axis == RS_ALL_AXES) axis = RS_MAX_DIMS * 2; /* out of range, never "all" */
  }
  rs_dtype dt = RS_FLOAT64;
  if (dtype != Py_None && rs_py_dtype_from(dtype, &dt) < 0) return NULL;
  rs_py_operand x;
  rs_array *dst, *res = NULL, *cast = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  rs_status s = RS_OK;
  Py_BEGIN_ALLOW_THREADS
  const rs_array *src = x.h;
  if (dtype != Py_None && dt != rs_array_dtype(x.h)) { /* dtype=: the input is cast first (NumPy's) */
    s = rs_astype(&cast, x.h, dt, NULL);
    src = cast;
  }
  if (s == RS_OK) {
    if (prod)
      s = dst ? rs_cumulative_prod_into(dst, src, axis, init, NULL) : rs_cumulative_prod(&res, src, axis, init, NULL);
    else
      s = dst ? rs_cumulative_sum_into(dst, src, axis, init, NULL) : rs_cumulative_sum(&res, src, axis, init, NULL);
  }
  rs_array_release(cast);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  return rs_py_result(s, res, out);
}
static PyObject *f_cumulative_sum(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  return do_scan(0, args, kw);
}
static PyObject *f_cumulative_prod(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  return do_scan(1, args, kw);
}

/* ---- clip ------------------------------------------------------------------------------ */
/* A bound: None, a Python scalar (weak) or an array. */
static int bound_get(PyObject *o, rs_py_operand *p, int *present) {
  *present = o != Py_None;
  p->h = NULL;
  p->keep = NULL;
  p->borrowed = 1;
  return *present ? rs_py_operand_get(o, p, 1) : 0;
}

static PyObject *f_clip(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x", "min", "max", "out", NULL};
  PyObject *a, *lo_o = Py_None, *hi_o = Py_None, *out = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO$O", kwl, &a, &lo_o, &hi_o, &out)) return NULL;
  rs_py_operand x, lo, hi;
  int has_lo, has_hi;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  if (bound_get(lo_o, &lo, &has_lo) < 0) {
    rs_py_operand_done(&x);
    return NULL;
  }
  if (bound_get(hi_o, &hi, &has_hi) < 0) {
    rs_py_operand_done(&x);
    if (has_lo) rs_py_operand_done(&lo);
    return NULL;
  }
  rs_status s = RS_OK;
  Py_BEGIN_ALLOW_THREADS
  int arrays = (has_lo && lo.h) || (has_hi && hi.h);
  int scalars = (has_lo && !lo.h) || (has_hi && !hi.h);
  rs_array *tmp = NULL;
  if (arrays && scalars) { /* one of each: the array bound first, then the scalar one */
    const rs_array *la = has_lo && lo.h ? lo.h : NULL, *ha = has_hi && hi.h ? hi.h : NULL;
    const rs_scalar *ls = has_lo && !lo.h ? &lo.s : NULL, *hs = has_hi && !hi.h ? &hi.s : NULL;
    s = rs_clip(&tmp, x.h, la, ha, NULL);
    if (s == RS_OK) s = dst ? rs_clip_scalar_into(dst, tmp, ls, hs, NULL) : rs_clip_scalar(&res, tmp, ls, hs, NULL);
    rs_array_release(tmp);
  } else if (scalars) {
    const rs_scalar *ls = has_lo ? &lo.s : NULL, *hs = has_hi ? &hi.s : NULL;
    s = dst ? rs_clip_scalar_into(dst, x.h, ls, hs, NULL) : rs_clip_scalar(&res, x.h, ls, hs, NULL);
  } else {
    const rs_array *la = has_lo ? lo.h : NULL, *ha = has_hi ? hi.h : NULL;
    s = dst ? rs_clip_into(dst, x.h, la, ha, NULL) : rs_clip(&res, x.h, la, ha, NULL);
  }
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  if (has_lo) rs_py_operand_done(&lo);
  if (has_hi) rs_py_operand_done(&hi);
  return rs_py_result(s, res, out);
}

/* ---- diff ------------------------------------------------------------------------------ */
static PyObject *f_diff(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"x", "n", "axis", "prepend", "append", "out", NULL};
  PyObject *a, *pre_o = Py_None, *app_o = Py_None, *out = Py_None;
  int n = 1, axis = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ii$OOO", kwl, &a, &n, &axis, &pre_o, &app_o, &out)) return NULL;
  rs_py_operand x, pre, app;
  int has_pre, has_app;
  rs_array *dst, *res = NULL;
  if (rs_py_get_out(out, &dst) < 0) return NULL;
  if (rs_py_operand_get(a, &x, 0) < 0) return NULL;
  pre.h = app.h = NULL;
  has_pre = pre_o != Py_None;
  has_app = app_o != Py_None;
  if ((has_pre && rs_py_operand_get(pre_o, &pre, 0) < 0) || (has_app && rs_py_operand_get(app_o, &app, 0) < 0)) {
    rs_py_operand_done(&x);
    if (has_pre && pre.h) rs_py_operand_done(&pre);
    return NULL;
  }
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = dst ? rs_diff_into(dst, x.h, n, axis, pre.h, app.h, NULL) : rs_diff(&res, x.h, n, axis, pre.h, app.h, NULL);
  Py_END_ALLOW_THREADS
  rs_py_operand_done(&x);
  if (has_pre) rs_py_operand_done(&pre);
  if (has_app) rs_py_operand_done(&app);
  return rs_py_result(s, res, out);
}

#define RS_KW_ (PyCFunction)(void (*)(void))
PyMethodDef rs_py_stats_functions[] = {
    {"var", RS_KW_ f_var, METH_VARARGS | METH_KEYWORDS,
     "var(x, axis=None, out=None, *, correction=0.0, keepdims=False, ddof=None): variance (two-pass)."},
    {"std", RS_KW_ f_std, METH_VARARGS | METH_KEYWORDS,
     "std(x, axis=None, out=None, *, correction=0.0, keepdims=False, ddof=None): standard deviation."},
    {"cumulative_sum", RS_KW_ f_cumulative_sum, METH_VARARGS | METH_KEYWORDS,
     "cumulative_sum(x, axis=None, *, dtype=None, include_initial=False, out=None): inclusive scan."},
    {"cumulative_prod", RS_KW_ f_cumulative_prod, METH_VARARGS | METH_KEYWORDS,
     "cumulative_prod(x, axis=None, *, dtype=None, include_initial=False, out=None): inclusive product scan."},
    {"clip", RS_KW_ f_clip, METH_VARARGS | METH_KEYWORDS,
     "clip(x, min=None, max=None, *, out=None): minimum(maximum(x, min), max) as NumPy 2."},
    {"diff", RS_KW_ f_diff, METH_VARARGS | METH_KEYWORDS,
     "diff(x, n=1, axis=-1, *, prepend=None, append=None, out=None): n-th discrete difference."},
    {NULL, NULL, 0, NULL}};
