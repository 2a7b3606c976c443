/* Graphs (resident/graph.h): the capture registry of the context (core/objects.h) that the
 * layers below read, the handles, and the ledger's entry per replay. The recording itself
 * is the backend's (CUDA stream capture; the simulator keeps its queued work items). */
#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "stream/stream.h"
#include "resident/graph.h"

/* Slots of the registry are taken and given back under this lock; readers only load. */
static pthread_mutex_t rs_capture_lock = PTHREAD_MUTEX_INITIALIZER;

static rs_status rs_graph_check(const rs_graph *g, const char *who) {
  return rs_handle_check(g, RS_MAGIC_GRAPH, who);
}

/* The stream a capture may run on: a live one the user made or wrapped. */
static rs_status rs_capture_stream(rs_stream *s, void **native, const char *who) {
  if (!s)
    return rs_fail(RS_ERR_NULL_POINTER, "%s: the stream is NULL (the legacy default stream cannot be captured; "
                                        "use a stream from rs_stream_create)", who);
  RS_TRY(rs_stream_resolve(NULL, s, native, who));
  if (s->role == RS_STREAM_ROLE_LEGACY || s->role == RS_STREAM_ROLE_PER_THREAD)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the context's built-in %s stream cannot be captured; use a stream "
                                            "from rs_stream_create", who,
                   s->role == RS_STREAM_ROLE_LEGACY ? "legacy default" : "per-thread default");
  return RS_OK;
}

/* Earlier work on the legacy default stream (allocations, copies the capture will read)
 * comes before the capture: once it runs, nothing recorded outside can be waited for. */
static rs_status rs_capture_after_legacy(rs_context *ctx, void *native) {
  void *ev = NULL;
  RS_TRY(ctx->vt->event_create(ctx->be, RS_EVENT_DISABLE_TIMING, &ev));
  rs_status st = ctx->vt->event_record(ctx->be, ev, NULL);
  if (st == RS_OK) st = ctx->vt->stream_wait_event(ctx->be, native, ev);
  ctx->vt->event_destroy(ctx->be, ev);
  return st;
}

rs_status rs_graph_begin_capture(rs_stream *s) {
  const char *who = "rs_graph_begin_capture";
  void *native = NULL;
  RS_TRY(rs_capture_stream(s, &native, who));
  rs_context *ctx = s->ctx;
  pthread_mutex_lock(&rs_capture_lock);
  rs_status st = RS_OK;
  rs_capture *slot = NULL;
  if (rs_capture_of(ctx, native, 0)) {
    st = rs_fail(RS_ERR_STATE, "%s: the stream is being captured already", who);
  } else {
    for (int i = 0; i < RS_MAX_CAPTURES && !slot; i++)
      if (!atomic_load(&ctx->captures[i].active)) slot = &ctx->captures[i];
    if (!slot) st = rs_fail(RS_ERR_LIMIT, "%s: %d captures are open in this context already", who, RS_MAX_CAPTURES);
  }
  if (st == RS_OK) st = rs_capture_after_legacy(ctx, native);
  if (st == RS_OK) st = ctx->vt->graph_begin(ctx->be, native);
  if (st == RS_OK) {
    memset(slot->copies, 0, sizeof slot->copies);
    memset(slot->bytes, 0, sizeof slot->bytes);
    slot->kernels = 0;
    slot->native = native;
    atomic_store(&slot->active, 1); /* after native: a reader that sees it active sees which */
    atomic_fetch_add(&ctx->ncaptures, 1);
  }
  pthread_mutex_unlock(&rs_capture_lock);
  return st == RS_OK ? RS_OK : rs_fail_prefix(st, "%s: ", who);
}

rs_status rs_graph_end_capture(rs_graph **out, rs_stream *s) {
  const char *who = "rs_graph_end_capture";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  void *native = NULL;
  RS_TRY(rs_capture_stream(s, &native, who));
  rs_context *ctx = s->ctx;
  pthread_mutex_lock(&rs_capture_lock);
  rs_capture *slot = rs_capture_of(ctx, native, 0);
  if (!slot) {
    pthread_mutex_unlock(&rs_capture_lock);
    return rs_fail(RS_ERR_STATE, "%s: the stream is not being captured (rs_graph_begin_capture first)", who);
  }
  void *graph = NULL;
  rs_status st = ctx->vt->graph_end(ctx->be, native, &graph);
  rs_capture contents = *slot;
  atomic_store(&slot->active, 0);
  atomic_fetch_sub(&ctx->ncaptures, 1);
  pthread_mutex_unlock(&rs_capture_lock);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  rs_graph *g = rs_slab_alloc(&ctx->graphs, RS_MAGIC_GRAPH);
  if (!g) {
    ctx->vt->graph_destroy(ctx->be, graph);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory for a graph handle", who);
  }
  g->ctx = ctx;
  g->native = graph;
  g->contents = contents;
  atomic_store(&g->contents.active, 0);
  g->contents.native = NULL;
  *out = g;
  return RS_OK;
}

rs_status rs_graph_launch(rs_graph *g, rs_stream *stream) {
  const char *who = "rs_graph_launch";
  RS_TRY(rs_graph_check(g, who));
  rs_context *ctx = g->ctx;
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  rs_capture *c = rs_capture_of(ctx, native, 1);
  if (c)
    return rs_fail(RS_ERR_STATE, "%s: %s while stream %p is being captured into a graph; launch graphs outside "
                                 "captures", who, native ? "into the captured stream" : "on the legacy default stream",
                   c->native);
  rs_ledger_token token;
  RS_TRY(rs_ledger_graph_begin(ctx, native, &token));
  rs_status st = ctx->vt->graph_launch(ctx->be, g->native, native);
  if (st != RS_OK) {
    rs_ledger_token_drop(ctx, token);
    return rs_fail_prefix(st, "%s: ", who);
  }
  rs_ledger_graph_end(ctx, token, &g->contents, native);
  return RS_OK;
}

rs_status rs_graph_get_counts(const rs_graph *g, int64_t *kernels, int64_t *copies, int64_t *bytes) {
  RS_TRY(rs_graph_check(g, "rs_graph_get_counts"));
  int64_t n = 0, b = 0;
  for (int d = 0; d < 4; d++)
    for (int i = 0; i < 2; i++) n += g->contents.copies[d][i], b += g->contents.bytes[d][i];
  if (kernels) *kernels = g->contents.kernels;
  if (copies) *copies = n;
  if (bytes) *bytes = b;
  return RS_OK;
}

rs_status rs_graph_destroy(rs_graph *g) {
  if (!g) return RS_OK;
  RS_TRY(rs_handle_claim(g, RS_MAGIC_GRAPH, "rs_graph_destroy"));
  rs_context *ctx = g->ctx;
  rs_status st = ctx->vt->graph_destroy(ctx->be, g->native);
  if (st != RS_OK) {
    rs_handle_unclaim(g);
    return st;
  }
  rs_slab_free(&ctx->graphs, g);
  return RS_OK;
}
