/* Copies between arrays of two contexts (two devices, or two contexts on one): part of
 * the one copy path, entered from rs_copy_path when the contexts differ.
 *
 * - Device to device on one backend: a peer copy (RS_P2P in the destination's ledger),
 *   direct where the devices allow it, staged by the driver otherwise. Views that are not
 *   dense in the same layout go through C-order temporaries on either side, and those
 *   moves are recorded as the D2D copies they are.
 * - A host side: host memory is reachable from every context, so the copy runs in the
 *   device side's context (the destination's when both are host) over a view of the host
 *   array there, and is recorded as the H2D, D2H or H2H copy it is.
 * - Device to device across backends (the simulator and a GPU): through host memory, two
 *   recorded copies, since that is what happens.
 *
 * Ordering: the other context's queued work is waited for first (a recorded wait), and the
 * copy is finished when the call returns. Uses across contexts cannot be tracked by the
 * memory layer (an event of one device cannot be recorded on another's stream), so the
 * call completes rather than leave memory of one context in use by another's queue. */
#include <stdio.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/layout.h"
#include "memory/allocator.h"
#include "transfer/copy.h"
#include "transfer/copy_across.h"

static int on_device(const rs_array *a) { return rs_kind_on_device(a->buf->kind); }

static int is_c(const rs_array *a) {
  return rs_layout_is_c_contiguous(a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype));
}

/* The stream the copy runs on in ctx: the caller's if it is ctx's, else ctx's default
 * (the caller's stream belongs to the other context, which does not run this part). */
static rs_stream *stream_in(rs_context *ctx, rs_stream *stream) {
  return stream && stream->ctx == ctx ? stream : NULL;
}

static rs_status wait_for_context(rs_context *ctx, const char *who) {
  char cause[64];
  snprintf(cause, sizeof cause, "%s: the other context's work", who);
  return rs_ledger_timed_wait(ctx, RS_WAIT_DEVICE, NULL, cause);
}

/* A view of host array a's memory in ctx (no copy, nothing owned). */
static rs_status host_view(rs_array **out, rs_context *ctx, const rs_array *a, const char *who) {
  rs_status st = rs_host_array_wrap(out, ctx, rs_array_host_ptr(a), a->ndim, a->shape, a->dtype, a->strides);
  if (st != RS_OK)
    return rs_fail_prefix(st, "%s: between contexts, a host view must have a layout wrapping accepts: ", who);
  return RS_OK;
}

/* A host side: the copy runs in the context of run_in over a view of the host array of
 * the other context, after that context's queued work. The view is pageable memory to
 * the copy path, so the copy is finished when it returns. */
static rs_status via_host_view(rs_array *dst, const rs_array *src, rs_context *run_in, rs_stream *stream,
                               const rs_copy_cause *cause) {
  const int dst_is_view = dst->ctx != run_in;
  RS_TRY(wait_for_context(dst_is_view ? dst->ctx : src->ctx, cause->what));
  rs_array *view = NULL;
  RS_TRY(host_view(&view, run_in, dst_is_view ? dst : src, cause->what));
  rs_stream *s = stream_in(run_in, stream);
  rs_status st = dst_is_view ? rs_copy_within(view, src, s, cause) : rs_copy_within(dst, view, s, cause);
  rs_array_release(view);
  return st;
}

/* A C-order device copy of a in its own context, recorded there as a D2D copy. */
static rs_status c_order_copy(rs_array **out, const rs_array *a, const rs_copy_cause *cause) {
  RS_TRY(rs_device_array(out, a->ctx, a->ndim, a->shape, a->dtype, NULL, RS_ORDER_C));
  rs_status st = rs_copy_within(*out, a, NULL, cause);
  if (st == RS_OK) st = a->ctx->vt->synchronize(a->ctx->be);
  if (st != RS_OK) {
    rs_array_release(*out);
    *out = NULL;
  }
  return st;
}

/* The peer copy of two dense arrays of the same layout, on dst's stream. */
static rs_status peer_block(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause) {
  rs_context *ctx = dst->ctx;
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, cause->what));
  size_t bytes = rs_array_nbytes(dst);
  RS_TRY(rs_memory_prepare_use(dst->buf, native));
  rs_ledger_token token = rs_ledger_copy_begin(ctx, RS_DIR_P2P, bytes, cause, native, 0);
  int direct = 0;
  rs_status st = ctx->vt->copy_peer_async(ctx->be, rs_array_device_ptr(dst), src->ctx->be, rs_array_device_ptr(src),
                                          bytes, native, &direct);
  if (st == RS_OK) st = ctx->vt->stream_synchronize(ctx->be, native);
  rs_ledger_copy_end(ctx, token, RS_DIR_P2P, bytes, cause, native, dst->ndim, dst->shape);
  return st;
}

static rs_status peer(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause) {
  rs_context *ctx = dst->ctx;
  if (stream && stream->ctx != ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: a copy between devices runs on a stream of the destination's context (device %d), "
                   "not of the source's (device %d)",
                   cause->what, ctx->device, src->ctx->device);
  RS_TRY(rs_guard_check(ctx, RS_DIR_P2P, rs_array_nbytes(dst), cause));
  if (rs_array_nbytes(dst) == 0) return RS_OK;
  RS_TRY(wait_for_context(src->ctx, cause->what));
  if (rs_same_dense_layout(dst, src)) return peer_block(dst, src, stream, cause);
  rs_array *c_src = NULL, *c_dst = NULL;
  rs_status st = RS_OK;
  if (!is_c(src)) st = c_order_copy(&c_src, src, cause);
  if (st == RS_OK && !is_c(dst)) st = rs_device_array(&c_dst, ctx, dst->ndim, dst->shape, dst->dtype, NULL, RS_ORDER_C);
  if (st == RS_OK) st = peer_block(c_dst ? c_dst : dst, c_src ? c_src : src, stream, cause);
  if (st == RS_OK && c_dst) st = rs_copy_within(dst, c_dst, stream, cause); /* tracked as any D2D copy */
  rs_array_release(c_src);
  rs_array_release(c_dst);
  return st;
}

/* Device to device across backends: through a host array of the source's context. */
static rs_status through_host(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause) {
  rs_array *h = NULL;
  RS_TRY(rs_host_array(&h, src->ctx, src->ndim, src->shape, src->dtype, NULL, RS_ORDER_C));
  rs_status st = rs_copy_within(h, src, NULL, cause);
  if (st == RS_OK) st = via_host_view(dst, h, dst->ctx, stream, cause);
  rs_array_release(h);
  return st;
}

rs_status rs_copy_across(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause) {
  const char *who = cause->what;
  if (stream && stream->ctx != dst->ctx && stream->ctx != src->ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the stream belongs to neither array's context", who);
  int sd = on_device(src), dd = on_device(dst);
  rs_status st;
  if (sd && dd)
    st = src->ctx->kind == dst->ctx->kind && dst->ctx->vt->copy_peer_async ? peer(dst, src, stream, cause)
                                                                        : through_host(dst, src, stream, cause);
  else if (sd)
    st = via_host_view(dst, src, src->ctx, stream, cause);
  else
    st = via_host_view(dst, src, dst->ctx, stream, cause);
  return st;
}
