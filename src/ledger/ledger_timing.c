/* The ledger's device times (ledger.c records the entries): timing events reused from a
 * spare list, entries whose events are still pending, and their resolution into the
 * entries, the totals and the open scopes. */
#include <stdlib.h>
#include "backend/backend.h"
#include "ledger/ledger_hooks.h"
#include "ledger/ledger_internal.h"

/* A timing event from the spare list or a new one; NULL if the backend has none to give
 * (the entry is then simply not timed). */
void *rs_ledger_event(rs_context *ctx) {
  rs_ledger *l = ctx->ledger;
  void *ev = NULL;
  pthread_mutex_lock(&l->lock);
  if (l->nspare > 0) ev = l->spare_events[--l->nspare];
  pthread_mutex_unlock(&l->lock);
  if (!ev && ctx->vt->event_create(ctx->be, 0, &ev) != RS_OK) ev = NULL;
  return ev;
}

void rs_ledger_spare(rs_context *ctx, void *ev) {
  rs_ledger *l = ctx->ledger;
  if (!ev) return;
  if (l->nspare == l->spare_cap) {
    size_t cap = l->spare_cap ? l->spare_cap * 2 : 16;
    void **grown = realloc(l->spare_events, cap * sizeof *grown);
    if (!grown) {
      ctx->vt->event_destroy(ctx->be, ev);
      return;
    }
    l->spare_events = grown;
    l->spare_cap = cap;
  }
  l->spare_events[l->nspare++] = ev;
}

void rs_ledger_drop_pending(rs_context *ctx) {
  rs_ledger *l = ctx->ledger;
  for (size_t i = 0; i < l->npending; i++) {
    ctx->vt->event_destroy(ctx->be, l->pending[i].ev_start);
    ctx->vt->event_destroy(ctx->be, l->pending[i].ev_end);
  }
  l->npending = 0;
}

static void rs_stats_add_device(rs_ledger_stats *s, const rs_pending_timing *p, double ms) {
  if (p->kind == RS_ENTRY_GRAPH)
    s->graph_device_ms += ms;
  else if (p->kind == RS_ENTRY_COLLECTIVE)
    s->collective_device_ms += ms;
  else if (p->kind == RS_ENTRY_KERNEL)
    s->kernel_device_ms += ms;
  else if (p->kind == RS_ENTRY_PREFETCH)
    s->prefetch_device_ms[p->dir == RS_H2D] += ms;
  else
    s->copy_device_ms[p->dir][p->implicit] += ms;
}

void rs_ledger_add_pending(rs_ledger *l, int64_t seq, const rs_ledger_entry *e,
                                  void *ev_start, void *ev_end) {
  if (l->npending == l->pending_cap) {
    size_t cap = l->pending_cap ? l->pending_cap * 2 : 64;
    rs_pending_timing *grown = realloc(l->pending, cap * sizeof *grown);
    if (!grown) return; /* untimed rather than wrong; the events leak into nothing: */
    l->pending = grown;
    l->pending_cap = cap;
  }
  rs_pending_timing *p = &l->pending[l->npending++];
  p->seq = seq;
  p->ev_start = ev_start;
  p->ev_end = ev_end;
  p->kind = e->kind;
  p->dir = e->dir;
  p->implicit = e->implicit;
  p->depth = l->depth;
  for (int i = 0; i < l->depth; i++) p->scope_ids[i] = l->scopes[i].id;
}

void rs_ledger_resolve(rs_context *ctx, int wait) {
  rs_ledger *l = ctx->ledger;
  pthread_mutex_lock(&l->lock);
  size_t kept = 0;
  for (size_t i = 0; i < l->npending; i++) {
    rs_pending_timing p = l->pending[i];
    int done = 0;
    if (wait)
      done = ctx->vt->event_synchronize(ctx->be, p.ev_end) == RS_OK;
    else
      done = ctx->vt->event_query(ctx->be, p.ev_end, &done) == RS_OK && done;
    float ms = -1.0f;
    if (done && ctx->vt->event_elapsed_ms(ctx->be, &ms, p.ev_start, p.ev_end) != RS_OK) ms = -1.0f;
    if (!done) {
      l->pending[kept++] = p;
      continue;
    }
    if (ms >= 0) {
      rs_stats_add_device(&l->totals, &p, ms);
      for (int s = 0; s < p.depth && s < l->depth; s++)
        if (l->scopes[s].id == p.scope_ids[s]) rs_stats_add_device(&l->scopes[s].stats, &p, ms);
      if (p.seq >= l->count - l->capacity) {
        rs_ledger_entry *e = &l->ring[p.seq % l->capacity];
        float since = -1.0f;
        e->device_ms = ms;
        if (l->ref_event && ctx->vt->event_elapsed_ms(ctx->be, &since, l->ref_event, p.ev_start) == RS_OK) {
          e->device_start_ms = l->ref_host_ms + since - l->epoch_ms;
          double late = e->host_start_ms - e->device_start_ms; /* causality: never before the call */
          if (late > l->ref_shift_ms) l->ref_shift_ms = late < l->ref_uncertainty_ms ? late : l->ref_uncertainty_ms;
        }
      }
    }
    rs_ledger_spare(ctx, p.ev_start);
    rs_ledger_spare(ctx, p.ev_end);
  }
  l->npending = kept;
  pthread_mutex_unlock(&l->lock);
}

/* Timings are otherwise resolved only when the ledger is read: a loop that never reads it
 * kept two events per entry alive for ever. Once this many are pending, an entry resolves
 * those done (their events become spares); with much still queued, the next sweep waits
 * for twice as many, so each timing is queried a bounded number of times on average. A
 * timed entry's cost is its two records (H200, bench/launch with RS_TIME_ALL: 8.6 us a
 * launch, 8.3 before this, 4.1 untimed; 2026-12-02). */
void rs_ledger_sweep(rs_context *ctx) {
  rs_ledger *l = ctx->ledger;
  rs_ledger_resolve(ctx, 0);
  pthread_mutex_lock(&l->lock);
  l->sweep_at = 2 * l->npending > RS_LEDGER_SWEEP_MIN ? 2 * l->npending : RS_LEDGER_SWEEP_MIN;
  pthread_mutex_unlock(&l->lock);
}

size_t rs_ledger_pending_timings(rs_context *ctx) {
  pthread_mutex_lock(&ctx->ledger->lock);
  size_t n = ctx->ledger->npending;
  pthread_mutex_unlock(&ctx->ledger->lock);
  return n;
}

