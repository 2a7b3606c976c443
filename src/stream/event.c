/* Events: markers in a stream's queue, with device timestamps. */
#include "core/error.h"
#include "core/objects.h"
#include "stream/stream.h"
#include "ledger/ledger_hooks.h"
#include "memory/ipc_wire.h"
#include <string.h>

static rs_status rs_event_check(rs_event *ev, const char *who) {
  return rs_handle_check(ev, RS_MAGIC_EVENT, who);
}

/* The native stream s stands for, for work with ev: NULL is the default stream of ev's
 * context; another context's stream is refused as a pair that does not match (which of
 * the two is the stranger, nobody can tell). */
static rs_status rs_event_stream(rs_event *ev, rs_stream *s, void **native, const char *who) {
  RS_TRY(rs_stream_resolve(NULL, s, native, who));
  if (s && s->ctx != ev->ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the event and the stream belong to different contexts", who);
  return RS_OK;
}

rs_status rs_event_create(rs_event **out, rs_context *ctx, unsigned flags) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_event_create: out is NULL");
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_event_create: context is NULL");
  const unsigned known = RS_EVENT_DISABLE_TIMING | RS_EVENT_INTERPROCESS;
  if (flags & ~known)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "rs_event_create: unknown flag bits 0x%x (known: RS_EVENT_DISABLE_TIMING, RS_EVENT_INTERPROCESS)",
                   flags & ~known);
  if ((flags & RS_EVENT_INTERPROCESS) && !(flags & RS_EVENT_DISABLE_TIMING))
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "rs_event_create: RS_EVENT_INTERPROCESS needs RS_EVENT_DISABLE_TIMING too");
  rs_event *ev = rs_slab_alloc(&ctx->events, RS_MAGIC_EVENT);
  if (!ev) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "out of host memory for an event handle");
  ev->ctx = ctx;
  ev->flags = flags;
  rs_status st = ctx->vt->event_create(ctx->be, flags, &ev->native);
  if (st != RS_OK) rs_slab_free(&ctx->events, ev);
  else *out = ev;
  return st;
}

rs_status rs_event_destroy(rs_event *ev) {
  if (!ev) return RS_OK;
  RS_TRY(rs_handle_claim(ev, RS_MAGIC_EVENT, "rs_event_destroy"));
  rs_context *ctx = ev->ctx;
  rs_status st = ctx->vt->event_destroy(ctx->be, ev->native);
  if (st != RS_OK) {
    rs_handle_unclaim(ev);
    return st;
  }
  rs_slab_free(&ctx->events, ev);
  return RS_OK;
}

rs_status rs_event_record(rs_event *ev, rs_stream *s) {
  RS_TRY(rs_event_check(ev, "rs_event_record"));
  void *native = NULL;
  RS_TRY(rs_event_stream(ev, s, &native, "rs_event_record"));
  if (rs_capture_of(ev->ctx, native, 0))
    return rs_fail(RS_ERR_STATE, "rs_event_record: the stream is being captured into a graph; record events "
                                 "before or after the capture");
  return ev->ctx->vt->event_record(ev->ctx->be, ev->native, native);
}

rs_status rs_event_synchronize(rs_event *ev) {
  RS_TRY(rs_event_check(ev, "rs_event_synchronize"));
  return rs_ledger_timed_wait(ev->ctx, RS_WAIT_EVENT, ev->native, "rs_event_synchronize");
}

rs_status rs_event_query(rs_event *ev, int *done) {
  if (!done) return rs_fail(RS_ERR_NULL_POINTER, "rs_event_query: done is NULL");
  RS_TRY(rs_event_check(ev, "rs_event_query"));
  return ev->ctx->vt->event_query(ev->ctx->be, ev->native, done);
}

rs_status rs_event_elapsed_ms(rs_event *start, rs_event *end, float *ms) {
  if (!ms) return rs_fail(RS_ERR_NULL_POINTER, "rs_event_elapsed_ms: ms is NULL");
  RS_TRY(rs_event_check(start, "rs_event_elapsed_ms"));
  RS_TRY(rs_event_check(end, "rs_event_elapsed_ms"));
  if (start->ctx != end->ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_event_elapsed_ms: events of two contexts");
  return start->ctx->vt->event_elapsed_ms(start->ctx->be, ms, start->native, end->native);
}

rs_status rs_stream_wait_event(rs_stream *s, rs_event *ev) {
  RS_TRY(rs_event_check(ev, "rs_stream_wait_event"));
  void *native = NULL;
  RS_TRY(rs_event_stream(ev, s, &native, "rs_stream_wait_event"));
  if (rs_capture_of(ev->ctx, native, 0))
    return rs_fail(RS_ERR_STATE, "rs_stream_wait_event: the stream is being captured into a graph; a wait for "
                                 "an event recorded outside the capture cannot be replayed");
  return ev->ctx->vt->stream_wait_event(ev->ctx->be, native, ev->native);
}

/* ---- interprocess events (resident/ipc.h) ---------------------------------------------- */

rs_status rs_ipc_event_export(rs_ipc_handle *out, const rs_event *ev) {
  const char *who = "rs_ipc_event_export";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  memset(out, 0, sizeof *out);
  RS_TRY(rs_event_check((rs_event *)ev, who));
  if (!(ev->flags & RS_EVENT_INTERPROCESS))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the event was not created with RS_EVENT_INTERPROCESS", who);
  rs_context *ctx = ev->ctx;
  if (!ctx->vt->ipc_event_export)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend shares no events between processes", who, ctx->vt->name);
  rs_ipc_wire w;
  rs_ipc_wire_begin(&w, ctx, RS_IPC_EVENT);
  rs_status st = ctx->vt->ipc_event_export(ctx->be, ev->native, w.mem);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  rs_ipc_wire_seal(out, &w);
  return RS_OK;
}

rs_status rs_ipc_event_open(rs_event **out, rs_context *ctx, const rs_ipc_handle *h) {
  const char *who = "rs_ipc_event_open";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: ctx is NULL", who);
  if (!h) return rs_fail(RS_ERR_NULL_POINTER, "%s: the handle is NULL", who);
  rs_ipc_wire w;
  RS_TRY(rs_ipc_wire_check(&w, h, ctx, RS_IPC_EVENT, who));
  if (!ctx->vt->ipc_event_open)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend shares no events between processes", who, ctx->vt->name);
  rs_event *ev = rs_slab_alloc(&ctx->events, RS_MAGIC_EVENT);
  if (!ev) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory for an event handle", who);
  ev->ctx = ctx;
  ev->flags = RS_EVENT_DISABLE_TIMING | RS_EVENT_INTERPROCESS;
  rs_status st = ctx->vt->ipc_event_open(ctx->be, w.mem, &ev->native);
  if (st != RS_OK) {
    rs_slab_free(&ctx->events, ev);
    return rs_fail_prefix(st, "%s: ", who);
  }
  *out = ev;
  return RS_OK;
}
