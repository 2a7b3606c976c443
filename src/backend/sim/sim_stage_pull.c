/* The device side of a pageable H2D staged by pulling (the protocol at rs_be_pull in
 * backend.h), as the stream's worker runs it: the slices in order, each copied once its
 * ready flag says the host has written it, then its slot marked free. Like the CUDA
 * kernel it starts while the host is still filling the ring and waits for nothing else,
 * so the simulator runs the shared host side (transfer/staging_pull.c) for real. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* Polls of a flag before the worker gives its core away: the tests run more threads than
 * there are cores. */
#define SIM_PULL_SPINS 64

static void run_pull(void *arg) {
  const rs_be_pull *j = arg;
  char *dst = rs_sim_translate(j->dst);
  for (size_t k = 0; k < j->slices; k++) {
    const uint64_t g = j->first + k;
    const size_t flag = (size_t)(g % j->slots) * RS_BE_PULL_FLAG_STRIDE;
    for (int spins = 0; __atomic_load_n(&j->ready[flag], __ATOMIC_ACQUIRE) < g + 1; spins++)
      if (spins >= SIM_PULL_SPINS) sched_yield();
    const size_t off = k * j->slice_bytes;
    const size_t len = j->bytes - off < j->slice_bytes ? j->bytes - off : j->slice_bytes;
    memcpy(dst + off, j->ring + (size_t)(g % j->slots) * j->slice_bytes, len);
    __atomic_store_n(&j->freed[flag], g + 1, __ATOMIC_RELEASE);
  }
}

rs_status sim_stage_pull(rs_backend *b, const rs_be_pull *job, void *stream) {
  if (rs_be_pull_malformed(job)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim stage_pull: a malformed job");
  if (!rs_sim_is_device_ptr(job->dst))
    return rs_fail(RS_ERR_MEMORY_KIND, "sim stage_pull: destination %p is not device memory", job->dst);
  RS_TRY(sim_check_device_range(b, job->dst, 0, (int64_t)job->bytes, "sim stage_pull (destination)"));
  rs_be_pull *copy = malloc(sizeof *copy);
  if (!copy) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim stage_pull: out of host memory");
  *copy = *job;
  rs_status st = sim_submit(b, stream, "sim stage_pull", run_pull, copy, free, 0);
  if (st != RS_OK) free(copy);
  return st;
}
