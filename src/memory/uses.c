/* Cross-stream safety: a block used on a stream other than its own (or, for pinned
 * memory, on any stream) gets an event recorded there after the use; it is reused only
 * once those events have completed.
 *
 * The event is recorded when the use is queued, not when the block is freed: by then
 * the stream may have been destroyed, and recording on it would be a use after free. A
 * later use on the same stream records the same event again, which covers the earlier
 * ones because a stream runs in order.
 *
 * The other direction: a block handed out again may still be in use by its previous
 * owner's work on the block's own stream, which a non-blocking stream does not wait for.
 * A shared "ready" event marks where that work ends (recorded when a used block is freed,
 * or at allocation for memory whose history is unknown); the new owner's first use on
 * each other stream waits for it - for that work only, not for what came after. */
#include <stdlib.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

/* ---- the event cache: events are made once and recycled ------------------------------ */

static rs_status event_get(rs_context *ctx, void **ev) {
  rs_memory *m = ctx->mem;
  pthread_mutex_lock(&m->event_lock);
  if (m->nevents > 0) {
    *ev = m->events[--m->nevents];
    pthread_mutex_unlock(&m->event_lock);
    return RS_OK;
  }
  pthread_mutex_unlock(&m->event_lock);
  return ctx->vt->event_create(ctx->be, RS_EVENT_DISABLE_TIMING, ev);
}

static void event_put(rs_context *ctx, void *ev) {
  rs_memory *m = ctx->mem;
  pthread_mutex_lock(&m->event_lock);
  if (m->nevents == m->events_cap) {
    size_t cap = m->events_cap ? m->events_cap * 2 : 16;
    void **items = realloc(m->events, cap * sizeof *items);
    if (!items) {
      pthread_mutex_unlock(&m->event_lock);
      ctx->vt->event_destroy(ctx->be, ev);
      return;
    }
    m->events = items;
    m->events_cap = cap;
  }
  m->events[m->nevents++] = ev;
  pthread_mutex_unlock(&m->event_lock);
}

void rs_event_cache_destroy(rs_memory *m) {
  rs_context *ctx = m->ctx;
  for (size_t i = 0; i < m->nevents; i++) ctx->vt->event_destroy(ctx->be, m->events[i]);
  free(m->events);
  m->events = NULL;
  m->nevents = m->events_cap = 0;
}

/* ---- use lists ---------------------------------------------------------------------- */

void rs_uses_add(rs_context *ctx, rs_mem_uses **uses, void *stream) {
  if (!*uses) {
    *uses = calloc(1, sizeof **uses);
    if (!*uses) {
      /* Nowhere to remember the use: make it finished instead. */
      (void)ctx->vt->stream_synchronize(ctx->be, stream);
      return;
    }
  }
  rs_mem_uses *u = *uses;
  if (u->sync_all) return;
  int i = 0;
  while (i < u->count && u->stream[i] != stream) i++;
  if (i == u->count) {
    if (u->count == RS_MEM_USES_MAX || event_get(ctx, &u->event[i]) != RS_OK) {
      u->sync_all = 1;
      return;
    }
    u->stream[i] = stream;
    u->count++;
  }
  if (ctx->vt->event_record(ctx->be, u->event[i], stream) != RS_OK) u->sync_all = 1;
}

int rs_uses_done(rs_context *ctx, const rs_mem_uses *uses) {
  if (!uses) return 1;
  if (uses->sync_all) return 0;
  for (int i = 0; i < uses->count; i++) {
    int done = 0;
    if (ctx->vt->event_query(ctx->be, uses->event[i], &done) != RS_OK || !done) return 0;
  }
  return 1;
}

rs_status rs_uses_wait(rs_context *ctx, const rs_mem_uses *uses) {
  if (!uses) return RS_OK;
  if (uses->sync_all) return ctx->vt->synchronize(ctx->be);
  for (int i = 0; i < uses->count; i++) RS_TRY(ctx->vt->event_synchronize(ctx->be, uses->event[i]));
  return RS_OK;
}

rs_status rs_uses_order_on(rs_context *ctx, const rs_mem_uses *uses, void *stream) {
  if (!uses) return RS_OK;
  if (uses->sync_all) return ctx->vt->synchronize(ctx->be);
  for (int i = 0; i < uses->count; i++) {
    if (uses->stream[i] == stream) continue; /* in order there already */
    RS_TRY(ctx->vt->stream_wait_event(ctx->be, stream, uses->event[i]));
  }
  return RS_OK;
}

void rs_uses_free(rs_context *ctx, rs_mem_uses *uses) {
  if (!uses) return;
  for (int i = 0; i < uses->count; i++) event_put(ctx, uses->event[i]);
  free(uses);
}

/* ---- shared ready events ------------------------------------------------------------- */

rs_mem_event *rs_mem_event_record(rs_context *ctx, void *stream) {
  rs_mem_event *e = malloc(sizeof *e);
  if (!e) return NULL;
  if (event_get(ctx, &e->ev) != RS_OK) {
    free(e);
    return NULL;
  }
  if (ctx->vt->event_record(ctx->be, e->ev, stream) != RS_OK) {
    event_put(ctx, e->ev);
    free(e);
    return NULL;
  }
  atomic_init(&e->refs, 1);
  e->seq = atomic_fetch_add(&ctx->mem->event_seq, 1);
  return e;
}

void rs_mem_event_ref(rs_mem_event *e) {
  if (e) atomic_fetch_add(&e->refs, 1);
}

void rs_mem_event_unref(rs_context *ctx, rs_mem_event *e) {
  if (!e || atomic_fetch_sub(&e->refs, 1) != 1) return;
  event_put(ctx, e->ev);
  free(e);
}

void rs_memory_track_drop(rs_context *ctx, rs_mem_track *track) {
  if (!track) return;
  rs_uses_free(ctx, track->uses);
  rs_mem_event_unref(ctx, track->ready);
  track->uses = NULL;
  track->ready = NULL;
}

/* ---- the hooks the copy and launch paths call ------------------------------------------ */

void rs_memory_note_use(rs_buffer *buf, void *native_stream) {
  if (!buf || buf->bytes == 0) return;
  /* Work captured into a graph runs at its replays, not now: no event to record (it
   * would be captured too). Memory a graph uses must outlive its replays (graph.h). */
  if (rs_capture_of(buf->ctx, native_stream, 0)) return;
  if (!buf->owned) {
    /* Foreign memory: every use is recorded, so that its owner's release callback waits
     * for all of them (rs_foreign_release); without a callback nothing waits. */
    if (!buf->release) return;
  } else if (buf->kind == RS_MEM_DEVICE) {
    if (native_stream == buf->mem.alloc_stream) {
      /* Stream order covers the next owner on this stream; others will need an event,
       * recorded when the memory is freed. */
      atomic_store_explicit(&buf->mem.used_here, 1, memory_order_relaxed);
      return;
    }
  } else if (buf->kind != RS_MEM_PINNED || buf->host_flags != 0) {
    return; /* not pooled: its free waits for the device itself */
  }
  rs_context *ctx = buf->ctx;
  rs_memory *m = ctx->mem;
  pthread_mutex_lock(&m->use_lock);
  rs_uses_add(ctx, &buf->mem.uses, native_stream);
  pthread_mutex_unlock(&m->use_lock);
}

rs_status rs_memory_prepare_use(rs_buffer *buf, void *native_stream) {
  if (!buf || !buf->owned || buf->kind != RS_MEM_DEVICE || !buf->mem.ready) return RS_OK;
  /* A wait for an event recorded outside a capture cannot be part of it; the capture
   * begins after the stream waited for the device's earlier work (rs_graph_begin_capture). */
  if (rs_capture_of(buf->ctx, native_stream, 0)) return RS_OK;
  if (native_stream == buf->mem.alloc_stream) return RS_OK;
  rs_context *ctx = buf->ctx;
  rs_memory *m = ctx->mem;
  rs_status st = RS_OK;
  pthread_mutex_lock(&m->use_lock);
  const rs_mem_uses *u = buf->mem.uses;
  int seen = 0;
  for (int i = 0; u && !u->sync_all && i < u->count; i++) seen |= u->stream[i] == native_stream;
  /* The first use on this stream waits for the previous owner's work on the allocation
   * stream - that work only, not what was queued there since. */
  if (!seen) st = ctx->vt->stream_wait_event(ctx->be, native_stream, buf->mem.ready->ev);
  pthread_mutex_unlock(&m->use_lock);
  return st;
}

rs_status rs_memory_order_uses_on(rs_buffer *buf, void *native_stream) {
  if (!buf) return RS_OK;
  rs_context *ctx = buf->ctx;
  rs_memory *m = ctx->mem;
  pthread_mutex_lock(&m->use_lock);
  rs_status st = rs_uses_order_on(ctx, buf->mem.uses, native_stream);
  pthread_mutex_unlock(&m->use_lock);
  return st;
}
