/* Raw device memory of rs_memory_alloc / rs_memory_free. The allocators also hand out the
 * memory of buffers (arrays), so they cannot tell an array's memory from raw memory: a
 * free of an array's own buffer would succeed and the array would then read another's
 * data. So the addresses handed out raw are tracked here, and a free takes only those. */
#include "core/error.h"
#include "memory/state.h"

static rs_status raw_obtain(void *arg, size_t bytes, void *stream, void **out) {
  return rs_device_malloc(arg, bytes, stream, out);
}

rs_status rs_memory_raw_alloc(rs_context *ctx, size_t bytes, void *stream, void **out) {
  *out = NULL;
  if (bytes == 0) return RS_OK;
  return rs_tracked_alloc(&ctx->mem->raw_live, bytes, NULL, "raw", raw_obtain, ctx, stream, out);
}

/* Why ptr is not live raw memory (a second free was told by rs_tracked_remove_locked):
 * inside a raw block, or not from rs_memory_alloc of this context. Lock held; a scan,
 * but only on this error path. */
static rs_status raw_foreign(const rs_tracked *t, void *ptr) {
  uintptr_t a = (uintptr_t)ptr;
  for (size_t i = 0; i < t->live.capacity; i++) {
    const rs_addrmap_entry *e = &t->live.slots[i];
    if (e->key != 0 && a > e->key && a - e->key < e->size)
      return rs_fail(RS_ERR_FOREIGN_MEMORY,
                     "%p points %zu bytes into a block allocated at %p; free the address "
                     "rs_memory_alloc returned",
                     ptr, (size_t)(a - e->key), (void *)e->key);
  }
  return rs_fail(RS_ERR_FOREIGN_MEMORY,
                 "%p was not allocated by this context's rs_memory_alloc (another context's "
                 "memory, never allocated, or an array's memory - which goes back when the "
                 "array is released)",
                 ptr);
}

rs_status rs_memory_raw_free(rs_context *ctx, void *ptr, void *stream) {
  rs_memory *m = ctx->mem;
  rs_tracked *t = &m->raw_live;
  size_t size = 0;
  void *alloc_stream = NULL;
  pthread_mutex_lock(&t->lock);
  rs_status st = rs_tracked_remove_locked(t, ptr, 0, &size, &alloc_stream, "raw");
  if (st == RS_ERR_FOREIGN_MEMORY) st = raw_foreign(t, ptr);
  pthread_mutex_unlock(&t->lock);
  if (st != RS_OK) return st;
  st = rs_device_mfree(ctx, ptr, size, stream);
  /* A failed free leaves the memory the caller's, to free again - except the direct
   * allocator's, whose failure is its queue's flush: the memory went back regardless. */
  if (st != RS_OK && (rs_allocator_kind)atomic_load(&m->kind) != RS_ALLOCATOR_DIRECT) {
    pthread_mutex_lock(&t->lock);
    rs_tracked_restore_locked(t, ptr, size, alloc_stream);
    pthread_mutex_unlock(&t->lock);
  }
  return st;
}
