/* Internal: the structures behind the public handles. */
#ifndef RS_CORE_OBJECTS_H
#define RS_CORE_OBJECTS_H

#include <stdatomic.h>
#include "backend/backend.h"
#include "core/config.h"
#include "core/handles.h"
#include "memory/allocator.h"
#include "ledger/state.h"
#include "transfer/staging.h"
#include "resident/array.h"
#include "resident/stream.h"

/* A block of memory shared by views. Device-side pointers are the backend's. */
typedef struct rs_buffer {
  _Atomic int64_t refs;
  rs_context *ctx;
  rs_mem_kind kind;     /* kind it was allocated or wrapped as */
  void *ptr;            /* host address (host kinds, managed) or device address (device) */
  void *device_alias;   /* address kernels use: device/managed = ptr, mapped = alias, else NULL */
  size_t bytes;
  int owned;            /* the library allocated ptr and frees it */
  unsigned host_flags;  /* RS_BE_HOST_* used at allocation */
  rs_release_fn release; /* external owner's callback for wrapped memory */
  void *user_data;
  struct rs_buffer *parent; /* a mapped scope view keeps its host buffer alive */
  /* scopes opened on a pageable host buffer (rs_pinned_begin / rs_mapped_begin) */
  int pinned_scope;
  int mapped_scope;
  struct rs_buffer *mapped_view; /* live mapped view of this buffer, if any */
  /* memory layer (src/memory): the stream device memory was allocated for and the
   * streams it was used on, so that neither its reuse nor its new owner races with them */
  rs_mem_track mem;
} rs_buffer;

struct rs_array {
  rs_handle_header header;
  _Atomic int64_t refs;
  rs_context *ctx;
  rs_buffer *buf;
  int ndim;
  rs_dtype dtype;
  int64_t offset; /* bytes from buf->ptr to element 0 */
  int64_t shape[RS_MAX_DIMS];
  int64_t strides[RS_MAX_DIMS];
};

typedef enum rs_stream_role {
  RS_STREAM_ROLE_USER = 0,   /* created by rs_stream_create */
  RS_STREAM_ROLE_WRAPPED,    /* external handle */
  RS_STREAM_ROLE_LEGACY,     /* the context's legacy default stream */
  RS_STREAM_ROLE_PER_THREAD  /* resolved per calling thread */
} rs_stream_role;

struct rs_stream {
  rs_handle_header header;
  rs_context *ctx;
  void *native;
  rs_stream_role role;
  _Atomic int auto_sync_depth;
};

struct rs_event {
  rs_handle_header header;
  rs_context *ctx;
  void *native;
  unsigned flags;
};

struct rs_context {
  const rs_backend_vtable *vt;
  rs_backend *be;
  rs_backend_kind kind;
  int device;
  rs_config cfg;
  rs_slab arrays, streams, events;
  _Atomic int64_t buffers, device_bytes, host_bytes;
  struct rs_stream legacy;     /* built-in, not counted as live */
  struct rs_stream per_thread; /* built-in, not counted as live */
  rs_ledger ledger;
  rs_guard guard;
  rs_staging staging; /* pinned buffers for pageable copies (src/transfer/staging.c) */
  struct rs_memory *mem; /* allocators, pools, deferred frees (src/memory) */
};

/* Ledger and guard lifetime (src/transfer). */
rs_status rs_ledger_init(rs_context *ctx);
void rs_ledger_destroy(rs_context *ctx);
void rs_guard_init(rs_context *ctx);
void rs_guard_destroy(rs_context *ctx);

/* ---- shared internal helpers ---- */

/* Validate an array handle (NULL, released) with the caller's name in the message. */
rs_status rs_array_check(const rs_array *a, const char *who);

/* Resolve a stream argument to the backend handle: NULL = legacy default stream.
 * Errors for destroyed streams and streams of another context. */
rs_status rs_stream_resolve(rs_context *ctx, rs_stream *s, void **native, const char *who);

/* Buffers (src/memory). */
rs_status rs_buffer_alloc(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, size_t bytes,
                          unsigned flags);
rs_status rs_buffer_wrap(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, void *ptr,
                         size_t bytes, rs_release_fn release, void *user_data);
void rs_buffer_retain(rs_buffer *buf);
/* Drop a reference; the last one frees the memory. Returns the error of a
 * pending-deallocation flush that freeing set off (the buffer is gone regardless). */
rs_status rs_buffer_release(rs_buffer *buf);

/* The kind an array behaves as now (a pageable buffer inside a pinned scope is pinned). */
rs_mem_kind rs_buffer_effective_kind(const rs_buffer *buf);

/* A new handle over buf (takes a new reference on buf) with the given layout. */
rs_status rs_array_new_view(rs_array **out, const rs_array *base, int ndim,
                            const int64_t *shape, const int64_t *strides, int64_t offset);

/* Allocate a fresh array of a kind (layout from strides or order). */
rs_status rs_array_alloc(rs_array **out, rs_context *ctx, rs_mem_kind kind, unsigned flags,
                         int ndim, const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                         rs_order order, const char *who);

/* Host address of element 0 for host-visible arrays (incl. managed), else NULL. */
void *rs_array_host_ptr(const rs_array *a);
/* Device-usable address of element 0 (device, managed, mapped), else NULL. */
void *rs_array_device_ptr(const rs_array *a);

#endif
