/* The memory layer's front: per-context state, the choice of allocator, and the one
 * allocation path every device byte (and every pinned byte) of the library takes - with
 * the out-of-memory recovery (flush, trim, retry once) done here, once, for every
 * allocator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

/* Memory from a user allocator may have been recycled under work still queued on the
 * stream by its previous owner (an RMM-style pool does that): record where that work
 * ends, for other streams to wait for. The device's own allocation is always fresh. */
static void user_ready(rs_memory *m, void *stream, rs_mem_event **ready) {
  if (!ready) return;
  *ready = rs_mem_event_record(m->ctx, stream);
  if (!*ready) (void)m->ctx->vt->stream_synchronize(m->ctx->be, stream);
}

static rs_status memory_alloc_once(rs_memory *m, size_t bytes, void *stream, void **out,
                                   rs_mem_event **ready) {
  rs_status st = RS_ERR_INTERNAL;
  switch ((rs_allocator_kind)atomic_load(&m->kind)) {
    case RS_ALLOCATOR_POOL:
      return rs_pool_alloc(&m->device_pool, bytes, stream, out, ready);
    case RS_ALLOCATOR_ASYNC:
      return rs_async_alloc(m, bytes, stream, out, ready);
    case RS_ALLOCATOR_DIRECT:
      st = rs_direct_alloc(m, bytes, stream, out);
      if (st == RS_OK && m->device_src.user) user_ready(m, stream, ready);
      return st;
    case RS_ALLOCATOR_USER:
      st = rs_user_alloc(m, bytes, stream, out);
      if (st == RS_OK) user_ready(m, stream, ready);
      return st;
  }
  return rs_fail(RS_ERR_INTERNAL, "memory: no allocator");
}

size_t rs_memory_device_in_use(rs_memory *m) {
  switch ((rs_allocator_kind)atomic_load(&m->kind)) {
    case RS_ALLOCATOR_POOL:
      return rs_pool_in_use(&m->device_pool);
    case RS_ALLOCATOR_DIRECT: {
      pthread_mutex_lock(&m->direct.live.lock);
      size_t n = m->direct.live.in_use;
      pthread_mutex_unlock(&m->direct.live.lock);
      return n;
    }
    case RS_ALLOCATOR_ASYNC: {
      pthread_mutex_lock(&m->async_live.lock);
      size_t n = m->async_live.in_use;
      pthread_mutex_unlock(&m->async_live.lock);
      return n;
    }
    case RS_ALLOCATOR_USER: {
      pthread_mutex_lock(&m->user_live.lock);
      size_t n = m->user_live.in_use;
      pthread_mutex_unlock(&m->user_live.lock);
      return n;
    }
  }
  return 0;
}

rs_status rs_memory_reclaim(rs_memory *m, int force) {
  rs_status first = rs_deferred_flush(m, force, 0);
  rs_status st = rs_pool_trim(&m->device_pool, 1);
  if (first == RS_OK) first = st;
  if (atomic_load(&m->kind) == RS_ALLOCATOR_ASYNC) {
    st = rs_async_trim(m);
    if (first == RS_OK) first = st;
  }
  /* the array operations' scratch pool is device memory this process holds and does not use */
  rs_context *ctx = m->ctx;
  if (ctx->vt->ops_scratch_release) {
    st = ctx->vt->ops_scratch_release(ctx->be, 1);
    if (first == RS_OK) first = st;
  }
  return first;
}

static rs_status device_malloc(rs_context *ctx, size_t bytes, void *stream, void **out,
                               rs_mem_event **ready) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "device allocation: out is NULL");
  *out = NULL;
  if (bytes == 0) return RS_OK;
  rs_memory *m = ctx->mem;
  rs_status st = memory_alloc_once(m, bytes, stream, out, ready);
  if (st != RS_ERR_OUT_OF_MEMORY) return st;
  /* Memory the context holds but does not use may be what is missing. A flush error
   * does not stop the retry; it is counted and shows in the statistics. */
  (void)rs_memory_reclaim(m, 0);
  st = memory_alloc_once(m, bytes, stream, out, ready);
  if (st == RS_OK) {
    atomic_fetch_add(&m->oom_recoveries[RS_SPACE_DEVICE], 1);
    return RS_OK;
  }
  if (st != RS_ERR_OUT_OF_MEMORY) return st;
  atomic_fetch_add(&m->oom_failures[RS_SPACE_DEVICE], 1);
  char cause[320];
  snprintf(cause, sizeof cause, "%s", rs_last_error());
  return rs_memory_oom_fail(m, RS_SPACE_DEVICE, bytes, cause);
}

rs_status rs_device_malloc(rs_context *ctx, size_t bytes, void *stream, void **out) {
  return device_malloc(ctx, bytes, stream, out, NULL);
}

rs_status rs_device_malloc_tracked(rs_context *ctx, size_t bytes, void *stream, void **out,
                                   rs_mem_track *track) {
  track->alloc_stream = stream;
  return device_malloc(ctx, bytes, stream, out, &track->ready);
}

static rs_status device_mfree(rs_context *ctx, void *ptr, size_t bytes, void *stream,
                              rs_mem_uses *uses, rs_pool_used used) {
  if (!ptr) {
    rs_uses_free(ctx, uses);
    return RS_OK;
  }
  rs_memory *m = ctx->mem;
  switch ((rs_allocator_kind)atomic_load(&m->kind)) {
    case RS_ALLOCATOR_POOL:
      return rs_pool_free(&m->device_pool, ptr, bytes, stream, uses, used);
    case RS_ALLOCATOR_DIRECT:
      return rs_direct_free(m, ptr, bytes, stream, uses);
    case RS_ALLOCATOR_ASYNC:
      return rs_async_free(m, ptr, bytes, stream, uses);
    case RS_ALLOCATOR_USER:
      return rs_user_free(m, ptr, bytes, stream, uses);
  }
  rs_uses_free(ctx, uses);
  return rs_fail(RS_ERR_INTERNAL, "memory: no allocator");
}

rs_status rs_device_mfree(rs_context *ctx, void *ptr, size_t bytes, void *stream) {
  /* Raw memory: nobody noted its uses; queued work may still touch it. */
  return device_mfree(ctx, ptr, bytes, stream, NULL, RS_POOL_UNKNOWN);
}

rs_status rs_device_mfree_tracked(rs_context *ctx, void *ptr, size_t bytes, rs_mem_track *track) {
  rs_mem_uses *uses = track->uses;
  track->uses = NULL;
  rs_pool_used used =
      atomic_load_explicit(&track->used_here, memory_order_relaxed) ? RS_POOL_USED : RS_POOL_UNUSED;
  rs_status st = device_mfree(ctx, ptr, bytes, track->alloc_stream, uses, used);
  rs_mem_event_unref(ctx, track->ready);
  track->ready = NULL;
  return st;
}

/* ---- lifetime --------------------------------------------------------------------------- */

static void memory_free_state(rs_memory *m) {
  rs_pool_destroy(&m->device_pool);
  rs_pool_destroy(&m->pinned_pool);
  rs_deferred_destroy(m);
  rs_tracked_destroy(&m->async_live);
  rs_tracked_destroy(&m->user_live);
  rs_tracked_destroy(&m->raw_live);
  rs_event_cache_destroy(m);
  pthread_mutex_destroy(&m->use_lock);
  pthread_mutex_destroy(&m->event_lock);
  free(m);
}

rs_status rs_memory_init(rs_context *ctx) {
  rs_memory *m = calloc(1, sizeof *m);
  if (!m) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "memory: out of host memory");
  const rs_config *cfg = &ctx->cfg;
  m->ctx = ctx;
  atomic_store(&m->kind, (int)cfg->allocator);
  m->device_src = (rs_mem_source){ctx, 0, NULL, "device"};
  m->pinned_src = (rs_mem_source){ctx, 1, NULL, "pinned"};
  /* The pieces below only create mutexes and read the device size: on a failure there
   * is nothing allocated to give back but m itself. */
  int ok = pthread_mutex_init(&m->use_lock, NULL) == 0;
  ok = pthread_mutex_init(&m->event_lock, NULL) == 0 && ok;
  rs_status st = ok ? RS_OK : rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "memory: cannot create a mutex");
  size_t free_bytes = 0, total = 0;
  if (st == RS_OK) st = ctx->vt->mem_info(ctx->be, &free_bytes, &total);
  if (st == RS_OK) st = rs_pool_init(&m->device_pool, &m->device_src, "device");
  if (st == RS_OK) st = rs_pool_init(&m->pinned_pool, &m->pinned_src, "pinned");
  if (st == RS_OK)
    st = rs_deferred_init(&m->direct, cfg->max_pending_count, cfg->max_pending_ratio, total);
  if (st == RS_OK) st = rs_tracked_init(&m->async_live);
  if (st == RS_OK) st = rs_tracked_init(&m->user_live);
  if (st == RS_OK) st = rs_tracked_init(&m->raw_live);
  if (st != RS_OK) {
    free(m);
    return rs_fail_prefix(st, "memory layer: ");
  }
  if (cfg->allocator == RS_ALLOCATOR_ASYNC && !ctx->vt->device_alloc_async) {
    ctx->mem = m;
    memory_free_state(m);
    ctx->mem = NULL;
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "RESIDENT_ALLOCATOR=async: the %s backend has no stream-ordered allocation",
                   ctx->vt->name);
  }
  size_t limit = cfg->pool_limit;
  if (cfg->pool_limit_fraction > 0) limit = (size_t)(cfg->pool_limit_fraction * (double)total);
  if (cfg->pool_limit_fraction > 0 && limit == 0) limit = 1;
  m->device_limit = limit;
  m->device_pool.limit = limit;
  m->direct.live.limit = limit;
  m->async_live.limit = limit;
  m->user_live.limit = limit;
  ctx->mem = m;
  return RS_OK;
}

/* Allocations the application never gave back (raw ones: buffers are all freed by now). */
static void free_leaked(rs_memory *m, rs_tracked *t, int async) {
  rs_context *ctx = m->ctx;
  for (size_t i = 0; i < t->live.capacity; i++) {
    rs_addrmap_entry *e = &t->live.slots[i];
    if (e->key == 0) continue;
    if (async)
      (void)ctx->vt->device_free_async(ctx->be, (void *)e->key, e->value);
    else
      (void)rs_source_free(&m->device_src, (void *)e->key, e->size, e->value);
  }
}

void rs_memory_observe_pools(rs_context *ctx, void (*fn)(void *, int, size_t, size_t), void *arg) {
  rs_pool *pools[2] = {&ctx->mem->device_pool, &ctx->mem->pinned_pool};
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&pools[i]->lock);
    pools[i]->observe = fn;
    pools[i]->observe_arg = arg;
    pthread_mutex_unlock(&pools[i]->lock);
  }
}

void rs_memory_destroy(rs_context *ctx) {
  rs_memory *m = ctx->mem;
  if (!m) return;
  /* Queued frees (async) must land before the backend goes. */
  (void)ctx->vt->synchronize(ctx->be);
  rs_foreign_destroy(m);
  (void)rs_deferred_flush(m, 1, 0);
  free_leaked(m, &m->direct.live, 0);
  free_leaked(m, &m->user_live, 0);
  free_leaked(m, &m->async_live, 1);
  if (atomic_load(&m->kind) == RS_ALLOCATOR_ASYNC) (void)rs_async_trim(m);
  memory_free_state(m);
  ctx->mem = NULL;
}

/* Page-locked host memory: pinned arrays and the library's staging buffers. Pinning is
 * slow (cudaHostAlloc maps and locks every page, and cudaFreeHost synchronizes the
 * device), so flag-less requests come from a caching pool of the same design as the
 * device pool. Requests with flags (portable, write-combined, mapped) are rare and get
 * their own allocation. */
rs_status rs_pinned_malloc(rs_context *ctx, size_t bytes, unsigned flags, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "pinned allocation: out is NULL");
  *out = NULL;
  if (bytes == 0) return RS_OK;
  if (flags) return ctx->vt->host_alloc(ctx->be, bytes, flags, out);
  rs_memory *m = ctx->mem;
  rs_pool *p = &m->pinned_pool;
  rs_status st = rs_pool_alloc(p, bytes, NULL, out, NULL);
  if (st != RS_ERR_OUT_OF_MEMORY && st != RS_ERR_HOST_OUT_OF_MEMORY) return st;
  /* Cached pinned memory is host memory too: give it back and try once more. */
  (void)rs_pool_trim(p, 1);
  st = rs_pool_alloc(p, bytes, NULL, out, NULL);
  if (st == RS_OK) {
    atomic_fetch_add(&m->oom_recoveries[RS_SPACE_PINNED], 1);
    return RS_OK;
  }
  if (st != RS_ERR_OUT_OF_MEMORY && st != RS_ERR_HOST_OUT_OF_MEMORY) return st;
  atomic_fetch_add(&m->oom_failures[RS_SPACE_PINNED], 1);
  char cause[320];
  snprintf(cause, sizeof cause, "%s", rs_last_error());
  return rs_memory_oom_fail(m, RS_SPACE_PINNED, bytes, cause);
}

rs_status rs_pinned_mfree(rs_context *ctx, void *ptr, size_t bytes, unsigned flags,
                          rs_mem_track *track) {
  rs_mem_uses *uses = track ? track->uses : NULL;
  if (track) {
    track->uses = NULL;
    rs_memory_track_drop(ctx, track);
  }
  if (!ptr || flags) {
    /* Not pooled: cudaFreeHost waits for the device by itself. */
    rs_uses_free(ctx, uses);
    return ptr ? ctx->vt->host_free(ctx->be, ptr) : RS_OK;
  }
  return rs_pool_free(&ctx->mem->pinned_pool, ptr, bytes, NULL, uses, RS_POOL_UNUSED);
}
