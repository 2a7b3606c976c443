/* Internal: the structures behind the public handles.
 *
 * Core knows the handles only. What they point to in the layers above (the backend's
 * table, buffers, the memory, ledger, guard and staging state) is declared here by name
 * and defined by the layer that owns it; src/context assembles them. */
#ifndef RS_CORE_OBJECTS_H
#define RS_CORE_OBJECTS_H

#include <stdatomic.h>
#include "core/config.h"
#include "core/handles.h"
#include "resident/array.h"
#include "resident/stream.h"

typedef struct rs_buffer rs_buffer; /* src/memory/buffer.h */
struct rs_backend_vtable;           /* src/backend/backend.h */
struct rs_backend;                  /* private to each backend */
struct rs_memory;                   /* src/memory/state.h */
struct rs_ledger;                   /* src/ledger/state.h */
struct rs_guard;                    /* src/ledger/state.h */
struct rs_staging;                  /* src/transfer/staging.h */

struct rs_array {
  rs_handle_header header;
  _Atomic int64_t refs; /* tagged count (src/memory/array.c) */
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
  const struct rs_backend_vtable *vt;
  struct rs_backend *be;
  rs_backend_kind kind;
  int device;
  rs_config cfg;
  rs_slab arrays, streams, events;
  _Atomic int64_t buffers, device_bytes, host_bytes;
  struct rs_stream legacy;     /* built-in, not counted as live */
  struct rs_stream per_thread; /* built-in, not counted as live */
  /* Each layer's state, owned by its layer (init/destroy there), stored by src/context. */
  struct rs_memory *mem;      /* allocators, pools, deferred frees (src/memory) */
  struct rs_ledger *ledger;   /* src/ledger */
  struct rs_guard *guard;     /* src/ledger */
  struct rs_staging *staging; /* pinned buffers for pageable copies (src/transfer/staging.c) */
};

/* Validate an array handle (NULL, released) with the caller's name in the message. */
static inline rs_status rs_array_check(const rs_array *a, const char *who) {
  return rs_handle_check(a, RS_MAGIC_ARRAY, who);
}

#endif
