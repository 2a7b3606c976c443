/* The ledger: every copy, kernel and host-blocking wait, with totals per context and per
 * nested scope. Device times come from backend events recorded around the work and are
 * resolved lazily, when totals are read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "ledger/ledger_internal.h"

int rs_ledger_thread(void) {
  static _Atomic int next = 0;
  static _Thread_local int mine = 0;
  if (!mine) mine = atomic_fetch_add(&next, 1) + 1;
  return mine;
}

double rs_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void rs_ledger_place_clock(rs_context *ctx) {
  rs_ledger *l = ctx->ledger;
  void *ev = l->ref_event;
  if (!ev && ctx->vt->event_create(ctx->be, 0, &ev) != RS_OK) return;
  double before = rs_now_ms();
  if (ctx->vt->event_record(ctx->be, ev, NULL) != RS_OK || ctx->vt->event_synchronize(ctx->be, ev) != RS_OK) {
    ctx->vt->event_destroy(ctx->be, ev);
    pthread_mutex_lock(&l->lock);
    l->ref_event = NULL;
    pthread_mutex_unlock(&l->lock);
    return;
  }
  double after = rs_now_ms();
  pthread_mutex_lock(&l->lock);
  l->ref_event = ev;
  /* The event completed somewhere between the record and the end of the wait. */
  l->ref_host_ms = before;
  l->ref_uncertainty_ms = after - before;
  l->ref_shift_ms = 0;
  pthread_mutex_unlock(&l->lock);
}

rs_status rs_ledger_init(rs_context *ctx) {
  rs_ledger *l = ctx->ledger;
  memset(l, 0, sizeof *l);
  l->capacity = ctx->cfg.ledger_entries > 0 ? ctx->cfg.ledger_entries : 65536;
  l->ring = calloc((size_t)l->capacity, sizeof *l->ring);
  l->host_clocked = calloc((size_t)l->capacity, 1);
  if (!l->ring || !l->host_clocked) {
    free(l->ring);
    free(l->host_clocked);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "no host memory for the ledger");
  }
  l->scope_log = calloc(RS_LEDGER_SCOPE_LOG, sizeof *l->scope_log);
  l->pool_log = calloc(RS_LEDGER_POOL_LOG, sizeof *l->pool_log);
  if (!l->scope_log || !l->pool_log) {
    free(l->ring);
    free(l->host_clocked);
    free(l->scope_log);
    free(l->pool_log);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "no host memory for the ledger");
  }
  pthread_mutex_init(&l->lock, NULL);
  l->timing = ctx->cfg.ledger_timing;
  l->sweep_at = RS_LEDGER_SWEEP_MIN;
  l->epoch_ms = rs_now_ms();
  rs_ledger_place_clock(ctx);
  return RS_OK;
}

void rs_ledger_destroy(rs_context *ctx) {
  rs_ledger *l = ctx->ledger;
  rs_ledger_drop_pending(ctx);
  for (size_t i = 0; i < l->nspare; i++) ctx->vt->event_destroy(ctx->be, l->spare_events[i]);
  if (l->ref_event) ctx->vt->event_destroy(ctx->be, l->ref_event);
  free(l->spare_events);
  free(l->scope_log);
  free(l->pool_log);
  free(l->pending);
  free(l->ring);
  free(l->host_clocked);
  pthread_mutex_destroy(&l->lock);
}

static void rs_stats_add_entry(rs_ledger_stats *s, const rs_ledger_entry *e) {
  switch (e->kind) {
    case RS_ENTRY_COPY:
      s->copies[e->dir][e->implicit]++;
      s->bytes[e->dir][e->implicit] += (int64_t)e->bytes;
      s->copy_host_ms[e->dir][e->implicit] += e->host_ms;
      if (e->device_ms >= 0) s->copy_device_ms[e->dir][e->implicit] += e->device_ms; /* timed by the host */
      break;
    case RS_ENTRY_KERNEL:
      s->kernels++;
      s->kernel_host_ms += e->host_ms;
      break;
    case RS_ENTRY_WAIT:
      s->waits++;
      s->wait_ms += e->host_ms;
      break;
    case RS_ENTRY_PREFETCH: {
      int to_device = e->dir == RS_H2D;
      s->prefetches[to_device]++;
      s->prefetch_bytes[to_device] += (int64_t)e->bytes;
      s->prefetch_host_ms[to_device] += e->host_ms;
      break;
    }
    case RS_ENTRY_GRAPH: /* its contents are added by rs_ledger_graph_end */
      s->graphs++;
      s->graph_host_ms += e->host_ms;
      break;
    case RS_ENTRY_COLLECTIVE:
      s->collectives++;
      s->collective_bytes += (int64_t)e->bytes;
      s->collective_host_ms += e->host_ms;
      break;
  }
}

/* Append an entry (lock held) and count it in the totals and every open scope;
 * host_clocked: its device time was taken on the host clock (rs_ledger_read). */
static int64_t rs_ledger_append(rs_ledger *l, const rs_ledger_entry *e, int host_clocked) {
  int64_t seq = l->count++;
  l->ring[seq % l->capacity] = *e;
  l->host_clocked[seq % l->capacity] = (unsigned char)host_clocked;
  rs_stats_add_entry(&l->totals, e);
  for (int i = 0; i < l->depth; i++) rs_stats_add_entry(&l->scopes[i].stats, e);
  return seq;
}

void rs_ledger_read(const rs_ledger *l, int64_t seq, rs_ledger_entry *out) {
  *out = l->ring[seq % l->capacity];
  if (out->device_start_ms >= 0 && !l->host_clocked[seq % l->capacity]) out->device_start_ms += l->ref_shift_ms;
}

/* A timing event recorded on stream now, or NULL (none to be had, or the record failed). */
static void *rs_ledger_recorded_event(rs_context *ctx, void *stream) {
  void *ev = rs_ledger_event(ctx);
  if (ev && ctx->vt->event_record(ctx->be, ev, stream) != RS_OK) {
    ctx->vt->event_destroy(ctx->be, ev);
    ev = NULL;
  }
  return ev;
}

static rs_ledger_token rs_ledger_timed_begin(rs_context *ctx, void *stream, unsigned kind, int host_waits) {
  rs_ledger_token t = {-1, rs_now_ms(), NULL, NULL, 0};
  /* A captured stream runs nothing now: no events there (they would be captured too). */
  if ((atomic_load_explicit(&ctx->ledger->timing, memory_order_relaxed) & kind) && !rs_capture_of(ctx, stream, 0)) {
    if (host_waits)
      t.host_timed = 1;
    else
      t.ev_start = rs_ledger_recorded_event(ctx, stream);
  }
  return t;
}

static void rs_ledger_timed_end(rs_context *ctx, rs_ledger_token t, rs_ledger_entry *e, void *stream) {
  rs_ledger *l = ctx->ledger;
  void *ev_end = t.ev_start && !t.ev_end ? rs_ledger_recorded_event(ctx, stream) : t.ev_end;
  double now = rs_now_ms();
  e->stream = stream;
  e->host_start_ms = t.host_start_ms - l->epoch_ms;
  e->host_ms = now - t.host_start_ms;
  e->device_ms = t.host_timed ? e->host_ms : -1;
  e->device_start_ms = t.host_timed ? e->host_start_ms : -1;
  e->thread = rs_ledger_thread();
  pthread_mutex_lock(&l->lock);
  int64_t seq = rs_ledger_append(l, e, t.host_timed);
  if (t.ev_start && ev_end)
    rs_ledger_add_pending(l, seq, e, t.ev_start, ev_end);
  else {
    rs_ledger_spare(ctx, t.ev_start);
    rs_ledger_spare(ctx, ev_end);
  }
  int sweep = l->npending >= l->sweep_at;
  pthread_mutex_unlock(&l->lock);
  if (sweep) rs_ledger_sweep(ctx);
  if (ctx->vt->range_pop) ctx->vt->range_pop();
}

/* The profiler range opens before the entry's clock starts and closes after it stops, so
 * the ledger's times do not include the annotation. */
rs_ledger_token rs_ledger_copy_begin(rs_context *ctx, rs_copy_dir dir, size_t bytes,
                                     const rs_copy_cause *cause, void *stream, int host_waits) {
  (void)bytes;
  if (ctx->vt->range_push) ctx->vt->range_push((rs_range_kind)dir, cause->implicit, cause->what, cause->arg);
  return rs_ledger_timed_begin(ctx, stream, cause->untimed ? RS_TIME_NONE : RS_TIME_COPIES, host_waits);
}

/* "(1000,)", "(64, 64)", "()": NumPy's way, cut with "..." where it does not fit. */
static void rs_ledger_shape(char *out, size_t len, int ndim, const int64_t *shape) {
  size_t o = (size_t)snprintf(out, len, "(");
  for (int i = 0; i < ndim && o < len; i++)
    o += (size_t)snprintf(out + o, len - o, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (o < len) o += (size_t)snprintf(out + o, len - o, ndim == 1 ? ",)" : ")");
  if (o >= len && len > 4) memcpy(out + len - 4, "...", 4);
}

void rs_ledger_copy_end(rs_context *ctx, rs_ledger_token token, rs_copy_dir dir, size_t bytes,
                        const rs_copy_cause *cause, void *stream, int ndim, const int64_t *shape) {
  rs_capture *c = rs_capture_of(ctx, stream, 0);
  if (c) { /* captured, not done: counted into the graph, recorded when it is launched */
    pthread_mutex_lock(&ctx->ledger->lock);
    c->copies[dir][cause->implicit ? 1 : 0]++;
    c->bytes[dir][cause->implicit ? 1 : 0] += (int64_t)bytes;
    pthread_mutex_unlock(&ctx->ledger->lock);
    if (ctx->vt->range_pop) ctx->vt->range_pop(); /* opened by rs_ledger_copy_begin */
    return;
  }
  rs_ledger_entry e;
  memset(&e, 0, sizeof e);
  e.kind = RS_ENTRY_COPY;
  e.dir = (rs_direction)dir;
  e.implicit = cause->implicit ? 1 : 0;
  e.bytes = bytes;
  e.arg = cause->arg;
  snprintf(e.cause, sizeof e.cause, "%s", cause->what);
  if (shape) rs_ledger_shape(e.shape, sizeof e.shape, ndim, shape);
  rs_ledger_timed_end(ctx, token, &e, stream);
}

rs_ledger_token rs_ledger_prefetch_begin(rs_context *ctx, void *stream) {
  if (ctx->vt->range_push) ctx->vt->range_push(RS_RANGE_PREFETCH, 0, "rs_array_prefetch", -1);
  return rs_ledger_timed_begin(ctx, stream, RS_TIME_COPIES, 0);
}

void rs_ledger_prefetch_end(rs_context *ctx, rs_ledger_token token, int to_device, size_t bytes, const char *cause,
                            void *stream) {
  rs_ledger_entry e;
  memset(&e, 0, sizeof e);
  e.kind = RS_ENTRY_PREFETCH;
  e.dir = to_device ? RS_H2D : RS_D2H;
  e.bytes = bytes;
  e.arg = -1;
  snprintf(e.cause, sizeof e.cause, "%s", cause);
  rs_ledger_timed_end(ctx, token, &e, stream);
}

/* Collectives are timed with the copies: they move bytes between devices. */
rs_ledger_token rs_ledger_collective_begin(rs_context *ctx, const char *name, void *stream) {
  if (ctx->vt->range_push) ctx->vt->range_push(RS_RANGE_COLLECTIVE, 0, name, -1);
  return rs_ledger_timed_begin(ctx, stream, RS_TIME_COPIES, 0);
}

void rs_ledger_collective_end(rs_context *ctx, rs_ledger_token token, const char *name, size_t bytes, void *stream) {
  rs_ledger_entry e;
  memset(&e, 0, sizeof e);
  e.kind = RS_ENTRY_COLLECTIVE;
  e.dir = RS_P2P;
  e.bytes = bytes;
  e.arg = -1;
  snprintf(e.cause, sizeof e.cause, "%s", name);
  rs_ledger_timed_end(ctx, token, &e, stream);
}

rs_ledger_token rs_ledger_kernel_begin(rs_context *ctx, const char *name, void *stream) {
  if (ctx->vt->range_push) ctx->vt->range_push(RS_RANGE_KERNEL, 0, name, -1);
  return rs_ledger_timed_begin(ctx, stream, RS_TIME_KERNELS, 0);
}

void rs_ledger_kernel_end(rs_context *ctx, rs_ledger_token token, const char *name, void *stream) {
  rs_capture *c = rs_capture_of(ctx, stream, 0);
  if (c) {
    pthread_mutex_lock(&ctx->ledger->lock);
    c->kernels++;
    pthread_mutex_unlock(&ctx->ledger->lock);
    if (ctx->vt->range_pop) ctx->vt->range_pop(); /* opened by rs_ledger_kernel_begin */
    return;
  }
  rs_ledger_entry e;
  memset(&e, 0, sizeof e);
  e.kind = RS_ENTRY_KERNEL;
  e.arg = -1;
  snprintf(e.cause, sizeof e.cause, "%s", name);
  rs_ledger_timed_end(ctx, token, &e, stream);
}

/* Record a host-blocking wait that already happened. */
static void rs_ledger_wait(rs_context *ctx, const char *cause, double host_ms) {
  rs_ledger *l = ctx->ledger;
  rs_ledger_entry e;
  memset(&e, 0, sizeof e);
  e.kind = RS_ENTRY_WAIT;
  e.arg = -1;
  e.device_ms = -1;
  e.device_start_ms = -1;
  e.thread = rs_ledger_thread();
  e.host_ms = host_ms;
  e.host_start_ms = rs_now_ms() - host_ms - l->epoch_ms;
  snprintf(e.cause, sizeof e.cause, "%s", cause);
  pthread_mutex_lock(&l->lock);
  rs_ledger_append(l, &e, 0);
  pthread_mutex_unlock(&l->lock);
}

rs_status rs_ledger_graph_begin(rs_context *ctx, void *stream, rs_ledger_token *token) {
  if (ctx->vt->range_push) ctx->vt->range_push(RS_RANGE_GRAPH, 0, "rs_graph_launch", -1);
  *token = rs_ledger_timed_begin(ctx, stream, RS_TIME_KERNELS, 0); /* timed as kernels are */
  return RS_OK;
}

void rs_ledger_token_drop(rs_context *ctx, rs_ledger_token token) {
  if (ctx->vt->range_pop) ctx->vt->range_pop(); /* opened by the begin whose work failed */
  if (!token.ev_start) return;
  pthread_mutex_lock(&ctx->ledger->lock);
  rs_ledger_spare(ctx, token.ev_start);
  rs_ledger_spare(ctx, token.ev_end);
  pthread_mutex_unlock(&ctx->ledger->lock);
}

void rs_ledger_mark_end(rs_context *ctx, rs_ledger_token *t, void *stream) {
  if (t->ev_start && !t->ev_end) t->ev_end = rs_ledger_recorded_event(ctx, stream); /* NULL: the _end call tries again */
}

void rs_ledger_graph_end(rs_context *ctx, rs_ledger_token token, const rs_capture *g, void *stream) {
  rs_ledger *l = ctx->ledger;
  rs_ledger_entry e;
  memset(&e, 0, sizeof e);
  e.kind = RS_ENTRY_GRAPH;
  e.arg = -1;
  snprintf(e.cause, sizeof e.cause, "rs_graph_launch");
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++) {
      e.graph_copies += g->copies[d][i];
      e.bytes += (size_t)g->bytes[d][i];
    }
  e.graph_kernels = g->kernels;
  /* What the replay did, in the totals and every open scope, as if each had run alone. */
  pthread_mutex_lock(&l->lock);
  rs_ledger_stats *all[RS_LEDGER_MAX_SCOPES + 1];
  int n = 0;
  all[n++] = &l->totals;
  for (int i = 0; i < l->depth; i++) all[n++] = &l->scopes[i].stats;
  for (int k = 0; k < n; k++) {
    for (int d = 0; d < RS_DIRECTIONS; d++)
      for (int i = 0; i < 2; i++) {
        all[k]->copies[d][i] += g->copies[d][i];
        all[k]->bytes[d][i] += g->bytes[d][i];
      }
    all[k]->kernels += g->kernels;
  }
  pthread_mutex_unlock(&l->lock);
  rs_ledger_timed_end(ctx, token, &e, stream);
}

/* A host wait that would break a capture: refused, naming the call and the stream. */
static rs_status rs_wait_breaks_capture(rs_context *ctx, rs_wait_on on, void *native, const char *cause) {
  rs_capture *c = NULL;
  if (on == RS_WAIT_STREAM) c = rs_capture_of(ctx, native, 1);
  else if (on == RS_WAIT_DEVICE) c = rs_capture_of(ctx, NULL, 1);
  if (!c) return RS_OK;
  return rs_fail(RS_ERR_STATE,
                 "%s: a host wait for %s while stream %p is being captured into a graph: the capture would "
                 "break (end it with rs_graph_end_capture first)",
                 cause, on == RS_WAIT_STREAM && native ? "the stream" : "the device", c->native);
}

rs_status rs_ledger_timed_wait(rs_context *ctx, rs_wait_on on, void *native, const char *cause) {
  RS_TRY(rs_wait_breaks_capture(ctx, on, native, cause));
  if (ctx->vt->range_push) ctx->vt->range_push(RS_RANGE_WAIT, 0, cause, -1);
  double t0 = rs_now_ms();
  rs_status st;
  switch (on) {
    case RS_WAIT_STREAM:
      st = ctx->vt->stream_synchronize(ctx->be, native);
      break;
    case RS_WAIT_EVENT:
      st = ctx->vt->event_synchronize(ctx->be, native);
      break;
    default:
      st = ctx->vt->synchronize(ctx->be);
      break;
  }
  rs_ledger_wait(ctx, cause, rs_now_ms() - t0);
  if (ctx->vt->range_pop) ctx->vt->range_pop();
  return st;
}

