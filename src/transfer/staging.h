/* Internal: pageable copies at pinned speed.
 *
 * The device cannot read pageable memory directly: the driver copies it through its own
 * small pinned buffers on one thread (about 8 GB/s H2D on the H200). Here a copy is cut
 * into pieces that go through a pinned arena, reused across calls. A crew of host
 * threads (lanes) fills each piece together, taking slices of it in turn from a shared
 * counter, and the caller's lane sends the whole piece with one DMA once its slices are
 * done (H2D) while the lanes go on to the next; or the DMAs run ahead and the lanes empty
 * each piece together as it arrives (D2H). An H2D's first pieces are small and double
 * (from 128 KiB), so that the link starts early, and its last ones halve again. The memcpy rate of one thread (6-20 GB/s) is
 * what limits the driver's path; several lanes at once go past the link, and one DMA, one
 * event and one poll per piece (not per slice), all on the caller's thread, keep the
 * driver's own serialized calls few and fast. Slices are claimed, not fixed shares, so
 * that a lane that wakes late (30 us and more on a busy VM, as long as a 1 MiB copy)
 * leaves its part to the others instead of holding up the copy: the caller does the whole
 * copy alone if no lane joins (core/crew.h).
 *
 * A DMA must not find the arena's lines in the cores' caches: it then snoops them one by
 * one and runs at a third of the link's speed (on the H200's host, 8 x 1 MiB from pinned
 * memory 8 threads had just written with plain stores: 15.6 GB/s; with streaming stores,
 * 43.8, as for memory the CPU had not touched; after 8 threads read it, 18 against 47).
 * So pieces up to 4 MiB are written into the arena with streaming stores (the largest,
 * 8 MiB, leave the core's cache while the next is written: see staging.c), and pieces
 * follow one another through the whole arena (a cursor kept across copies) instead of
 * reusing the first bytes of a few slots: a lane reads 4 MiB elsewhere before a DMA
 * comes back to a line it read, more than its core's cache holds.
 * An H2D of up to 8 MiB is pulled instead (staging_pull.h, where the backend can): the
 * lanes fill 32 KiB slices and flag each one, and a single kernel queued at the start reads
 * them over the bus as the flags come, so the copy costs one call to the driver and the
 * bus starts after 32 KiB (1 MiB on the H200: 20-21 GB/s against 14-19 by DMA pieces).
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

/* Pieces in flight at once, at most (fewer where the arena holds fewer of a copy's
 * pieces): piece p uses event p % RS_STAGING_INFLIGHT, recorded after its DMA. */
#define RS_STAGING_INFLIGHT 8

/* The arena: pinned (and mapped where the backend pulls, staging_pull.h). */
#define RS_STAGING_ARENA_BYTES ((size_t)32 << 20)

typedef struct rs_staging {
  pthread_mutex_t lock; /* one staged copy (or host copy) at a time per context */
  int enabled;
  int lanes; /* threads, the caller included */
  int ready; /* arena and events exist */
  int crew_ready;
  rs_crew crew;
  char *arena;                       /* pinned, RS_STAGING_ARENA_BYTES */
  size_t cursor;                     /* where the next piece goes */
  void *event[RS_STAGING_INFLIGHT];  /* recorded after the DMA of a piece p with p % RS_STAGING_INFLIGHT == k */
  int pending; /* 1 + the event recorded last, whose DMAs no job has waited for since; 0: none */
  /* Pulled copies (staging_pull.c) */
  int pull;              /* allowed (1 unless a test turns it off) */
  uint64_t *pull_flags;  /* mapped pinned: the ring's ready flags, then its freed flags */
  uint64_t *pull_flags_dev;
  char *arena_dev;       /* the device's alias of the arena */
  uint64_t pull_next;    /* the number the next pulled slice gets */
  uint64_t pull_unfreed; /* the first slice the device may not have freed yet */
} rs_staging;

struct rs_context;

/* RESIDENT_PAGEABLE_STAGING: auto (on for CUDA), on, off; RESIDENT_STAGING_THREADS:
 * lanes. Nothing is allocated or started until the first staged copy. */
void rs_staging_init(struct rs_context *ctx);
void rs_staging_destroy(struct rs_context *ctx);

/* 1 if a contiguous copy of this size and direction with a pageable side is staged. */
int rs_staging_applies(struct rs_context *ctx, size_t bytes, rs_copy_dir dir);

/* dst/src as for copy_async (the device side a device address). Returns when the
 * pageable side has been read (H2D) or written (D2H); a pulled H2D's device work may
 * still be in flight on the stream. *finished (if not NULL) is set to 1 when all
 * the work the copy queued on the stream is known to have completed (its DMAs' last
 * event was seen; a pulled H2D's kernel is left to the caller), so a caller that found
 * the stream idle before need not synchronize it; else 0. */
rs_status rs_staged_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                         void *stream, int *finished);

/* The pieces a staged copy of `bytes` (1 MiB or more) in direction dir is cut into with
 * `lanes` lanes: their lengths, in order, into len[0 .. max); returns how many there are
 * (for tests). */
size_t rs_staging_cut(size_t bytes, rs_copy_dir dir, int lanes, size_t *len, size_t max);

/* For tests: allow (1, the default) or forbid (0) pulled copies, so that both ways of
 * staging an H2D are exercised on one backend. */
void rs_staging_allow_pull(struct rs_context *ctx, int allow);
/* For tests: slices pulled so far by the context (each 32 KiB, the last of a copy fewer). */
uint64_t rs_staging_pulled_slices(struct rs_context *ctx);

/* memcpy between two host buffers spread over the staging lanes (on the calling thread if
 * the threads cannot be started): for the pageable side of a streamed run, which stages
 * through pinned buffers of its own. `into_staging`: dst is such a buffer, which a DMA
 * reads next (else dst is the caller's array, large and not read soon); both take
 * streaming stores, but a buffer of 8 MiB or more takes plain stores, as the arena's
 * largest pieces do (staging.c). */
void rs_staging_host_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes, int into_staging);

#endif
