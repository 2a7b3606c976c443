/* The ledger, the guard, the benchmark and memory statistics, for the Python layer
 * (resident/_ledger.py makes the context managers). */
#include "rsmodule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text a library function prints into a FILE *. */
typedef rs_status (*print_fn)(void *arg, FILE *f);
static PyObject *capture(print_fn fn, void *arg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return PyErr_NoMemory();
  rs_status s = fn(arg, f);
  fclose(f);
  PyObject *r = s == RS_OK ? PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "replace") : rs_py_raise(s);
  free(buf);
  return r;
}

static const char *const dir_names[] = {"h2d", "d2h", "d2d", "h2h", "p2p"};
_Static_assert(sizeof dir_names / sizeof dir_names[0] == RS_DIRECTIONS, "a name for every ledger direction");

static PyObject *stats_dict(const rs_ledger_stats *st) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  PyObject *raw = PyBytes_FromStringAndSize((const char *)st, sizeof *st);
  PyObject *v;
#define SET_(key, val)                                  \
  v = (val);                                            \
  if (!v || PyDict_SetItemString(d, key, v) < 0) goto fail; \
  Py_DECREF(v);
  SET_("_raw", raw);
  raw = NULL;
  SET_("copies", PyLong_FromLongLong(rs_ledger_copies(st, -1)));
  SET_("bytes", PyLong_FromLongLong(rs_ledger_bytes(st, -1)));
  SET_("implicit_copies", PyLong_FromLongLong(rs_ledger_copies(st, 1)));
  SET_("explicit_copies", PyLong_FromLongLong(rs_ledger_copies(st, 0)));
  SET_("implicit_bytes", PyLong_FromLongLong(rs_ledger_bytes(st, 1)));
  SET_("explicit_bytes", PyLong_FromLongLong(rs_ledger_bytes(st, 0)));
  SET_("copy_ms", PyFloat_FromDouble(rs_ledger_copy_ms(st)));
  SET_("kernels", PyLong_FromLongLong(st->kernels));
  SET_("kernel_host_ms", PyFloat_FromDouble(st->kernel_host_ms));
  SET_("kernel_device_ms", PyFloat_FromDouble(st->kernel_device_ms));
  SET_("waits", PyLong_FromLongLong(st->waits));
  SET_("wait_ms", PyFloat_FromDouble(st->wait_ms));
  for (int dir = 0; dir < RS_DIRECTIONS; dir++) {
    PyObject *e = Py_BuildValue("{s:L,s:L,s:L,s:L,s:d,s:d}", "explicit", (long long)st->copies[dir][0],
                                "implicit", (long long)st->copies[dir][1], "explicit_bytes",
                                (long long)st->bytes[dir][0], "implicit_bytes", (long long)st->bytes[dir][1],
                                "explicit_ms", st->copy_device_ms[dir][0] >= 0 ? st->copy_device_ms[dir][0] : st->copy_host_ms[dir][0],
                                "implicit_ms", st->copy_device_ms[dir][1] >= 0 ? st->copy_device_ms[dir][1] : st->copy_host_ms[dir][1]);
    SET_(dir_names[dir], e);
  }
#undef SET_
  return d;
fail:
  Py_XDECREF(raw);
  Py_DECREF(d);
  return NULL;
}

static PyObject *f_ledger_begin(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  int64_t count, dropped;
  if (rs_py_check(rs_ledger_count(ctx, &count, &dropped))) return NULL;
  if (rs_py_check(rs_ledger_begin(ctx))) return NULL;
  return PyLong_FromLongLong(count + dropped); /* position of the scope's first entry */
}

/* The stats a getter gives (it waits for device times: without the GIL), as a dict. */
static PyObject *stats_from(rs_status (*get)(rs_context *, rs_ledger_stats *)) {
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_ledger_stats st;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = get(ctx, &st);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  return stats_dict(&st);
}

static PyObject *f_ledger_end(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  return stats_from(rs_ledger_end);
}

static PyObject *f_ledger_totals(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  return stats_from(rs_ledger_get_stats);
}

static PyObject *f_ledger_reset(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx || rs_py_check(rs_ledger_reset(ctx))) return NULL;
  Py_RETURN_NONE;
}

/* Entries from absolute position `first` (as _ledger_begin returned) to the end. */
static PyObject *f_ledger_entries(PyObject *m, PyObject *args) {
  (void)m;
  long long first;
  if (!PyArg_ParseTuple(args, "L", &first)) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  int64_t count, dropped;
  if (rs_py_check(rs_ledger_count(ctx, &count, &dropped))) return NULL;
  PyObject *list = PyList_New(0);
  if (!list) return NULL;
  int64_t start = first - dropped;
  if (start < 0) start = 0;
  for (int64_t i = start; i < count; i++) {
    rs_ledger_entry e;
    if (rs_py_check(rs_ledger_entry_at(ctx, i, &e))) goto fail;
    static const char *const kinds[] = {"copy", "kernel", "wait", "prefetch", "graph", "collective"};
    const char *kind = (unsigned)e.kind < sizeof kinds / sizeof kinds[0] ? kinds[e.kind] : "unknown";
    int has_dir = e.kind == RS_ENTRY_COPY || e.kind == RS_ENTRY_PREFETCH;
    PyObject *d = Py_BuildValue("{s:s,s:s,s:O,s:n,s:s,s:i,s:d,s:d,s:d}", "kind", kind, "direction",
                                has_dir ? rs_direction_name(e.dir) : "", "implicit",
                                e.implicit ? Py_True : Py_False, "bytes", (Py_ssize_t)e.bytes, "cause", e.cause,
                                "arg", e.arg, "host_start_ms", e.host_start_ms, "host_ms", e.host_ms,
                                "device_ms", e.device_ms);
    if (!d || PyList_Append(list, d) < 0) {
      Py_XDECREF(d);
      goto fail;
    }
    Py_DECREF(d);
  }
  return list;
fail:
  Py_DECREF(list);
  return NULL;
}

typedef struct {
  rs_ledger_stats st;
  double wall, bw;
} print_args;
static rs_status print_ledger(void *arg, FILE *f) {
  print_args *p = arg;
  return rs_ledger_print(&p->st, p->wall, p->bw, f);
}

static PyObject *f_ledger_format(PyObject *m, PyObject *args) {
  (void)m;
  Py_buffer raw;
  print_args p;
  if (!PyArg_ParseTuple(args, "y*dd", &raw, &p.wall, &p.bw)) return NULL;
  if (raw.len != (Py_ssize_t)sizeof p.st) {
    PyBuffer_Release(&raw);
    PyErr_SetString(PyExc_ValueError, "not ledger statistics");
    return NULL;
  }
  memcpy(&p.st, raw.buf, sizeof p.st);
  PyBuffer_Release(&raw);
  return capture(print_ledger, &p);
}

/* ---- the guard ------------------------------------------------------------------------- */
static int parse_dir(PyObject *o, rs_direction *d) {
  if (o == Py_None) {
    *d = RS_ALL_DIRECTIONS;
    return 0;
  }
  const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
  for (int i = 0; s && i < RS_DIRECTIONS; i++)
    if (!strcasecmp(s, dir_names[i])) {
      *d = (rs_direction)i;
      return 0;
    }
  PyErr_Format(PyExc_ValueError, "direction %R: expected 'h2d', 'd2h', 'd2d', 'h2h' or None", o);
  return -1;
}

static PyObject *f_guard_push(PyObject *m, PyObject *args) {
  (void)m;
  const char *mode;
  PyObject *diro = Py_None;
  if (!PyArg_ParseTuple(args, "s|O", &mode, &diro)) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  rs_direction dir;
  if (parse_dir(diro, &dir) < 0) return NULL;
  rs_guard_mode modes[RS_DIRECTIONS];
  for (int i = 0; i < RS_DIRECTIONS; i++) rs_guard_get(ctx, (rs_direction)i, &modes[i]);
  if (strchr(mode, '=')) { /* "h2d=disallow,d2h=log": one push per direction named */
    rs_guard_mode want[RS_DIRECTIONS];
    memcpy(want, modes, sizeof want);
    if (rs_py_check(rs_guard_parse(mode, want))) return NULL;
    if (rs_py_check(rs_guard_push(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW))) return NULL;
    for (int i = 0; i < RS_DIRECTIONS; i++) rs_guard_set(ctx, (rs_direction)i, want[i]);
    Py_RETURN_NONE;
  }
  rs_guard_mode parsed[RS_DIRECTIONS];
  if (rs_py_check(rs_guard_parse(mode, parsed))) return NULL;
  if (rs_py_check(rs_guard_push(ctx, dir, parsed[0]))) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_guard_pop(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx || rs_py_check(rs_guard_pop(ctx))) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_guard_get(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  PyObject *d = PyDict_New();
  for (int i = 0; d && i < RS_DIRECTIONS; i++) {
    rs_guard_mode md;
    if (rs_py_check(rs_guard_get(ctx, (rs_direction)i, &md))) {
      Py_DECREF(d);
      return NULL;
    }
    PyObject *v = PyUnicode_FromString(rs_guard_mode_name(md));
    if (!v || PyDict_SetItemString(d, dir_names[i], v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(v);
  }
  return d;
}

/* ---- benchmark ------------------------------------------------------------------------- */
typedef struct {
  PyObject *fn, *args, *kw;
  int failed;
} bench_call;

static rs_status bench_cb(void *user) {
  bench_call *c = user;
  PyObject *r = PyObject_Call(c->fn, c->args, c->kw);
  if (!r) {
    c->failed = 1;
    return RS_ERR_STATE; /* stops the benchmark; the Python exception is kept */
  }
  Py_DECREF(r);
  return RS_OK;
}

static rs_status print_bench(void *arg, FILE *f) { return rs_bench_print(arg, f); }

static PyObject *f_benchmark(PyObject *m, PyObject *args, PyObject *kw) {
  (void)m;
  static char *kwl[] = {"func", "args", "kwargs", "n_repeat", "n_warmup", "name", NULL};
  bench_call c = {NULL, NULL, NULL, 0};
  PyObject *fargs = NULL, *fkw = Py_None, *nameo = Py_None;
  int n_repeat = 10000, n_warmup = 10;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOiiO", kwl, &c.fn, &fargs, &fkw, &n_repeat, &n_warmup, &nameo))
    return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  c.args = fargs && fargs != Py_None ? PySequence_Tuple(fargs) : PyTuple_New(0);
  if (!c.args) return NULL;
  c.kw = fkw == Py_None ? NULL : fkw;
  PyObject *nm = nameo == Py_None ? PyObject_GetAttrString(c.fn, "__name__") : PyObject_Str(nameo);
  if (!nm) {
    PyErr_Clear();
    nm = PyUnicode_FromString("benchmark");
  }
  const char *name = nm ? PyUnicode_AsUTF8(nm) : "benchmark";
  rs_bench_options o = rs_bench_defaults();
  o.n_repeat = n_repeat;
  o.n_warmup = n_warmup;
  rs_bench_result res;
  memset(&res, 0, sizeof res);
  /* The callback calls Python: the GIL stays held (the waits inside are short syncs). */
  rs_status s = rs_benchmark(ctx, name ? name : "benchmark", bench_cb, &c, &o, &res);
  Py_DECREF(c.args);
  Py_XDECREF(nm);
  if (c.failed) {
    rs_bench_result_destroy(&res);
    return NULL;
  }
  if (rs_py_check(s)) return NULL;
  PyObject *host = PyList_New(res.n_repeat), *dev = PyList_New(res.n_repeat);
  for (int i = 0; host && dev && i < res.n_repeat; i++) {
    PyList_SET_ITEM(host, i, PyFloat_FromDouble(res.host_ms[i]));
    PyList_SET_ITEM(dev, i, PyFloat_FromDouble(res.device_ms[i]));
  }
  PyObject *text = capture(print_bench, &res);
  PyObject *r = (host && dev && text)
                    ? Py_BuildValue("{s:s,s:O,s:O,s:L,s:L,s:d,s:O,s:N}", "name", res.name, "host_ms", host,
                                    "device_ms", dev, "copies", (long long)res.copies, "bytes",
                                    (long long)res.bytes, "copy_ms", res.copy_ms, "text", text, "copies_total",
                                    stats_dict(&res.copies_total))
                    : NULL;
  Py_XDECREF(host);
  Py_XDECREF(dev);
  Py_XDECREF(text);
  rs_bench_result_destroy(&res);
  return r;
}

/* ---- memory ---------------------------------------------------------------------------- */
static int parse_space(const char *s, rs_mem_space *sp) {
  if (!s || !strcmp(s, "device")) *sp = RS_SPACE_DEVICE;
  else if (!strcmp(s, "pinned")) *sp = RS_SPACE_PINNED;
  else {
    PyErr_Format(PyExc_ValueError, "memory space '%s': expected 'device' or 'pinned'", s);
    return -1;
  }
  return 0;
}

static PyObject *f_memory_stats(PyObject *m, PyObject *args) {
  (void)m;
  const char *sps = NULL;
  if (!PyArg_ParseTuple(args, "|s", &sps)) return NULL;
  rs_mem_space sp;
  rs_context *ctx = rs_py_ctx();
  if (!ctx || parse_space(sps, &sp) < 0) return NULL;
  rs_memory_stats st;
  if (rs_py_check(rs_memory_get_stats(ctx, sp, &st))) return NULL;
  return Py_BuildValue("{s:s,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "allocator", st.name,
                       "in_use_bytes", (long long)st.in_use_bytes, "requested_bytes", (long long)st.requested_bytes,
                       "cached_bytes", (long long)st.cached_bytes, "reserved_bytes", (long long)st.reserved_bytes,
                       "peak_in_use_bytes", (long long)st.peak_in_use_bytes, "peak_reserved_bytes",
                       (long long)st.peak_reserved_bytes, "allocations", (long long)st.allocations, "frees",
                       (long long)st.frees, "hits", (long long)st.hits, "misses", (long long)st.misses,
                       "segments", (long long)st.segments, "pending_frees", (long long)st.pending_frees,
                       "oom_failures", (long long)st.oom_failures, "limit_bytes", (long long)st.limit_bytes,
                       "device_total_bytes", (long long)st.device_total_bytes);
}

static rs_status print_report(void *ctx, FILE *f) { return rs_memory_report(ctx, f); }
PyObject *rs_py_memory_report_text(void) {
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  return capture(print_report, ctx);
}

static PyObject *f_memory_report(PyObject *m, PyObject *noargs) {
  (void)m; (void)noargs;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  return capture(print_report, ctx);
}

static PyObject *f_memory_set_limit(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *limit;
  const char *sps = NULL;
  if (!PyArg_ParseTuple(args, "O|s", &limit, &sps)) return NULL;
  rs_mem_space sp;
  rs_context *ctx = rs_py_ctx();
  if (!ctx || parse_space(sps, &sp) < 0) return NULL;
  rs_status s;
  if (limit == Py_None) s = rs_memory_set_limit(ctx, sp, 0);
  else if (PyFloat_Check(limit)) s = rs_memory_set_limit_fraction(ctx, PyFloat_AsDouble(limit));
  else if (PyUnicode_Check(limit)) {
    size_t b;
    s = rs_parse_bytes(PyUnicode_AsUTF8(limit), &b);
    if (s == RS_OK) s = rs_memory_set_limit(ctx, sp, b);
  } else {
    unsigned long long b = PyLong_AsUnsignedLongLong(limit);
    if (PyErr_Occurred()) return NULL;
    s = rs_memory_set_limit(ctx, sp, (size_t)b);
  }
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

static PyObject *f_memory_release(PyObject *m, PyObject *args) {
  (void)m;
  const char *sps = NULL;
  if (!PyArg_ParseTuple(args, "|s", &sps)) return NULL;
  rs_mem_space sp;
  rs_context *ctx = rs_py_ctx();
  if (!ctx || parse_space(sps, &sp) < 0) return NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_memory_release(ctx, sp);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  Py_RETURN_NONE;
}

/* Raw allocations from the context's allocator (the CuPy allocator and the Numba EMM
 * plugin of resident/interop.py). */
static PyObject *f_memory_alloc(PyObject *m, PyObject *args) {
  (void)m;
  unsigned long long n;
  if (!PyArg_ParseTuple(args, "K", &n)) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx) return NULL;
  void *p = NULL;
  rs_status s;
  Py_BEGIN_ALLOW_THREADS
  s = rs_memory_alloc(&p, ctx, (size_t)n, NULL);
  Py_END_ALLOW_THREADS
  if (rs_py_check(s)) return NULL;
  return PyLong_FromVoidPtr(p);
}
static PyObject *f_memory_free(PyObject *m, PyObject *args) {
  (void)m;
  PyObject *po;
  if (!PyArg_ParseTuple(args, "O", &po)) return NULL;
  void *p = PyLong_AsVoidPtr(po);
  if (PyErr_Occurred()) return NULL;
  rs_context *ctx = rs_py_ctx();
  if (!ctx || rs_py_check(rs_memory_free(ctx, p, NULL))) return NULL;
  Py_RETURN_NONE;
}

#define RS_KW_ (PyCFunction)(void (*)(void))
PyMethodDef rs_py_ledger_functions[] = {
    {"_ledger_begin", (PyCFunction)f_ledger_begin, METH_NOARGS, NULL},
    {"_ledger_end", (PyCFunction)f_ledger_end, METH_NOARGS, NULL},
    {"_ledger_totals", (PyCFunction)f_ledger_totals, METH_NOARGS, NULL},
    {"_ledger_reset", (PyCFunction)f_ledger_reset, METH_NOARGS, NULL},
    {"_ledger_entries", (PyCFunction)f_ledger_entries, METH_VARARGS, NULL},
    {"_ledger_format", (PyCFunction)f_ledger_format, METH_VARARGS, NULL},
    {"_guard_push", (PyCFunction)f_guard_push, METH_VARARGS, NULL},
    {"_guard_pop", (PyCFunction)f_guard_pop, METH_NOARGS, NULL},
    {"guard_modes", (PyCFunction)f_guard_get, METH_NOARGS,
     "guard_modes() -> dict: the transfer guard's mode per direction."},
    {"_benchmark", RS_KW_ f_benchmark, METH_VARARGS | METH_KEYWORDS, NULL},
    {"memory_stats", (PyCFunction)f_memory_stats, METH_VARARGS,
     "memory_stats(space='device') -> dict: the allocator's statistics ('device' or 'pinned')."},
    {"memory_report", (PyCFunction)f_memory_report, METH_NOARGS,
     "memory_report() -> str: both spaces with the block map of every segment."},
    {"set_memory_limit", (PyCFunction)f_memory_set_limit, METH_VARARGS,
     "set_memory_limit(limit, space='device'): bytes (int), '12GiB', a fraction of device memory "
     "(float), or None for no limit."},
    {"release_memory", (PyCFunction)f_memory_release, METH_VARARGS,
     "release_memory(space='device'): give cached memory back to the device."},
    {"_memory_alloc", (PyCFunction)f_memory_alloc, METH_VARARGS, NULL},
    {"_memory_free", (PyCFunction)f_memory_free, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};
