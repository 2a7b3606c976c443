/* Statistics and the printed report of both memory spaces, and the out-of-memory message
 * built from them. */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

static rs_status check_space(rs_context *ctx, rs_mem_space space, const char *who) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (space != RS_SPACE_DEVICE && space != RS_SPACE_PINNED)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d is not a memory space", who, (int)space);
  return RS_OK;
}

static void device_name(rs_memory *m, rs_allocator_kind kind, char *buf, size_t len) {
  if (kind == RS_ALLOCATOR_USER)
    snprintf(buf, len, "%s", m->user_name);
  else if (m->has_user)
    snprintf(buf, len, "%s over %.48s", rs_allocator_name(kind), m->user_name);
  else
    snprintf(buf, len, "%s", rs_allocator_name(kind));
}

rs_status rs_memory_get_stats(rs_context *ctx, rs_mem_space space, rs_memory_stats *out) {
  const char *who = "rs_memory_get_stats";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(check_space(ctx, space, who));
  rs_memory *m = ctx->mem;
  memset(out, 0, sizeof *out);
  if (space == RS_SPACE_PINNED) {
    out->allocator = RS_ALLOCATOR_POOL;
    snprintf(out->name, sizeof out->name, "pinned pool");
    rs_pool_stats(&m->pinned_pool, out);
  } else {
    rs_allocator_kind kind = (rs_allocator_kind)atomic_load(&m->kind);
    out->allocator = kind;
    device_name(m, kind, out->name, sizeof out->name);
    switch (kind) {
      case RS_ALLOCATOR_POOL:
        rs_pool_stats(&m->device_pool, out);
        break;
      case RS_ALLOCATOR_DIRECT:
        rs_deferred_stats(m, out);
        break;
      case RS_ALLOCATOR_ASYNC:
        rs_async_stats(m, out);
        break;
      case RS_ALLOCATOR_USER:
        rs_tracked_stats(&m->user_live, out);
        break;
    }
    size_t free_bytes = 0, total = 0;
    if (rs_source_info(&m->device_src, &free_bytes, &total) == RS_OK) {
      out->device_free_bytes = (int64_t)free_bytes;
      out->device_total_bytes = (int64_t)total;
    }
    size_t scratch = 0;
    if (ctx->vt->ops_scratch_held && ctx->vt->ops_scratch_held(ctx->be, &scratch) == RS_OK)
      out->ops_scratch_bytes = (int64_t)scratch;
  }
  out->oom_recoveries = atomic_load(&m->oom_recoveries[space]);
  out->oom_failures = atomic_load(&m->oom_failures[space]);
  out->defer_depth = atomic_load(&m->defer_depth);
  return RS_OK;
}

rs_status rs_memory_reset_stats(rs_context *ctx, rs_mem_space space) {
  RS_TRY(check_space(ctx, space, "rs_memory_reset_stats"));
  rs_memory *m = ctx->mem;
  if (space == RS_SPACE_PINNED) {
    rs_pool_reset_stats(&m->pinned_pool);
  } else {
    rs_pool_reset_stats(&m->device_pool);
    rs_deferred_reset(m);
    rs_tracked_reset(&m->async_live);
    rs_tracked_reset(&m->user_live);
  }
  atomic_store(&m->oom_recoveries[space], 0);
  atomic_store(&m->oom_failures[space], 0);
  return RS_OK;
}

static void report_tracked(const rs_memory_stats *st, FILE *out) {
  char a[32], b[32], c[32];
  fprintf(out, "  in use %s in %lld allocation%s, cached %s, peak in use %s, limit %s\n",
          rs_fmt_bytes(a, sizeof a, (double)st->in_use_bytes), (long long)st->segments,
          st->segments == 1 ? "" : "s", rs_fmt_bytes(b, sizeof b, (double)st->cached_bytes),
          rs_fmt_bytes(c, sizeof c, (double)st->peak_in_use_bytes),
          st->limit_bytes ? rs_fmt_bytes(a, sizeof a, (double)st->limit_bytes) : "none");
  fprintf(out, "  allocations %lld, frees %lld, flushes %lld (errors %lld, cancelled frees %lld)\n",
          (long long)st->allocations, (long long)st->frees, (long long)st->flushes,
          (long long)st->flush_errors, (long long)st->cancelled_frees);
}

rs_status rs_memory_report(rs_context *ctx, FILE *out) {
  const char *who = "rs_memory_report";
  if (!ctx || !out) return rs_fail(RS_ERR_NULL_POINTER, "%s: NULL argument", who);
  rs_memory *m = ctx->mem;
  rs_memory_stats st;
  RS_TRY(rs_memory_get_stats(ctx, RS_SPACE_DEVICE, &st));
  char a[32], b[32];
  fprintf(out, "device memory (%s backend): allocator %s; device %s free of %s\n", ctx->vt->name,
          st.name, rs_fmt_bytes(a, sizeof a, (double)st.device_free_bytes),
          rs_fmt_bytes(b, sizeof b, (double)st.device_total_bytes));
  fprintf(out,
          "  out of memory: %lld recovered by flushing and trimming, %lld failed; "
          "defer_cleanup depth %d\n",
          (long long)st.oom_recoveries, (long long)st.oom_failures, st.defer_depth);
  if (st.ops_scratch_bytes > 0)
    fprintf(out, "  array operations' scratch pool (all contexts on the device): %s held\n",
            rs_fmt_bytes(a, sizeof a, (double)st.ops_scratch_bytes));
  switch (st.allocator) {
    case RS_ALLOCATOR_POOL:
      rs_pool_report(&m->device_pool, out);
      break;
    case RS_ALLOCATOR_DIRECT:
      report_tracked(&st, out);
      rs_deferred_report(m, out);
      break;
    case RS_ALLOCATOR_ASYNC:
    case RS_ALLOCATOR_USER:
      report_tracked(&st, out);
      break;
  }
  RS_TRY(rs_memory_get_stats(ctx, RS_SPACE_PINNED, &st));
  fprintf(out, "pinned host memory: pinned pool\n");
  rs_pool_report(&m->pinned_pool, out);
  return RS_OK;
}

/* The out-of-memory message: enough to see why an allocation did not fit without a
 * debugger - what was asked for, what the device has free, what the allocator holds in
 * use and in cache, and the start of the block map (fragmentation shows there). */
rs_status rs_memory_oom_fail(rs_memory *m, rs_mem_space space, size_t bytes, const char *cause) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  /* The cause was copied by the caller: the message is rewritten below anyway. */
  (void)rs_memory_get_stats(m->ctx, space, &st);
  char req[32], fr[32], tot[32], use[32], cac[32], big[32], lim[32], pend[32];
  rs_fmt_bytes(req, sizeof req, (double)bytes);
  rs_fmt_bytes(fr, sizeof fr, (double)st.device_free_bytes);
  rs_fmt_bytes(tot, sizeof tot, (double)st.device_total_bytes);
  rs_fmt_bytes(use, sizeof use, (double)st.in_use_bytes);
  rs_fmt_bytes(cac, sizeof cac, (double)st.cached_bytes);
  rs_fmt_bytes(big, sizeof big, (double)st.largest_free_block);
  rs_fmt_bytes(pend, sizeof pend, (double)st.pending_bytes);
  if (st.limit_bytes)
    rs_fmt_bytes(lim, sizeof lim, (double)st.limit_bytes);
  else
    snprintf(lim, sizeof lim, "none");
  char device[128] = "";
  if (space == RS_SPACE_DEVICE)
    snprintf(device, sizeof device, "; the device has %s free of %s", fr, tot);
  char deferred[128] = "";
  if (st.pending_frees > 0)
    snprintf(deferred, sizeof deferred, "; %lld pending frees (%s) held back by defer_cleanup",
             (long long)st.pending_frees, pend);
  char map[400] = "";
  rs_pool *pool = space == RS_SPACE_PINNED                     ? &m->pinned_pool
                  : atomic_load(&m->kind) == RS_ALLOCATOR_POOL ? &m->device_pool
                                                               : NULL;
  if (pool) rs_pool_map_str(pool, map, sizeof map);
  return rs_fail(space == RS_SPACE_DEVICE ? RS_ERR_OUT_OF_MEMORY : RS_ERR_HOST_OUT_OF_MEMORY,
                 "out of %s memory: %zu bytes (%s) requested%s; allocator '%s': %s in use, %s "
                 "cached (largest free block %s), limit %s%s; failed again after flushing "
                 "and releasing cached memory. Cause: %.240s%s%s",
                 space == RS_SPACE_DEVICE ? "device" : "pinned host", bytes, req, device, st.name,
                 use, cac, big, lim, deferred, cause, pool ? ". Block map: " : "", map);
}
