/* Internal to src/memory: the per-context state of the memory layer and the pieces its
 * files share.
 *
 * Locks (never more than two held, always in this order): a pool's lock or a tracked
 * table's lock, then the event cache's lock. use_lock guards the buffers' use lists and
 * is held only while an event is taken and recorded.
 */
#ifndef RS_MEMORY_STATE_H
#define RS_MEMORY_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include "backend/backend.h"
#include "memory/addrmap.h"
#include "memory/buffer.h"
#include "memory/allocator.h"
#include "memory/pool.h"
#include "memory/source.h"

/* ---- live allocations of the allocators without a pool (tracked.c) ------------------- */

#define RS_RECENT_FREES 64

/* Every live allocation by address (value = stream, size = bytes), with the addresses
 * freed last, so a second free is told from a pointer never handed out. */
typedef struct rs_tracked {
  pthread_mutex_t lock;
  rs_addrmap live;
  uintptr_t recent[RS_RECENT_FREES];
  unsigned recent_next;
  size_t in_use, peak_in_use, limit;
  int64_t allocations, frees;
} rs_tracked;

rs_status rs_tracked_init(rs_tracked *t);
void rs_tracked_destroy(rs_tracked *t);
/* Count bytes as in use before the source is asked (so concurrent requests see them
 * against the limit); extra = further bytes held (the pending queue). Lock held. */
rs_status rs_tracked_reserve_locked(rs_tracked *t, size_t bytes, size_t extra, const char *what);
/* Record a successful allocation reserved before. Lock held. -1: no host memory. */
int rs_tracked_add_locked(rs_tracked *t, void *ptr, size_t bytes, void *stream);

/* Reserve room for bytes (*extra, read under the lock, if not NULL: bytes held elsewhere that
 * count against the limit),
 * obtain the memory with obtain(arg, ...) outside the lock, and record it - or give the
 * room back if obtaining failed. */
typedef rs_status (*rs_obtain_fn)(void *arg, size_t bytes, void *stream, void **out);
rs_status rs_tracked_alloc(rs_tracked *t, size_t bytes, const size_t *extra, const char *what, rs_obtain_fn obtain,
                           void *arg, void *stream, void **out);
/* Take a live allocation out (RS_ERR_DOUBLE_FREE / RS_ERR_FOREIGN_MEMORY otherwise);
 * bytes, when not 0, must match. Lock held. */
rs_status rs_tracked_remove_locked(rs_tracked *t, void *ptr, size_t bytes, size_t *size,
                                   void **stream, const char *what);
/* Put a removed allocation back (its free failed). Lock held. */
void rs_tracked_restore_locked(rs_tracked *t, void *ptr, size_t bytes, void *stream);

/* Free through t: take ptr out, add the freeing stream to uses when it is not the one
 * the memory was allocated on, hand it to give_back(ctx, arg, ptr, size, alloc_stream, uses),
 * and put it back in t if that fails, so the caller may free it again. uses is freed. */
typedef rs_status (*rs_give_back_fn)(rs_context *ctx, void *arg, void *ptr, size_t bytes, void *alloc_stream,
                                     const rs_mem_uses *uses);
rs_status rs_tracked_free(rs_tracked *t, rs_context *ctx, void *ptr, size_t bytes, void *stream,
                          rs_mem_uses *uses, const char *what, rs_give_back_fn give_back, void *arg);

/* ---- the direct allocator's pending-deallocation queue (deferred.c) ------------------- */

typedef struct rs_pending_free {
  void *ptr;
  size_t bytes;
  void *stream;
  rs_mem_uses *uses;
} rs_pending_free;

typedef struct rs_deferred {
  rs_tracked live; /* its lock also guards the queue */
  rs_pending_free *items;
  size_t count, cap;
  size_t bytes;
  int64_t max_count;    /* flush when count > max_count */
  double max_ratio;     /* or when bytes > max_ratio * total */
  size_t total;         /* device memory the ratio is of */
  size_t peak_reserved; /* of in use + queued */
  int64_t flushes, flush_errors, cancelled;
} rs_deferred;

/* ---- the per-context state ------------------------------------------------------------- */

struct rs_memory {
  rs_context *ctx;
  _Atomic int kind; /* rs_allocator_kind of device memory */
  rs_user_allocator user;
  char user_name[64];
  int has_user;
  rs_mem_source device_src, pinned_src;
  rs_pool device_pool, pinned_pool;
  rs_deferred direct;
  rs_tracked async_live, user_live;
  rs_tracked raw_live; /* what rs_memory_alloc handed out (raw.c), on top of the above */
  size_t device_limit;
  _Atomic int defer_depth;
  pthread_mutex_t use_lock;
  /* spare events for stream-use tracking */
  pthread_mutex_t event_lock;
  void **events;
  size_t nevents, events_cap;
  /* out-of-memory handling, per space */
  _Atomic int64_t oom_recoveries[2], oom_failures[2];
  _Atomic uint64_t event_seq;
  void *release_stream; /* foreign.c: where deferred release callbacks are queued */
};

/* deferred.c */
rs_status rs_deferred_init(rs_deferred *d, int64_t max_count, double max_ratio, size_t total);
void rs_deferred_destroy(rs_memory *m);
rs_status rs_direct_alloc(rs_memory *m, size_t bytes, void *stream, void **out);
rs_status rs_direct_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses);
/* Flush now. force: also inside a defer_cleanup scope. Only when over the thresholds
 * (only_if_over) or unconditionally. */
rs_status rs_deferred_flush(rs_memory *m, int force, int only_if_over);
void rs_deferred_stats(rs_memory *m, rs_memory_stats *out);
void rs_deferred_reset(rs_memory *m);
void rs_deferred_report(rs_memory *m, FILE *out);

/* async_alloc.c (the async allocator over the backend's stream-ordered allocation) */
/* ready (may be NULL): an event recorded right after the allocation on stream, for other
 * streams to wait for (the CUDA pool may hand out memory still used by work queued
 * earlier on that stream). */
rs_status rs_async_alloc(rs_memory *m, size_t bytes, void *stream, void **out,
                         rs_mem_event **ready);
rs_status rs_async_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses);
/* Wait for queued frees, then give the CUDA pool's cache back. */
rs_status rs_async_trim(rs_memory *m);
void rs_async_stats(rs_memory *m, rs_memory_stats *out);

/* user_alloc.c (the user allocator called for every request) */
rs_status rs_user_alloc(rs_memory *m, size_t bytes, void *stream, void **out);
rs_status rs_user_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses);
void rs_tracked_stats(rs_tracked *t, rs_memory_stats *out);
void rs_tracked_reset(rs_tracked *t);

/* uses.c: events of other streams' uses, shared ready events, and the event cache */
struct rs_mem_event {
  void *ev;
  _Atomic int refs;
  uint64_t seq; /* recording order: of two events on one stream the later covers both */
};
/* A new event recorded on stream now (one reference), or NULL if none can be had. */
rs_mem_event *rs_mem_event_record(rs_context *ctx, void *stream);
void rs_mem_event_ref(rs_mem_event *e);
void rs_mem_event_unref(rs_context *ctx, rs_mem_event *e); /* NULL is fine */

/* Record an event on stream into *uses (created if NULL). Never fails: when no event can
 * be had the uses say sync_all, or (no host memory even for that) the stream is
 * synchronized right here. Call with use_lock held when *uses is shared. */
void rs_uses_add(rs_context *ctx, rs_mem_uses **uses, void *stream);
/* 1 when every recorded use has finished (queries, does not wait). */
int rs_uses_done(rs_context *ctx, const rs_mem_uses *uses);
/* Block until every recorded use has finished. */
rs_status rs_uses_wait(rs_context *ctx, const rs_mem_uses *uses);
/* Make later work on stream wait for the recorded uses (the host does not wait). */
rs_status rs_uses_order_on(rs_context *ctx, const rs_mem_uses *uses, void *stream);
/* Return the events to the cache and free uses (NULL is fine). */
void rs_uses_free(rs_context *ctx, rs_mem_uses *uses);
void rs_event_cache_destroy(rs_memory *m);

/* foreign.c: the release of a buffer the library does not own. Its release callback runs
 * now when every recorded use has finished, else queued after them (a host function on
 * the memory layer's own stream). Drops the buffer's use tracking. */
rs_status rs_foreign_release(rs_buffer *buf);
/* Wait for the queued release callbacks and destroy the stream they were queued on. */
void rs_foreign_destroy(rs_memory *m);

/* memory.c */
/* Give cached device memory back: flush the queue (force: even inside a defer_cleanup
 * scope), release free pool segments (waiting for other streams), trim the async pool. */
rs_status rs_memory_reclaim(rs_memory *m, int force);
size_t rs_memory_device_in_use(rs_memory *m);

/* oom.c: the out-of-memory message with the state of the allocator. */
rs_status rs_memory_oom_fail(rs_memory *m, rs_mem_space space, size_t bytes, const char *cause);

#endif
