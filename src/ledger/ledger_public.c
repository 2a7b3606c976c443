/* The ledger's public queries: sums, totals, reset, the log. */
#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "ledger/ledger_internal.h"


/* The sums return numbers, not a status: a NULL snapshot sums to 0 and says why in
 * rs_last_error(). */
int64_t rs_ledger_copies(const rs_ledger_stats *s, int implicit) {
  if (!s) {
    rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_copies: stats is NULL");
    return 0;
  }
  int64_t n = 0;
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++)
      if (implicit < 0 || implicit == i) n += s->copies[d][i];
  return n;
}

int64_t rs_ledger_bytes(const rs_ledger_stats *s, int implicit) {
  if (!s) {
    rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_bytes: stats is NULL");
    return 0;
  }
  int64_t n = 0;
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++)
      if (implicit < 0 || implicit == i) n += s->bytes[d][i];
  return n;
}

double rs_ledger_copy_ms(const rs_ledger_stats *s) {
  if (!s) {
    rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_copy_ms: stats is NULL");
    return 0;
  }
  double ms = 0;
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++)
      ms += s->copy_device_ms[d][i] > 0 ? s->copy_device_ms[d][i] : s->copy_host_ms[d][i];
  return ms;
}

rs_status rs_ledger_set_timing(rs_context *ctx, unsigned what) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_set_timing: context is NULL");
  if (what & ~RS_TIME_ALL)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "rs_ledger_set_timing: unknown flag bits 0x%x (known: RS_TIME_COPIES, RS_TIME_KERNELS)",
                   what & ~RS_TIME_ALL);
  atomic_store(&ctx->ledger->timing, what);
  return RS_OK;
}

rs_status rs_ledger_get_stats(rs_context *ctx, rs_ledger_stats *out) {
  if (!ctx || !out) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_get_stats: NULL argument");
  rs_ledger_resolve(ctx, 1);
  pthread_mutex_lock(&ctx->ledger->lock);
  *out = ctx->ledger->totals;
  pthread_mutex_unlock(&ctx->ledger->lock);
  return RS_OK;
}

rs_status rs_ledger_reset(rs_context *ctx) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_reset: context is NULL");
  rs_ledger_resolve(ctx, 1);
  rs_ledger *l = ctx->ledger;
  pthread_mutex_lock(&l->lock);
  if (l->depth > 0) {
    pthread_mutex_unlock(&l->lock);
    return rs_fail(RS_ERR_STATE, "rs_ledger_reset: %d ledger scope(s) still open", l->depth);
  }
  memset(&l->totals, 0, sizeof l->totals);
  l->count = 0;
  rs_ledger_forget_logs(l);
  l->epoch_ms = rs_now_ms();
  /* A fresh reference when the last is older than a second: device times far from it lose
   * precision (float milliseconds), and placing it waits for the legacy stream, which a
   * loop of resets should not pay each time. */
  int again = !l->ref_event || l->epoch_ms - l->ref_host_ms > 1000.0;
  pthread_mutex_unlock(&l->lock);
  if (again) rs_ledger_place_clock(ctx);
  return RS_OK;
}

rs_status rs_ledger_count(rs_context *ctx, int64_t *count, int64_t *dropped) {
  if (!ctx || !count) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_count: NULL argument");
  rs_ledger *l = ctx->ledger;
  pthread_mutex_lock(&l->lock);
  int64_t kept = l->count < l->capacity ? l->count : l->capacity;
  *count = kept;
  if (dropped) *dropped = l->count - kept;
  pthread_mutex_unlock(&l->lock);
  return RS_OK;
}

rs_status rs_ledger_entry_at(rs_context *ctx, int64_t index, rs_ledger_entry *out) {
  if (!ctx || !out) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_entry_at: NULL argument");
  rs_ledger_resolve(ctx, 0);
  rs_ledger *l = ctx->ledger;
  pthread_mutex_lock(&l->lock);
  int64_t kept = l->count < l->capacity ? l->count : l->capacity;
  if (index < 0 || index >= kept) {
    pthread_mutex_unlock(&l->lock);
    return rs_fail(RS_ERR_INDEX, "rs_ledger_entry_at: index %lld of %lld entries", (long long)index,
                   (long long)kept);
  }
  rs_ledger_read(l, l->count - kept + index, out);
  pthread_mutex_unlock(&l->lock);
  return RS_OK;
}
