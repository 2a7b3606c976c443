#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/host_copy.h"
#include "core/objects.h"
#include "core/thread_pool.h"
#include "transfer/staging.h"
#include "transfer/staging_pull.h"
#include "transfer/staging_shared.h"

/* Pieces tile the arena (a piece is a power of two that divides it), so piece p's bytes
 * were last used by piece p - ARENA / piece, 4 pieces before or more: the waits below
 * cover them. */
#define RS_STAGING_PIECE_MAX (RS_STAGING_ARENA_BYTES / 4)
/* Pieces: about 8 per copy so that the pipeline fills and drains quickly, never below
 * 512 KiB (a DMA's queueing, an event record and a wait cost about as much as 256 KiB
 * crossing the link; half a MiB keeps the DMAs ahead of those calls) nor above 8 MiB. */
#define RS_STAGING_PIECE_MIN ((size_t)512 << 10)
#define RS_STAGING_PIECES 8
/* Below this the driver's own pageable path is as fast: on the H200 (2026-12-02) staging
 * gave 12-19 GB/s at 1 MiB where the driver gave 9-11, 24-26 at 2 MiB against 10-16. */
#define RS_STAGING_MIN_BYTES ((size_t)1 << 20)
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
  s->pull = 1;
}

static void rs_staging_free_arena(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  for (int i = 0; i < RS_STAGING_INFLIGHT; i++) {
    if (s->event[i]) ctx->vt->event_destroy(ctx->be, s->event[i]);
    s->event[i] = NULL;
  }
  s->pending = 0;
  rs_pull_release(ctx);
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
rs_status rs_staging_threads(rs_staging *s) {
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
  const int pulls = ctx->vt->stage_pull != NULL;
  if (st == RS_OK) st = ctx->vt->host_alloc(ctx->be, RS_STAGING_ARENA_BYTES, pulls ? RS_BE_HOST_MAPPED : 0, &arena);
  s->arena = arena;
  if (st == RS_OK && pulls) st = rs_pull_prepare(ctx);
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
size_t rs_staging_slice_bytes(size_t span, int lanes) {
  size_t slice = (span / (2 * (size_t)lanes) + 63) / 64 * 64;
  return slice < RS_STAGING_SLICE_MIN ? RS_STAGING_SLICE_MIN : slice;
}

/* One staged copy, shared by the lanes that join it.
 *
 * Pieces. Piece p has its slot in the arena at (base + p * piece) mod the arena, and the
 * index k = p % RS_STAGING_INFLIGHT of the event recorded after its DMA. `window` pieces
 * are in flight at most: as many as the arena has slots (4 of 8 MiB pieces), at most
 * RS_STAGING_INFLIGHT; a slot is refilled (H2D) or sent to again (D2H) once the piece a
 * window before has gone through, which is its last user or came after it. An H2D's
 * pieces at both ends are ramps: the first are 128 KiB, then twice that, up to half a
 * piece, so that the first DMA starts once 128 KiB are copied instead of a whole piece (up
 * to 8 MiB, 200 us of the host's copying); the last halve down to 128 KiB again, so that
 * the last DMA, which runs once the host has copied everything, is short. Between them,
 * whole pieces and one shorter piece for the remainder. A D2H's first DMA starts at once
 * whatever its size, and ramps only cost it calls to the driver: on the H200 (2026-12-02,
 * one call, two runs each) it ran 21 GB/s at 1 MiB and 48-49 at 32-64 MiB with whole
 * pieces, against 17.5-18 and 42.5-44 with ramps; so it has whole pieces and the
 * remainder last.
 *
 * Claims. Work is claimed from `next`, one slice at a time, in order: the slices of piece
 * 0, then of piece 1, and so on. A slice is about a piece / (2 x lanes) (rs_staging_slice_bytes),
 * of its own piece's size for the ramps' pieces and the remainder.
 *
 * Lane 0 (the caller) alone talks to the driver: it sends each piece's DMA once its
 * slices are done (H2D) or once the slot it goes to is empty (D2H), and polls the
 * pieces' events, publishing in `done` how many DMAs have completed, in order. An H2D
 * piece records its event only if a later piece will wait for it (or it is the last):
 * every call to the driver costs 2-4 us of the copy on the H200's host. From
 * other threads the same calls took 5-60 us each against 2 on the caller's thread (an
 * H200 host, 2026-12-02), which delayed every DMA behind its piece. Lane 0 polls between
 * small steps of its own slices and while it waits, so every wait of another lane ends
 * by lane 0's work and lane 0 never waits for anything it does itself. */
#define RS_STAGING_RAMP_FIRST ((size_t)128 << 10)
#define RS_STAGING_RAMP_MAX 7
/* Lane 0 copies in steps this long between its polls: about 2 us at one thread's rate. */
#define RS_STAGING_STEP ((size_t)16 << 10)

/* Where a piece lies in the copy and how it is cut into claims. */
typedef struct rs_piece_geom {
  size_t off, len;   /* in the copy */
  size_t slice;      /* bytes a claim takes */
  size_t slices;     /* claims of the piece */
  size_t claim;      /* its first claim */
} rs_piece_geom;

typedef struct rs_staged_job {
  rs_context *ctx;
  rs_copy_dir dir;
  char *dst;
  const char *src;
  void *stream;
  size_t bytes, piece, pieces, base;
  size_t window; /* pieces in flight at most */
  /* The pieces: `heads` ramp pieces, `wholes` whole pieces from byte whole_off and claim
   * whole_claim (`slice` bytes a claim, `slices` claims each), then `ends` pieces (the
   * remainder, if any, and the ramp down). */
  rs_piece_geom head[RS_STAGING_RAMP_MAX], end[RS_STAGING_RAMP_MAX + 1];
  int heads, ends;
  size_t wholes, whole_off, whole_claim, slice, slices;
  size_t claims;                              /* slices of the whole copy */
  _Atomic size_t next;                        /* the next claim */
  _Atomic size_t finished;                    /* slices done */
  _Atomic size_t done;                        /* DMAs completed: pieces 0 .. done - 1 */
  _Atomic long long ready[RS_STAGING_INFLIGHT]; /* per index: the last piece whose slices are all done */
  _Atomic size_t arrived[RS_STAGING_INFLIGHT];  /* per index: slices done of its current piece */
  size_t sent, polled;                        /* lane 0's: pieces sent; pieces seen complete */
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

static rs_piece_geom rs_piece_at(const rs_staged_job *j, size_t p) {
  if (p < (size_t)j->heads) return j->head[p];
  p -= (size_t)j->heads;
  if (p >= j->wholes) return j->end[p - j->wholes];
  return (rs_piece_geom){j->whole_off + p * j->piece, j->piece, j->slice, j->slices, j->whole_claim + p * j->slices};
}

/* Piece p's bytes in the arena. */
static char *rs_piece_home(const rs_staged_job *j, size_t p) {
  return j->ctx->staging->arena + (j->base + p * j->piece) % RS_STAGING_ARENA_BYTES;
}

/* Claim c's piece. */
static size_t rs_claim_piece(const rs_staged_job *j, size_t c) {
  size_t p = 0;
  if (c < j->whole_claim) {
    while (c >= j->head[p].claim + j->head[p].slices) p++;
    return p;
  }
  if (c < j->whole_claim + j->wholes * j->slices) return (size_t)j->heads + (c - j->whole_claim) / j->slices;
  while (c >= j->end[p].claim + j->end[p].slices) p++;
  return (size_t)j->heads + j->wholes + p;
}

/* Lane 0: queue piece p's DMA and record its index's event. */
static rs_status rs_piece_send(rs_staged_job *j, size_t p) {
  const rs_backend_vtable *vt = j->ctx->vt;
  rs_staging *s = j->ctx->staging;
  const int k = (int)(p % RS_STAGING_INFLIGHT);
  const rs_piece_geom g = rs_piece_at(j, p);
  char *home = rs_piece_home(j, p);
  if (j->dir == RS_DIR_H2D) RS_TRY(vt->copy_async(j->ctx->be, j->dst + g.off, home, g.len, RS_DIR_H2D, j->stream));
  else RS_TRY(vt->copy_async(j->ctx->be, home, j->src + g.off, g.len, RS_DIR_D2H, j->stream));
  j->sent = p + 1;
  if (j->dir == RS_DIR_H2D && p + j->window >= j->pieces && p + 1 < j->pieces) return RS_OK; /* none waits for it */
  RS_TRY(vt->event_record(j->ctx->be, s->event[k], j->stream));
  s->pending = k + 1;
  return RS_OK;
}

/* The piece a claim's slice may be copied once `done` passes it: H2D, the DMA a window
 * before (its slot's last user, or a later one); D2H, its own. Returns the count `done`
 * must reach (0: none to wait for). */
static size_t rs_piece_waits_for(const rs_staged_job *j, size_t p) {
  if (j->dir == RS_DIR_D2H) return p + 1;
  return p >= j->window ? p - j->window + 1 : 0;
}

/* Lane 0: 1 if piece p (the next to send) can go: its slices are done (H2D) or the piece a
 * window before it has been emptied (D2H; the first window at once). */
static int rs_piece_can_go(const rs_staged_job *j, size_t p) {
  const int k = (int)(p % RS_STAGING_INFLIGHT);
  if (j->dir == RS_DIR_H2D) return atomic_load(&j->ready[k]) == (long long)p;
  return p < j->window ||
         atomic_load(&j->ready[(p - j->window) % RS_STAGING_INFLIGHT]) == (long long)(p - j->window);
}

/* Lane 0's work for the others: send what can go, publish what has arrived. A D2H piece
 * goes once the piece a window before it has been emptied; an H2D piece once its slices
 * are done. */
static rs_status rs_lane0_serve(rs_staged_job *j) {
  for (int moved = 1; moved;) {
    moved = 0;
    if (j->sent < j->pieces && rs_piece_can_go(j, j->sent)) {
      RS_TRY(rs_piece_send(j, j->sent));
      moved = 1;
    }
    /* Completions in order (one a turn, between sends), polled only while a claim may
     * wait for one (the one after the last claimed, at most); an event may since have
     * been recorded again for a later piece of its index, whose completion implies this
     * one's. An H2D's last DMAs are the copy path's to wait for. */
    size_t c = atomic_load(&j->next);
    if (c >= j->claims) c = j->claims - 1;
    if (j->polled < j->sent && rs_piece_waits_for(j, rs_claim_piece(j, c)) > j->polled) {
      int arrived = 0;
      RS_TRY(j->ctx->vt->event_query(j->ctx->be, j->ctx->staging->event[j->polled % RS_STAGING_INFLIGHT], &arrived));
      if (arrived) {
        atomic_store(&j->done, ++j->polled);
        moved = 1;
      }
    }
  }
  return RS_OK;
}

/* Until `done` exceeds `want` (0: the job failed). Lane 0 serves while it waits. */
static int rs_wait_done(rs_staged_job *j, size_t want, int lane, rs_status *st) {
  for (int spins = 0; atomic_load(&j->done) < want; spins++) {
    if (atomic_load(&j->failed)) return 0;
    if (lane == 0) {
      if ((*st = rs_lane0_serve(j)) != RS_OK) return 0;
    } else if (spins < RS_STAGING_SPINS) {
      rs_crew_pause();
    } else {
      sched_yield();
    }
  }
  return 1;
}

/* Bytes into pinned memory that a DMA reads next, part of a block (a piece, a streamed
 * chunk) of `block` bytes. Streaming stores, so the DMA finds no line of it in this core's
 * cache (staging.h); but plain stores for blocks as large as the largest pieces, whose
 * lines leave the core's cache for the shared one while the lane writes the next block,
 * and which then cost no write to memory (H200, 2026-12-02, in one call: H2D 256 MiB
 * 48-50 GB/s against 33-36 with streaming stores, 16-32 MiB the same or better with
 * streaming stores). */
void rs_staging_copy_into_pinned(void *dst, const void *src, size_t n, size_t block) {
  if (block >= RS_STAGING_PIECE_MAX) memcpy(dst, src, n);
  else rs_host_copy_streaming(dst, src, n);
}

/* One slice's bytes; lane 0 in steps, serving between them. */
static rs_status rs_slice_copy(rs_staged_job *j, size_t p, size_t at, size_t n, int lane) {
  char *home = rs_piece_home(j, p) + at;
  const rs_piece_geom g = rs_piece_at(j, p);
  const size_t off = g.off + at;
  for (size_t done = 0; done < n;) {
    size_t step = lane == 0 && n - done > RS_STAGING_STEP ? RS_STAGING_STEP : n - done;
    /* Into the caller's array: streaming stores, no destination line read before it is
     * written (1 GiB D2H 27 -> 49 GB/s on the H200, 2026-12-01). */
    if (j->dir == RS_DIR_H2D) rs_staging_copy_into_pinned(home + done, j->src + off + done, step, g.len);
    else rs_host_copy_streaming(j->dst + off + done, home + done, step);
    done += step;
    if (lane == 0 && done < n) RS_TRY(rs_lane0_serve(j));
  }
  return RS_OK;
}

/* Claims until none is left (or the job failed: then each lane leaves at its next claim
 * or wait, and what is left unclaimed is dropped). A lane's wait is for a DMA, which lane
 * 0 sends once the slices before it are done, all claimed earlier by lanes that are
 * running; lane 0 serves in every wait. So whoever has joined, lane 0 alone included, gets
 * through. Lane 0 then serves until every piece is sent and (D2H) every slice emptied. */
static rs_status rs_lane_pieces(rs_staged_job *j, int lane) {
  rs_status st = RS_OK;
  while (!atomic_load(&j->failed)) {
    if (lane == 0) RS_TRY(rs_lane0_serve(j));
    const size_t c = atomic_fetch_add(&j->next, 1);
    if (c >= j->claims) break;
    const size_t p = rs_claim_piece(j, c);
    const rs_piece_geom g = rs_piece_at(j, p);
    const size_t at = (c - g.claim) * g.slice;
    const int k = (int)(p % RS_STAGING_INFLIGHT);
    if (!rs_wait_done(j, rs_piece_waits_for(j, p), lane, &st)) return st;
    RS_TRY(rs_slice_copy(j, p, at, g.len - at < g.slice ? g.len - at : g.slice, lane));
    if (atomic_fetch_add(&j->arrived[k], 1) + 1 == g.slices) {
      /* The piece's last slice. The next piece of this index counts its slices only once
       * this one's DMA has gone (H2D) or its own has arrived (D2H), after lane 0 sees this. */
      atomic_store(&j->arrived[k], 0);
      atomic_store(&j->ready[k], (long long)p);
    }
    atomic_fetch_add(&j->finished, 1);
  }
  if (lane != 0) return RS_OK;
  while (!atomic_load(&j->failed) &&
         (j->sent < j->pieces || (j->dir == RS_DIR_D2H && atomic_load(&j->finished) < j->claims))) {
    RS_TRY(rs_lane0_serve(j));
    rs_crew_pause();
  }
  return RS_OK;
}

static void rs_lane_run(int lane, void *arg) {
  rs_staged_job *j = arg;
  rs_status st = rs_lane_pieces(j, lane);
  if (st != RS_OK) rs_job_fail(j, st, lane);
}

/* Lock held. Before a copy of either kind: no DMA of an earlier one (another stream,
 * either direction) still uses the arena (the last event the last job recorded follows
 * all of its DMAs on its stream, and that job waited for the ones before it), and no
 * pulled copy still reads it. */
static rs_status rs_arena_quiet(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->pending) {
    void *last = s->event[s->pending - 1];
    s->pending = 0;
    RS_TRY(ctx->vt->event_synchronize(ctx->be, last));
  }
  return rs_pull_drain(ctx);
}

/* About bytes / 8, a power of two from 512 KiB to 8 MiB: it divides the arena. */
static size_t rs_piece_bytes(size_t bytes) {
  size_t piece = RS_STAGING_PIECE_MIN;
  while (piece < RS_STAGING_PIECE_MAX && piece * RS_STAGING_PIECES < bytes) piece *= 2;
  return piece;
}

/* A ramp or remainder piece of len bytes at *off, its claims from *claim. Its slices are
 * one per lane, down to 32 KiB: the pieces at the ends hold up the whole copy (the first
 * DMA waits for the first piece, the last copy out for the last one), so they are cut
 * finer than whole pieces. */
#define RS_STAGING_EDGE_SLICE_MIN ((size_t)32 << 10)
static rs_piece_geom rs_edge_piece(size_t *off, size_t *claim, size_t len, int lanes) {
  size_t slice = (len / (size_t)lanes + 63) / 64 * 64;
  if (slice < RS_STAGING_EDGE_SLICE_MIN) slice = RS_STAGING_EDGE_SLICE_MIN;
  rs_piece_geom g = {*off, len, slice, 0, *claim};
  g.slices = (len + g.slice - 1) / g.slice;
  *off += len;
  *claim += g.slices;
  return g;
}

/* The job's pieces and claims: for an H2D that has two whole pieces or more, ramps from
 * 128 KiB up to half a piece and down again, whole pieces between them and one for the
 * remainder; otherwise whole pieces, the last one shorter. */
static void rs_job_cut(rs_staged_job *j, int lanes) {
  const size_t P = j->piece;
  int ramp = 0;
  while (j->dir == RS_DIR_H2D && ramp < RS_STAGING_RAMP_MAX && (P >> (ramp + 1)) >= RS_STAGING_RAMP_FIRST &&
         2 * P <= j->bytes)
    ramp++;
  size_t off = 0, claim = 0;
  j->heads = ramp;
  for (int i = 0; i < ramp; i++) j->head[i] = rs_edge_piece(&off, &claim, P >> (ramp - i), lanes);
  /* The ramps take less than a piece each; whole pieces, then the remainder, then the
   * ramp down. Without ramps the remainder is the last piece. */
  const size_t down = ramp ? P - (P >> ramp) : 0, middle = j->bytes - off - down;
  j->slice = rs_staging_slice_bytes(P, lanes);
  j->slices = (P + j->slice - 1) / j->slice;
  j->wholes = middle / P;
  j->whole_off = off;
  j->whole_claim = claim;
  off += j->wholes * P;
  claim += j->wholes * j->slices;
  j->ends = 0;
  if (middle % P) j->end[j->ends++] = rs_edge_piece(&off, &claim, middle % P, lanes);
  for (int i = 1; i <= ramp; i++) j->end[j->ends++] = rs_edge_piece(&off, &claim, P >> i, lanes);
  j->pieces = (size_t)j->heads + j->wholes + (size_t)j->ends;
  j->claims = claim;
}

size_t rs_staging_cut(size_t bytes, rs_copy_dir dir, int lanes, size_t *len, size_t max) {
  rs_staged_job j = {.dir = dir, .bytes = bytes, .piece = rs_piece_bytes(bytes)};
  rs_job_cut(&j, lanes);
  for (size_t p = 0; p < j.pieces && p < max; p++) len[p] = rs_piece_at(&j, p).len;
  return j.pieces;
}

rs_status rs_staged_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream, int *finished) {
  rs_staging *s = ctx->staging;
  if (finished) *finished = 0;
  pthread_mutex_lock(&s->lock);
  rs_status st = rs_staging_prepare(ctx);
  if (st == RS_OK) st = rs_arena_quiet(ctx);
  if (st == RS_OK && rs_pull_applies(ctx, bytes, dir)) {
    st = rs_pull_copy(ctx, dst, src, bytes, stream);
  } else if (st == RS_OK) {
    size_t piece = rs_piece_bytes(bytes);
    /* The next whole piece from the cursor: pieces of one copy tile the arena. */
    size_t base = (s->cursor + piece - 1) / piece * piece % RS_STAGING_ARENA_BYTES;
    rs_staged_job j = {.ctx = ctx, .dir = dir, .dst = dst, .src = src, .bytes = bytes, .piece = piece,
                       .base = base, .stream = stream};
    rs_job_cut(&j, s->lanes);
    j.window = RS_STAGING_ARENA_BYTES / piece < RS_STAGING_INFLIGHT ? RS_STAGING_ARENA_BYTES / piece : RS_STAGING_INFLIGHT;
    atomic_init(&j.next, 0);
    atomic_init(&j.finished, 0);
    atomic_init(&j.done, 0);
    for (int k = 0; k < RS_STAGING_INFLIGHT; k++) {
      atomic_init(&j.ready[k], -1);
      atomic_init(&j.arrived[k], 0);
    }
    pthread_mutex_init(&j.lock, NULL);
    rs_crew_run(&s->crew, rs_lane_run, &j);
    /* A D2H ends once every piece has arrived and been emptied, an H2D once its last DMA
     * (recorded, as the last piece always is) has: no DMA of the arena is left, so
     * neither the next copy nor the caller need ask the driver about it again (each call
     * a few us of the 40 a 1 MiB copy takes). */
    if (atomic_load(&j.failed)) {
      st = rs_fail(j.status, "pageable staging: %s", j.message);
    } else if (dir == RS_DIR_H2D) {
      st = s->pending ? ctx->vt->event_synchronize(ctx->be, s->event[s->pending - 1])
                      : ctx->vt->stream_synchronize(ctx->be, stream);
      if (st != RS_OK) st = rs_fail_prefix(st, "pageable staging: the last piece's DMA: ");
    }
    if (st == RS_OK) {
      s->pending = 0;
      if (finished) *finished = 1;
    }
    s->cursor = (base + j.pieces * piece) % RS_STAGING_ARENA_BYTES;
    pthread_mutex_destroy(&j.lock);
  }
  pthread_mutex_unlock(&s->lock);
  return st;
}
