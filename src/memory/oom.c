/* The out-of-memory message: enough to see why an allocation did not fit without a
 * debugger - what was asked for, what the device has free, what the allocator holds in
 * use and in cache, and the start of the block map (fragmentation shows there). */
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "memory/state.h"

rs_status rs_memory_oom_fail(rs_memory *m, rs_mem_space space, size_t bytes, const char *cause) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  /* The cause was copied by the caller: the message is rewritten below anyway. */
  (void)rs_memory_get_stats(m->ctx, space, &st);
  char req[32], fr[32], tot[32], use[32], cac[32], big[32], lim[32], pend[32];
  rs_fmt_bytes(req, sizeof req, (double)bytes);
  rs_fmt_bytes(fr, sizeof fr, (double)st.device_free_bytes);
  rs_fmt_bytes(tot, sizeof tot, (double)st.device_total_bytes);
  rs_fmt_bytes(use, sizeof use, (double)st.in_use_bytes);
  rs_fmt_bytes(cac, sizeof cac, (double)st.cached_bytes);
  rs_fmt_bytes(big, sizeof big, (double)st.largest_free_block);
  rs_fmt_bytes(pend, sizeof pend, (double)st.pending_bytes);
  if (st.limit_bytes)
    rs_fmt_bytes(lim, sizeof lim, (double)st.limit_bytes);
  else
    snprintf(lim, sizeof lim, "none");
  char device[128] = "";
  if (space == RS_SPACE_DEVICE)
    snprintf(device, sizeof device, "; the device has %s free of %s", fr, tot);
  char deferred[128] = "";
  if (st.pending_frees > 0)
    snprintf(deferred, sizeof deferred, "; %lld pending frees (%s) held back by defer_cleanup",
             (long long)st.pending_frees, pend);
  char map[400] = "";
  rs_pool *pool = space == RS_SPACE_PINNED                     ? &m->pinned_pool
                  : atomic_load(&m->kind) == RS_ALLOCATOR_POOL ? &m->device_pool
                                                               : NULL;
  if (pool) rs_pool_map_str(pool, map, sizeof map);
  return rs_fail(space == RS_SPACE_DEVICE ? RS_ERR_OUT_OF_MEMORY : RS_ERR_HOST_OUT_OF_MEMORY,
                 "out of %s memory: %zu bytes (%s) requested%s; allocator '%s': %s in use, %s "
                 "cached (largest free block %s), limit %s%s; failed again after flushing "
                 "and releasing cached memory. Cause: %.240s%s%s",
                 space == RS_SPACE_DEVICE ? "device" : "pinned host", bytes, req, device, st.name,
                 use, cac, big, lim, deferred, cause, pool ? ". Block map: " : "", map);
}
