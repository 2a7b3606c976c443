/* Internal: buffers (reference-counted blocks of memory of every kind) and the array
 * handles over them: allocation, wrapping, views and release. */
#ifndef RS_MEMORY_BUFFER_H
#define RS_MEMORY_BUFFER_H

#include "core/objects.h"
#include "memory/allocator.h"
#include "resident/memory.h"

/* A block of memory shared by views. Device-side pointers are the backend's. */
struct rs_buffer {
  _Atomic int64_t refs;
  rs_context *ctx;
  rs_mem_kind kind;     /* kind it was allocated or wrapped as */
  void *ptr;            /* host address (host kinds, managed) or device address (device) */
  void *device_alias;   /* address kernels use: device/managed = ptr, mapped = alias, else NULL */
  size_t bytes;
  int owned;            /* the library allocated ptr and frees it */
  unsigned host_flags;  /* RS_BE_HOST_* used at allocation */
  rs_release_fn release; /* external owner's callback for wrapped memory */
  void *user_data;
  struct rs_buffer *parent; /* a mapped scope view keeps its host buffer alive */
  /* scopes opened on a pageable host buffer (rs_pinned_begin / rs_mapped_begin) */
  int pinned_scope;
  int mapped_scope;
  struct rs_buffer *mapped_view; /* live mapped view of this buffer, if any */
  /* memory layer (src/memory): the stream device memory was allocated for and the
   * streams it was used on, so that neither its reuse nor its new owner races with them */
  rs_mem_track mem;
};

rs_status rs_buffer_alloc(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, size_t bytes,
                          unsigned flags);
/* The same, a device buffer allocated for the native stream `stream` (NULL: the default
 * stream): work on that stream uses it with no event recorded per use. */
rs_status rs_buffer_alloc_on(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, size_t bytes,
                             unsigned flags, void *stream);
rs_status rs_buffer_wrap(rs_buffer **out, rs_context *ctx, rs_mem_kind kind, void *ptr,
                         size_t bytes, rs_release_fn release, void *user_data);
void rs_buffer_retain(rs_buffer *buf);
/* Drop a reference; the last one frees the memory. Returns the error of a
 * pending-deallocation flush that freeing set off (the buffer is gone regardless). */
rs_status rs_buffer_release(rs_buffer *buf);

/* The kind an array behaves as now (a pageable buffer inside a pinned scope is pinned). */
rs_mem_kind rs_buffer_effective_kind(const rs_buffer *buf);

/* A new handle over buf (takes a new reference on buf) with the given layout. */
rs_status rs_array_new_view(rs_array **out, const rs_array *base, int ndim,
                            const int64_t *shape, const int64_t *strides, int64_t offset);
/* The same, seeing the bytes as another dtype (checked against the buffer as that dtype). */
rs_status rs_array_new_typed_view(rs_array **out, const rs_array *base, rs_dtype dtype, int ndim,
                                  const int64_t *shape, const int64_t *strides, int64_t offset);

/* Allocate a fresh array of a kind (layout from strides or order). */
rs_status rs_array_alloc(rs_array **out, rs_context *ctx, rs_mem_kind kind, unsigned flags,
                         int ndim, const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                         rs_order order, const char *who);
/* The same for a native stream that will use the array (rs_buffer_alloc_on). */
rs_status rs_array_alloc_on(rs_array **out, rs_context *ctx, rs_mem_kind kind, unsigned flags,
                            void *stream, int ndim, const int64_t *shape, rs_dtype dtype,
                            const int64_t *strides, rs_order order, const char *who);

/* A fresh array of a kind with like's shape and dtype (its order when like is
 * contiguous, else C); like is checked first (who names the caller in messages). */
rs_status rs_array_alloc_like(rs_array **out, const rs_array *like, rs_mem_kind kind,
                              unsigned flags, const char *who);

/* Host address of element 0 for host-visible arrays (incl. managed), else NULL. */
void *rs_array_host_ptr(const rs_array *a);
/* Device-usable address of element 0 (device, managed, mapped), else NULL. */
void *rs_array_device_ptr(const rs_array *a);

/* A new array over caller-owned memory (host or device): release, if not NULL, is called
 * with user_data when the last view is gone; a failed call does not call it. */
rs_status rs_array_wrap(rs_array **out, rs_context *ctx, rs_mem_kind kind, void *data, int ndim,
                        const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                        rs_release_fn release, void *user_data, const char *who);

#endif
