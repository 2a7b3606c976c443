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

/* A stream being captured into a graph (resident/graph.h), and what the capture holds.
 * Written by src/stream/graph.c; read by every layer that must not do on such a stream
 * what would break the capture or count captured work as done (the memory layer's
 * events, the ledger's entries and timing events, the copy path's host waits). */
#define RS_MAX_CAPTURES 8
typedef struct rs_capture {
  _Atomic int active;
  _Atomic(void *) native;           /* the backend's stream */
  int64_t copies[RS_DIRECTIONS][2], bytes[RS_DIRECTIONS][2]; /* [direction][explicit, implicit], as rs_ledger_stats */
  int64_t kernels;
} rs_capture;

struct rs_graph {
  rs_handle_header header;
  struct rs_context *ctx;
  void *native;      /* the backend's graph */
  rs_capture contents; /* what one replay does (counts only; active stays 0) */
};

#define RS_SPARE_STREAMS 8

struct rs_context {
  const struct rs_backend_vtable *vt;
  struct rs_backend *be;
  rs_backend_kind kind;
  int device;
  rs_config cfg;
  rs_slab arrays, streams, events, graphs;
  _Atomic int64_t buffers, device_bytes, host_bytes;
  struct rs_stream legacy;     /* built-in, not counted as live */
  struct rs_stream per_thread; /* built-in, not counted as live */
  /* Each layer's state, owned by its layer (init/destroy there), stored by src/context. */
  struct rs_memory *mem;      /* allocators, pools, deferred frees (src/memory) */
  struct rs_ledger *ledger;   /* src/ledger */
  struct rs_guard *guard;     /* src/ledger */
  struct rs_staging *staging; /* pinned buffers for pageable copies (src/transfer/staging.c) */
  /* Native streams kept for the library's own short-lived users (a streamed run's slots),
   * so that a run neither creates nor destroys streams (src/stream/stream_spare.c). */
  _Atomic(void *) spare_streams[RS_SPARE_STREAMS];
  _Atomic int ncaptures;      /* captures open now: 0 makes rs_capture_of one load */
  rs_capture captures[RS_MAX_CAPTURES];
};

/* The capture of native stream `native` if one is open, else NULL. A NULL native (the
 * legacy default stream, which is never captured) finds one if ANY capture is open when
 * `any` is set: work there would join the captured streams. */
static inline rs_capture *rs_capture_of(rs_context *ctx, void *native, int any) {
  if (!ctx || atomic_load_explicit(&ctx->ncaptures, memory_order_acquire) == 0) return NULL;
  for (int i = 0; i < RS_MAX_CAPTURES; i++)
    if (atomic_load_explicit(&ctx->captures[i].active, memory_order_acquire) &&
        (ctx->captures[i].native == native || (any && !native)))
      return &ctx->captures[i];
  return NULL;
}

/* Validate an array handle (NULL, released) with the caller's name in the message. */
static inline rs_status rs_array_check(const rs_array *a, const char *who) {
  return rs_handle_check(a, RS_MAGIC_ARRAY, who);
}

#endif
