/* AddressSanitizer in the simulator: whether it is on, and the one call its mappings need.
 *
 * Fibers run on stacks of their own (mmap'd), whose frames AddressSanitizer poisons. When
 * a stack is unmapped its shadow keeps that poison, and memory mapped at the same address
 * later (a shared device allocation, another stack) would be reported as a stack overflow
 * on its first use. So a region is unpoisoned before it is unmapped and when it is mapped. */
#ifndef RS_SIM_ASAN_H
#define RS_SIM_ASAN_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define RS_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RS_SIM_ASAN 1
#endif
#endif
#ifndef RS_SIM_ASAN
#define RS_SIM_ASAN 0
#endif
#if RS_SIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

static inline void sim_asan_unpoison(void *p, size_t bytes) {
#if RS_SIM_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

#endif
