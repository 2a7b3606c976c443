/* Ledger scopes (with their records for the trace) and the pool samples the memory layer
 * reports. */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "ledger/ledger_internal.h"

void rs_ledger_forget_logs(rs_ledger *l) {
  l->pool_count = 0;
  /* Open scopes stay: reset refuses while one is open, so there are none. */
  l->scope_count = 0;
}

void rs_ledger_pool_sample(void *arg, int pinned, size_t in_use, size_t held) {
  rs_context *ctx = arg;
  rs_ledger *l = ctx->ledger;
  double now = rs_now_ms();
  pthread_mutex_lock(&l->lock);
  rs_pool_sample *s = &l->pool_log[l->pool_count++ % RS_LEDGER_POOL_LOG];
  *s = (rs_pool_sample){now - l->epoch_ms, pinned, in_use, held};
  pthread_mutex_unlock(&l->lock);
}

rs_status rs_ledger_begin_named(rs_context *ctx, const char *name) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_begin: context is NULL");
  const char *shown = name && name[0] ? name : "scope";
  /* Earlier work must not leak its device time into the new scope's totals. */
  rs_ledger_resolve(ctx, 0);
  /* Outside the lock: a profiler's callback must not run under it. Scopes may end on
   * another thread, so the range is a start/end one, not a push/pop. */
  uint64_t range = ctx->vt->range_start ? ctx->vt->range_start(RS_RANGE_SCOPE, shown) : 0;
  rs_ledger *l = ctx->ledger;
  pthread_mutex_lock(&l->lock);
  if (l->depth == RS_LEDGER_MAX_SCOPES) {
    pthread_mutex_unlock(&l->lock);
    if (range && ctx->vt->range_end) ctx->vt->range_end(range);
    return rs_fail(RS_ERR_STATE, "rs_ledger_begin: more than %d nested scopes", RS_LEDGER_MAX_SCOPES);
  }
  rs_ledger_scope *s = &l->scopes[l->depth];
  memset(s, 0, sizeof *s);
  s->id = ++l->next_scope_id;
  s->log_seq = l->scope_count++;
  s->range_id = range;
  rs_scope_record *r = &l->scope_log[s->log_seq % RS_LEDGER_SCOPE_LOG];
  r->start_ms = rs_now_ms() - l->epoch_ms;
  r->end_ms = -1;
  r->depth = l->depth;
  r->thread = rs_ledger_thread();
  snprintf(r->name, sizeof r->name, "%s", shown);
  l->depth++;
  pthread_mutex_unlock(&l->lock);
  return RS_OK;
}

rs_status rs_ledger_begin(rs_context *ctx) { return rs_ledger_begin_named(ctx, NULL); }

rs_status rs_ledger_end(rs_context *ctx, rs_ledger_stats *out) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_end: context is NULL");
  rs_ledger *l = ctx->ledger;
  pthread_mutex_lock(&l->lock);
  int depth = l->depth;
  pthread_mutex_unlock(&l->lock);
  if (depth == 0) return rs_fail(RS_ERR_STATE, "rs_ledger_end: no ledger scope was begun");
  rs_ledger_resolve(ctx, 1);
  pthread_mutex_lock(&l->lock);
  if (l->depth == 0) {
    pthread_mutex_unlock(&l->lock);
    return rs_fail(RS_ERR_STATE, "rs_ledger_end: no ledger scope was begun");
  }
  rs_ledger_scope *s = &l->scopes[--l->depth];
  rs_ledger_stats stats = s->stats;
  uint64_t range = s->range_id;
  if (s->log_seq >= l->scope_count - RS_LEDGER_SCOPE_LOG)
    l->scope_log[s->log_seq % RS_LEDGER_SCOPE_LOG].end_ms = rs_now_ms() - l->epoch_ms;
  pthread_mutex_unlock(&l->lock);
  if (range && ctx->vt->range_end) ctx->vt->range_end(range);
  if (out) *out = stats;
  return RS_OK;
}
