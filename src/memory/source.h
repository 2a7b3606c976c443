/* Internal to src/memory: where raw memory comes from underneath an allocator - the
 * backend's device or page-locked allocation, or the application's functions. */
#ifndef RS_MEMORY_SOURCE_H
#define RS_MEMORY_SOURCE_H

#include <stddef.h>
#include "resident/allocator.h"

typedef struct rs_context rs_context;

typedef struct rs_mem_source {
  rs_context *ctx;
  int pinned;                    /* 1: page-locked host memory, 0: device memory */
  const rs_user_allocator *user; /* NULL: the backend */
  const char *name;              /* for messages: the user allocator's name */
} rs_mem_source;

/* One raw allocation / free. A user allocator's failure keeps its status (unknown or
 * positive codes become RS_ERR_DEVICE) and message, prefixed with its name; a NULL
 * result is RS_ERR_OUT_OF_MEMORY. */
rs_status rs_source_alloc(const rs_mem_source *s, size_t bytes, void *stream, void **out);

/* rs_source_alloc in the shape of an rs_obtain_fn (src is an rs_mem_source *). */
rs_status rs_source_obtain(void *src, size_t bytes, void *stream, void **out);
rs_status rs_source_free(const rs_mem_source *s, void *ptr, size_t bytes, void *stream);

/* Free and total bytes behind the source (0 and 0 for pinned memory). */
rs_status rs_source_info(const rs_mem_source *s, size_t *free_bytes, size_t *total_bytes);

#endif
