/* Page-locking or mapping existing pageable host memory for a scope. */
#include <stdlib.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "resident/memory.h"

static rs_status rs_scope_target(rs_array *a, const char *who) {
  RS_TRY(rs_array_check(a, who));
  if (a->buf->kind != RS_MEM_HOST)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: the array is %s memory; only pageable host memory can be %s",
                   who, rs_mem_kind_name(a->buf->kind),
                   who[3] == 'p' ? "page-locked" : "mapped");
  return RS_OK;
}

/* A buffer is in at most one scope at a time. */
static rs_status rs_scope_free(const rs_buffer *buf, const char *who) {
  if (buf->pinned_scope || buf->mapped_scope)
    return rs_fail(RS_ERR_STATE, "%s: the memory is already in a %s scope", who,
                   buf->pinned_scope ? "pinned" : "mapped");
  return RS_OK;
}

rs_status rs_pinned_begin(rs_array *host_array) {
  const char *who = "rs_pinned_begin";
  RS_TRY(rs_scope_target(host_array, who));
  rs_buffer *buf = host_array->buf;
  RS_TRY(rs_scope_free(buf, who));
  if (buf->bytes > 0) {
    rs_context *ctx = buf->ctx;
    RS_TRY(ctx->vt->host_register(ctx->be, buf->ptr, buf->bytes, 0));
  }
  buf->pinned_scope = 1;
  return RS_OK;
}

rs_status rs_pinned_end(rs_array *host_array) {
  const char *who = "rs_pinned_end";
  RS_TRY(rs_scope_target(host_array, who));
  rs_buffer *buf = host_array->buf;
  if (!buf->pinned_scope) return rs_fail(RS_ERR_STATE, "%s: no pinned scope was begun", who);
  if (buf->bytes > 0) {
    rs_context *ctx = buf->ctx;
    RS_TRY(ctx->vt->host_unregister(ctx->be, buf->ptr));
  }
  buf->pinned_scope = 0;
  return RS_OK;
}

rs_status rs_mapped_begin(rs_array **device_view, rs_array *host_array) {
  const char *who = "rs_mapped_begin";
  if (!device_view) return rs_fail(RS_ERR_NULL_POINTER, "%s: device_view is NULL", who);
  *device_view = NULL;
  RS_TRY(rs_scope_target(host_array, who));
  rs_buffer *buf = host_array->buf;
  rs_context *ctx = buf->ctx;
  RS_TRY(rs_scope_free(buf, who));
  void *alias = NULL;
  if (buf->bytes > 0) {
    RS_TRY(ctx->vt->host_register(ctx->be, buf->ptr, buf->bytes, RS_BE_HOST_MAPPED));
    rs_status st = ctx->vt->host_device_pointer(ctx->be, buf->ptr, &alias);
    if (st != RS_OK) {
      ctx->vt->host_unregister(ctx->be, buf->ptr);
      return st;
    }
  }
  rs_buffer *view = NULL;
  rs_status st = rs_buffer_wrap(&view, ctx, RS_MEM_MAPPED, buf->ptr, buf->bytes, NULL, NULL);
  if (st != RS_OK) {
    if (buf->bytes > 0) ctx->vt->host_unregister(ctx->be, buf->ptr);
    return st;
  }
  view->device_alias = alias;
  view->parent = buf;
  rs_buffer_retain(buf);
  /* The view array shares the host array's layout over the mapped buffer. */
  rs_array tmp = *host_array;
  tmp.buf = view;
  st = rs_array_new_view(device_view, &tmp, host_array->ndim, host_array->shape,
                         host_array->strides, host_array->offset);
  rs_buffer_release(view); /* the new handle holds its own reference */
  if (st != RS_OK) {
    if (buf->bytes > 0) ctx->vt->host_unregister(ctx->be, buf->ptr);
    return st;
  }
  buf->mapped_scope = 1;
  buf->mapped_view = view;
  return RS_OK;
}

rs_status rs_mapped_end(rs_array *host_array) {
  const char *who = "rs_mapped_end";
  RS_TRY(rs_scope_target(host_array, who));
  rs_buffer *buf = host_array->buf;
  if (!buf->mapped_scope) return rs_fail(RS_ERR_STATE, "%s: no mapped scope was begun", who);
  if (buf->mapped_view)
    return rs_fail(RS_ERR_STATE, "%s: release the device view from rs_mapped_begin first", who);
  if (buf->bytes > 0) {
    rs_context *ctx = buf->ctx;
    RS_TRY(ctx->vt->host_unregister(ctx->be, buf->ptr));
  }
  buf->mapped_scope = 0;
  return RS_OK;
}
