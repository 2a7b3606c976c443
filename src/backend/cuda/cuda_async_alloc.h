/* Private to src/backend/cuda: stream-ordered allocation (the vtable's device_alloc_async
 * family) on the device's default memory pool. */
#ifndef RS_CUDA_ASYNC_ALLOC_H
#define RS_CUDA_ASYNC_ALLOC_H

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

rs_status rs_cuda_device_alloc_async(rs_backend *b, size_t bytes, void *stream, void **out);
rs_status rs_cuda_device_free_async(rs_backend *b, void *ptr, void *stream);
rs_status rs_cuda_device_async_trim(rs_backend *b, size_t keep_bytes);
rs_status rs_cuda_device_async_usage(rs_backend *b, size_t *reserved, size_t *used);

#ifdef __cplusplus
}
#endif
#endif
