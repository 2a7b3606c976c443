/* Large host allocations on transparent huge pages where the system gives them on request
 * (THP "madvise" mode, the usual default): the first touch of fresh memory then faults
 * once per 2 MiB instead of once per 4 KiB - on 100 MB, tens of milliseconds - and a
 * scatter over many far-apart addresses (a radix sort's) misses the TLB far less. NumPy
 * does the same for its arrays of 4 MiB and more. */
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include "core/host_pages.h"

void rs_host_advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (!p || bytes < ((size_t)4 << 20)) return;
  uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}
