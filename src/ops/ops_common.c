/* What every op does before and after its own work: check operands, decide where it
 * runs, broadcast, allocate or check the result, and stage device work. */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/layout.h"
#include "core/dtype_rules.h"
#include "ops/ops_internal.h"
#include "ledger/ledger_hooks.h"

/* "a device array", "a host array", ... for messages about where arrays live. */
static const char *rs_ops_kind_of(const rs_array *a) { return rs_mem_kind_name(rs_buffer_effective_kind(a->buf)); }

rs_status rs_ops_check_arrays(rs_context **ctx, int n, const rs_array *const *arrays, const char *who) {
  int first = -1; /* the operand the context came from; -1: the caller's context */
  for (int i = 0; i < n; i++) {
    rs_status st = rs_array_check(arrays[i], who);
    if (st != RS_OK) return rs_fail_prefix(st, "operand %d: ", i);
    if (!*ctx) *ctx = arrays[i]->ctx, first = i;
    if (arrays[i]->ctx == *ctx) continue;
    if (first < 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "%s: operand %d (a %s array) belongs to another context than the one the op runs in", who, i,
                     rs_ops_kind_of(arrays[i]));
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: operand %d (a %s array) belongs to another context than operand %d (a %s array)", who, i,
                   rs_ops_kind_of(arrays[i]), first, rs_ops_kind_of(arrays[first]));
  }
  if (!*ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: no context", who);
  return RS_OK;
}

int rs_ops_on_device(const rs_array *a) {
  return a->buf->kind == RS_MEM_DEVICE || a->buf->kind == RS_MEM_MANAGED;
}

int rs_ops_any_on_device(int n, const rs_array *const *arrays) {
  for (int i = 0; i < n; i++)
    if (arrays[i] && rs_ops_on_device(arrays[i])) return 1;
  return 0;
}

const char *rs_ops_shape_str(char *buf, size_t len, int ndim, const int64_t *shape) {
  return rs_layout_shape_str(buf, len, ndim, shape);
}

rs_status rs_ops_broadcast(int *ndim, int64_t *shape, int n, const rs_array *const *arrays, const char *who) {
  int nd = 0;
  for (int i = 0; i < n; i++)
    if (arrays[i] && arrays[i]->ndim > nd) nd = arrays[i]->ndim;
  for (int k = 0; k < nd; k++) shape[k] = 1;
  for (int i = 0; i < n; i++) {
    const rs_array *a = arrays[i];
    if (!a) continue;
    for (int k = 0; k < a->ndim; k++) {
      int64_t e = a->shape[k];
      int64_t *s = &shape[nd - a->ndim + k];
      if (e == *s || e == 1) continue;
      if (*s == 1) {
        *s = e;
        continue;
      }
      /* name every shape, as NumPy's message does */
      char msg[1024] = "", one[256];
      size_t used = 0;
      for (int j = 0; j < n; j++) {
        if (!arrays[j]) continue;
        rs_ops_shape_str(one, sizeof one, arrays[j]->ndim, arrays[j]->shape);
        int w = snprintf(msg + used, sizeof msg - used, "%s%s", used ? " " : "", one);
        if (w < 0 || (size_t)w >= sizeof msg - used) break;
        used += (size_t)w;
      }
      return rs_fail(RS_ERR_BROADCAST, "%s: operands could not be broadcast together with shapes %s", who, msg);
    }
  }
  *ndim = nd;
  /* Shapes that each fit can broadcast to one whose element count does not. */
  int64_t elements = 0;
  return rs_layout_count(&elements, nd, shape, who);
}

rs_order rs_ops_result_order(int n, const rs_array *const *arrays, int ndim, const int64_t *shape) {
  int seen = 0;
  for (int i = 0; i < n; i++) {
    const rs_array *a = arrays[i];
    if (!a || a->ndim != ndim || memcmp(a->shape, shape, (size_t)ndim * sizeof *shape) != 0) continue;
    size_t item = rs_dtype_size(a->dtype);
    if (rs_layout_is_c_contiguous(a->ndim, a->shape, a->strides, item)) return RS_ORDER_C;
    if (!rs_layout_is_f_contiguous(a->ndim, a->shape, a->strides, item)) return RS_ORDER_C;
    seen = 1;
  }
  return seen ? RS_ORDER_F : RS_ORDER_C;
}

rs_status rs_ops_alloc(rs_array **out, rs_context *ctx, int on_device, int ndim, const int64_t *shape,
                       rs_dtype dtype, rs_order order, const char *who) {
  return rs_array_alloc(out, ctx, on_device ? RS_MEM_DEVICE : RS_MEM_HOST, 0, ndim, shape, dtype, NULL, order,
                        who);
}

rs_status rs_ops_check_out(const rs_array *out, rs_context *ctx, int ndim, const int64_t *shape,
                           const char *who) {
  RS_TRY(rs_array_check(out, who));
  if (out->ctx != ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: out (a %s array) belongs to another context than the operands", who,
                   rs_ops_kind_of(out));
  if (out->ndim != ndim || (ndim > 0 && memcmp(out->shape, shape, (size_t)ndim * sizeof *shape) != 0)) {
    char have[512], want[512];
    return rs_fail(RS_ERR_SHAPE, "%s: out has shape %s, the result has shape %s", who,
                   rs_ops_shape_str(have, sizeof have, out->ndim, out->shape),
                   rs_ops_shape_str(want, sizeof want, ndim, shape));
  }
  return RS_OK;
}

rs_status rs_ops_result_begin(rs_ops_result *r, rs_array **out, rs_context *ctx, int on_device, int ndim,
                              const int64_t *shape, rs_dtype dtype, rs_order order, rs_ops_cast cast,
                              const char *who) {
  r->out = out;
  r->fresh = r->target = NULL;
  rs_array *given = out ? *out : NULL;
  if (!given) {
    RS_TRY(rs_ops_alloc(&r->fresh, ctx, on_device, ndim, shape, dtype, order, who));
    r->target = r->fresh;
    return RS_OK;
  }
  RS_TRY(rs_ops_check_out(given, ctx, ndim, shape, who));
  if (cast == RS_OPS_CAST_EXACT && given->dtype != dtype)
    return rs_fail(RS_ERR_DTYPE, "%s: out is %s, the result is %s", who, rs_dtype_name(given->dtype),
                   rs_dtype_name(dtype));
  if (cast == RS_OPS_CAST_SAME_KIND && given->dtype != dtype && !rs_can_cast_same_kind(dtype, given->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: cannot write a %s result into a %s array (casting \"same_kind\")", who,
                   rs_dtype_name(dtype), rs_dtype_name(given->dtype));
  r->target = given;
  return RS_OK;
}

rs_status rs_ops_result_end(rs_ops_result *r, rs_status st) {
  if (st == RS_OK && r->fresh && r->out)
    *r->out = r->fresh;
  else
    rs_array_release(r->fresh);
  r->fresh = NULL;
  return st;
}

rs_status rs_ops_axis(int *axis, int ndim, const char *who) {
  int a = *axis;
  if (a < -ndim || a >= ndim)
    return rs_fail(RS_ERR_AXIS, "%s: axis %d is out of bounds for an array of dimension %d", who, a, ndim);
  *axis = a < 0 ? a + ndim : a;
  return RS_OK;
}

rs_status rs_ops_reduced_axes(int *reduced, int ndim, int naxes, const int *axes, const char *who) {
  if (!axes) {
    for (int k = 0; k < ndim; k++) reduced[k] = 1;
    return RS_OK;
  }
  if (naxes < 0 || naxes > ndim)
    return rs_fail(RS_ERR_AXIS, "%s: %d axes for an array of dimension %d", who, naxes, ndim);
  for (int i = 0; i < naxes; i++) {
    int ax = axes[i];
    RS_TRY(rs_ops_axis(&ax, ndim, who));
    if (reduced[ax]) return rs_fail(RS_ERR_AXIS, "%s: duplicate value in axes (%d)", who, axes[i]);
    reduced[ax] = 1;
  }
  return RS_OK;
}

/* ---- staging ----------------------------------------------------------------------- */

rs_status rs_ops_stage_begin(rs_ops_stage *s, const char *name, rs_context *ctx, rs_stream *stream,
                             int nin, const rs_array *const *in, int nout, rs_array *const *out) {
  memset(s, 0, sizeof *s);
  s->name = name;
  s->ctx = ctx;
  int n = nin + nout;
  if (n > RS_MAX_KERNEL_ARRAYS) return rs_fail(RS_ERR_INTERNAL, "%s: %d operands", name, n);
  for (int i = 0; i < n; i++) {
    rs_array *a = i < nin ? (rs_array *)(uintptr_t)in[i] : out[i - nin];
    s->la.given[i] = a;
    s->la.read_only[i] = i < nin;
    s->la.write_only[i] = i >= nin;
    if (rs_ops_on_device(a)) s->on_device = 1;
  }
  s->la.count = n;
  s->la.kernel = name;
  s->la.ctx = ctx;
  s->la.stream_handle = stream;
  if (!s->on_device) {
    s->ops = &rs_ops_host;
    RS_TRY(rs_stream_resolve(ctx, stream, &s->stream, name));
    /* Pinned and mapped memory may still be the target of copies queued on the stream:
     * host work on it waits for them, as a kernel on that stream would. */
    for (int i = 0; i < n; i++) {
      rs_mem_kind k = rs_buffer_effective_kind(s->la.given[i]->buf);
      if (k == RS_MEM_PINNED || k == RS_MEM_MAPPED) return ctx->vt->stream_synchronize(ctx->be, s->stream);
    }
    return RS_OK;
  }
  const rs_backend_desc *desc = rs_backend_get(ctx->kind);
  s->ops = desc ? desc->ops : NULL;
  if (!s->ops) return rs_fail(RS_ERR_UNSUPPORTED, "%s: no array operations on the %s backend", name, ctx->vt->name);
  s->be = ctx->be;
  RS_TRY(rs_launch_stage_in(&s->la));
  s->stream = s->la.stream;
  s->token = rs_ledger_kernel_begin(ctx, s->name, s->stream);
  return RS_OK;
}

char *rs_ops_stage_ptr(const rs_ops_stage *s, int i) {
  if (!s->on_device) return rs_array_host_ptr(s->la.given[i]);
  return rs_launch_arg_ptr(&s->la, i);
}

const int64_t *rs_ops_stage_strides(const rs_ops_stage *s, int i) {
  const rs_array *a = s->la.staged[i] ? s->la.staged[i] : s->la.given[i];
  return a->strides;
}

rs_status rs_ops_stage_end(rs_ops_stage *s, rs_status st) {
  if (!s->on_device) return st;
  rs_ledger_kernel_end(s->ctx, s->token, s->name, s->stream);
  return rs_launch_stage_out(&s->la, st);
}
