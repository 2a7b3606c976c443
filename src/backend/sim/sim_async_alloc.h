/* Private to src/backend/sim: the simulator's stream-ordered allocation (the vtable's
 * device_alloc_async family). */
#ifndef RS_SIM_ASYNC_ALLOC_H
#define RS_SIM_ASYNC_ALLOC_H

#include "backend/backend.h"

rs_status sim_device_alloc_async(rs_backend *b, size_t bytes, void *stream, void **out);
rs_status sim_device_free_async(rs_backend *b, void *ptr, void *stream);
rs_status sim_device_async_trim(rs_backend *b, size_t keep_bytes);
rs_status sim_device_async_usage(rs_backend *b, size_t *reserved, size_t *used);

#endif
