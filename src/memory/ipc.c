/* Sharing device arrays between processes (resident/ipc.h). The handle is a checked wire
 * format around the backend's own handle; the opened array is wrapped foreign memory whose
 * release callback closes the mapping, so it inherits the stream-ordered release of
 * foreign memory (foreign.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/backend.h"
#include "core/error.h"
#include "memory/buffer.h"
#include "memory/ipc_wire.h"

void rs_ipc_wire_begin(rs_ipc_wire *w, const rs_context *ctx, uint32_t what) {
  memset(w, 0, sizeof *w);
  w->magic = RS_IPC_MAGIC;
  w->version = RS_IPC_VERSION;
  w->backend = (uint16_t)ctx->kind;
  w->device = ctx->device;
  w->pid = (int32_t)getpid();
  w->what = what;
}

void rs_ipc_wire_seal(rs_ipc_handle *out, rs_ipc_wire *w) {
  w->checksum = rs_ipc_checksum(w, offsetof(rs_ipc_wire, checksum));
  memcpy(out->bytes, w, sizeof *w);
}

rs_status rs_ipc_wire_check(rs_ipc_wire *w, const rs_ipc_handle *h, const rs_context *ctx, uint32_t what,
                            const char *who) {
  memcpy(w, h->bytes, sizeof *w);
  if (w->magic != RS_IPC_MAGIC || w->version != RS_IPC_VERSION ||
      w->checksum != rs_ipc_checksum(w, offsetof(rs_ipc_wire, checksum)))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: not a valid handle (magic, version or checksum do not match: "
                   "garbled, truncated, or from another version of the library)", who);
  if (w->what != what)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the handle is of %s, not of %s", who,
                   w->what == RS_IPC_EVENT ? "an event" : "memory", what == RS_IPC_EVENT ? "an event" : "memory");
  if (w->backend != (uint16_t)ctx->kind)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the handle is of another backend than the context's (%s)", who,
                   ctx->vt->name);
  if (w->device != ctx->device)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the handle is of device %d, the context on device %d", who,
                   (int)w->device, ctx->device);
  if (w->pid == (int32_t)getpid())
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the handle was exported by this process (open it in another; "
                   "here use the original)", who);
  return RS_OK;
}

rs_status rs_ipc_export(rs_ipc_handle *out, const rs_array *a) {
  const char *who = "rs_ipc_export";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  memset(out, 0, sizeof *out);
  RS_TRY(rs_array_check(a, who));
  rs_context *ctx = a->ctx;
  if (rs_buffer_effective_kind(a->buf) != RS_MEM_DEVICE)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: only device arrays are shared between processes (this one is %s)", who,
                   rs_mem_kind_name(rs_buffer_effective_kind(a->buf)));
  for (int d = 0; d < a->ndim; d++)
    if (a->strides[d] < 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: stride %lld of axis %d is negative (share the forward view)",
                     who, (long long)a->strides[d], d);
  if (!ctx->vt->ipc_mem_export)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend shares no memory between processes", who, ctx->vt->name);
  rs_ipc_wire w;
  rs_ipc_wire_begin(&w, ctx, RS_IPC_MEMORY);
  size_t off = 0, alloc = 0;
  rs_status st = ctx->vt->ipc_mem_export(ctx->be, a->buf->ptr, w.mem, &off, &alloc);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  w.ndim = a->ndim;
  w.dtype = (int32_t)a->dtype;
  w.offset = (uint64_t)off + (uint64_t)a->offset;
  w.alloc_bytes = alloc;
  for (int d = 0; d < a->ndim; d++) {
    w.shape[d] = a->shape[d];
    w.strides[d] = a->strides[d];
  }
  rs_ipc_wire_seal(out, &w);
  return RS_OK;
}

typedef struct ipc_mapping {
  const struct rs_backend_vtable *vt;
  struct rs_backend *be;
  void *base;
} ipc_mapping;

static void close_mapping(void *user_data) {
  ipc_mapping *m = user_data;
  (void)m->vt->ipc_mem_close(m->be, m->base);
  free(m);
}

rs_status rs_ipc_open(rs_array **out, rs_context *ctx, const rs_ipc_handle *h) {
  const char *who = "rs_ipc_open";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: ctx is NULL", who);
  if (!h) return rs_fail(RS_ERR_NULL_POINTER, "%s: the handle is NULL", who);
  rs_ipc_wire w;
  RS_TRY(rs_ipc_wire_check(&w, h, ctx, RS_IPC_MEMORY, who));
  if (w.ndim < 0 || w.ndim > RS_MAX_DIMS || w.offset > w.alloc_bytes)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the handle's layout is out of range", who);
  if (!ctx->vt->ipc_mem_open)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend shares no memory between processes", who, ctx->vt->name);
  ipc_mapping *m = malloc(sizeof *m);
  if (!m) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", who);
  *m = (ipc_mapping){ctx->vt, ctx->be, NULL};
  rs_status st = ctx->vt->ipc_mem_open(ctx->be, w.mem, (size_t)w.alloc_bytes, &m->base);
  if (st != RS_OK) {
    free(m);
    return rs_fail_prefix(st, "%s: ", who);
  }
  st = rs_array_wrap(out, ctx, RS_MEM_DEVICE, (char *)m->base + w.offset, w.ndim, w.shape, (rs_dtype)w.dtype,
                     w.strides, close_mapping, m, who);
  if (st != RS_OK) close_mapping(m); /* the wrap calls no callback when it fails */
  return st;
}
