/* Managed memory's prefetch and advice on the simulator. There is one address space, so
 * nothing migrates; what a program asks is still checked as CUDA checks it, a prefetch is
 * queued in stream order and costs what moving those bytes would (one pass that reads and
 * writes them), and the advice is kept on the allocation (flags of the managed map). */
#include <stdlib.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* advice kept per managed allocation (the values are cudaMemoryAdvise's, 1..6) */
#define SIM_ADVISE_READ_MOSTLY 0x1u
#define SIM_ADVISE_PREFER_DEVICE 0x2u
#define SIM_ADVISE_PREFER_HOST 0x4u
#define SIM_ADVISE_ACCESSED_BY_DEVICE 0x8u
#define SIM_ADVISE_ACCESSED_BY_HOST 0x10u

/* Check that [ptr, ptr+bytes) lies inside one managed allocation; with set/clear, change
 * its advice flags. */
static rs_status managed_range(rs_backend *b, const void *ptr, size_t bytes, unsigned set, unsigned clear,
                               const char *who) {
  pthread_mutex_lock(&b->mem_lock);
  sim_range *r = (sim_range *)sim_ptrmap_containing(&b->managed, (uintptr_t)ptr);
  int inside = r && bytes <= r->size - ((uintptr_t)ptr - r->addr);
  if (inside) r->flags = (r->flags & ~clear) | set;
  pthread_mutex_unlock(&b->mem_lock);
  if (!inside)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s(%p, %zu bytes): not inside one managed allocation of this context",
                   who, ptr, bytes);
  return RS_OK;
}

typedef struct touch_task {
  volatile unsigned char *p;
  size_t bytes;
} touch_task;

/* The cost of the move: every byte read and written back, as a migration copies it. */
static void run_touch(void *arg) {
  touch_task *t = arg;
  for (size_t i = 0; i < t->bytes; i++) t->p[i] = t->p[i];
}

rs_status sim_managed_prefetch(rs_backend *b, const void *ptr, size_t bytes, int to_device, void *stream) {
  (void)to_device;
  RS_TRY(managed_range(b, ptr, bytes, 0, 0, "sim managed_prefetch"));
  touch_task *t = malloc(sizeof *t);
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim managed_prefetch: out of host memory");
  *t = (touch_task){(volatile unsigned char *)ptr, bytes};
  rs_status st = sim_submit(b, stream, "sim managed_prefetch", run_touch, t, free, 0);
  if (st != RS_OK) free(t);
  return st;
}

rs_status sim_managed_advise(rs_backend *b, const void *ptr, size_t bytes, int advice, int on_device) {
  unsigned prefer = on_device ? SIM_ADVISE_PREFER_DEVICE : SIM_ADVISE_PREFER_HOST;
  unsigned by = on_device ? SIM_ADVISE_ACCESSED_BY_DEVICE : SIM_ADVISE_ACCESSED_BY_HOST;
  const char *who = "sim managed_advise";
  switch (advice) {
    case 1: return managed_range(b, ptr, bytes, SIM_ADVISE_READ_MOSTLY, 0, who);
    case 2: return managed_range(b, ptr, bytes, 0, SIM_ADVISE_READ_MOSTLY, who);
    case 3: return managed_range(b, ptr, bytes, prefer, SIM_ADVISE_PREFER_DEVICE | SIM_ADVISE_PREFER_HOST, who);
    case 4: return managed_range(b, ptr, bytes, 0, SIM_ADVISE_PREFER_DEVICE | SIM_ADVISE_PREFER_HOST, who);
    case 5: return managed_range(b, ptr, bytes, by, 0, who);
    case 6: return managed_range(b, ptr, bytes, 0, by, who);
  }
  return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: advice %d is not one of 1..6", who, advice);
}
