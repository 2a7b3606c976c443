#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/host_copy.h"
#include "core/objects.h"
#include "core/thread_pool.h"
#include "transfer/staging.h"

/* The arena: pieces tile it (a piece is a power of two that divides it), so piece p's
 * bytes were last used by piece p - ARENA / piece, at least RS_STAGING_INFLIGHT pieces
 * before: the waits below cover them. */
#define RS_STAGING_ARENA_BYTES ((size_t)32 << 20)
#define RS_STAGING_PIECE_MAX (RS_STAGING_ARENA_BYTES / RS_STAGING_INFLIGHT)
/* Pieces: about 8 per copy so that the pipeline fills and drains quickly, never below
 * 512 KiB (a DMA's queueing, an event record and a wait cost about as much as 256 KiB
 * crossing the link; half a MiB keeps the DMAs ahead of those calls) nor above 8 MiB. */
#define RS_STAGING_PIECE_MIN ((size_t)512 << 10)
#define RS_STAGING_PIECES 8
/* Below this the driver's own pageable path is as fast: on the H200 (2026-12-02) staging
 * gave 12-19 GB/s at 1 MiB where the driver gave 9-11, 24-26 at 2 MiB against 10-16. */
#define RS_STAGING_MIN_BYTES ((size_t)1 << 20)
/* A host copy alone (a streamed run's chunk into its pinned buffer) is worth the crew from
 * 1 MiB: one thread copies 10-11 GB/s on the H200's host, 8 together 35-40
 * (bench/pageable's memcpy line). */
#define RS_STAGING_HOST_COPY_MIN_BYTES ((size_t)1 << 20)
/* Spins on a shared counter before a lane yields its core (more lanes than cores: the
 * tests run 16 lanes on 2 cores). */
#define RS_STAGING_SPINS 2000

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

static void rs_staging_free_arena(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  for (int i = 0; i < RS_STAGING_INFLIGHT; i++) {
    if (s->event[i]) ctx->vt->event_destroy(ctx->be, s->event[i]);
    s->event[i] = NULL;
    s->used[i] = 0;
  }
  if (s->arena) ctx->vt->host_free(ctx->be, s->arena);
  s->arena = NULL;
}

void rs_staging_destroy(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->crew_ready) rs_crew_stop(&s->crew);
  if (s->ready) rs_staging_free_arena(ctx);
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
  void *arena = NULL;
  if (st == RS_OK) st = ctx->vt->host_alloc(ctx->be, RS_STAGING_ARENA_BYTES, 0, &arena);
  s->arena = arena;
  for (int i = 0; st == RS_OK && i < RS_STAGING_INFLIGHT; i++)
    st = ctx->vt->event_create(ctx->be, RS_EVENT_DISABLE_TIMING, &s->event[i]);
  if (st != RS_OK) {
    rs_staging_free_arena(ctx);
    return rs_fail_prefix(st, "pageable staging buffers: ");
  }
  s->cursor = 0;
  s->ready = 1;
  return RS_OK;
}

/* Slices: what a lane claims at a time, of `span` bytes (a piece, or a whole host copy).
 * About two per lane in a span, so that the lanes that are there share it evenly and one
 * that joins late or is descheduled in the middle holds up at most a small part of it
 * (the others take the rest); never below 64 KiB, where a claim (an atomic add on a line
 * every lane writes) and a slice's start would cost a noticeable part of its copy; whole
 * cache lines, so that slices start on a line of the arena (pieces do) and no two lanes
 * write one of its lines. A 512 KiB piece with 8 lanes: 8 slices of 64 KiB; 8 MiB: 16 of
 * 512 KiB. */
#define RS_STAGING_SLICE_MIN ((size_t)64 << 10)
static size_t rs_slice_bytes(size_t span, int lanes) {
  size_t slice = (span / (2 * (size_t)lanes) + 63) / 64 * 64;
  return slice < RS_STAGING_SLICE_MIN ? RS_STAGING_SLICE_MIN : slice;
}

/* One staged copy, shared by the lanes that join it. Piece p lies at arena offset (base +
 * p * piece) mod the arena, and its pipeline index is k = p % RS_STAGING_INFLIGHT. Work is
 * claimed from `next`, one slice at a time, in order: claim c is slice c % slices of piece
 * c / slices (the last piece may have fewer). Per index, `sent` is the last piece whose DMA
 * was queued with it, `open` the piece that is ready (H2D: its bytes free to be filled;
 * D2H: arrived, to be emptied), `arrived` the slices of its current piece done. Whoever
 * claims slice 0 of piece p opens it, and is the only one that waits on the index's event
 * for it; whoever completes its last slice queues the next DMA with its index. */
typedef struct rs_staged_job {
  rs_context *ctx;
  rs_copy_dir dir;
  char *dst;
  const char *src;
  size_t bytes, piece, pieces, base;
  size_t slice, slices; /* per piece (a full one) */
  size_t claims;        /* slices of the whole copy */
  void *stream;
  _Atomic size_t next;
  _Atomic long long sent[RS_STAGING_INFLIGHT], open[RS_STAGING_INFLIGHT];
  _Atomic size_t arrived[RS_STAGING_INFLIGHT];
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

/* Piece p's bytes in the arena. */
static char *rs_piece_home(const rs_staged_job *j, size_t p) {
  return j->ctx->staging->arena + (j->base + p * j->piece) % RS_STAGING_ARENA_BYTES;
}

/* Wait until *counter reaches `want` (or the job failed: 0). */
static int rs_await(rs_staged_job *j, _Atomic long long *counter, long long want) {
  for (int spins = 0; atomic_load(counter) < want; spins++) {
    if (atomic_load(&j->failed)) return 0;
    if (spins < RS_STAGING_SPINS) rs_crew_pause();
    else sched_yield();
  }
  return 1;
}

/* Queue piece p's DMA and record its index's event. */
static rs_status rs_piece_send(rs_staged_job *j, size_t p) {
  const rs_backend_vtable *vt = j->ctx->vt;
  rs_staging *s = j->ctx->staging;
  const int k = (int)(p % RS_STAGING_INFLIGHT);
  const size_t off = p * j->piece, len = rs_piece_len(j, p);
  char *home = rs_piece_home(j, p);
  if (j->dir == RS_DIR_H2D) RS_TRY(vt->copy_async(j->ctx->be, j->dst + off, home, len, RS_DIR_H2D, j->stream));
  else RS_TRY(vt->copy_async(j->ctx->be, home, j->src + off, len, RS_DIR_D2H, j->stream));
  RS_TRY(vt->event_record(j->ctx->be, s->event[k], j->stream));
  s->used[k] = 1;
  atomic_store(&j->sent[k], (long long)p);
  return RS_OK;
}

/* The opener of piece p: once the DMA queued before it with the same index is done (H2D:
 * piece p - 4's, the last to use bytes that piece p's overlap in this copy; D2H: piece
 * p's own), the piece is open. */
static rs_status rs_piece_open(rs_staged_job *j, size_t p) {
  rs_staging *s = j->ctx->staging;
  const int k = (int)(p % RS_STAGING_INFLIGHT);
  const long long waited = j->dir == RS_DIR_H2D ? (long long)p - RS_STAGING_INFLIGHT : (long long)p;
  if (waited >= 0) {
    if (!rs_await(j, &j->sent[k], waited)) return RS_OK;
    RS_TRY(j->ctx->vt->event_synchronize(j->ctx->be, s->event[k]));
  }
  atomic_store(&j->open[k], (long long)p);
  return RS_OK;
}

/* Bytes into pinned memory that a DMA reads next, part of a block (a piece, a streamed
 * chunk) of `block` bytes. Streaming stores, so the DMA finds no line of it in this core's
 * cache (staging.h); but plain stores for blocks as large as the largest pieces, whose
 * lines leave the core's cache for the shared one while the lane writes the next block,
 * and which then cost no write to memory (H200, 2026-12-02, in one call: H2D 256 MiB
 * 48-50 GB/s against 33-36 with streaming stores, 16-32 MiB the same or better with
 * streaming stores). */
static void rs_copy_into_pinned(void *dst, const void *src, size_t n, size_t block) {
  if (block >= RS_STAGING_PIECE_MAX) memcpy(dst, src, n);
  else rs_host_copy_streaming(dst, src, n);
}

/* Slices in piece p. */
static size_t rs_piece_slices(const rs_staged_job *j, size_t p) {
  return (rs_piece_len(j, p) + j->slice - 1) / j->slice;
}

/* Claims until none is left (or the job failed: then each lane leaves at its next claim
 * or wait, and what is left unclaimed is dropped). No wait here depends on a later claim:
 * opening piece p waits for a DMA queued at the start or once every slice of piece p - 4
 * was done, and a slice waits for its piece's opener; all of those were claimed before,
 * by lanes that are running. So whoever has joined, lane 0 alone included, gets through. */
static rs_status rs_lane_pieces(rs_staged_job *j) {
  while (!atomic_load(&j->failed)) {
    const size_t c = atomic_fetch_add(&j->next, 1);
    if (c >= j->claims) break;
    const size_t p = c / j->slices, at = c % j->slices * j->slice;
    const int k = (int)(p % RS_STAGING_INFLIGHT);
    if (at == 0) RS_TRY(rs_piece_open(j, p));
    if (!rs_await(j, &j->open[k], (long long)p)) break;
    const size_t len = rs_piece_len(j, p), n = len - at < j->slice ? len - at : j->slice;
    char *home = rs_piece_home(j, p);
    /* Into the caller's array: streaming stores, no destination line read before it is
     * written (1 GiB D2H 27 -> 49 GB/s on the H200, 2026-12-01). */
    if (j->dir == RS_DIR_H2D) rs_copy_into_pinned(home + at, j->src + p * j->piece + at, n, j->piece);
    else rs_host_copy_streaming(j->dst + p * j->piece + at, home + at, n);
    if (atomic_fetch_add(&j->arrived[k], 1) + 1 < rs_piece_slices(j, p)) continue;
    /* the piece's last slice: the next DMA with this index (a slice of piece p + 4 counts
     * only once that piece is open, which waits for this DMA's `sent`) */
    atomic_store(&j->arrived[k], 0);
    if (j->dir == RS_DIR_H2D) RS_TRY(rs_piece_send(j, p));
    else if (p + RS_STAGING_INFLIGHT < j->pieces) RS_TRY(rs_piece_send(j, p + RS_STAGING_INFLIGHT));
  }
  return RS_OK;
}

static void rs_lane_run(int lane, void *arg) {
  rs_staged_job *j = arg;
  rs_status st = rs_lane_pieces(j);
  if (st != RS_OK) rs_job_fail(j, st, lane);
}

/* Lock held. Before a job: no DMA of an earlier one (another stream, either direction)
 * still uses the arena; then a D2H queues its first pieces. */
static rs_status rs_job_start(rs_staged_job *j) {
  rs_staging *s = j->ctx->staging;
  for (int k = 0; k < RS_STAGING_INFLIGHT; k++) {
    atomic_init(&j->sent[k], -1);
    atomic_init(&j->open[k], -1);
    atomic_init(&j->arrived[k], 0);
    if (s->used[k]) {
      s->used[k] = 0;
      RS_TRY(j->ctx->vt->event_synchronize(j->ctx->be, s->event[k]));
    }
  }
  if (j->dir == RS_DIR_D2H)
    for (size_t p = 0; p < j->pieces && p < RS_STAGING_INFLIGHT; p++) RS_TRY(rs_piece_send(j, p));
  return RS_OK;
}

/* About bytes / 8, a power of two from 512 KiB to 8 MiB: it divides the arena. */
static size_t rs_piece_bytes(size_t bytes) {
  size_t piece = RS_STAGING_PIECE_MIN;
  while (piece < RS_STAGING_PIECE_MAX && piece * RS_STAGING_PIECES < bytes) piece *= 2;
  return piece;
}

rs_status rs_staged_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream) {
  rs_staging *s = ctx->staging;
  pthread_mutex_lock(&s->lock);
  rs_status st = rs_staging_prepare(ctx);
  if (st == RS_OK) {
    size_t piece = rs_piece_bytes(bytes);
    /* The next whole piece from the cursor: pieces of one copy tile the arena. */
    size_t base = (s->cursor + piece - 1) / piece * piece % RS_STAGING_ARENA_BYTES;
    rs_staged_job j = {.ctx = ctx, .dir = dir, .dst = dst, .src = src, .bytes = bytes, .piece = piece,
                       .pieces = (bytes + piece - 1) / piece, .base = base, .stream = stream};
    j.slice = rs_slice_bytes(piece, s->lanes);
    j.slices = (piece + j.slice - 1) / j.slice;
    j.claims = (j.pieces - 1) * j.slices + rs_piece_slices(&j, j.pieces - 1);
    atomic_init(&j.next, 0);
    pthread_mutex_init(&j.lock, NULL);
    st = rs_job_start(&j);
    if (st == RS_OK) {
      rs_crew_run(&s->crew, rs_lane_run, &j);
      if (atomic_load(&j.failed)) st = rs_fail(j.status, "pageable staging: %s", j.message);
    }
    s->cursor = (base + j.pieces * piece) % RS_STAGING_ARENA_BYTES;
    pthread_mutex_destroy(&j.lock);
  }
  pthread_mutex_unlock(&s->lock);
  return st;
}

/* ---- plain host copies over the lanes -------------------------------------------------- */

typedef struct {
  char *dst;
  const char *src;
  size_t bytes, slice, slices;
  int into_staging; /* see rs_staging_host_copy */
  _Atomic size_t next; /* the next slice to claim */
} rs_host_job;

static void rs_host_copy_part(const rs_host_job *h, size_t off, size_t len) {
  if (h->into_staging) rs_copy_into_pinned(h->dst + off, h->src + off, len, h->bytes);
  else rs_host_copy_streaming(h->dst + off, h->src + off, len);
}

/* Slices by claims, as for a staged copy's pieces (rs_slice_bytes). */
static void rs_host_lane(int lane, void *arg) {
  rs_host_job *h = arg;
  (void)lane;
  for (size_t c; (c = atomic_fetch_add(&h->next, 1)) < h->slices;) {
    const size_t off = c * h->slice;
    rs_host_copy_part(h, off, h->bytes - off < h->slice ? h->bytes - off : h->slice);
  }
}

void rs_staging_host_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, int into_staging) {
  rs_staging *s = ctx->staging;
  const size_t slice = rs_slice_bytes(bytes, s->lanes);
  rs_host_job h = {.dst = dst, .src = src, .bytes = bytes, .slice = slice, .slices = (bytes + slice - 1) / slice,
                   .into_staging = into_staging};
  atomic_init(&h.next, 0);
  pthread_mutex_lock(&s->lock);
  if (bytes >= RS_STAGING_HOST_COPY_MIN_BYTES && rs_staging_threads(s) == RS_OK)
    rs_crew_run(&s->crew, rs_host_lane, &h);
  else
    rs_host_copy_part(&h, 0, bytes);
  pthread_mutex_unlock(&s->lock);
}
