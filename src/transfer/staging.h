/* Internal: pageable copies at near-pinned speed.
 *
 * The device cannot read pageable memory directly: the driver copies it through its own
 * small pinned buffers on one thread (about 8 GB/s H2D on the H200). Here a large copy
 * is cut into chunks that go through a ring of pinned staging buffers: the host side of
 * each chunk is spread over a few threads while the DMA engine moves the previous
 * chunk, so the two overlap. Used by the copy path for contiguous blocks that have a
 * pageable side. */
#ifndef RS_TRANSFER_STAGING_H
#define RS_TRANSFER_STAGING_H

#include <pthread.h>
#include "backend/backend.h"
#include "core/objects.h"
#include "core/thread_pool.h"

#define RS_STAGING_BUFFERS 4

typedef struct rs_staging {
  pthread_mutex_t lock; /* one staged copy at a time per context */
  int enabled;
  size_t chunk;
  void *bufs[RS_STAGING_BUFFERS];
  void *events[RS_STAGING_BUFFERS];
  int ready; /* buffers and events exist */
  int pool_ready; /* the threads exist */
  rs_thread_pool pool;
} rs_staging;

struct rs_context;

/* RESIDENT_PAGEABLE_STAGING: auto (on for CUDA), on, off. Nothing is allocated until the
 * first staged copy. */
void rs_staging_init(struct rs_context *ctx);
void rs_staging_destroy(struct rs_context *ctx);

/* 1 if a contiguous copy of this size and direction with a pageable side is staged. */
int rs_staging_applies(struct rs_context *ctx, size_t bytes, rs_copy_dir dir);

/* dst/src as for copy_async (the device side a device address). Returns when the
 * pageable side has been read (H2D) or written (D2H); the DMA of the last chunks of an
 * H2D may still be in flight on the stream. */
rs_status rs_staged_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream);

/* memcpy between two host buffers spread over the staging threads (started on first
 * use; a plain memcpy if none can be started). For the pageable side of a streamed run,
 * which stages through pinned buffers of its own. */
void rs_staging_host_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes);

#endif
