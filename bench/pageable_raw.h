/* bench/pageable_raw's kernel launcher (pageable_raw_pull.cu), callable from C. */
#ifndef BENCH_PAGEABLE_RAW_H
#define BENCH_PAGEABLE_RAW_H

#include <stdint.h>

#define RAW_SLICE (32 << 10)   /* bytes of a slice: a lane's claim and a block's read */
#define RAW_FLAG_STRIDE 8      /* flags a cache line apart */

#ifdef __cplusplus
extern "C" {
#endif
/* Queue the pull of `slices` slices from ring_dev (the device's alias of a mapped pinned
 * ring) into dst on stream: slice k waits until ready[k * RAW_FLAG_STRIDE] >= first + k + 1
 * and then sets freed[k * RAW_FLAG_STRIDE] to the same. 0, or -1 if the launch failed. */
int raw_pull_launch(void *dst, const void *ring_dev, const uint64_t *ready_dev, uint64_t *freed_dev, uint64_t first,
                    int slices, void *stream);
#ifdef __cplusplus
}
#endif

#endif
