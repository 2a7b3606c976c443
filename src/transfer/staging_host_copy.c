/* memcpy between two host buffers spread over the staging's lanes (staging.h): the
 * pageable side of a streamed run, which stages through pinned buffers of its own. */
#include <stdatomic.h>
#include "core/host_copy.h"
#include "core/objects.h"
#include "transfer/staging.h"
#include "transfer/staging_shared.h"

/* A host copy alone (a streamed run's chunk into its pinned buffer) is worth the crew from
 * 1 MiB: one thread copies 10-11 GB/s on the H200's host, 8 together 35-40
 * (bench/pageable's memcpy line). */
#define RS_STAGING_HOST_COPY_MIN_BYTES ((size_t)1 << 20)

typedef struct {
  char *dst;
  const char *src;
  size_t bytes, slice, slices;
  int into_staging; /* see rs_staging_host_copy */
  _Atomic size_t next; /* the next slice to claim */
} rs_host_job;

static void rs_host_copy_part(const rs_host_job *h, size_t off, size_t len) {
  if (h->into_staging) rs_staging_copy_into_pinned(h->dst + off, h->src + off, len, h->bytes);
  else rs_host_copy_streaming(h->dst + off, h->src + off, len);
}

/* Slices by claims, as for a staged copy's pieces (rs_staging_slice_bytes). */
static void rs_host_lane(int lane, void *arg) {
  rs_host_job *h = arg;
  (void)lane;
  for (size_t c; (c = atomic_fetch_add(&h->next, 1)) < h->slices;) {
    const size_t off = c * h->slice;
    rs_host_copy_part(h, off, h->bytes - off < h->slice ? h->bytes - off : h->slice);
  }
}

void rs_staging_host_copy(rs_context *ctx, void *dst, const void *src, size_t bytes, int into_staging) {
  rs_staging *s = ctx->staging;
  const size_t slice = rs_staging_slice_bytes(bytes, s->lanes);
  rs_host_job h = {.dst = dst, .src = src, .bytes = bytes, .slice = slice, .slices = (bytes + slice - 1) / slice,
                   .into_staging = into_staging};
  atomic_init(&h.next, 0);
  pthread_mutex_lock(&s->lock);
  if (bytes >= RS_STAGING_HOST_COPY_MIN_BYTES && rs_staging_threads(s) == RS_OK)
    rs_crew_run(&s->crew, rs_host_lane, &h);
  else
    rs_host_copy_part(&h, 0, bytes);
  pthread_mutex_unlock(&s->lock);
}
