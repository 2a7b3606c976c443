/* The DLPack stream handshake (the Python array API's __dlpack__(stream=...)): the consumer
 * names the stream it will use, and the producer makes that stream wait - on the device,
 * through an event - for the work queued on the array so far. Never a synchronize of the
 * device or of the host: only the consumer's stream waits, and only for that work. */
#include <stdint.h>
#include "backend/backend.h"
#include "core/error.h"
#include "memory/allocator.h"
#include "memory/buffer.h"
#include "resident/dlpack.h"
#include "stream/stream.h"

/* The native stream a DLPack stream value names in ctx: 1 the legacy default stream, 2 the
 * per-thread default stream, any other positive value a native handle (cudaStream_t). */
static rs_status native_of_value(rs_context *ctx, intptr_t value, void **native, const char *who) {
  if (value == RS_DLPACK_STREAM_LEGACY) {
    *native = NULL;
    return RS_OK;
  }
  if (value == RS_DLPACK_STREAM_PER_THREAD) {
    *native = ctx->vt->stream_per_thread(ctx->be);
    return RS_OK;
  }
  if (value <= 0)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: stream value %lld names no stream (-1 no synchronization, 1 the legacy default "
                   "stream, 2 the per-thread default stream, else a native stream handle; 0 is ambiguous "
                   "and not allowed)",
                   who, (long long)value);
  *native = (void *)value;
  if (ctx->vt->stream_check && ctx->vt->stream_check(ctx->be, *native) != RS_OK)
    return rs_fail_prefix(RS_ERR_INVALID_ARGUMENT, "%s: stream value 0x%llx: ", who, (unsigned long long)value);
  return RS_OK;
}

/* consumer waits for what is queued on producer now (an event, destroyed at once: a queued
 * wait keeps the state the event had when it was queued). */
static rs_status order_after(rs_context *ctx, void *consumer, void *producer, const char *who) {
  if (consumer == producer) return RS_OK; /* one stream runs in order */
  void *ev = NULL;
  rs_status st = ctx->vt->event_create(ctx->be, RS_EVENT_DISABLE_TIMING, &ev);
  if (st == RS_OK) st = ctx->vt->event_record(ctx->be, ev, producer);
  if (st == RS_OK) st = ctx->vt->stream_wait_event(ctx->be, consumer, ev);
  if (ev) (void)ctx->vt->event_destroy(ctx->be, ev);
  return st == RS_OK ? RS_OK : rs_fail_prefix(st, "%s: ", who);
}

rs_status rs_stream_dlpack_value(rs_stream *s, intptr_t *out) {
  const char *who = "rs_stream_dlpack_value";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = 0;
  if (!s) {
    *out = RS_DLPACK_STREAM_LEGACY;
    return RS_OK;
  }
  void *native = NULL;
  RS_TRY(rs_stream_resolve(NULL, s, &native, who));
  *out = native ? (intptr_t)native : RS_DLPACK_STREAM_LEGACY;
  return RS_OK;
}

rs_status rs_array_to_dlpack_on(rs_dl_managed_tensor_versioned **out, const rs_array *a, rs_stream *producer,
                                intptr_t consumer_stream) {
  const char *who = "rs_array_to_dlpack_on";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  RS_TRY(rs_array_check(a, who));
  rs_context *ctx = a->ctx;
  void *prod = NULL, *cons = NULL;
  RS_TRY(rs_stream_resolve(ctx, producer, &prod, who));
  if (consumer_stream != RS_DLPACK_STREAM_NONE) {
    RS_TRY(native_of_value(ctx, consumer_stream, &cons, who));
    /* the array's work on the producer's stream, and the uses on other streams that the
     * memory layer tracks (rs_memory_note_use) */
    RS_TRY(order_after(ctx, cons, prod, who));
    rs_status st = rs_memory_order_uses_on(a->buf, cons);
    if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  }
  rs_status st = rs_array_to_dlpack(out, a);
  return st == RS_OK ? RS_OK : rs_fail_prefix(st, "%s: ", who);
}

rs_status rs_stream_wait_dlpack(rs_stream *s, intptr_t producer_stream) {
  const char *who = "rs_stream_wait_dlpack";
  if (!s)
    return rs_fail(RS_ERR_NULL_POINTER, "%s: the stream is NULL (name the consumer's stream: "
                   "rs_stream_legacy(ctx) for the legacy default one)", who);
  void *mine = NULL, *theirs = NULL;
  RS_TRY(rs_stream_resolve(NULL, s, &mine, who));
  rs_context *ctx = s->ctx;
  if (producer_stream == RS_DLPACK_STREAM_NONE) return RS_OK;
  RS_TRY(native_of_value(ctx, producer_stream, &theirs, who));
  return order_after(ctx, mine, theirs, who);
}
