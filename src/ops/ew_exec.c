/* Running elementwise programs over arrays: the iteration geometry (broadcast strides,
 * axes ordered for memory and merged where contiguous), overlap of out with inputs, and
 * the life of an elementwise op from checks to the result. */
#include <stdlib.h>
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "core/layout.h"
#include "kernel/kernel_jit.h"
#include "ops/ops_internal.h"
#include "transfer/copy.h"

/* Strides of array a seen from the iteration shape (right-aligned; 0 on broadcast axes). */
static void broadcast_strides(int64_t *st, int ndim, const int64_t *shape, const rs_array *a,
                              const int64_t *a_strides) {
  int off = ndim - a->ndim;
  for (int k = 0; k < ndim; k++) {
    int ka = k - off;
    st[k] = (ka < 0 || (a->shape[ka] == 1 && shape[k] != 1)) ? 0 : a_strides[ka];
  }
}

/* Order axes by the first output's strides (largest first) and merge axes that are
 * contiguous for every array, so a contiguous op is one flat loop. */
static void simplify(rs_ew_geom *g, int first_out) {
  int nd = 0;
  /* drop axes of length 1 */
  for (int k = 0; k < g->ndim; k++) {
    if (g->shape[k] == 1) continue;
    g->shape[nd] = g->shape[k];
    g->index_strides[nd] = g->index_strides[k];
    for (int a = 0; a < g->narrays; a++) g->strides[a][nd] = g->strides[a][k];
    nd++;
  }
  g->ndim = nd;
  /* stable insertion sort on |stride of the first output|, descending */
  for (int k = 1; k < nd; k++) {
    for (int j = k; j > 0; j--) {
      int64_t s1 = llabs(g->strides[first_out][j - 1]), s2 = llabs(g->strides[first_out][j]);
      if (s1 >= s2) break;
      int64_t t = g->shape[j];
      g->shape[j] = g->shape[j - 1];
      g->shape[j - 1] = t;
      t = g->index_strides[j];
      g->index_strides[j] = g->index_strides[j - 1];
      g->index_strides[j - 1] = t;
      for (int a = 0; a < g->narrays; a++) {
        t = g->strides[a][j];
        g->strides[a][j] = g->strides[a][j - 1];
        g->strides[a][j - 1] = t;
      }
    }
  }
  /* merge axis k into k+1 where every array (and the index) steps evenly across them */
  int out = 0;
  for (int k = 0; k < nd; k++) {
    if (out > 0) {
      int j = out - 1, ok = rs_stride_follows(g->index_strides[j], g->index_strides[k], g->shape[k]);
      for (int a = 0; ok && a < g->narrays; a++) ok = rs_stride_follows(g->strides[a][j], g->strides[a][k], g->shape[k]);
      if (ok) {
        g->shape[j] *= g->shape[k];
        g->index_strides[j] = g->index_strides[k];
        for (int a = 0; a < g->narrays; a++) g->strides[a][j] = g->strides[a][k];
        continue;
      }
    }
    g->shape[out] = g->shape[k];
    g->index_strides[out] = g->index_strides[k];
    for (int a = 0; a < g->narrays; a++) g->strides[a][out] = g->strides[a][k];
    out++;
  }
  g->ndim = out;
  if (g->ndim == 0) {
    g->ndim = 1;
    g->shape[0] = 1;
    g->index_strides[0] = 0;
    for (int a = 0; a < g->narrays; a++) g->strides[a][0] = 0;
  }
}

static void build_geometry(rs_ew_geom *g, const rs_ops_stage *s, int narr, int nin, int ndim, const int64_t *shape,
                           int64_t count) {
  memset(g, 0, sizeof *g);
  g->ndim = ndim;
  g->count = count;
  g->narrays = narr;
  for (int k = 0; k < ndim; k++) g->shape[k] = shape[k];
  int64_t w = 1;
  for (int k = ndim - 1; k >= 0; k--) {
    g->index_strides[k] = w;
    w *= shape[k];
  }
  for (int a = 0; a < narr; a++) {
    g->ptr[a] = rs_ops_stage_ptr(s, a);
    broadcast_strides(g->strides[a], ndim, shape, s->la.given[a], rs_ops_stage_strides(s, a));
  }
  simplify(g, narr > nin ? nin : 0);
  g->jit = &rs_kernel_jit;
  g->cache_dir = s->ctx->cfg.cache_dir;
  g->cache_max = s->ctx->cfg.cache_max;
}

/* Same memory, not the same view, and the byte ranges meet. */
static int overlaps(const rs_array *out, const rs_array *in) {
  if (out->buf != in->buf) return 0;
  if (out->offset == in->offset && out->ndim == in->ndim &&
      memcmp(out->shape, in->shape, (size_t)out->ndim * sizeof(int64_t)) == 0 &&
      memcmp(out->strides, in->strides, (size_t)out->ndim * sizeof(int64_t)) == 0)
    return 0;
  int64_t olo, ohi, ilo, ihi;
  int oe, ie;
  rs_layout_extent(&olo, &ohi, &oe, out->ndim, out->shape, out->strides, rs_dtype_size(out->dtype));
  rs_layout_extent(&ilo, &ihi, &ie, in->ndim, in->shape, in->strides, rs_dtype_size(in->dtype));
  if (oe || ie) return 0;
  return out->offset + olo < in->offset + ihi && in->offset + ilo < out->offset + ohi;
}

rs_status rs_ops_run_program(const rs_ew_program *p, const char *name, rs_context *ctx, rs_stream *stream,
                             int nin, const rs_array *const *in, int nout, rs_array *const *out, int ndim,
                             const int64_t *shape) {
  int64_t count = 1;
  for (int k = 0; k < ndim; k++) count *= shape[k];
  if (count == 0) return RS_OK;
  rs_array *target[RS_EW_MAX_ARRAYS], *tmp[RS_EW_MAX_ARRAYS] = {0};
  rs_status st = RS_OK;
  for (int j = 0; j < nout && st == RS_OK; j++) {
    target[j] = out[j];
    for (int i = 0; i < nin; i++) {
      if (!overlaps(out[j], in[i])) continue;
      st = rs_ops_alloc(&tmp[j], ctx, rs_ops_on_device(out[j]), out[j]->ndim, out[j]->shape, out[j]->dtype,
                        RS_ORDER_C, name);
      target[j] = tmp[j];
      break;
    }
  }
  if (st == RS_OK) {
    rs_ops_stage s;
    st = rs_ops_stage_begin(&s, name, ctx, stream, nin, in, nout, target);
    if (st == RS_OK) {
      rs_ew_geom *g = malloc(sizeof *g);
      if (!g) {
        st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: no host memory for the iteration plan", name);
      } else {
        build_geometry(g, &s, nin + nout, nin, ndim, shape, count);
        st = s.ops->ew(s.be, p, g, s.stream);
        free(g);
      }
      st = rs_ops_stage_end(&s, st);
    }
  }
  for (int j = 0; j < nout; j++) {
    if (!tmp[j]) continue;
    if (st == RS_OK) {
      rs_copy_cause cause = RS_IMPLICIT(name, -1);
      st = rs_copy_path(out[j], tmp[j], stream, &cause);
    }
    rs_array_release(tmp[j]);
  }
  return st;
}

rs_status rs_ops_elementwise(rs_array **out, rs_ew_builder *b, int result, const rs_ew_spec *spec) {
  const char *name = spec->name;
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", name);
  if (result < 0) return (rs_status)result;
  rs_context *ctx = spec->ctx;
  /* Only an op without inputs takes its context from out: otherwise out is checked
   * against the inputs' context, and a mismatch is reported as out's. */
  if (*out && !ctx && spec->nin == 0) {
    RS_TRY(rs_array_check(*out, name));
    ctx = (*out)->ctx;
  }
  RS_TRY(rs_ops_check_arrays(&ctx, spec->nin, spec->in, name));
  int ndim = 0;
  int64_t shape[RS_MAX_DIMS];
  if (spec->nin > 0) {
    RS_TRY(rs_ops_broadcast(&ndim, shape, spec->nin, spec->in, name));
  } else {
    if (!*out) return rs_fail(RS_ERR_INTERNAL, "%s: no operand gives a shape", name);
    RS_TRY(rs_array_check(*out, name));
    ndim = (*out)->ndim;
    memcpy(shape, (*out)->shape, sizeof shape);
  }
  rs_array *given = *out;
  if (given) {
    /* NumPy broadcasts the inputs to a larger out as well */
    RS_TRY(rs_array_check(given, name));
    if (spec->nin > 0 && given->ndim >= ndim) {
      int ok = 1;
      for (int k = 0; k < ndim && ok; k++) {
        int64_t o = given->shape[given->ndim - ndim + k];
        ok = shape[k] == o || shape[k] == 1;
      }
      if (ok) {
        ndim = given->ndim;
        memcpy(shape, given->shape, sizeof shape);
      }
    }
  }
  /* the dtype of a given out is checked against the program below ("same_kind" unless unsafe) */
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, out, ctx, rs_ops_any_on_device(spec->nin, spec->in), ndim, shape,
                             rs_ewb_dtype(b, result), rs_ops_result_order(spec->nin, spec->in, ndim, shape),
                             RS_OPS_CAST_CALLER, name));
  rs_status st = rs_ewb_output(b, result, r.target->dtype, r.fresh ? 1 : spec->unsafe);
  if (st == RS_OK) {
    rs_ewb_finish(b);
    st = rs_ops_run_program(&b->prog, name, ctx, spec->stream, spec->nin, spec->in, 1, &r.target, ndim, shape);
  }
  return rs_ops_result_end(&r, st);
}
