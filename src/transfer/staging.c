#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "transfer/staging.h"

/* 8 MiB chunks, 4 in flight: small enough that the first DMA starts early, large enough
 * that per-chunk overheads (an event, a thread hand-off) stay under 1%. */
#define RS_STAGING_CHUNK ((size_t)8 << 20)
/* Below this the driver's own pageable path is as fast and needs no set-up. */
#define RS_STAGING_MIN_BYTES ((size_t)4 << 20)
#define RS_STAGING_MAX_THREADS 8

void rs_staging_init(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->lock, NULL);
  s->chunk = RS_STAGING_CHUNK;
  s->enabled = ctx->cfg.pageable_staging == RS_STAGING_ON ||
               (ctx->cfg.pageable_staging == RS_STAGING_AUTO && ctx->kind == RS_BACKEND_CUDA);
}

void rs_staging_destroy(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->ready) {
    for (int i = 0; i < RS_STAGING_BUFFERS; i++) {
      ctx->vt->event_destroy(ctx->be, s->events[i]);
      ctx->vt->host_free(ctx->be, s->bufs[i]);
    }
  }
  if (s->pool_ready) rs_thread_pool_stop(&s->pool);
  pthread_mutex_destroy(&s->lock);
}

int rs_staging_applies(rs_context *ctx, size_t bytes, rs_copy_dir dir) {
  return ctx->staging->enabled && bytes >= RS_STAGING_MIN_BYTES && (dir == RS_DIR_H2D || dir == RS_DIR_D2H);
}

/* Lock held. The host threads, started once. */
static rs_status rs_staging_threads(rs_staging *s) {
  if (s->pool_ready) return RS_OK;
  int threads = rs_host_cores();
  if (threads > RS_STAGING_MAX_THREADS) threads = RS_STAGING_MAX_THREADS;
  RS_TRY(rs_thread_pool_start(&s->pool, threads, "pageable staging"));
  s->pool_ready = 1;
  return RS_OK;
}

/* Lock held. On failure everything made so far is undone. */
static rs_status rs_staging_prepare(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->ready) return RS_OK;
  int made = 0;
  rs_status st = RS_OK;
  for (; made < RS_STAGING_BUFFERS; made++) {
    st = ctx->vt->host_alloc(ctx->be, s->chunk, 0, &s->bufs[made]);
    if (st != RS_OK) break;
    st = ctx->vt->event_create(ctx->be, RS_EVENT_DISABLE_TIMING, &s->events[made]);
    if (st != RS_OK) {
      ctx->vt->host_free(ctx->be, s->bufs[made]);
      break;
    }
  }
  if (st == RS_OK) st = rs_staging_threads(s);
  if (st != RS_OK) {
    for (int i = 0; i < made; i++) {
      ctx->vt->event_destroy(ctx->be, s->events[i]);
      ctx->vt->host_free(ctx->be, s->bufs[i]);
    }
    return rs_fail_prefix(st, "pageable staging buffers: ");
  }
  s->ready = 1;
  return RS_OK;
}

typedef struct {
  char *dst;
  const char *src;
} rs_host_move;

/* 256 KiB pieces: enough of them to keep 8 threads busy on one chunk. */
#define RS_STAGING_PIECE ((int64_t)256 << 10)

static void rs_move_pieces(int64_t begin, int64_t end, void *arg) {
  rs_host_move *m = arg;
  memcpy(m->dst + begin * RS_STAGING_PIECE, m->src + begin * RS_STAGING_PIECE,
         (size_t)((end - begin) * RS_STAGING_PIECE));
}

static void rs_parallel_memcpy(rs_thread_pool *pool, char *dst, const char *src, size_t bytes) {
  int64_t whole = (int64_t)(bytes / (size_t)RS_STAGING_PIECE);
  rs_host_move m = {dst, src};
  rs_thread_pool_run(pool, whole, rs_move_pieces, &m);
  size_t tail = bytes - (size_t)whole * (size_t)RS_STAGING_PIECE;
  if (tail) memcpy(dst + bytes - tail, src + bytes - tail, tail);
}

static rs_status rs_staged_h2d(rs_context *ctx, char *dst, const char *src, size_t bytes, void *stream) {
  rs_staging *s = ctx->staging;
  const rs_backend_vtable *vt = ctx->vt;
  for (size_t off = 0, i = 0; off < bytes; off += s->chunk, i++) {
    size_t len = bytes - off < s->chunk ? bytes - off : s->chunk;
    int k = (int)(i % RS_STAGING_BUFFERS);
    /* The buffer's previous DMA must be done before it is refilled. */
    if (i >= RS_STAGING_BUFFERS) RS_TRY(vt->event_synchronize(ctx->be, s->events[k]));
    rs_parallel_memcpy(&s->pool, s->bufs[k], src + off, len);
    RS_TRY(vt->copy_async(ctx->be, dst + off, s->bufs[k], len, RS_DIR_H2D, stream));
    RS_TRY(vt->event_record(ctx->be, s->events[k], stream));
  }
  return RS_OK;
}

static rs_status rs_staged_d2h(rs_context *ctx, char *dst, const char *src, size_t bytes, void *stream) {
  rs_staging *s = ctx->staging;
  const rs_backend_vtable *vt = ctx->vt;
  size_t n = (bytes + s->chunk - 1) / s->chunk;
  /* Keep RS_STAGING_BUFFERS chunks in flight ahead of the host. */
  for (size_t i = 0; i < n && i < RS_STAGING_BUFFERS; i++) {
    size_t off = i * s->chunk, len = bytes - off < s->chunk ? bytes - off : s->chunk;
    RS_TRY(vt->copy_async(ctx->be, s->bufs[i], src + off, len, RS_DIR_D2H, stream));
    RS_TRY(vt->event_record(ctx->be, s->events[i], stream));
  }
  for (size_t i = 0; i < n; i++) {
    int k = (int)(i % RS_STAGING_BUFFERS);
    size_t off = i * s->chunk, len = bytes - off < s->chunk ? bytes - off : s->chunk;
    RS_TRY(vt->event_synchronize(ctx->be, s->events[k]));
    rs_parallel_memcpy(&s->pool, dst + off, s->bufs[k], len);
    size_t next = i + RS_STAGING_BUFFERS;
    if (next < n) {
      size_t noff = next * s->chunk, nlen = bytes - noff < s->chunk ? bytes - noff : s->chunk;
      RS_TRY(vt->copy_async(ctx->be, s->bufs[k], src + noff, nlen, RS_DIR_D2H, stream));
      RS_TRY(vt->event_record(ctx->be, s->events[k], stream));
    }
  }
  return RS_OK;
}

rs_status rs_staged_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream) {
  rs_staging *s = ctx->staging;
  pthread_mutex_lock(&s->lock);
  rs_status st = rs_staging_prepare(ctx);
  if (st == RS_OK)
    st = dir == RS_DIR_H2D ? rs_staged_h2d(ctx, dst, src, bytes, stream) : rs_staged_d2h(ctx, dst, src, bytes, stream);
  /* The next staged copy reuses the buffers: nothing of this one may still read them. */
  if (st == RS_OK && dir == RS_DIR_H2D)
    for (int k = 0; k < RS_STAGING_BUFFERS && st == RS_OK; k++) st = ctx->vt->event_synchronize(ctx->be, s->events[k]);
  pthread_mutex_unlock(&s->lock);
  return st;
}

void rs_staging_host_copy(rs_context *ctx, void *dst, const void *src, size_t bytes) {
  rs_staging *s = ctx->staging;
  pthread_mutex_lock(&s->lock);
  int threads = rs_staging_threads(s) == RS_OK;
  pthread_mutex_unlock(&s->lock);
  /* The pool is safe to share: a staged copy running at the same time claims pieces too. */
  if (threads)
    rs_parallel_memcpy(&s->pool, dst, src, bytes);
  else
    memcpy(dst, src, bytes);
}
