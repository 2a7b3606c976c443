/* Pageable H2D copies pulled by the device (staging.h): lanes fill 32 KiB slices of the
 * mapped arena and flag each one ready; a single piece of device work, queued by lane 0
 * before it copies, reads every slice as its flag comes and flags the slot free again
 * (the protocol at rs_be_pull in backend/backend.h). A copy thus costs one call to the
 * driver, and the bus starts after the first slice instead of a piece.
 *
 * Slices carry numbers that never repeat (pull_next counts them for the context), so a
 * flag left over from an earlier copy never reads as ready. A copy has at most as many
 * slices as the ring has slots, so its lanes never wait: before any staged copy starts,
 * the slices of the pulls before it must all be freed (rs_pull_drain, called by staging.c),
 * which the copy path's synchronize after each staged copy has mostly seen to already. */
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "core/error.h"
#include "core/host_copy.h"
#include "core/objects.h"
#include "transfer/staging.h"
#include "transfer/staging_pull.h"

#define RS_PULL_SLOTS (RS_STAGING_ARENA_BYTES / RS_PULL_SLICE)
/* Flags: RS_PULL_SLOTS ready, then as many freed, a line apart. */
#define RS_PULL_FLAG_WORDS ((size_t)RS_PULL_SLOTS * RS_BE_PULL_FLAG_STRIDE)
/* How long a drain spins before it asks the device whether the pull it waits for can
 * still come (a device that failed never frees the slots). */
#define RS_PULL_PATIENCE_NS 2000000LL

/* A second lane at least: lane 0's queueing of the device's side may itself wait for
 * that work to finish (CUDA_LAUNCH_BLOCKING=1, a sanitizer that serializes kernels), and
 * then the other lanes fill the slices it waits for. Alone, it would wait forever. */
int rs_pull_applies(const rs_context *ctx, size_t bytes, rs_copy_dir dir) {
  const rs_staging *s = ctx->staging;
  return dir == RS_DIR_H2D && bytes <= RS_PULL_MAX_BYTES && ctx->vt->stage_pull && s->pull && s->lanes >= 2;
}

rs_status rs_pull_prepare(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  void *flags = NULL, *flags_dev = NULL, *arena_dev = NULL;
  rs_status st = ctx->vt->host_alloc(ctx->be, 2 * RS_PULL_FLAG_WORDS * sizeof(uint64_t), RS_BE_HOST_MAPPED, &flags);
  if (st == RS_OK) st = ctx->vt->host_device_pointer(ctx->be, flags, &flags_dev);
  if (st == RS_OK) st = ctx->vt->host_device_pointer(ctx->be, s->arena, &arena_dev);
  if (st != RS_OK) {
    if (flags) ctx->vt->host_free(ctx->be, flags);
    return st;
  }
  memset(flags, 0, 2 * RS_PULL_FLAG_WORDS * sizeof(uint64_t));
  s->pull_flags = flags;
  s->pull_flags_dev = flags_dev;
  s->arena_dev = arena_dev;
  s->pull_next = s->pull_unfreed = 0;
  return RS_OK;
}

void rs_pull_release(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (s->pull_flags) ctx->vt->host_free(ctx->be, s->pull_flags);
  s->pull_flags = NULL;
  s->pull_flags_dev = NULL;
  s->arena_dev = NULL;
}

void rs_staging_allow_pull(rs_context *ctx, int allow) {
  pthread_mutex_lock(&ctx->staging->lock);
  ctx->staging->pull = allow != 0;
  pthread_mutex_unlock(&ctx->staging->lock);
}

uint64_t rs_staging_pulled_slices(rs_context *ctx) {
  pthread_mutex_lock(&ctx->staging->lock);
  uint64_t n = ctx->staging->pull_next;
  pthread_mutex_unlock(&ctx->staging->lock);
  return n;
}

static long long rs_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Moves pull_unfreed past the slices freed so far; 1 if that is all of them. */
static int rs_pull_all_freed(rs_staging *s) {
  const uint64_t *freed = s->pull_flags + RS_PULL_FLAG_WORDS;
  while (s->pull_unfreed < s->pull_next) {
    const uint64_t g = s->pull_unfreed;
    if (__atomic_load_n(&freed[(g % RS_PULL_SLOTS) * RS_BE_PULL_FLAG_STRIDE], __ATOMIC_ACQUIRE) < g + 1) return 0;
    s->pull_unfreed++;
  }
  return 1;
}

rs_status rs_pull_drain(rs_context *ctx) {
  rs_staging *s = ctx->staging;
  if (!s->pull_flags || rs_pull_all_freed(s)) return RS_OK;
  const long long t0 = rs_now_ns();
  for (unsigned spins = 1; !rs_pull_all_freed(s); spins++) {
    rs_crew_pause();
    if (spins % 1024 || rs_now_ns() - t0 < RS_PULL_PATIENCE_NS) continue;
    /* Long enough: wait for the device itself. Once it is idle, every pull it ran has
     * freed its slots; one that did not run will not. */
    rs_status st = ctx->vt->synchronize(ctx->be);
    if (rs_pull_all_freed(s)) return RS_OK;
    const unsigned long long unread = (unsigned long long)(s->pull_next - s->pull_unfreed);
    s->pull_unfreed = s->pull_next; /* nothing of them runs any more */
    if (st != RS_OK) return rs_fail_prefix(st, "pageable staging: the device's read of an earlier copy: ");
    return rs_fail(RS_ERR_INTERNAL, "pageable staging: the device finished without reading %llu slices of an earlier copy",
                   unread);
  }
  return RS_OK;
}

typedef struct rs_pull_job {
  rs_context *ctx;
  rs_be_pull dev; /* what the device is given */
  const char *src;
  void *stream;
  _Atomic size_t next; /* the next slice to claim */
  rs_status queued;    /* lane 0's queueing of the device's side (its message is the caller's) */
} rs_pull_job;

static void rs_pull_lane(int lane, void *arg) {
  rs_pull_job *j = arg;
  rs_staging *s = j->ctx->staging;
  /* Lane 0 (the caller's thread) queues the device's side while the other lanes start
   * copying; it then reads the slices already flagged. If it cannot be queued, the
   * slices are copied all the same: nothing reads them, and the copy fails. */
  if (lane == 0) j->queued = j->ctx->vt->stage_pull(j->ctx->be, &j->dev, j->stream);
  for (size_t k; (k = atomic_fetch_add(&j->next, 1)) < j->dev.slices;) {
    const uint64_t g = j->dev.first + k;
    const size_t slot = (size_t)(g % RS_PULL_SLOTS), off = k * RS_PULL_SLICE;
    const size_t len = j->dev.bytes - off < RS_PULL_SLICE ? j->dev.bytes - off : RS_PULL_SLICE;
    /* Streaming stores, fenced before the flag: the device's read then finds no line of
     * the slot in a core's cache (staging.h), and the bytes are there before the flag. */
    rs_host_copy_streaming(s->arena + slot * RS_PULL_SLICE, j->src + off, len);
    __atomic_store_n(&s->pull_flags[slot * RS_BE_PULL_FLAG_STRIDE], g + 1, __ATOMIC_RELEASE);
  }
}

rs_status rs_pull_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, void *stream) {
  rs_staging *s = ctx->staging;
  const size_t slices = (bytes + RS_PULL_SLICE - 1) / RS_PULL_SLICE;
  uint64_t *flags_dev = s->pull_flags_dev;
  rs_pull_job j = {.ctx = ctx,
                   .dev = {.dst = dst, .ring = s->arena_dev, .ready = flags_dev, .freed = flags_dev + RS_PULL_FLAG_WORDS,
                           .first = s->pull_next, .slices = slices, .slice_bytes = RS_PULL_SLICE, .bytes = bytes,
                           .slots = RS_PULL_SLOTS},
                   .src = src,
                   .stream = stream,
                   .queued = RS_OK};
  atomic_init(&j.next, 0);
  rs_crew_run(&s->crew, rs_pull_lane, &j);
  s->pull_next += slices;
  if (j.queued != RS_OK) {
    s->pull_unfreed = s->pull_next; /* no device work reads them */
    return rs_fail_prefix(j.queued, "pageable staging: ");
  }
  return RS_OK;
}
