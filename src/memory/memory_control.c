/* The public controls: limits, release of cached memory, the pending-deallocation queue
 * (flush, thresholds) and defer_cleanup scopes. */
#include <math.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

rs_status rs_memory_set_limit(rs_context *ctx, rs_mem_space space, size_t bytes) {
  const char *who = "rs_memory_set_limit";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  rs_memory *m = ctx->mem;
  if (space == RS_SPACE_PINNED) {
    rs_status st = rs_pool_set_limit(&m->pinned_pool, bytes);
    return st == RS_OK ? st : rs_fail_prefix(st, "%s: ", who);
  }
  if (space != RS_SPACE_DEVICE)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d is not a memory space", who, (int)space);
  size_t in_use = rs_memory_device_in_use(m);
  if (bytes && bytes < in_use) {
    char a[32], b[32];
    return rs_fail(RS_ERR_LIMIT, "%s: a limit of %s is below the %s of device memory in use", who,
                   rs_fmt_bytes(a, sizeof a, (double)bytes),
                   rs_fmt_bytes(b, sizeof b, (double)in_use));
  }
  /* Every device allocator keeps the limit, so a later switch keeps it too. */
  RS_TRY(rs_pool_set_limit(&m->device_pool, bytes));
  rs_tracked *tables[] = {&m->direct.live, &m->async_live, &m->user_live};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    pthread_mutex_lock(&tables[i]->lock);
    tables[i]->limit = bytes;
    pthread_mutex_unlock(&tables[i]->lock);
  }
  m->device_limit = bytes;
  return RS_OK;
}

rs_status rs_memory_set_limit_fraction(rs_context *ctx, double fraction) {
  const char *who = "rs_memory_set_limit_fraction";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (!(fraction > 0 && fraction <= 1))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %g is not a fraction in (0, 1]", who, fraction);
  size_t free_bytes = 0, total = 0;
  rs_status st = rs_source_info(&ctx->mem->device_src, &free_bytes, &total);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  size_t bytes = (size_t)floor(fraction * (double)total);
  return rs_memory_set_limit(ctx, RS_SPACE_DEVICE, bytes ? bytes : 1);
}

rs_status rs_memory_release(rs_context *ctx, rs_mem_space space) {
  const char *who = "rs_memory_release";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  rs_status st;
  if (space == RS_SPACE_DEVICE)
    st = rs_memory_reclaim(ctx->mem, 1);
  else if (space == RS_SPACE_PINNED)
    st = rs_pool_trim(&ctx->mem->pinned_pool, 1);
  else
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d is not a memory space", who, (int)space);
  return st == RS_OK ? st : rs_fail_prefix(st, "%s: ", who);
}

rs_status rs_memory_flush(rs_context *ctx) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_memory_flush: context is NULL");
  return rs_deferred_flush(ctx->mem, 1, 0);
}

rs_status rs_defer_cleanup_begin(rs_context *ctx) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_defer_cleanup_begin: context is NULL");
  atomic_fetch_add(&ctx->mem->defer_depth, 1);
  return RS_OK;
}

rs_status rs_defer_cleanup_end(rs_context *ctx) {
  const char *who = "rs_defer_cleanup_end";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  rs_memory *m = ctx->mem;
  int depth = atomic_load(&m->defer_depth);
  do {
    if (depth <= 0) return rs_fail(RS_ERR_STATE, "%s: no defer_cleanup scope is open", who);
  } while (!atomic_compare_exchange_weak(&m->defer_depth, &depth, depth - 1));
  /* Frees held back by the scope: the thresholds apply again now. */
  if (depth == 1) return rs_deferred_flush(m, 0, 1);
  return RS_OK;
}

rs_status rs_memory_set_pending_limits(rs_context *ctx, int64_t max_count, double max_ratio) {
  const char *who = "rs_memory_set_pending_limits";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (max_count < 1)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: a count of %lld is below 1", who,
                   (long long)max_count);
  if (!(max_ratio > 0 && max_ratio <= 1))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: a ratio of %g is outside (0, 1]", who, max_ratio);
  rs_memory *m = ctx->mem;
  pthread_mutex_lock(&m->direct.live.lock);
  m->direct.max_count = max_count;
  m->direct.max_ratio = max_ratio;
  pthread_mutex_unlock(&m->direct.live.lock);
  return rs_deferred_flush(m, 0, 1);
}
