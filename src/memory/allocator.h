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

/* Per-context state: created in rs_context_create (after the backend is open, reading
 * ctx->cfg), destroyed in rs_context_destroy after every buffer is gone and before the
 * backend closes. */
rs_status rs_memory_init(rs_context *ctx);
void rs_memory_destroy(rs_context *ctx);

/* Device memory for `stream` from the context's allocator. bytes == 0 gives NULL. */
rs_status rs_device_malloc(rs_context *ctx, size_t bytes, void *stream, void **out);

/* Give back device memory. `bytes` is the size asked for (0 = not known; when given it
 * is checked). `stream` is the stream it was last used on: another stream than its
 * allocation's counts as a use there. Unknown pointers are RS_ERR_DOUBLE_FREE or
 * RS_ERR_FOREIGN_MEMORY and change nothing. The direct allocator may flush its queue and
 * return the flush's error; the memory is given back regardless. */
rs_status rs_device_mfree(rs_context *ctx, void *ptr, size_t bytes, void *stream);

/* As rs_device_mfree, with the uses collected by rs_memory_note_use (taken over: freed
 * here whatever happens; NULL = none). */
rs_status rs_device_mfree_used(rs_context *ctx, void *ptr, size_t bytes, void *stream,
                               rs_mem_uses *uses);

/* Page-locked host memory. flags are RS_BE_HOST_* (backend.h): flag-less requests come
 * from the pinned pool, others straight from the backend (pass the same flags to free). */
rs_status rs_pinned_malloc(rs_context *ctx, size_t bytes, unsigned flags, void **out);
rs_status rs_pinned_mfree(rs_context *ctx, void *ptr, size_t bytes, unsigned flags,
                          rs_mem_uses *uses);

/* Work using buf was just queued on native_stream. Device memory used on a stream other
 * than its allocation stream, and pooled pinned memory used on any stream (the host is
 * the other party), gets an event recorded there so that the block is not reused before
 * that work is done. Other buffers are ignored. Call it after queueing the work. */
void rs_memory_note_use(rs_buffer *buf, void *native_stream);

/* Release the uses of a buffer that is not going back to an allocator (its events are
 * returned to the cache). */
void rs_memory_uses_drop(rs_context *ctx, rs_mem_uses *uses);

#endif
