/* Random numbers into new or existing arrays: argument checks and the plan; the
 * generator itself is the backend's (counter-based, see resident/random.h). */
#include <math.h>
#include <string.h>
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/ops_internal.h"
#include "resident/random.h"

/* Fill a with the distribution that plan (kind and its parameters) describes. */
static rs_status fill_random(rs_array *a, rs_rng *rng, rs_random_plan plan, rs_stream *stream, const char *name) {
  rs_random_plan *p = &plan;
  if (!rng) return rs_fail(RS_ERR_NULL_POINTER, "%s: rng is NULL", name);
  int64_t count = rs_array_size(a);
  if (count == 0) return RS_OK;
  rs_ops_stage s;
  RS_TRY(rs_ops_stage_begin(&s, name, a->ctx, stream, 0, NULL, 1, &a));
  p->dtype = a->dtype;
  p->seed = rng->seed;
  p->offset = rng->offset;
  p->ptr = rs_ops_stage_ptr(&s, 0);
  p->ndim = a->ndim;
  memcpy(p->shape, a->shape, (size_t)a->ndim * sizeof(int64_t));
  memcpy(p->strides, rs_ops_stage_strides(&s, 0), (size_t)a->ndim * sizeof(int64_t));
  p->count = count;
  rs_status st = s.ops->random(s.be, p, s.stream);
  st = rs_ops_stage_end(&s, st);
  if (st == RS_OK) rng->offset += (uint64_t)count;
  return st;
}

static rs_status check_float(const rs_array *a, const char *name) {
  RS_TRY(rs_array_check(a, name));
  if (!rs_dtype_is_float(a->dtype) && !rs_dtype_is_complex(a->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: needs a float or complex array, not %s", name, rs_dtype_name(a->dtype));
  return RS_OK;
}

rs_status rs_random_uniform_into(rs_array *a, rs_rng *rng, double low, double high, rs_stream *stream) {
  const char *name = "random_uniform";
  RS_TRY(check_float(a, name));
  if (!(low < high) || !isfinite(low) || !isfinite(high))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: needs finite low < high, got [%g, %g)", name, low, high);
  return fill_random(a, rng, (rs_random_plan){.kind = RS_RANDOM_UNIFORM, .a = low, .b = high}, stream, name);
}

rs_status rs_random_normal_into(rs_array *a, rs_rng *rng, double mean, double stddev, rs_stream *stream) {
  const char *name = "random_normal";
  RS_TRY(check_float(a, name));
  if (!(stddev >= 0) || !isfinite(mean) || !isfinite(stddev))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: needs a finite mean and stddev >= 0, got %g, %g", name, mean, stddev);
  return fill_random(a, rng, (rs_random_plan){.kind = RS_RANDOM_NORMAL, .a = mean, .b = stddev}, stream, name);
}

/* The range of an integer dtype as int64 (uint64's top is clipped to INT64_MAX: the
 * bounds are int64). */
static void int_range(rs_dtype dt, int64_t *lo, int64_t *hi) {
  switch (dt) {
    case RS_BOOL: *lo = 0, *hi = 1; break;
    case RS_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case RS_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case RS_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case RS_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case RS_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case RS_UINT32: *lo = 0, *hi = UINT32_MAX; break;
    case RS_UINT64: *lo = 0, *hi = INT64_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
  }
}

rs_status rs_random_integers_into(rs_array *a, rs_rng *rng, int64_t low, int64_t high, rs_stream *stream) {
  const char *name = "random_integers";
  RS_TRY(rs_array_check(a, name));
  if (!rs_dtype_is_integer(a->dtype) && a->dtype != RS_BOOL)
    return rs_fail(RS_ERR_DTYPE, "%s: needs an integer or bool array, not %s", name, rs_dtype_name(a->dtype));
  if (low >= high) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: low (%lld) >= high (%lld)", name, (long long)low, (long long)high);
  int64_t lo, hi;
  int_range(a->dtype, &lo, &hi);
  if (low < lo || high - 1 > hi)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: [%lld, %lld) is out of bounds for %s", name, (long long)low,
                   (long long)high, rs_dtype_name(a->dtype));
  return fill_random(a, rng, (rs_random_plan){.kind = RS_RANDOM_INTEGERS, .lo = low, .hi = high}, stream, name);
}


typedef struct {
  rs_rng *rng;
  double x, y;
  int64_t lo, hi;
  rs_stream *stream;
  int kind;
} rand_arg;

static rs_status fill_cb(rs_array *a, void *arg) {
  rand_arg *r = arg;
  switch (r->kind) {
    case RS_RANDOM_UNIFORM: return rs_random_uniform_into(a, r->rng, r->x, r->y, r->stream);
    case RS_RANDOM_NORMAL: return rs_random_normal_into(a, r->rng, r->x, r->y, r->stream);
    default: return rs_random_integers_into(a, r->rng, r->lo, r->hi, r->stream);
  }
}

rs_status rs_random_uniform(rs_array **out, rs_rng *rng, rs_context *ctx, rs_mem_kind where, int ndim,
                            const int64_t *shape, rs_dtype dtype, double low, double high, rs_stream *stream) {
  rand_arg r = {rng, low, high, 0, 0, stream, RS_RANDOM_UNIFORM};
  return rs_ops_create_filled(out, ctx, where, ndim, shape, dtype, "rs_random_uniform", fill_cb, &r);
}

rs_status rs_random_normal(rs_array **out, rs_rng *rng, rs_context *ctx, rs_mem_kind where, int ndim,
                           const int64_t *shape, rs_dtype dtype, double mean, double stddev, rs_stream *stream) {
  rand_arg r = {rng, mean, stddev, 0, 0, stream, RS_RANDOM_NORMAL};
  return rs_ops_create_filled(out, ctx, where, ndim, shape, dtype, "rs_random_normal", fill_cb, &r);
}

rs_status rs_random_integers(rs_array **out, rs_rng *rng, rs_context *ctx, rs_mem_kind where, int ndim,
                             const int64_t *shape, rs_dtype dtype, int64_t low, int64_t high, rs_stream *stream) {
  rand_arg r = {rng, 0, 0, low, high, stream, RS_RANDOM_INTEGERS};
  return rs_ops_create_filled(out, ctx, where, ndim, shape, dtype, "rs_random_integers", fill_cb, &r);
}
