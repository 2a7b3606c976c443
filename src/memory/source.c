/* Raw allocations: the backend's, or the user's with their failures normalised so that
 * the layers above can rely on the status and message. */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/source.h"

/* A user function may leave its own message or none; keep it if it wrote one. */
typedef struct rs_msg_mark {
  char head[96];
} rs_msg_mark;

static void mark_message(rs_msg_mark *m) {
  snprintf(m->head, sizeof m->head, "%s", rs_last_error());
}

static int message_changed(const rs_msg_mark *m) {
  return strncmp(m->head, rs_last_error(), sizeof m->head - 1) != 0;
}

static rs_status user_status(rs_status st) {
  if ((int)st > 0 || strcmp(rs_status_name(st), "RS_UNKNOWN_STATUS") == 0) return RS_ERR_DEVICE;
  return st;
}

static rs_status user_failed(const rs_mem_source *s, const rs_msg_mark *mark, rs_status raw,
                             const char *call, size_t bytes) {
  rs_status st = user_status(raw);
  if (message_changed(mark) && rs_last_error()[0] != '\0')
    return rs_fail_prefix(st, "user allocator '%s': %s(%zu bytes): ", s->name, call, bytes);
  return rs_fail(st, "user allocator '%s': %s(%zu bytes) failed with %s (%d)", s->name, call, bytes,
                 rs_status_name(st), (int)raw);
}

rs_status rs_source_alloc(const rs_mem_source *s, size_t bytes, void *stream, void **out) {
  rs_context *ctx = s->ctx;
  *out = NULL;
  if (!s->user) {
    if (s->pinned) return ctx->vt->host_alloc(ctx->be, bytes, 0, out);
    return ctx->vt->device_alloc(ctx->be, bytes, out);
  }
  rs_msg_mark mark;
  mark_message(&mark);
  void *p = NULL;
  rs_status st = s->user->allocate(s->user->user_data, bytes, stream, &p);
  if (st != RS_OK) return user_failed(s, &mark, st, "allocate", bytes);
  if (!p)
    return rs_fail(RS_ERR_OUT_OF_MEMORY, "user allocator '%s' returned NULL for %zu bytes", s->name,
                   bytes);
  *out = p;
  return RS_OK;
}

rs_status rs_source_free(const rs_mem_source *s, void *ptr, size_t bytes, void *stream) {
  rs_context *ctx = s->ctx;
  if (!s->user) {
    if (s->pinned) return ctx->vt->host_free(ctx->be, ptr);
    return ctx->vt->device_free(ctx->be, ptr);
  }
  rs_msg_mark mark;
  mark_message(&mark);
  rs_status st = s->user->free(s->user->user_data, ptr, bytes, stream);
  if (st != RS_OK) return user_failed(s, &mark, st, "free", bytes);
  return RS_OK;
}

rs_status rs_source_info(const rs_mem_source *s, size_t *free_bytes, size_t *total_bytes) {
  *free_bytes = 0;
  *total_bytes = 0;
  if (s->pinned) return RS_OK;
  if (s->user && s->user->memory_info) {
    rs_msg_mark mark;
    mark_message(&mark);
    rs_status st = s->user->memory_info(s->user->user_data, free_bytes, total_bytes);
    if (st != RS_OK) return user_failed(s, &mark, st, "memory_info", 0);
    return RS_OK;
  }
  rs_context *ctx = s->ctx;
  return ctx->vt->mem_info(ctx->be, free_bytes, total_bytes);
}

rs_status rs_source_obtain(void *src, size_t bytes, void *stream, void **out) {
  return rs_source_alloc(src, bytes, stream, out);
}
