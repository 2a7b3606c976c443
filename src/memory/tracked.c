/* The live allocations of the allocators that have no pool of their own (direct, async,
 * user): counted for statistics and limits, looked up on free so that a second free or a
 * pointer never handed out is reported instead of reaching the device. */
#include <string.h>
#include "core/error.h"
#include "memory/state.h"

rs_status rs_tracked_init(rs_tracked *t) {
  memset(t, 0, sizeof *t);
  if (pthread_mutex_init(&t->lock, NULL) != 0)
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "memory: cannot create a mutex");
  rs_addrmap_init(&t->live);
  return RS_OK;
}

void rs_tracked_destroy(rs_tracked *t) {
  rs_addrmap_release(&t->live);
  pthread_mutex_destroy(&t->lock);
}

rs_status rs_tracked_reserve_locked(rs_tracked *t, size_t bytes, size_t extra, const char *what) {
  size_t held = t->in_use + extra;
  if (t->limit && (bytes > t->limit || held > t->limit - bytes)) {
    char a[32], b[32], c[32];
    return rs_fail(
        RS_ERR_OUT_OF_MEMORY, "%s allocator: %s more would exceed the limit of %s (%s held)", what,
        rs_fmt_bytes(a, sizeof a, (double)bytes), rs_fmt_bytes(b, sizeof b, (double)t->limit),
        rs_fmt_bytes(c, sizeof c, (double)held));
  }
  /* Also make room in the map now, so recording the allocation later cannot fail. */
  if (rs_addrmap_reserve(&t->live, 1) != 0)
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s allocator: no host memory to track an allocation",
                   what);
  t->in_use += bytes;
  return RS_OK;
}

int rs_tracked_add_locked(rs_tracked *t, void *ptr, size_t bytes, void *stream) {
  if (rs_addrmap_put(&t->live, (uintptr_t)ptr, stream, bytes) != 0) return -1;
  t->allocations++;
  if (t->in_use > t->peak_in_use) t->peak_in_use = t->in_use;
  return 0;
}

rs_status rs_tracked_alloc(rs_tracked *t, size_t bytes, const size_t *extra, const char *what, rs_obtain_fn obtain,
                           void *arg, void *stream, void **out) {
  pthread_mutex_lock(&t->lock);
  rs_status st = rs_tracked_reserve_locked(t, bytes, extra ? *extra : 0, what);
  pthread_mutex_unlock(&t->lock);
  if (st != RS_OK) return st;
  void *p = NULL;
  /* Outside the lock: obtaining device memory can take long (cudaMalloc synchronizes). */
  st = obtain(arg, bytes, stream, &p);
  pthread_mutex_lock(&t->lock);
  if (st != RS_OK) {
    t->in_use -= bytes;
  } else {
    (void)rs_tracked_add_locked(t, p, bytes, stream); /* room reserved above */
    *out = p;
  }
  pthread_mutex_unlock(&t->lock);
  return st;
}

static int recently_freed(const rs_tracked *t, uintptr_t a) {
  for (int i = 0; i < RS_RECENT_FREES; i++)
    if (t->recent[i] == a) return 1;
  return 0;
}

rs_status rs_tracked_remove_locked(rs_tracked *t, void *ptr, size_t bytes, size_t *size,
                                   void **stream, const char *what) {
  uintptr_t a = (uintptr_t)ptr;
  rs_addrmap_entry *e = rs_addrmap_get(&t->live, a);
  if (!e) {
    if (recently_freed(t, a))
      return rs_fail(RS_ERR_DOUBLE_FREE, "%s allocator: %p was freed already", what, ptr);
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "%s allocator: %p is not a live allocation of this context (another "
                   "context's memory, an interior pointer, or freed long ago)",
                   what, ptr);
  }
  if (bytes && bytes != e->size)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s allocator: free(%p, %zu bytes), but %zu were allocated", what, ptr, bytes,
                   e->size);
  *size = e->size;
  *stream = e->value;
  rs_addrmap_remove(&t->live, a, NULL);
  t->in_use -= *size;
  t->frees++;
  t->recent[t->recent_next++ % RS_RECENT_FREES] = a;
  return RS_OK;
}

void rs_tracked_restore_locked(rs_tracked *t, void *ptr, size_t bytes, void *stream) {
  uintptr_t a = (uintptr_t)ptr;
  for (int i = 0; i < RS_RECENT_FREES; i++)
    if (t->recent[i] == a) t->recent[i] = 0;
  /* The slot it left is still there: a put after a remove cannot need more room. */
  (void)rs_addrmap_put(&t->live, a, stream, bytes);
  t->in_use += bytes;
  t->frees--;
}

rs_status rs_tracked_free(rs_tracked *t, rs_context *ctx, void *ptr, size_t bytes, void *stream,
                          rs_mem_uses *uses, const char *what, rs_give_back_fn give_back, void *arg) {
  size_t size = 0;
  void *astream = NULL;
  pthread_mutex_lock(&t->lock);
  rs_status st = rs_tracked_remove_locked(t, ptr, bytes, &size, &astream, what);
  pthread_mutex_unlock(&t->lock);
  if (st == RS_OK) {
    if (stream != astream) rs_uses_add(ctx, &uses, stream);
    st = give_back(ctx, arg, ptr, size, astream, uses);
    if (st != RS_OK) {
      /* Nothing changed: the memory is still the caller's to free again. */
      pthread_mutex_lock(&t->lock);
      rs_tracked_restore_locked(t, ptr, size, astream);
      pthread_mutex_unlock(&t->lock);
    }
  }
  rs_uses_free(ctx, uses);
  return st;
}

void rs_tracked_stats(rs_tracked *t, rs_memory_stats *out) {
  pthread_mutex_lock(&t->lock);
  out->in_use_bytes = (int64_t)t->in_use;
  out->requested_bytes = (int64_t)t->in_use;
  out->reserved_bytes = (int64_t)t->in_use;
  out->peak_in_use_bytes = (int64_t)t->peak_in_use;
  out->peak_reserved_bytes = (int64_t)t->peak_in_use;
  out->allocations = t->allocations;
  out->frees = t->frees;
  out->misses = t->allocations;
  out->segments = (int64_t)t->live.count;
  out->limit_bytes = (int64_t)t->limit;
  pthread_mutex_unlock(&t->lock);
}

void rs_tracked_reset(rs_tracked *t) {
  pthread_mutex_lock(&t->lock);
  t->peak_in_use = t->in_use;
  t->allocations = t->frees = 0;
  pthread_mutex_unlock(&t->lock);
}
