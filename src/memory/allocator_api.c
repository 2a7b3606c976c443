/* The public allocator calls: names, choosing a context's allocator (a user one
 * included), and raw allocations for the application's own use. */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "memory/state.h"

const char *rs_allocator_name(rs_allocator_kind kind) {
  switch (kind) {
    case RS_ALLOCATOR_POOL:
      return "pool";
    case RS_ALLOCATOR_DIRECT:
      return "direct";
    case RS_ALLOCATOR_ASYNC:
      return "async";
    case RS_ALLOCATOR_USER:
      return "user";
  }
  return "invalid";
}

rs_status rs_allocator_from_name(const char *name, rs_allocator_kind *out) {
  if (!out || !name) return rs_fail(RS_ERR_NULL_POINTER, "rs_allocator_from_name: NULL argument");
  /* "user" needs functions, so it is not a value the environment can give. */
  static const rs_allocator_kind kinds[] = {RS_ALLOCATOR_POOL, RS_ALLOCATOR_DIRECT,
                                            RS_ALLOCATOR_ASYNC};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(name, rs_allocator_name(kinds[i])) == 0) {
      *out = kinds[i];
      return RS_OK;
    }
  return rs_fail(RS_ERR_PARSE, "unknown allocator '%s' (expected pool, direct or async)", name);
}

rs_allocator_kind rs_context_allocator(const rs_context *ctx) {
  if (!ctx || !ctx->mem) return RS_ALLOCATOR_POOL;
  return (rs_allocator_kind)atomic_load(&ctx->mem->kind);
}

static rs_status check_choice(rs_context *ctx, rs_allocator_kind kind,
                              const rs_user_allocator *user, const char *who) {
  if ((int)kind < RS_ALLOCATOR_POOL || (int)kind > RS_ALLOCATOR_USER)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d is not an allocator kind", who, (int)kind);
  if (kind == RS_ALLOCATOR_USER && !user)
    return rs_fail(RS_ERR_NULL_POINTER,
                   "%s: RS_ALLOCATOR_USER needs the user allocator's functions", who);
  if (kind == RS_ALLOCATOR_ASYNC && user)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: the async allocator is the backend's stream-ordered pool; it does not "
                   "run over a user allocator",
                   who);
  if (user && (!user->allocate || !user->free))
    return rs_fail(RS_ERR_NULL_POINTER, "%s: user allocator '%s' has no %s function", who,
                   user->name ? user->name : "user", user->allocate ? "free" : "allocate");
  if (kind == RS_ALLOCATOR_ASYNC && !ctx->vt->device_alloc_async)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend has no stream-ordered allocation", who,
                   ctx->vt->name);
  return RS_OK;
}

rs_status rs_context_set_allocator(rs_context *ctx, rs_allocator_kind kind,
                                   const rs_user_allocator *user) {
  const char *who = "rs_context_set_allocator";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  RS_TRY(check_choice(ctx, kind, user, who));
  rs_memory *m = ctx->mem;
  /* Cached memory belongs to the old allocator: give it back first. */
  rs_status st = rs_memory_reclaim(m, 1);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: giving back the cached memory: ", who);
  size_t in_use = rs_memory_device_in_use(m);
  if (in_use > 0) {
    char b[32];
    return rs_fail(RS_ERR_STATE,
                   "%s: the context holds %s of device memory from the '%s' allocator; release "
                   "its arrays first",
                   who, rs_fmt_bytes(b, sizeof b, (double)in_use),
                   rs_allocator_name((rs_allocator_kind)atomic_load(&m->kind)));
  }
  if (user) {
    m->user = *user;
    snprintf(m->user_name, sizeof m->user_name, "%s", user->name ? user->name : "user");
    m->user.name = m->user_name;
    m->has_user = 1;
    m->device_src.user = &m->user;
    m->device_src.name = m->user_name;
  } else {
    m->has_user = 0;
    m->device_src.user = NULL;
    m->device_src.name = "device";
  }
  /* The queue's ratio is of the memory behind the new allocator. */
  size_t free_bytes = 0, total = 0;
  if (rs_source_info(&m->device_src, &free_bytes, &total) == RS_OK && total > 0) {
    pthread_mutex_lock(&m->direct.live.lock);
    m->direct.total = total;
    pthread_mutex_unlock(&m->direct.live.lock);
  }
  atomic_store(&m->kind, (int)kind);
  return RS_OK;
}

rs_status rs_memory_alloc(void **out, rs_context *ctx, size_t bytes, rs_stream *stream) {
  const char *who = "rs_memory_alloc";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  rs_status st = rs_device_malloc(ctx, bytes, native, out);
  if (st != RS_OK) return rs_fail_prefix(st, "%s(%zu bytes): ", who, bytes);
  return RS_OK;
}

rs_status rs_memory_free(rs_context *ctx, void *ptr, rs_stream *stream) {
  const char *who = "rs_memory_free";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (!ptr) return RS_OK;
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  rs_status st = rs_device_mfree(ctx, ptr, 0, native);
  if (st != RS_OK) return rs_fail_prefix(st, "%s(%p): ", who, ptr);
  return RS_OK;
}
