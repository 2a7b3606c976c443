/* The user allocator on its own: every request goes to the application's functions.
 * They need not know about streams, so a free waits (on the host) for the other streams
 * the memory was used on before it is handed back. */
#include "core/error.h"
#include "core/objects.h"
#include "memory/state.h"

rs_status rs_user_alloc(rs_memory *m, size_t bytes, void *stream, void **out) {
  return rs_tracked_alloc(&m->user_live, bytes, NULL, m->user_name, rs_source_obtain, &m->device_src, stream, out);
}

rs_status rs_user_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses) {
  rs_context *ctx = m->ctx;
  rs_tracked *t = &m->user_live;
  size_t size = 0;
  void *astream = NULL;
  pthread_mutex_lock(&t->lock);
  rs_status st = rs_tracked_remove_locked(t, ptr, bytes, &size, &astream, m->user_name);
  pthread_mutex_unlock(&t->lock);
  if (st == RS_OK) {
    if (stream != astream) rs_uses_add(ctx, &uses, stream);
    st = rs_uses_wait(ctx, uses);
    if (st == RS_OK) st = rs_source_free(&m->device_src, ptr, size, astream);
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
