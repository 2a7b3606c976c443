/* Internal: the memory layer as the rest of the library sees it. Every device and pinned
 * allocation of the library goes through these functions, never straight to the
 * backend, so the pool, the pending-deallocation queue, limits, statistics and the
 * out-of-memory recovery apply everywhere.
 *
 * Streams are backend handles (NULL = the legacy default stream). All functions are
 * thread-safe.
 */
#ifndef RS_MEMORY_ALLOCATOR_H
#define RS_MEMORY_ALLOCATOR_H

#include <stdatomic.h>
#include <stddef.h>
#include "resident/allocator.h"
#include "resident/status.h"

typedef struct rs_context rs_context;
typedef struct rs_buffer rs_buffer;
typedef struct rs_memory rs_memory; /* per-context state, private to src/memory */

/* The streams other than its own that a block of memory was used on, each with an event
 * recorded after that use. Reuse waits for the events. sync_all: an event could not be
 * had (or too many streams): reuse waits for the whole context instead. */
#define RS_MEM_USES_MAX 8
typedef struct rs_mem_uses {
  int count;
  int sync_all;
  void *stream[RS_MEM_USES_MAX];
  void *event[RS_MEM_USES_MAX];
} rs_mem_uses;

/* A recorded event shared by several owners (pool blocks cut from one another, the
 * buffer that holds the memory). Never recorded again while referenced. */
typedef struct rs_mem_event rs_mem_event;

/* What the memory layer keeps in each buffer of device or pinned memory it handed out. */
typedef struct rs_mem_track {
  void *alloc_stream;    /* the stream the memory was allocated for */
  _Atomic int used_here; /* work on alloc_stream used it (the free then records an event) */
  rs_mem_event *ready;   /* completes when the memory's previous users on alloc_stream are
                            done; other streams wait for it before their first use (NULL:
                            fresh memory, nothing to wait for) */
  rs_mem_uses *uses;     /* other streams it was used on */
} rs_mem_track;

/* Per-context state: created in rs_context_create (after the backend is open, reading
 * ctx->cfg), destroyed in rs_context_destroy after every buffer is gone and before the
 * backend closes. */
rs_status rs_memory_init(rs_context *ctx);
void rs_memory_destroy(rs_context *ctx);

/* fn(arg, pinned, in_use, held) after every allocation, free and trim of the device and
 * the pinned pool (a layer above listens without the memory layer knowing it: the
 * ledger's trace counters). Called with a pool's lock held. NULL stops it. */
void rs_memory_observe_pools(rs_context *ctx, void (*fn)(void *, int, size_t, size_t), void *arg);

/* Device memory for `stream` from the context's allocator. bytes == 0 gives NULL. The
 * memory is ready for work queued on `stream`; work on other streams must be ordered
 * after it by the caller (the tracked form below does that for buffers). */
rs_status rs_device_malloc(rs_context *ctx, size_t bytes, void *stream, void **out);

/* Give back device memory. `bytes` is the size asked for (0 = not known; when given it
 * is checked). `stream` is the stream it was last used on: another stream than its
 * allocation's counts as a use there. Unknown pointers are RS_ERR_DOUBLE_FREE or
 * RS_ERR_FOREIGN_MEMORY and change nothing. The direct allocator may flush its queue and
 * return the flush's error; the memory is given back regardless. */
rs_status rs_device_mfree(rs_context *ctx, void *ptr, size_t bytes, void *stream);

/* rs_memory_alloc / rs_memory_free (src/memory/raw.c): the same, but the addresses are
 * remembered, and the free takes only those (not an array's memory) - anything else is
 * RS_ERR_FOREIGN_MEMORY, a second free RS_ERR_DOUBLE_FREE (while it is still told). */
rs_status rs_memory_raw_alloc(rs_context *ctx, size_t bytes, void *stream, void **out);
rs_status rs_memory_raw_free(rs_context *ctx, void *ptr, void *stream);

/* The forms buffers use: *track (zeroed by the caller) is filled at allocation and
 * consumed at the free (its uses and ready event released whatever happens). */
rs_status rs_device_malloc_tracked(rs_context *ctx, size_t bytes, void *stream, void **out,
                                   rs_mem_track *track);
rs_status rs_device_mfree_tracked(rs_context *ctx, void *ptr, size_t bytes, rs_mem_track *track);

/* Page-locked host memory. flags are RS_BE_HOST_* (backend.h): flag-less requests come
 * from the pinned pool, others straight from the backend (pass the same flags to free). */
rs_status rs_pinned_malloc(rs_context *ctx, size_t bytes, unsigned flags, void **out);
rs_status rs_pinned_mfree(rs_context *ctx, void *ptr, size_t bytes, unsigned flags,
                          rs_mem_track *track);

/* Work using buf is about to be queued on native_stream. Device memory from a cache (the
 * pool, the async allocator) may still be in use by earlier work on the stream it was
 * allocated for, which a non-blocking stream does not wait for: the first time such a
 * buffer is used on each other stream, that stream is made to wait (an event, the host
 * does not block). Call it before queueing; returns the backend's error. */
rs_status rs_memory_prepare_use(rs_buffer *buf, void *native_stream);

/* Work using buf was just queued on native_stream. Device memory used on a stream other
 * than its allocation stream, and pooled pinned memory used on any stream (the host is
 * the other party), gets an event recorded there so that the block is not reused before
 * that work is done; a use on the allocation stream is only flagged. Memory the library
 * does not own, when it has a release callback, gets an event on every stream, so that the
 * callback waits for all of them. Other buffers are ignored. Every path that queues work on a buffer calls this after queueing it. */
void rs_memory_note_use(rs_buffer *buf, void *native_stream);

/* Make native_stream wait (on the device) for the uses of buf that are tracked on other
 * streams (the events rs_memory_note_use recorded); the host does not block. */
rs_status rs_memory_order_uses_on(rs_buffer *buf, void *native_stream);

/* Release what a buffer's track holds when its memory does not go back to an allocator. */
void rs_memory_track_drop(rs_context *ctx, rs_mem_track *track);

#endif
