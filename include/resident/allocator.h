/* resident/allocator.h - where device and pinned memory comes from: the caching pool,
 * the direct allocator with its pending-deallocation queue, the stream-ordered async
 * allocator, user-supplied allocators, limits, statistics and out-of-memory reports.
 *
 * ALLOCATORS (one per context for device memory; RESIDENT_ALLOCATOR picks it at context
 * creation, rs_context_set_allocator later):
 *
 *   pool    (default) a caching pool. Freed blocks stay with the context and are handed
 *           out again without a device call: best fit, blocks split and merged, sizes
 *           rounded to 512 bytes. Requests up to 1 MiB are carved from 2 MiB segments,
 *           up to 10 MiB from 20 MiB segments; larger ones get a segment of their own
 *           (rounded to 2 MiB). A block belongs to the stream it was allocated for; a
 *           block that was also used on another stream is handed out again only once
 *           an event recorded on that stream says its work there is done.
 *   direct  every allocation is a device allocation (cudaMalloc). A free is put on a
 *           pending-deallocation queue (as Numba does, because cudaFree synchronizes
 *           the device); the queue is flushed when it holds more than
 *           RESIDENT_MAX_PENDING_DEALLOCS_COUNT entries (default 10) or more than
 *           RESIDENT_MAX_PENDING_DEALLOCS_RATIO of the device memory (default 0.2), when
 *           an allocation fails (the allocation is then retried once), and by
 *           rs_memory_flush. rs_defer_cleanup_begin / _end suspend the flushing.
 *   async   cudaMallocAsync / cudaFreeAsync on the device's default memory pool, ordered
 *           on the stream. Its release threshold is set so freed memory stays cached in
 *           the CUDA pool; rs_memory_release trims it.
 *   user    a struct of function pointers supplied by the application (like Numba's
 *           external memory management plugins). It can also sit underneath the pool or
 *           the direct allocator in place of the device's own allocation.
 *
 * Pinned host memory (rs_pinned_array without flags, and the library's staging buffers)
 * comes from a second caching pool of the same design over page-locked allocations.
 *
 * OUT OF MEMORY: an allocation that does not fit flushes the pending-deallocation queue
 * (unless a defer_cleanup scope is open, as in Numba), waits for blocks held back by
 * other streams, gives the cached memory back to the device and tries once more. If it
 * still does not fit it fails with RS_ERR_OUT_OF_MEMORY and a message giving the bytes
 * requested, free on the device, cached and in use, and the start of the block map.
 * Nothing is leaked and the context keeps working.
 *
 * Thread safety: every call is thread-safe, except rs_context_set_allocator, which must
 * not run while other threads allocate or free on the same context.
 */
#ifndef RESIDENT_ALLOCATOR_H
#define RESIDENT_ALLOCATOR_H

#include "resident/export.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "resident/context.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_allocator_kind {
  RS_ALLOCATOR_POOL = 0,   /* caching pool (default) */
  RS_ALLOCATOR_DIRECT = 1, /* device allocation per request, frees queued and flushed */
  RS_ALLOCATOR_ASYNC = 2,  /* cudaMallocAsync / cudaFreeAsync, stream-ordered */
  RS_ALLOCATOR_USER = 3    /* the application's functions, called for every request */
} rs_allocator_kind;

/* "pool", "direct", "async", "user"; "invalid" otherwise. Thread-safe. */
RS_API const char *rs_allocator_name(rs_allocator_kind kind);

/* Parse "pool", "direct" or "async" (the values RESIDENT_ALLOCATOR takes).
 * RS_ERR_PARSE otherwise. Thread-safe. */
RS_API rs_status rs_allocator_from_name(const char *name, rs_allocator_kind *out);

/* A user-supplied allocator. `stream` is the backend's stream handle (a cudaStream_t on
 * CUDA; NULL is the legacy default stream): a stream-ordered allocator orders the
 * allocation or the free on it, others may ignore it (a free is called only once other
 * streams that used the memory are done with it). The functions may be called from
 * several threads at once and must not call into resident. They report failure with a
 * status (RS_ERR_OUT_OF_MEMORY when the memory is not there); returning RS_OK with a
 * NULL pointer counts as out of memory. user_data must stay valid until the context is
 * destroyed or given another allocator: cached memory goes back through `free` then. */
typedef struct rs_user_allocator {
  const char *name; /* shown in statistics and messages (copied; NULL = "user") */
  void *user_data;  /* passed to every function */
  rs_status (*allocate)(void *user_data, size_t bytes, void *stream, void **out);
  rs_status (*free)(void *user_data, void *ptr, size_t bytes, void *stream);
  /* Optional (NULL = ask the backend): free and total bytes of the memory it manages,
   * used for RESIDENT_MAX_PENDING_DEALLOCS_RATIO, fractional limits and messages. */
  rs_status (*memory_info)(void *user_data, size_t *free_bytes, size_t *total_bytes);
} rs_user_allocator;

/* Choose the device allocator of a context.
 *   kind POOL or DIRECT, user NULL:  the pool / the queue over the device's allocation
 *   kind POOL or DIRECT, user given: the pool / the queue over the user's functions
 *   kind ASYNC:                      user must be NULL
 *   kind USER:                       the user's functions alone (user required)
 * The struct is copied. Cached memory of the previous allocator is given back first (the
 * queue flushed, the pool released); if the context still holds device memory from it
 * the call fails with RS_ERR_STATE and changes nothing. Not thread-safe with other
 * allocations on the same context. */
RS_API rs_status rs_context_set_allocator(rs_context *ctx, rs_allocator_kind kind,
                                   const rs_user_allocator *user);

/* The device allocator of a context (RS_ALLOCATOR_POOL for a NULL context). */
RS_API rs_allocator_kind rs_context_allocator(const rs_context *ctx);

/* The two memory spaces with an allocator of their own. */
typedef enum rs_mem_space {
  RS_SPACE_DEVICE = 0, /* device memory: the context's allocator */
  RS_SPACE_PINNED = 1  /* page-locked host memory: the pinned pool */
} rs_mem_space;

/* Raw device memory from the context's allocator, for the application's own kernels or
 * libraries. The memory is ready for work queued on `stream` (NULL = the default stream)
 * from now on; work on another stream must first be ordered after `stream`
 * (rs_stream_wait_event), as with cudaMallocAsync - a cached block may still be in use by
 * work queued there earlier. bytes == 0 gives NULL. Free with rs_memory_free. */
RS_API rs_status rs_memory_alloc(void **out, rs_context *ctx, size_t bytes, rs_stream *stream);

/* Give back memory from rs_memory_alloc. `stream` is the stream it was last used on
 * (NULL = the default stream); if that is not the stream it was allocated for, the
 * memory is reused only after the work queued there so far has finished. NULL is
 * ignored. Freeing twice is RS_ERR_DOUBLE_FREE where the allocator can still tell;
 * memory rs_memory_alloc of this context did not hand out (another context's, an
 * interior pointer, an array's own memory) is RS_ERR_FOREIGN_MEMORY. The direct allocator may flush its queue here and then returns
 * the flush's error (the memory is given back regardless). */
RS_API rs_status rs_memory_free(rs_context *ctx, void *ptr, rs_stream *stream);

typedef struct rs_memory_stats {
  rs_allocator_kind allocator; /* device space: the allocator; pinned space: POOL */
  char name[64];               /* "pool", "direct", "async" or the user allocator's name */
  int64_t in_use_bytes;        /* handed out and not freed (pool: 512-byte multiples) */
  int64_t requested_bytes;     /* what the callers asked for, of in_use_bytes */
  int64_t cached_bytes;        /* held for reuse: pool free blocks (waiting ones included),
                                  direct: the pending queue, async: the CUDA pool's
                                  reserve not in use */
  int64_t reserved_bytes;      /* held from the device: in use + cached */
  int64_t peak_in_use_bytes;   /* since creation or rs_memory_reset_stats */
  int64_t peak_reserved_bytes; /* likewise */
  int64_t allocations;         /* successful allocations */
  int64_t frees;               /* successful frees */
  int64_t hits;                /* allocations served from cached memory */
  int64_t misses;              /* allocations that needed memory from the device */
  int64_t largest_free_block;  /* pool: the largest block ready for reuse */
  int64_t segments;            /* device allocations held (pool segments, live direct ones) */
  int64_t waiting_blocks;      /* pool: freed blocks waiting for another stream's work */
  int64_t waiting_bytes;       /* their bytes */
  int64_t pending_frees;       /* direct: entries in the pending-deallocation queue */
  int64_t pending_bytes;       /* their bytes */
  int64_t flushes;             /* direct: times the queue was flushed */
  int64_t flush_errors;        /* direct: flushes stopped by an error */
  int64_t cancelled_frees;     /* direct: entries dropped (not freed) after a flush error */
  int64_t oom_recoveries;      /* allocations that fitted after flushing and trimming */
  int64_t oom_failures;        /* allocations that failed with RS_ERR_OUT_OF_MEMORY */
  int64_t limit_bytes;         /* 0 = no limit */
  int64_t device_free_bytes;   /* as the device (or the user allocator) reports now; */
  int64_t device_total_bytes;  /* for pinned memory: 0 */
  int defer_depth;             /* open rs_defer_cleanup_begin scopes */
  int64_t ops_scratch_bytes;   /* device space: held by the array operations' scratch pool
                                  (sort buffers, library temporaries; CUDA backend). It
                                  serves every context on the device, is not part of the
                                  figures above, and is given back by rs_memory_release,
                                  out-of-memory recovery and the closing of a context. */
} rs_memory_stats;

/* Statistics of one space. Thread-safe. */
RS_API rs_status rs_memory_get_stats(rs_context *ctx, rs_mem_space space, rs_memory_stats *out);

/* Restart the peaks at the current values and zero the counters (allocations, frees,
 * hits, misses, flushes, errors, cancellations, recoveries, failures). */
RS_API rs_status rs_memory_reset_stats(rs_context *ctx, rs_mem_space space);

/* Cap the memory a space holds from the device (reserved bytes, cached included); 0
 * removes the cap. A cap below the bytes in use is RS_ERR_LIMIT and changes nothing; a
 * cap below the reserved bytes gives cached memory back until it fits, where it can. An
 * allocation that would cross the cap fails with RS_ERR_OUT_OF_MEMORY - after the cache
 * was given back: under a cap the pool keeps every block in a segment of its own (and
 * cuts one for a smaller request only when nothing else fits), so that cached memory can
 * go back for a request that fits beside what is in use. */
RS_API rs_status rs_memory_set_limit(rs_context *ctx, rs_mem_space space, size_t bytes);

/* The device cap as a fraction of the device's total memory, in (0, 1]
 * (RS_ERR_INVALID_ARGUMENT otherwise). */
RS_API rs_status rs_memory_set_limit_fraction(rs_context *ctx, double fraction);

/* Give cached memory of a space back: the pending-deallocation queue is flushed (even
 * inside a defer_cleanup scope: this is an explicit request), the pool waits for blocks
 * held back by other streams and frees every segment with nothing in use, the async
 * pool is trimmed. For the device space the array operations' scratch pool (shared by the
 * device's contexts) is trimmed too, after waiting for the device's queued work. Returns
 * a flush error as rs_memory_flush does. */
RS_API rs_status rs_memory_release(rs_context *ctx, rs_mem_space space);

/* Print both spaces: allocator, statistics and the block map of every segment. */
RS_API rs_status rs_memory_report(rs_context *ctx, FILE *out);

/* Flush the direct allocator's pending-deallocation queue now, also inside a
 * defer_cleanup scope (RS_OK with nothing to do for the other allocators). If freeing an
 * entry fails, that error is returned, with a message naming the entry, and the entries
 * after it are cancelled: dropped from the queue without being freed, because after a
 * failing free the device state is not trusted (as Numba does). */
RS_API rs_status rs_memory_flush(rs_context *ctx);

/* Suspend the flushing of the pending-deallocation queue (Numba's defer_cleanup), for
 * code that must not be interrupted by the synchronization a device free implies.
 * Scopes nest, per context; the queue is flushed at the end of the outermost scope if
 * it is over its thresholds. Inside a scope an allocation that does not fit does not
 * flush the queue either. end without begin is RS_ERR_STATE. */
RS_API rs_status rs_defer_cleanup_begin(rs_context *ctx);
RS_API rs_status rs_defer_cleanup_end(rs_context *ctx);

/* The queue's thresholds: flush when it holds more than max_count entries (>= 1) or more
 * than max_ratio (in (0, 1]) of the device memory. Out-of-range values are
 * RS_ERR_INVALID_ARGUMENT and change nothing. Defaults: 10 and 0.2, or the environment. */
RS_API rs_status rs_memory_set_pending_limits(rs_context *ctx, int64_t max_count, double max_ratio);

#ifdef __cplusplus
}
#endif
#endif
