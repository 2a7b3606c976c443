/* Memory the library does not own (wrapped pointers): its owner's release callback runs
 * only once every use queued on any stream has finished. Handing the memory back while
 * a kernel still reads it would let the owner free or reuse it under that kernel (the
 * "record_stream" class of bug of other array libraries).
 *
 * The copy and launch paths record an event after each use (rs_memory_note_use). At the
 * release, finished uses let the callback run right away on the caller's thread; otherwise
 * a stream of the memory layer's own is made to wait for those events and the callback is
 * queued there as a host function - the host does not block and no other stream waits.
 * The events are not recorded again before that wait is queued, and a queued wait keeps
 * the state the event had, so they go back to the cache at once. */
#include <stdlib.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"
#include "resident/stream.h"

typedef struct foreign_release {
  rs_release_fn fn;
  void *user_data;
} foreign_release;

static void run_release(void *arg) {
  foreign_release *r = arg;
  r->fn(r->user_data);
  free(r);
}

/* The memory layer's stream for deferred releases, made on first need. Non-blocking, so
 * the legacy default stream neither waits for it nor it for that stream's later work. */
static rs_status release_stream(rs_memory *m, void **out) {
  rs_context *ctx = m->ctx;
  rs_status st = RS_OK;
  pthread_mutex_lock(&m->use_lock);
  if (!m->release_stream)
    st = ctx->vt->stream_create(ctx->be, RS_STREAM_NON_BLOCKING, &m->release_stream);
  *out = m->release_stream;
  pthread_mutex_unlock(&m->use_lock);
  return st;
}

/* Queue r after every recorded use; RS_OK when it is queued (r then belongs to the
 * stream). */
static rs_status queue_release(rs_context *ctx, const rs_mem_uses *uses, foreign_release *r) {
  if (uses->sync_all) return RS_ERR_STATE; /* the uses are not known stream by stream */
  void *s = NULL;
  RS_TRY(release_stream(ctx->mem, &s));
  for (int i = 0; i < uses->count; i++)
    RS_TRY(ctx->vt->stream_wait_event(ctx->be, s, uses->event[i]));
  return ctx->vt->stream_callback(ctx->be, s, run_release, r);
}

rs_status rs_foreign_release(rs_buffer *buf) {
  rs_context *ctx = buf->ctx;
  rs_mem_uses *uses = buf->mem.uses;
  buf->mem.uses = NULL;
  rs_memory_track_drop(ctx, &buf->mem);
  rs_status st = RS_OK;
  if (buf->release && !rs_uses_done(ctx, uses)) {
    foreign_release *r = malloc(sizeof *r);
    if (r) *r = (foreign_release){buf->release, buf->user_data};
    if (r && queue_release(ctx, uses, r) == RS_OK) {
      rs_uses_free(ctx, uses);
      return RS_OK;
    }
    free(r);
    /* Nothing to queue the callback with: wait here instead; never call it early. */
    st = rs_uses_wait(ctx, uses);
  }
  rs_uses_free(ctx, uses);
  /* Exactly once, even when the wait failed: the owner must get its memory back. */
  if (buf->release) buf->release(buf->user_data);
  return st;
}

void rs_foreign_destroy(rs_memory *m) {
  if (!m->release_stream) return;
  rs_context *ctx = m->ctx;
  /* The callbacks queued there run before the stream goes. */
  (void)ctx->vt->stream_synchronize(ctx->be, m->release_stream);
  (void)ctx->vt->stream_destroy(ctx->be, m->release_stream);
  m->release_stream = NULL;
}
