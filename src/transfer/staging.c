#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/host_copy.h"
#include "core/objects.h"
#include "core/thread_pool.h"
#include "transfer/staging.h"

/* Pieces: about 4 per lane so every lane's pipeline fills and drains quickly, never below
 * 64 KiB (a DMA's fixed cost, a few microseconds, stays small beside its bytes) nor above
 * the 2 MiB of a lane's buffers. */
#define RS_STAGING_PIECE_MIN ((size_t)64 << 10)
#define RS_STAGING_PIECE_MAX ((size_t)2 << 20)
#define RS_STAGING_PIECES_PER_LANE 4
/* Below this the driver's own pageable path is as fast or faster: on the H200 (bench/pageable,
 * 2026-12-01) staging gave 5-11 GB/s at 1-4 MiB where the driver gave 8-11, the same at
 * 8 MiB, and more from 16 MiB up. */
#define RS_STAGING_MIN_BYTES ((size_t)8 << 20)
/* A host copy alone (a streamed run's chunk into its pinned buffer) is worth the crew from
 * 1 MiB: one thread copies 10-11 GB/s on the H200's host, 8 together 35-40
 * (bench/pageable's memcpy line). Tying it to the threshold above (a DMA question)
 * made 100 MB streamed in 16 chunks of 6 MB copy on one thread, 4x slower. */
#define RS_STAGING_HOST_COPY_MIN_BYTES ((size_t)1 << 20)

void rs_staging_init(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->lock, NULL);
  s->enabled = ctx->cfg.pageable_staging == RS_STAGING_ON ||
               (ctx->cfg.pageable_staging == RS_STAGING_AUTO && ctx->kind == RS_BACKEND_CUDA);
  int lanes = ctx->cfg.staging_threads;
  if (lanes == 0) {
    lanes = rs_host_cores();
    if (lanes > RS_STAGING_DEFAULT_LANES) lanes = RS_STAGING_DEFAULT_LANES;
  }
  s->lanes = lanes < 1 ? 1 : lanes > RS_STAGING_MAX_LANES ? RS_STAGING_MAX_LANES : lanes;
}

static void rs_staging_free_lanes(rs_context *ctx, int lanes) {
  rs_staging *s = ctx->staging;
  for (int i = 0; i < lanes; i++)
    for (int b = 0; b < 2; b++) {
      rs_staging_lane *l = &s->lane[i];
      if (l->events[b]) ctx->vt->event_destroy(ctx->be, l->events[b]);
      if (l->bufs[b]) ctx->vt->host_free(ctx->be, l->bufs[b]);
      l->events[b] = l->bufs[b] = NULL;
      l->used[b] = 0;
    }
}

void rs_staging_destroy(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->crew_ready) rs_crew_stop(&s->crew);
  if (s->ready) rs_staging_free_lanes(ctx, s->lanes);
  pthread_mutex_destroy(&s->lock);
}

int rs_staging_applies(rs_context *ctx, size_t bytes, rs_copy_dir dir) {
  return ctx->staging->enabled && bytes >= RS_STAGING_MIN_BYTES && (dir == RS_DIR_H2D || dir == RS_DIR_D2H);
}

/* Lock held. The threads, started once. */
static rs_status rs_staging_threads(rs_staging *s) {
  if (s->crew_ready) return RS_OK;
  RS_TRY(rs_crew_start(&s->crew, s->lanes, "pageable staging"));
  s->crew_ready = 1;
  return RS_OK;
}

/* Lock held. On failure everything made so far is undone. */
static rs_status rs_staging_prepare(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->ready) return RS_OK;
  rs_status st = rs_staging_threads(s);
  for (int i = 0; st == RS_OK && i < s->lanes; i++)
    for (int b = 0; st == RS_OK && b < 2; b++) {
      st = ctx->vt->host_alloc(ctx->be, RS_STAGING_PIECE_MAX, 0, &s->lane[i].bufs[b]);
      if (st == RS_OK) st = ctx->vt->event_create(ctx->be, RS_EVENT_DISABLE_TIMING, &s->lane[i].events[b]);
    }
  if (st != RS_OK) {
    rs_staging_free_lanes(ctx, s->lanes);
    return rs_fail_prefix(st, "pageable staging buffers: ");
  }
  s->ready = 1;
  return RS_OK;
}

/* One staged copy, shared by the lanes. Piece j goes to lane j % lanes. */
typedef struct rs_staged_job {
  rs_context *ctx;
  rs_copy_dir dir;
  char *dst;
  const char *src;
  size_t bytes, piece, pieces;
  void *stream;
  _Atomic int failed;
  rs_status status;  /* the first failure, under `lock` */
  char message[256]; /* its message: lanes run on other threads, whose rs_last_error is their own */
  pthread_mutex_t lock;
} rs_staged_job;

static void rs_job_fail(rs_staged_job *j, rs_status st, int lane) {
  pthread_mutex_lock(&j->lock);
  if (!atomic_exchange(&j->failed, 1)) {
    j->status = st;
    snprintf(j->message, sizeof j->message, "lane %d: %s", lane, rs_last_error());
  }
  pthread_mutex_unlock(&j->lock);
}

static size_t rs_piece_len(const rs_staged_job *j, size_t p) {
  size_t off = p * j->piece;
  return j->bytes - off < j->piece ? j->bytes - off : j->piece;
}

/* Wait until a buffer's last DMA is done. */
static rs_status rs_lane_free(rs_context *ctx, rs_staging_lane *l, int b) {
  if (!l->used[b]) return RS_OK;
  l->used[b] = 0;
  return ctx->vt->event_synchronize(ctx->be, l->events[b]);
}

static rs_status rs_lane_dma(const rs_staged_job *j, rs_staging_lane *l, int b, size_t p) {
  const rs_backend_vtable *vt = j->ctx->vt;
  size_t off = p * j->piece, len = rs_piece_len(j, p);
  if (j->dir == RS_DIR_H2D)
    RS_TRY(vt->copy_async(j->ctx->be, j->dst + off, l->bufs[b], len, RS_DIR_H2D, j->stream));
  else
    RS_TRY(vt->copy_async(j->ctx->be, l->bufs[b], j->src + off, len, RS_DIR_D2H, j->stream));
  RS_TRY(vt->event_record(j->ctx->be, l->events[b], j->stream));
  l->used[b] = 1;
  return RS_OK;
}

/* H2D: fill a buffer (once its previous DMA is done), send it, go on with the other. */
static rs_status rs_lane_h2d(rs_staged_job *j, rs_staging_lane *l, int lane, int lanes) {
  int b = 0;
  for (size_t p = (size_t)lane; p < j->pieces && !atomic_load(&j->failed); p += (size_t)lanes, b ^= 1) {
    RS_TRY(rs_lane_free(j->ctx, l, b));
    /* Plain stores: the lane's two buffers are reused piece after piece and stay in the
     * caches, where the DMA reads them; streaming stores sent each piece to memory first
     * (1 GiB H2D 31 GB/s against 36 on the H200, bench/pageable 2026-12-01). */
    memcpy(l->bufs[b], j->src + p * j->piece, rs_piece_len(j, p));
    RS_TRY(rs_lane_dma(j, l, b, p));
  }
  return RS_OK;
}

/* D2H: the next piece arrives in one buffer while the host empties the other. */
static rs_status rs_lane_d2h(rs_staged_job *j, rs_staging_lane *l, int lane, int lanes) {
  size_t p = (size_t)lane;
  if (p >= j->pieces) return RS_OK;
  RS_TRY(rs_lane_free(j->ctx, l, 0));
  RS_TRY(rs_lane_free(j->ctx, l, 1));
  RS_TRY(rs_lane_dma(j, l, 0, p));
  for (int b = 0; p < j->pieces && !atomic_load(&j->failed); p += (size_t)lanes, b ^= 1) {
    if (p + (size_t)lanes < j->pieces) RS_TRY(rs_lane_dma(j, l, b ^ 1, p + (size_t)lanes));
    RS_TRY(rs_lane_free(j->ctx, l, b));
    /* Streaming stores into the caller's array: no read of each destination line before
     * it is written (1 GiB D2H 27 -> 49 GB/s on the H200, bench/pageable 2026-12-01). */
    rs_host_copy_streaming(j->dst + p * j->piece, l->bufs[b], rs_piece_len(j, p));
  }
  return RS_OK;
}

static void rs_lane_run(int lane, void *arg) {
  rs_staged_job *j = arg;
  rs_staging *s = j->ctx->staging;
  rs_staging_lane *l = &s->lane[lane];
  rs_status st = j->dir == RS_DIR_H2D ? rs_lane_h2d(j, l, lane, s->lanes) : rs_lane_d2h(j, l, lane, s->lanes);
  if (st != RS_OK) rs_job_fail(j, st, lane);
}

rs_status rs_staged_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream) {
  rs_staging *s = ctx->staging;
  pthread_mutex_lock(&s->lock);
  rs_status st = rs_staging_prepare(ctx);
  if (st == RS_OK) {
    size_t piece = bytes / ((size_t)s->lanes * RS_STAGING_PIECES_PER_LANE);
    piece = (piece + RS_STAGING_PIECE_MIN - 1) / RS_STAGING_PIECE_MIN * RS_STAGING_PIECE_MIN;
    if (piece < RS_STAGING_PIECE_MIN) piece = RS_STAGING_PIECE_MIN;
    if (piece > RS_STAGING_PIECE_MAX) piece = RS_STAGING_PIECE_MAX;
    rs_staged_job j = {.ctx = ctx, .dir = dir, .dst = dst, .src = src, .bytes = bytes, .piece = piece,
                       .pieces = (bytes + piece - 1) / piece, .stream = stream};
    pthread_mutex_init(&j.lock, NULL);
    rs_crew_run(&s->crew, rs_lane_run, &j);
    pthread_mutex_destroy(&j.lock);
    if (atomic_load(&j.failed)) st = rs_fail(j.status, "pageable staging: %s", j.message);
  }
  pthread_mutex_unlock(&s->lock);
  return st;
}

/* ---- plain host copies over the lanes -------------------------------------------------- */

typedef struct {
  char *dst;
  const char *src;
  size_t bytes;
  int lanes;
  int streaming;
} rs_host_job;

static void rs_host_lane(int lane, void *arg) {
  const rs_host_job *h = arg;
  /* Shares in whole cache lines, the last lane takes the rest. */
  size_t share = h->bytes / (size_t)h->lanes / 64 * 64;
  size_t off = (size_t)lane * share, len = lane == h->lanes - 1 ? h->bytes - off : share;
  if (len && h->streaming)
    rs_host_copy_streaming(h->dst + off, h->src + off, len);
  else if (len)
    memcpy(h->dst + off, h->src + off, len);
}

void rs_staging_host_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, int into_user) {
  rs_staging *s = ctx->staging;
  pthread_mutex_lock(&s->lock);
  if (bytes >= RS_STAGING_HOST_COPY_MIN_BYTES && rs_staging_threads(s) == RS_OK) {
    rs_host_job h = {dst, src, bytes, s->lanes, into_user};
    rs_crew_run(&s->crew, rs_host_lane, &h);
  } else if (into_user) {
    rs_host_copy_streaming(dst, src, bytes);
  } else {
    memcpy(dst, src, bytes);
  }
  pthread_mutex_unlock(&s->lock);
}
