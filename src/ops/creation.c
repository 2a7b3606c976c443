/* Creation: empty, zeros, ones, full, arange, linspace, eye - each also into an existing
 * array. Values are elementwise programs over the element index (so they run where the
 * array is, on any layout); zeros of a contiguous device array is a memset. */
#include <math.h>
#include "core/error.h"
#include "core/layout.h"
#include "core/dtype_rules.h"
#include "ops/ops_internal.h"
#include "ledger/ledger_hooks.h"

static rs_status check_where(rs_mem_kind where, const char *who) {
  if (where < RS_MEM_DEVICE || where > RS_MEM_MANAGED)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: where = %d is not a memory kind", who, (int)where);
  return RS_OK;
}

rs_status rs_empty(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                   rs_dtype dtype) {
  RS_TRY(check_where(where, "rs_empty"));
  return rs_array_alloc(out, ctx, where, 0, ndim, shape, dtype, NULL, RS_ORDER_C, "rs_empty");
}

rs_status rs_ops_create_filled(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                               rs_dtype dtype, const char *who, rs_status (*fill)(rs_array *, void *), void *arg) {
  /* Checked before anything else: each creator validates its own arguments first. */
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  RS_TRY(check_where(where, who));
  rs_array *a = NULL;
  RS_TRY(rs_array_alloc(&a, ctx, where, 0, ndim, shape, dtype, NULL, RS_ORDER_C, who));
  rs_status st = fill(a, arg);
  if (st != RS_OK) {
    rs_array_release(a);
    return st;
  }
  *out = a;
  return RS_OK;
}

/* Run a program with no inputs whose result is `reg`, into a. */
static rs_status run_into(rs_array *a, rs_ew_builder *b, int reg, rs_stream *stream) {
  rs_ew_spec spec = {.name = b->who, .ctx = a->ctx, .stream = stream, .unsafe = 1};
  rs_array *target = a;
  return rs_ops_elementwise(&target, b, reg, &spec);
}

/* zeros of a contiguous device array: every dtype's zero is all zero bits */
static int memset_zero(rs_array *a, rs_stream *stream, rs_status *st) {
  if (!rs_ops_on_device(a) || a->buf->kind != RS_MEM_DEVICE) return 0;
  if (!rs_array_is_c_contiguous(a) && !rs_array_is_f_contiguous(a)) return 0;
  void *native = NULL;
  *st = rs_stream_resolve(a->ctx, stream, &native, "rs_zeros");
  if (*st != RS_OK) return 1;
  size_t bytes = rs_array_nbytes(a);
  if (bytes == 0) return 1;
  rs_ledger_token t = rs_ledger_kernel_begin(a->ctx, "zeros", native);
  *st = a->ctx->vt->memset_async(a->ctx->be, rs_array_device_ptr(a), 0, bytes, native);
  rs_ledger_kernel_end(a->ctx, t, "zeros", native);
  return 1;
}

rs_status rs_full_into(rs_array *a, rs_scalar value, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "rs_full_into"));
  RS_TRY(rs_scalar_fits(value, a->dtype, "rs_full_into"));
  if ((int)value.kind < RS_SCALAR_BOOL || value.kind > RS_SCALAR_COMPLEX)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_full_into: scalar kind %d is not an rs_scalar_kind", (int)value.kind);
  int zero = value.kind == RS_SCALAR_BOOL || value.kind == RS_SCALAR_INT ? value.i == 0
                                                                         : value.re == 0 && value.im == 0 &&
                                                                               !signbit(value.re) && !signbit(value.im);
  rs_status st = RS_OK;
  if (zero && memset_zero(a, stream, &st)) return st;
  rs_ew_builder b;
  rs_ewb_init(&b, "fill");
  return run_into(a, &b, rs_ewb_const(&b, value, a->dtype), stream);
}

rs_status rs_zeros_into(rs_array *a, rs_stream *stream) { return rs_full_into(a, rs_scalar_int(0), stream); }
rs_status rs_ones_into(rs_array *a, rs_stream *stream) { return rs_full_into(a, rs_scalar_int(1), stream); }

typedef struct {
  rs_scalar value;
  rs_stream *stream;
} fill_arg;

static rs_status fill_cb(rs_array *a, void *arg) {
  fill_arg *f = arg;
  return rs_full_into(a, f->value, f->stream);
}

rs_status rs_zeros(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                   rs_dtype dtype, rs_stream *stream) {
  fill_arg f = {rs_scalar_int(0), stream};
  return rs_ops_create_filled(out, ctx, where, ndim, shape, dtype, "rs_zeros", fill_cb, &f);
}

rs_status rs_ones(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                  rs_dtype dtype, rs_stream *stream) {
  fill_arg f = {rs_scalar_int(1), stream};
  return rs_ops_create_filled(out, ctx, where, ndim, shape, dtype, "rs_ones", fill_cb, &f);
}

rs_status rs_full(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                  rs_dtype dtype, rs_scalar value, rs_stream *stream) {
  if (rs_dtype_valid(dtype)) RS_TRY(rs_scalar_fits(value, dtype, "rs_full"));
  fill_arg f = {value, stream};
  return rs_ops_create_filled(out, ctx, where, ndim, shape, dtype, "rs_full", fill_cb, &f);
}

/* ---- the _like forms: like's shape, dtype and order (C when like is not contiguous) ---- */

static rs_status like_filled(rs_array **out, const rs_array *like, rs_mem_kind where, const char *who,
                             const fill_arg *f) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  RS_TRY(rs_array_check(like, who));
  RS_TRY(check_where(where, who));
  rs_array *a = NULL;
  RS_TRY(rs_array_alloc_like(&a, like, where, 0, who));
  rs_status st = f ? rs_full_into(a, f->value, f->stream) : RS_OK;
  if (st != RS_OK) {
    rs_array_release(a);
    return rs_fail_prefix(st, "%s: ", who);
  }
  *out = a;
  return RS_OK;
}

rs_status rs_empty_like(rs_array **out, const rs_array *like, rs_mem_kind where) {
  return like_filled(out, like, where, "rs_empty_like", NULL);
}

rs_status rs_zeros_like(rs_array **out, const rs_array *like, rs_mem_kind where, rs_stream *stream) {
  fill_arg f = {rs_scalar_int(0), stream};
  return like_filled(out, like, where, "rs_zeros_like", &f);
}

rs_status rs_ones_like(rs_array **out, const rs_array *like, rs_mem_kind where, rs_stream *stream) {
  fill_arg f = {rs_scalar_int(1), stream};
  return like_filled(out, like, where, "rs_ones_like", &f);
}

rs_status rs_full_like(rs_array **out, const rs_array *like, rs_mem_kind where, rs_scalar value,
                       rs_stream *stream) {
  if (out) *out = NULL;
  RS_TRY(rs_array_check(like, "rs_full_like"));
  RS_TRY(rs_scalar_fits(value, like->dtype, "rs_full_like"));
  fill_arg f = {value, stream};
  return like_filled(out, like, where, "rs_full_like", &f);
}

/* ---- arange ---- */

static int integral(double v) { return isfinite(v) && v == floor(v) && fabs(v) < 9.2e18; }

rs_status rs_arange_into(rs_array *a, double start, double step, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "rs_arange_into"));
  if (!isfinite(start) || !isfinite(step))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "arange: start %g and step %g must be finite", start, step);
  rs_ew_builder b;
  rs_ewb_init(&b, "arange");
  int i = rs_ewb_index(&b), v;
  if ((rs_dtype_is_integer(a->dtype) || a->dtype == RS_BOOL) && integral(start) && integral(step)) {
    /* exact in integers */
    v = rs_ewb_binary(&b, RS_OP_MULTIPLY, i, rs_ewb_const(&b, rs_scalar_int((int64_t)step), RS_INT64));
    v = rs_ewb_binary(&b, RS_OP_ADD, v, rs_ewb_const(&b, rs_scalar_int((int64_t)start), RS_INT64));
  } else {
    int f = rs_ewb_cast(&b, i, RS_FLOAT64);
    v = rs_ewb_binary(&b, RS_OP_MULTIPLY, f, rs_ewb_const(&b, rs_scalar_float(step), RS_FLOAT64));
    v = rs_ewb_binary(&b, RS_OP_ADD, v, rs_ewb_const(&b, rs_scalar_float(start), RS_FLOAT64));
  }
  return run_into(a, &b, v, stream);
}

typedef struct {
  double start, step;
  rs_stream *stream;
} arange_arg;

static rs_status arange_cb(rs_array *a, void *arg) {
  arange_arg *r = arg;
  return rs_arange_into(a, r->start, r->step, r->stream);
}

rs_status rs_arange(rs_array **out, rs_context *ctx, rs_mem_kind where, double start, double stop, double step,
                    rs_dtype dtype, rs_stream *stream) {
  if (!(step != 0) || !isfinite(start) || !isfinite(stop) || !isfinite(step))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_arange(%g, %g, %g): step must be nonzero and all finite", start,
                   stop, step);
  double len = ceil((stop - start) / step);
  if (!(len < 9e18)) return rs_fail(RS_ERR_OVERFLOW, "rs_arange(%g, %g, %g): too many elements", start, stop, step);
  int64_t n = len > 0 ? (int64_t)len : 0;
  arange_arg r = {start, step, stream};
  return rs_ops_create_filled(out, ctx, where, 1, &n, dtype, "rs_arange", arange_cb, &r);
}

/* ---- linspace ---- */

rs_status rs_linspace_into(rs_array *a, double start, double stop, int endpoint, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "rs_linspace_into"));
  if (a->ndim != 1) return rs_fail(RS_ERR_SHAPE, "linspace: the array must be 1-d, it has %d dimensions", a->ndim);
  int64_t num = a->shape[0];
  int64_t div = endpoint ? num - 1 : num;
  double step = div > 0 ? (stop - start) / (double)div : 0.0;
  rs_ew_builder b;
  rs_ewb_init(&b, "linspace");
  int i = rs_ewb_index(&b);
  int f = rs_ewb_cast(&b, i, RS_FLOAT64);
  int v = rs_ewb_binary(&b, RS_OP_MULTIPLY, f, rs_ewb_const(&b, rs_scalar_float(step), RS_FLOAT64));
  v = rs_ewb_binary(&b, RS_OP_ADD, v, rs_ewb_const(&b, rs_scalar_float(start), RS_FLOAT64));
  if (endpoint && num > 1) { /* the last value is stop exactly, as NumPy sets it */
    int last = rs_ewb_binary(&b, RS_OP_EQUAL, i, rs_ewb_const(&b, rs_scalar_int(num - 1), RS_INT64));
    v = rs_ewb_where(&b, last, rs_ewb_const(&b, rs_scalar_float(stop), RS_FLOAT64), v);
  }
  if (rs_dtype_is_integer(a->dtype)) v = rs_ewb_unary(&b, RS_OP_FLOOR, v); /* NumPy 2 rounds down */
  return run_into(a, &b, v, stream);
}

typedef struct {
  double start, stop;
  int endpoint;
  rs_stream *stream;
} linspace_arg;

static rs_status linspace_cb(rs_array *a, void *arg) {
  linspace_arg *l = arg;
  return rs_linspace_into(a, l->start, l->stop, l->endpoint, l->stream);
}

rs_status rs_linspace(rs_array **out, rs_context *ctx, rs_mem_kind where, double start, double stop, int64_t num,
                      int endpoint, rs_dtype dtype, rs_stream *stream) {
  if (num < 0)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_linspace: number of samples, %lld, must be non-negative",
                   (long long)num);
  linspace_arg l = {start, stop, endpoint, stream};
  return rs_ops_create_filled(out, ctx, where, 1, &num, dtype, "rs_linspace", linspace_cb, &l);
}

/* ---- eye ---- */

rs_status rs_eye_into(rs_array *a, int64_t k, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "rs_eye_into"));
  if (a->ndim != 2) return rs_fail(RS_ERR_SHAPE, "eye: the array must be 2-d, it has %d dimensions", a->ndim);
  int64_t m = a->shape[1] > 0 ? a->shape[1] : 1;
  rs_ew_builder b;
  rs_ewb_init(&b, "eye");
  int i = rs_ewb_index(&b);
  int cols = rs_ewb_const(&b, rs_scalar_int(m), RS_INT64);
  int row = rs_ewb_binary(&b, RS_OP_FLOOR_DIVIDE, i, cols);
  int col = rs_ewb_binary(&b, RS_OP_REMAINDER, i, cols);
  int diag = rs_ewb_binary(&b, RS_OP_SUBTRACT, col, row);
  int on = rs_ewb_binary(&b, RS_OP_EQUAL, diag, rs_ewb_const(&b, rs_scalar_int(k), RS_INT64));
  return run_into(a, &b, on, stream);
}

typedef struct {
  int64_t k;
  rs_stream *stream;
} eye_arg;

static rs_status eye_cb(rs_array *a, void *arg) {
  eye_arg *e = arg;
  return rs_eye_into(a, e->k, e->stream);
}

rs_status rs_eye(rs_array **out, rs_context *ctx, rs_mem_kind where, int64_t n, int64_t m, int64_t k,
                 rs_dtype dtype, rs_stream *stream) {
  if (n < 0) return rs_fail(RS_ERR_SHAPE, "rs_eye: n = %lld is negative", (long long)n);
  int64_t shape[2] = {n, m < 0 ? n : m};
  eye_arg e = {k, stream};
  return rs_ops_create_filled(out, ctx, where, 2, shape, dtype, "rs_eye", eye_cb, &e);
}
