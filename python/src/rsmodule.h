/* The CPython extension resident._resident: shared declarations.
 * Everything here calls libresident through its public headers only. */
#ifndef RS_PY_MODULE_H
#define RS_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <resident.h>

/* resident.ndarray: one rs_array handle (one reference) and, for memory another Python
 * object owns (a NumPy array wrapped without a copy), that owner, kept alive while any
 * view of it lives. */
typedef struct {
  PyObject_HEAD
  rs_array *a;
  PyObject *base;   /* keeps wrapped host memory alive; NULL for the library's own */
  PyObject *weakrefs;
  Py_ssize_t shape[RS_MAX_DIMS];
  Py_ssize_t strides[RS_MAX_DIMS];
} RsArray;

extern PyTypeObject RsArray_Type;
#define RsArray_Check(o) PyObject_TypeCheck(o, &RsArray_Type)

/* module.c: the context, errors, dtypes and memory kinds */
rs_context *rs_py_ctx(void);                  /* the process's context, made at first use */
int rs_py_check(rs_status s);                 /* 0 when RS_OK, else -1 with an exception */
PyObject *rs_py_raise(rs_status s);           /* sets the exception, returns NULL */
PyObject *rs_py_numpy(void);                  /* borrowed numpy module */
PyObject *rs_py_dtype_object(rs_dtype d);     /* borrowed numpy.dtype */
int rs_py_dtype_from(PyObject *o, rs_dtype *out); /* NumPy dtype-like -> rs_dtype; -1 + TypeError */
int rs_py_kind_from(PyObject *o, rs_mem_kind *out, rs_mem_kind dflt); /* None -> dflt */
const char *rs_py_format(rs_dtype d);         /* PEP 3118 format */
int rs_py_dtype_from_format(const char *fmt, Py_ssize_t itemsize, rs_dtype *out);
int rs_py_shape_from(PyObject *o, int *ndim, int64_t *shape); /* int or sequence */
int rs_py_axes_from(PyObject *o, int *naxes, int *axes);       /* None -> naxes = -1 */
void rs_py_defer_decref(void *obj);           /* rs_release_fn: drop a reference later, GIL-free */

/* array.c, array_index.c */
extern PyTypeObject RsBufferOwner_Type;
extern PyBufferProcs rs_py_array_buffer;
PyObject *rs_py_view_of(RsArray *self, rs_status s, rs_array *v); /* a view sharing self's owner */
PyObject *rs_py_index_view(RsArray *self, PyObject *key);
void rs_py_array_finish_type(void);
PyObject *rs_py_wrap(rs_array *a, PyObject *base); /* steals a; NULL + exception on failure */
/* Anything array-like to an rs_array handle (a new reference in *out, release it):
 * resident arrays, buffer-protocol objects and NumPy arrays (wrapped as host memory, no
 * copy), objects with __cuda_array_interface__ or __dlpack__ (wrapped device memory),
 * nested sequences (through numpy.asarray). *keep receives an object to hold until the
 * handle is released (or NULL). */
int rs_py_as_handle(PyObject *o, rs_array **out, PyObject **keep);

/* ops_operand.c: an operand is a handle (h) or, where allowed, a weak Python scalar (s). */
typedef struct {
  rs_array *h;   /* NULL for a scalar */
  rs_scalar s;
  PyObject *keep;
  int borrowed;   /* h is a resident.ndarray's own handle, alive for the call: not released */
} rs_py_operand;
int rs_py_scalar(PyObject *o, rs_scalar *s);            /* 1 scalar, 0 not one, -1 error */
int rs_py_operand_get(PyObject *o, rs_py_operand *p, int allow_scalar);
void rs_py_operand_done(rs_py_operand *p);
/* Two array operands at once: on failure neither is held (-1, the Python error set). */
int rs_py_operand_pair(PyObject *a, PyObject *b, rs_py_operand *x, rs_py_operand *y);
/* The shape of every two-operand function with out=: operands a and b (arrays or what
 * asarray takes), then fn(&res, NULL, ...) for a new result or fn(NULL, dst, ...) into out. */
typedef rs_status (*rs_py_two_fn)(rs_array **out, rs_array *dst, const rs_array *a, const rs_array *b, void *arg);
PyObject *rs_py_call_two(PyObject *a, PyObject *b, PyObject *out, rs_py_two_fn fn, void *arg);
int rs_py_get_out(PyObject *out, rs_array **dst);       /* None -> NULL */
PyObject *rs_py_result(rs_status s, rs_array *res, PyObject *out); /* out, or res wrapped */

/* ops_elementwise.c, ops_reduce.c, ops_create.c */
int rs_py_ops_init(PyObject *m);                        /* the ufuncs */
int rs_py_assign(rs_array *dst, PyObject *value);       /* x[...] = value */
extern PyNumberMethods rs_py_number_methods;
extern PyMappingMethods rs_py_mapping_methods;
PyObject *rs_py_richcompare(PyObject *a, PyObject *b, int op);
extern PyMethodDef rs_py_ew_methods[], rs_py_reduce_methods[];
extern PyMethodDef rs_py_ew_functions[], rs_py_reduce_functions[], rs_py_create_functions[];
extern PyMethodDef rs_py_linalg_functions[]; /* linalg extension (ops_linalg.c) */

/* interop.c */
extern PyMethodDef rs_py_interop_functions[];
PyObject *rs_py_array_dlpack(PyObject *self, PyObject *args, PyObject *kw);
PyObject *rs_py_array_dlpack_device(PyObject *self, PyObject *noargs);
PyObject *rs_py_array_cai(PyObject *self, void *closure);
int rs_py_import_foreign(PyObject *o, rs_array **out); /* 1 done, 0 not foreign, -1 error */

/* expr.c: fused expressions for resident.fuse; a fuse node (resident._fuse._Node) is
 * handed to its own methods by the ufuncs and where */
extern PyMethodDef rs_py_expr_functions[];

/* ledger.c, kernel.c */
PyObject *rs_py_memory_report_text(void); /* rs_memory_report as a str */
extern PyMethodDef rs_py_ledger_functions[];
extern PyMethodDef rs_py_kernel_functions[];
/* ops_stats.c: var, std, cumulative_sum/prod, clip, diff (stats) */
extern PyMethodDef rs_py_stats_functions[];

/* ops_manip.c: manipulation and creation to the array API standard (issue 18) */
extern PyMethodDef rs_py_manip_functions[];
/* comm.c: collectives between processes (resident/_comm.py) */
extern PyMethodDef rs_py_comm_functions[];
/* ops_index.c: indexing, searching, sets; integer-array and boolean-mask keys */
extern PyMethodDef rs_py_index_functions[];
int rs_py_fancy_key(PyObject *key);
PyObject *rs_py_fancy_get(RsArray *self, PyObject *key);
int rs_py_fancy_set(RsArray *self, PyObject *key, PyObject *value);
int rs_py_tuple_fancy_key(PyObject *key);
PyObject *rs_py_tuple_fancy_get(RsArray *self, PyObject *key);
int rs_py_tuple_fancy_set(RsArray *self, PyObject *key, PyObject *value);

#endif
