/* Buffers: one allocation of any memory kind, shared by views through a reference count.
 * This is the one place memory of every kind is obtained for arrays. Device and pinned
 * memory come from the memory layer (memory/allocator.h: the pool, the direct or async
 * allocator, the pinned pool); mapped and managed memory straight from the backend. */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/host_pages.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/allocator.h"
#include "memory/state.h"
#include "resident/memory.h"

static unsigned rs_backend_host_flags(rs_mem_kind kind, unsigned flags) {
  unsigned be = 0;
  if (kind == RS_MEM_MAPPED) be |= RS_BE_HOST_MAPPED;
  if (flags & RS_HOST_PORTABLE) be |= RS_BE_HOST_PORTABLE;
  if (flags & RS_HOST_WRITE_COMBINED) be |= RS_BE_HOST_WRITE_COMBINED;
  return be;
}

static int rs_kind_counts_as_device(rs_mem_kind kind) {
  return kind == RS_MEM_DEVICE || kind == RS_MEM_MANAGED;
}

static void rs_buffer_account(rs_buffer *buf, int sign) {
  rs_context *ctx = buf->ctx;
  atomic_fetch_add(&ctx->buffers, sign);
  if (!buf->owned) return;
  if (rs_kind_counts_as_device(buf->kind))
    atomic_fetch_add(&ctx->device_bytes, sign * (int64_t)buf->bytes);
  else
    atomic_fetch_add(&ctx->host_bytes, sign * (int64_t)buf->bytes);
}

static rs_status rs_kind_alloc(rs_context *ctx, rs_buffer *buf, unsigned flags, void *stream) {
  const rs_backend_vtable *vt = ctx->vt;
  size_t bytes = buf->bytes;
  switch (buf->kind) {
    case RS_MEM_DEVICE:
      /* Arrays are allocated for one stream (the default one unless the caller knows
       * better); uses on other streams are noted by the copy and launch paths
       * (rs_memory_note_use), an event recorded per use. */
      RS_TRY(rs_device_malloc_tracked(ctx, bytes, stream, &buf->ptr, &buf->mem));
      buf->device_alias = buf->ptr;
      return RS_OK;
    case RS_MEM_HOST: {
      void *p = NULL;
      /* 256-byte alignment: the same as device allocations, so vector loads on either
       * side of a copy see aligned data. */
      if (posix_memalign(&p, 256, bytes) != 0)
        return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "host allocation of %zu bytes failed", bytes);
      rs_host_advise_huge(p, bytes); /* a fresh large array faults per 2 MiB */
      buf->ptr = p;
      return RS_OK;
    }
    case RS_MEM_PINNED:
      buf->host_flags = rs_backend_host_flags(buf->kind, flags);
      return rs_pinned_malloc(ctx, bytes, buf->host_flags, &buf->ptr);
    case RS_MEM_MAPPED: {
      buf->host_flags = rs_backend_host_flags(buf->kind, flags);
      RS_TRY(vt->host_alloc(ctx->be, bytes, buf->host_flags, &buf->ptr));
      rs_status st = vt->host_device_pointer(ctx->be, buf->ptr, &buf->device_alias);
      if (st != RS_OK) vt->host_free(ctx->be, buf->ptr);
      return st;
    }
    case RS_MEM_MANAGED:
      RS_TRY(vt->managed_alloc(ctx->be, bytes, flags == RS_ATTACH_HOST, &buf->ptr));
      buf->device_alias = buf->ptr;
      return RS_OK;
  }
  return rs_fail(RS_ERR_MEMORY_KIND, "memory kind %d is not a kind", (int)buf->kind);
}

static rs_status rs_kind_free(rs_buffer *buf) {
  rs_context *ctx = buf->ctx;
  const rs_backend_vtable *vt = ctx->vt;
  if (!buf->ptr) {
    rs_memory_track_drop(ctx, &buf->mem);
    return RS_OK;
  }
  switch (buf->kind) {
    case RS_MEM_DEVICE:
      return rs_device_mfree_tracked(ctx, buf->ptr, buf->bytes, &buf->mem);
    case RS_MEM_PINNED:
      return rs_pinned_mfree(ctx, buf->ptr, buf->bytes, buf->host_flags, &buf->mem);
    case RS_MEM_HOST:
      free(buf->ptr);
      break;
    case RS_MEM_MAPPED:
      vt->host_free(ctx->be, buf->ptr);
      break;
    case RS_MEM_MANAGED:
      vt->managed_free(ctx->be, buf->ptr);
      break;
  }
  rs_memory_track_drop(ctx, &buf->mem);
  return RS_OK;
}

rs_status rs_buffer_alloc(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, size_t bytes,
                          unsigned flags) {
  return rs_buffer_alloc_on(out, ctx, kind, bytes, flags, NULL);
}

rs_status rs_buffer_alloc_on(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, size_t bytes,
                             unsigned flags, void *stream) {
  rs_buffer *buf = calloc(1, sizeof *buf);
  if (!buf) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "out of host memory for a buffer");
  atomic_store(&buf->refs, 1);
  buf->ctx = ctx;
  buf->kind = kind;
  buf->bytes = bytes;
  buf->owned = 1;
  if (bytes > 0) {
    rs_status st = rs_kind_alloc(ctx, buf, flags, stream);
    if (st != RS_OK) {
      free(buf);
      return st;
    }
  }
  rs_buffer_account(buf, +1);
  *out = buf;
  return RS_OK;
}

rs_status rs_buffer_wrap(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, void *ptr,
                         size_t bytes, rs_release_fn release, void *user_data) {
  rs_buffer *buf = calloc(1, sizeof *buf);
  if (!buf) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "out of host memory for a buffer");
  atomic_store(&buf->refs, 1);
  buf->ctx = ctx;
  buf->kind = kind;
  buf->ptr = ptr;
  buf->device_alias = (kind == RS_MEM_DEVICE || kind == RS_MEM_MANAGED) ? ptr : NULL;
  buf->bytes = bytes;
  buf->release = release;
  buf->user_data = user_data;
  rs_buffer_account(buf, +1);
  *out = buf;
  return RS_OK;
}

void rs_buffer_retain(rs_buffer *buf) { atomic_fetch_add(&buf->refs, 1); }

rs_status rs_buffer_release(rs_buffer *buf) {
  if (!buf || atomic_fetch_sub(&buf->refs, 1) != 1) return RS_OK;
  rs_context *ctx = buf->ctx;
  rs_status st = RS_OK;
  /* A scope the user never closed must not leave the memory locked or mapped. */
  if (buf->pinned_scope || buf->mapped_scope) ctx->vt->host_unregister(ctx->be, buf->ptr);
  /* Memory the library does not own goes back to its owner after its queued uses. */
  st = buf->owned ? rs_kind_free(buf) : rs_foreign_release(buf);
  if (buf->parent) {
    buf->parent->mapped_view = NULL;
    rs_buffer_release(buf->parent);
  }
  rs_buffer_account(buf, -1);
  free(buf);
  return st;
}

rs_mem_kind rs_buffer_effective_kind(const rs_buffer *buf) {
  if (buf->kind == RS_MEM_HOST && buf->pinned_scope) return RS_MEM_PINNED;
  return buf->kind;
}
