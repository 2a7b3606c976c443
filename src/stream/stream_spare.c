/* Native streams kept by the context between the library's own short-lived users.
 * A streamed run wants a few streams for a few milliseconds; creating and destroying
 * them (each a driver call of microseconds, with their events) was a fixed cost of every
 * run, where the raw CUDA code it is compared with makes its streams once. The kept
 * streams are not handles (a test's count of live streams does not see them): a borrower
 * gets a wrapped handle over one, as rs_stream_wrap gives. A slot is one atomic pointer,
 * so borrowing and giving back need no lock. */
#include "backend/backend.h"
#include "core/error.h"
#include "stream/stream.h"

rs_status rs_stream_borrow(rs_stream **out, rs_context *ctx) {
  void *native = NULL;
  for (int i = 0; i < RS_SPARE_STREAMS && !native; i++) native = atomic_exchange(&ctx->spare_streams[i], NULL);
  if (!native) RS_TRY(ctx->vt->stream_create(ctx->be, RS_STREAM_NON_BLOCKING, &native));
  rs_status st = rs_stream_wrap(out, ctx, native);
  if (st != RS_OK) ctx->vt->stream_destroy(ctx->be, native);
  return st;
}

void rs_stream_give_back(rs_stream *s) {
  if (!s) return;
  rs_context *ctx = s->ctx;
  void *native = rs_stream_native(s);
  if (rs_stream_destroy(s) != RS_OK || !native) return; /* the wrapper only: the native stream lives on */
  for (int i = 0; i < RS_SPARE_STREAMS; i++) {
    void *empty = NULL;
    if (atomic_compare_exchange_strong(&ctx->spare_streams[i], &empty, native)) return;
  }
  ctx->vt->stream_destroy(ctx->be, native); /* every slot taken */
}

void rs_stream_spares_destroy(rs_context *ctx) {
  for (int i = 0; i < RS_SPARE_STREAMS; i++) {
    void *native = atomic_exchange(&ctx->spare_streams[i], NULL);
    if (native) ctx->vt->stream_destroy(ctx->be, native);
  }
}
