/* Streams: handles over the backend's queues, with built-in legacy and per-thread
 * streams, and dead-handle detection. */
#include <stdatomic.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/objects.h"
#include "stream/stream.h"
#include "ledger/ledger_hooks.h"
#include "stream/default_streams.h"

static rs_status rs_stream_check(rs_stream *s, const char *who) {
  return rs_handle_check(s, RS_MAGIC_STREAM, who);
}

static void *rs_stream_native_of(rs_stream *s) {
  switch (s->role) {
    case RS_STREAM_ROLE_LEGACY:
      return NULL;
    case RS_STREAM_ROLE_PER_THREAD:
      return s->ctx->vt->stream_per_thread(s->ctx->be);
    default:
      return s->native;
  }
}

rs_status rs_stream_resolve(rs_context *ctx, rs_stream *s, void **native, const char *who) {
  if (!s) {
    *native = NULL;
    return RS_OK;
  }
  RS_TRY(rs_stream_check(s, who));
  if (ctx && s->ctx != ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the stream belongs to another context", who);
  *native = rs_stream_native_of(s);
  return RS_OK;
}

static rs_status rs_stream_new(rs_stream **out, rs_context *ctx, void *native, rs_stream_role role) {
  rs_stream *s = rs_slab_alloc(&ctx->streams, RS_MAGIC_STREAM);
  if (!s) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "out of host memory for a stream handle");
  s->ctx = ctx;
  s->native = native;
  s->role = role;
  *out = s;
  return RS_OK;
}

rs_status rs_stream_create(rs_stream **out, rs_context *ctx, unsigned flags) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_stream_create: out is NULL");
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_stream_create: context is NULL");
  if (flags & ~RS_STREAM_NON_BLOCKING)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "rs_stream_create: unknown flag bits 0x%x (known: RS_STREAM_NON_BLOCKING)",
                   flags & ~RS_STREAM_NON_BLOCKING);
  void *native = NULL;
  RS_TRY(ctx->vt->stream_create(ctx->be, flags, &native));
  rs_status st = rs_stream_new(out, ctx, native, RS_STREAM_ROLE_USER);
  if (st != RS_OK) ctx->vt->stream_destroy(ctx->be, native);
  return st;
}

rs_stream *rs_stream_legacy(rs_context *ctx) { return ctx ? &ctx->legacy : NULL; }
rs_stream *rs_stream_per_thread(rs_context *ctx) { return ctx ? &ctx->per_thread : NULL; }

rs_status rs_stream_wrap(rs_stream **out, rs_context *ctx, void *native_handle) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_stream_wrap: out is NULL");
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_stream_wrap: context is NULL");
  if (native_handle && ctx->vt->stream_check) {
    rs_status st = ctx->vt->stream_check(ctx->be, native_handle);
    if (st != RS_OK)
      return rs_fail(st, "rs_stream_wrap: %p is not a live native stream of this context",
                     native_handle);
  }
  return rs_stream_new(out, ctx, native_handle, RS_STREAM_ROLE_WRAPPED);
}

void *rs_stream_native(rs_stream *s) {
  if (!s || rs_handle_magic(s) != RS_MAGIC_STREAM) return NULL;
  return rs_stream_native_of(s);
}

rs_status rs_stream_destroy(rs_stream *s) {
  if (!s) return RS_OK;
  RS_TRY(rs_stream_check(s, "rs_stream_destroy"));
  if (s->role == RS_STREAM_ROLE_LEGACY || s->role == RS_STREAM_ROLE_PER_THREAD)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "rs_stream_destroy: the built-in %s stream belongs to the context",
                   s->role == RS_STREAM_ROLE_LEGACY ? "legacy default" : "per-thread default");
  if (rs_capture_of(s->ctx, rs_stream_native_of(s), 0))
    return rs_fail(RS_ERR_STATE, "rs_stream_destroy: the stream is being captured into a graph; end the capture "
                                 "(rs_graph_end_capture) first");
  RS_TRY(rs_handle_claim(s, RS_MAGIC_STREAM, "rs_stream_destroy"));
  rs_context *ctx = s->ctx;
  if (s->role == RS_STREAM_ROLE_USER) {
    rs_status st = ctx->vt->stream_destroy(ctx->be, s->native);
    if (st != RS_OK) {
      rs_handle_unclaim(s);
      return st;
    }
  }
  rs_slab_free(&ctx->streams, s);
  return RS_OK;
}

/* A NULL stream names no context here: it stands for every context's legacy stream
 * (src/stream/default_streams.c). */
#define RS_STREAM_ENTRY(s, who, native)                      \
  void *native = NULL;                                        \
  RS_TRY(rs_stream_check(s, who));                            \
  RS_TRY(rs_stream_resolve(s->ctx, s, &native, who))

/* ---- NULL: every live context's legacy stream (src/stream/default_streams.c) ---- */

static rs_status rs_sync_one(rs_stream *legacy, void *arg) {
  (void)arg;
  return rs_stream_synchronize(legacy);
}

typedef struct rs_query_all {
  int *done;
} rs_query_all;

static rs_status rs_query_one(rs_stream *legacy, void *arg) {
  rs_query_all *q = arg;
  if (!*q->done) return RS_OK; /* one busy stream answers for all */
  return rs_stream_query(legacy, q->done);
}

/* One callback that runs when the last of several streams reaches it. */
typedef struct rs_join {
  _Atomic size_t left;
  rs_host_fn fn;
  void *user_data;
} rs_join;

static void rs_join_arrive(void *arg) {
  rs_join *j = arg;
  if (atomic_fetch_sub(&j->left, 1) != 1) return;
  j->fn(j->user_data);
  free(j);
}

static rs_status rs_join_one(rs_stream *legacy, void *arg) {
  rs_join *j = arg;
  atomic_fetch_add(&j->left, 1);
  rs_status st = rs_stream_add_callback(legacy, rs_join_arrive, j);
  if (st != RS_OK) rs_join_arrive(j); /* a stream that cannot call back must not hold the others */
  return st;
}

static rs_status rs_null_callback(rs_host_fn fn, void *user_data) {
  rs_join *j = malloc(sizeof *j);
  if (!j) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_stream_add_callback: out of host memory");
  /* The caller holds one count while it queues, so fn cannot run before every stream is
   * queued; with no live context it runs at once (nothing is queued anywhere). */
  atomic_store(&j->left, 1);
  j->fn = fn;
  j->user_data = user_data;
  rs_status st = rs_default_streams_each(rs_join_one, j);
  rs_join_arrive(j);
  return st;
}

rs_status rs_stream_synchronize(rs_stream *s) {
  if (!s) return rs_default_streams_each(rs_sync_one, NULL);
  RS_STREAM_ENTRY(s, "rs_stream_synchronize", native);
  return rs_ledger_timed_wait(s->ctx, RS_WAIT_STREAM, native, "rs_stream_synchronize");
}

rs_status rs_stream_query(rs_stream *s, int *done) {
  if (!done) return rs_fail(RS_ERR_NULL_POINTER, "rs_stream_query: done is NULL");
  if (!s) {
    *done = 1;
    rs_query_all q = {done};
    return rs_default_streams_each(rs_query_one, &q);
  }
  RS_STREAM_ENTRY(s, "rs_stream_query", native);
  return s->ctx->vt->stream_query(s->ctx->be, native, done);
}

rs_status rs_stream_add_callback(rs_stream *s, rs_host_fn fn, void *user_data) {
  if (!fn) return rs_fail(RS_ERR_NULL_POINTER, "rs_stream_add_callback: fn is NULL");
  if (!s) return rs_null_callback(fn, user_data);
  RS_STREAM_ENTRY(s, "rs_stream_add_callback", native);
  return s->ctx->vt->stream_callback(s->ctx->be, native, fn, user_data);
}

rs_status rs_stream_auto_synchronize_begin(rs_stream *s) {
  if (!s) return rs_default_streams_auto_begin();
  RS_STREAM_ENTRY(s, "rs_stream_auto_synchronize_begin", native);
  (void)native;
  atomic_fetch_add(&s->auto_sync_depth, 1);
  return RS_OK;
}

rs_status rs_stream_auto_synchronize_end(rs_stream *s) {
  if (!s) {
    RS_TRY(rs_default_streams_auto_end());
    return rs_default_streams_each(rs_sync_one, NULL);
  }
  RS_STREAM_ENTRY(s, "rs_stream_auto_synchronize_end", native);
  int depth = atomic_load(&s->auto_sync_depth);
  do {
    if (depth <= 0)
      return rs_fail(RS_ERR_STATE, "rs_stream_auto_synchronize_end: no scope was begun on this stream");
  } while (!atomic_compare_exchange_weak(&s->auto_sync_depth, &depth, depth - 1));
  return rs_ledger_timed_wait(s->ctx, RS_WAIT_STREAM, native, "rs_stream_auto_synchronize_end");
}
