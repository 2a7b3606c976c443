/* Internal: what the files of src/ops share - operand checks, where an op runs,
 * broadcasting, result allocation, `out` validation, running an elementwise program over
 * arrays, and staging device work (implicit copies of host operands). */
#ifndef RS_OPS_INTERNAL_H
#define RS_OPS_INTERNAL_H

#include "core/objects.h"
#include "memory/buffer.h"
#include "stream/stream.h"
#include "kernel/launch.h"
#include "ops/ew_build.h"
#include "backend/ops_table.h"
#include "ledger/ledger_hooks.h"

/* An array the op reads or writes: valid handle, and ctx (or the first array's context
 * when *ctx is NULL) - RS_ERR_INVALID_ARGUMENT for arrays of different contexts. */
rs_status rs_ops_check_arrays(rs_context **ctx, int n, const rs_array *const *arrays, const char *who);

/* 1 if the array lives on the device side (device or managed memory). */
int rs_ops_on_device(const rs_array *a);
/* Any of them on the device: the op runs there. */
int rs_ops_any_on_device(int n, const rs_array *const *arrays);

/* NumPy broadcasting of the arrays' shapes (NULL entries are skipped). */
rs_status rs_ops_broadcast(int *ndim, int64_t *shape, int n, const rs_array *const *arrays, const char *who);

/* The order NumPy's "K" would give a new result: F when every full-shape operand is
 * F-contiguous and not C-contiguous, else C. */
rs_order rs_ops_result_order(int n, const rs_array *const *arrays, int ndim, const int64_t *shape);

/* A new result array on the device or the host. */
rs_status rs_ops_alloc(rs_array **out, rs_context *ctx, int on_device, int ndim, const int64_t *shape,
                       rs_dtype dtype, rs_order order, const char *who);

/* `out` given by the caller: same context, exactly the expected shape. */
/* A new C-order array at `where` (checked), filled by fill(a, arg); released again if
 * filling fails, so *out is set only on success. */
rs_status rs_ops_create_filled(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                               rs_dtype dtype, const char *who, rs_status (*fill)(rs_array *, void *), void *arg);

rs_status rs_ops_check_out(const rs_array *out, rs_context *ctx, int ndim, const int64_t *shape,
                           const char *who);

/* ---- the result of an op ------------------------------------------------------- */

/* How the caller's `out` must match the result's dtype: not checked here (the caller
 * does), exactly, or castable "same_kind". */
typedef enum rs_ops_cast { RS_OPS_CAST_CALLER = 0, RS_OPS_CAST_EXACT, RS_OPS_CAST_SAME_KIND } rs_ops_cast;

/* THE result skeleton of every op: the op writes into `target`, which is the caller's
 * *out (checked: handle, context, shape, dtype) or a new array. A new array reaches *out
 * only when the op succeeded, and is released otherwise, so a failed op leaks nothing and
 * leaves *out alone. out == NULL: the result is not wanted (a new one is released). */
typedef struct rs_ops_result {
  rs_array **out;
  rs_array *fresh;  /* new array, or NULL when writing into the caller's */
  rs_array *target; /* where the op writes */
} rs_ops_result;

rs_status rs_ops_result_begin(rs_ops_result *r, rs_array **out, rs_context *ctx, int on_device, int ndim,
                              const int64_t *shape, rs_dtype dtype, rs_order order, rs_ops_cast cast,
                              const char *who);
/* After the op ran with status st: hand a new result over or release it. Returns st. */
rs_status rs_ops_result_end(rs_ops_result *r, rs_status st);

/* "(3, 4)" */
const char *rs_ops_shape_str(char *buf, size_t len, int ndim, const int64_t *shape);

/* Normalise an axis (negative counts from the end); RS_ERR_AXIS when out of range. */
rs_status rs_ops_axis(int *axis, int ndim, const char *who);
/* Mark the axes a reduction takes in reduced[0..ndim) (zeroed by the caller): every axis
 * when axes is NULL, else the naxes given (negative ones count from the end); an axis out of
 * range or given twice is RS_ERR_AXIS. */
rs_status rs_ops_reduced_axes(int *reduced, int ndim, int naxes, const int *axes, const char *who);

/* ---- running work where the data is ---------------------------------------------- */

/* The operands of one op: inputs are read, outputs written. After rs_ops_stage, ptr(i)
 * and strides(i) describe where the backend reaches argument i. */
typedef struct rs_ops_stage {
  const char *name;
  rs_context *ctx;
  int on_device;
  const rs_ops_table *ops; /* host table or the context's device table */
  rs_backend *be;            /* NULL on the host path */
  void *stream;              /* resolved native stream */
  rs_launch_args la;         /* device path: staging of host operands */
  rs_ledger_token token;
} rs_ops_stage;

/* Decide where the op runs, resolve the stream, copy host operands of a device op in
 * (implicitly), and open the ledger's kernel record. in[] are only read; out[] are
 * written entirely and never read, so a host out is not copied in (unless it is also an
 * input: one host buffer gets one temporary, kernel/launch.c). An op that updates an
 * array in place passes it as both an input and an output. */
rs_status rs_ops_stage_begin(rs_ops_stage *s, const char *name, rs_context *ctx, rs_stream *stream,
                             int nin, const rs_array *const *in, int nout, rs_array *const *out);
/* Address and strides of argument i where the op's code reaches it. */
char *rs_ops_stage_ptr(const rs_ops_stage *s, int i);
const int64_t *rs_ops_stage_strides(const rs_ops_stage *s, int i);
/* Close the record, copy written host operands back, free temporaries. `st` is the
 * status of the work; the first failure is returned. */
rs_status rs_ops_stage_end(rs_ops_stage *s, rs_status st);

/* ---- elementwise programs over arrays ------------------------------------------- */

/* Run a finished program: inputs broadcast to (ndim, shape), outputs exactly that shape.
 * An output overlapping an input (other than the identical view) goes through a
 * temporary. */
rs_status rs_ops_run_program(const rs_ew_program *p, const char *name, rs_context *ctx, rs_stream *stream,
                             int nin, const rs_array *const *in, int nout, rs_array *const *out, int ndim,
                             const int64_t *shape);

/* The whole life of an elementwise op: builder `b` has loaded the nin arrays of `spec`
 * (in order) and computed register `result`. With *out NULL a new result (the result's
 * dtype, where the inputs are) is allocated; else *out is checked (shape, context, dtype
 * castable "same_kind" unless spec->unsafe) and written. With no inputs, *out must be
 * given and its shape is the iteration shape. */
typedef struct rs_ew_spec {
  const char *name;
  rs_context *ctx; /* may be NULL: taken from the arrays */
  rs_stream *stream;
  int nin;
  const rs_array *in[RS_EW_MAX_ARRAYS];
  int unsafe;
} rs_ew_spec;

rs_status rs_ops_elementwise(rs_array **out, rs_ew_builder *b, int result, const rs_ew_spec *spec);

#endif
