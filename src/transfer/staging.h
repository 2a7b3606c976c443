/* Internal: pageable copies at pinned speed.
 *
 * The device cannot read pageable memory directly: the driver copies it through its own
 * small pinned buffers on one thread (about 8 GB/s H2D on the H200). Here a copy is cut
 * into pieces that go through a ring of pinned slots, reused across calls. A crew of host
 * threads (lanes) fills each slot together, each lane its share of the piece, and the
 * last lane to finish sends the whole piece with one DMA (H2D) while the lanes go on to
 * the next slot; or the DMAs run ahead into the slots and the lanes empty each one
 * together as it arrives (D2H). The memcpy rate of one thread (6-20 GB/s) is what limits
 * the driver's path; several lanes at once go past the link, and one DMA, one event and
 * one wait per piece (not per lane's piece) keep the driver's own serialized calls few.
 * Used by the copy path for contiguous blocks that have a pageable side. */
#ifndef RS_TRANSFER_STAGING_H
#define RS_TRANSFER_STAGING_H

#include <pthread.h>
#include "backend/backend.h"
#include "core/crew.h"
#include "core/objects.h"

/* The most lanes (RESIDENT_STAGING_THREADS at most) and the default (fewer if the host
 * has fewer cores). */
#define RS_STAGING_MAX_LANES RS_STAGING_MAX_THREADS
#define RS_STAGING_DEFAULT_LANES 8

/* The ring: slots of RS_STAGING_SLOT_BYTES each. */
#define RS_STAGING_SLOTS 4

typedef struct rs_staging {
  pthread_mutex_t lock; /* one staged copy (or host copy) at a time per context */
  int enabled;
  int lanes; /* threads, the caller included */
  int ready; /* slots and events exist */
  int crew_ready;
  rs_crew crew;
  void *slot[RS_STAGING_SLOTS];   /* pinned */
  void *event[RS_STAGING_SLOTS];  /* recorded after the last DMA that used the slot */
  int used[RS_STAGING_SLOTS];     /* the event was recorded and not waited for since */
} rs_staging;

struct rs_context;

/* RESIDENT_PAGEABLE_STAGING: auto (on for CUDA), on, off; RESIDENT_STAGING_THREADS:
 * lanes. Nothing is allocated or started until the first staged copy. */
void rs_staging_init(struct rs_context *ctx);
void rs_staging_destroy(struct rs_context *ctx);

/* 1 if a contiguous copy of this size and direction with a pageable side is staged. */
int rs_staging_applies(struct rs_context *ctx, size_t bytes, rs_copy_dir dir);

/* dst/src as for copy_async (the device side a device address). Returns when the
 * pageable side has been read (H2D) or written (D2H); the DMA of the last pieces of an
 * H2D may still be in flight on the stream. */
rs_status rs_staged_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream);

/* memcpy between two host buffers spread over the staging lanes (a plain memcpy if the
 * threads cannot be started). For the pageable side of a streamed run, which stages
 * through pinned buffers of its own. `into_user` says dst is the caller's array (cold,
 * large: written with streaming stores) rather than a staging buffer the library reuses
 * (warm in the caches, where a DMA finds it: plain stores). */
void rs_staging_host_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes, int into_user);

#endif
