/* resident/array.h - n-dimensional arrays and views.
 *
 * An rs_array is a view (shape, byte strides, byte offset, dtype) over a
 * reference-counted buffer. Every memory kind uses the same type. Views never copy:
 * they share the buffer, which lives until its last view is released.
 *
 * Strides are in BYTES (as NumPy's), may be negative (reversed slices) or zero
 * (broadcast). Shapes and strides are int64_t. Element and byte counts are checked for
 * overflow.
 *
 * Ownership: every function that returns an rs_array ** gives the caller one reference,
 * to be dropped with rs_array_release. Thread safety: creating, retaining and releasing
 * arrays is thread-safe; reading an array's metadata is thread-safe; writing into the
 * same memory from several threads at once is the caller's business.
 */
#ifndef RESIDENT_ARRAY_H
#define RESIDENT_ARRAY_H

#include "resident/export.h"

#include <stddef.h>
#include <stdint.h>
#include "resident/status.h"
#include "resident/dtype.h"
#include "resident/context.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_MAX_DIMS 32

typedef struct rs_array rs_array;
typedef struct rs_stream rs_stream;

/* Where the bytes of an array live. They map 1:1 onto DLPack's device types. */
typedef enum rs_mem_kind {
  RS_MEM_DEVICE = 0,  /* device memory; the host reaches it only through copies (kDLCUDA) */
  RS_MEM_HOST = 1,    /* pageable host memory, owned or wrapped (kDLCPU) */
  RS_MEM_PINNED = 2,  /* page-locked host memory: fast and truly asynchronous copies (kDLCUDAHost) */
  RS_MEM_MAPPED = 3,  /* pinned host memory mapped into the device's address space (kDLCUDAHost) */
  RS_MEM_MANAGED = 4  /* unified memory, migrated on demand (kDLCUDAManaged) */
} rs_mem_kind;

typedef enum rs_order { RS_ORDER_C = 0, RS_ORDER_F = 1 } rs_order;

/* "device", "host", "pinned", "mapped", "managed". */
RS_API const char *rs_mem_kind_name(rs_mem_kind kind);

/* ---- allocation -------------------------------------------------------------------- */

/* A new uninitialised device array. strides may be NULL (then order decides: C or F);
 * given strides must be non-negative, multiples of the item size, and keep every
 * element inside the allocation without overlap. */
RS_API rs_status rs_device_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                          rs_dtype dtype, const int64_t *strides, rs_order order);

/* A new uninitialised device array with the shape, dtype and layout of `like` (a
 * contiguous layout keeps its order; a non-contiguous one becomes C order). */
RS_API rs_status rs_device_array_like(rs_array **out, const rs_array *like);

/* A new pageable host array, owned by the library. */
RS_API rs_status rs_host_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                        rs_dtype dtype, const int64_t *strides, rs_order order);
RS_API rs_status rs_host_array_like(rs_array **out, const rs_array *like);

/* Wrap user memory as a pageable host array WITHOUT copying. The user keeps ownership
 * of `data` and must keep it alive while any view of the array lives. strides may be
 * NULL (C order). */
RS_API rs_status rs_host_array_wrap(rs_array **out, rs_context *ctx, void *data, int ndim,
                             const int64_t *shape, rs_dtype dtype, const int64_t *strides);

/* Gives a wrapped external buffer back to its owner, exactly once, when the last view is
 * released AND every use of the memory queued on any stream (kernels, copies) has
 * finished - never while queued work may still read or write it. When nothing is pending
 * at the last release it runs within that release call, on the caller's thread.
 * Otherwise the release returns at once and the callback runs later in stream order, on
 * a backend thread (a CUDA host function): it must then not call the device API or this
 * library (CUDA forbids it in host functions) - hand the memory to a thread of your own
 * if freeing it needs that. rs_context_synchronize and rs_context_destroy wait for the
 * callbacks still pending. */
typedef void (*rs_release_fn)(void *user_data);

/* Wrap an external device pointer WITHOUT copying (the analog of Numba's
 * as_cuda_array). strides may be NULL (C order). If wait_on is not NULL, the host
 * synchronizes with that stream before returning, so work that produced the data is
 * finished before this library touches it. `release(user_data)` (may be NULL) is called
 * exactly once, after the last view is released and the work queued on the memory has
 * finished (see rs_release_fn) - keep the owner alive until then. */
RS_API rs_status rs_device_array_wrap(rs_array **out, rs_context *ctx, void *device_ptr, int ndim,
                               const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                               rs_stream *wait_on, rs_release_fn release, void *user_data);

/* ---- reference counting ------------------------------------------------------------ */

/* Add a reference. Thread-safe. */
RS_API rs_status rs_array_retain(rs_array *a);

/* Drop a reference; the last one frees the handle, and the buffer once no view uses it.
 * Releasing NULL is RS_OK. Releasing a handle already released returns RS_ERR_RELEASED
 * and does nothing (handles are kept in type-stable storage for the life of the
 * context, so this is safe under the sanitizers; a stale handle whose slot was reused
 * by a newer array cannot be told apart - do not rely on this as a feature).
 * Thread-safe. */
RS_API rs_status rs_array_release(rs_array *a);

/* ---- metadata (all thread-safe; a NULL array gives 0 / NULL) ------------------------ */
RS_API int rs_array_ndim(const rs_array *a);
RS_API const int64_t *rs_array_shape(const rs_array *a);   /* ndim entries */
RS_API const int64_t *rs_array_strides(const rs_array *a); /* ndim entries, in bytes */
RS_API rs_dtype rs_array_dtype(const rs_array *a);
RS_API rs_mem_kind rs_array_kind(const rs_array *a);
RS_API rs_context *rs_array_context(const rs_array *a);
RS_API int64_t rs_array_size(const rs_array *a);   /* number of elements */
RS_API size_t rs_array_itemsize(const rs_array *a);
RS_API size_t rs_array_nbytes(const rs_array *a);  /* size * itemsize */
RS_API int64_t rs_array_offset(const rs_array *a); /* byte offset of element 0 in the buffer */
RS_API int rs_array_is_c_contiguous(const rs_array *a);
RS_API int rs_array_is_f_contiguous(const rs_array *a);

/* Address of element 0 as the host sees it: a host pointer for host, pinned, mapped and
 * managed arrays; NULL for device arrays (device memory is not host-addressable). */
RS_API void *rs_array_host_data(const rs_array *a);

/* Address of element 0 as kernels see it: the device pointer for device and managed
 * arrays, the device alias of mapped arrays; NULL for pageable and pinned host arrays. */
RS_API void *rs_array_device_data(const rs_array *a);

/* ---- views (never copy; the result shares the buffer) ------------------------------- */

/* Reshape; one entry may be -1. A reshape that would need a copy (a non-contiguous view
 * whose strides cannot express the new shape) is RS_ERR_NOT_CONTIGUOUS, as in Numba. */
RS_API rs_status rs_array_reshape(rs_array **out, const rs_array *a, int ndim, const int64_t *shape);

/* A 1-d view of all elements. RS_ERR_NOT_CONTIGUOUS if a is not C-contiguous. */
RS_API rs_status rs_array_ravel(rs_array **out, const rs_array *a);

/* Reverse the axes. */
RS_API rs_status rs_array_transpose(rs_array **out, const rs_array *a);

/* Permute the axes: axis i of the result is axis axes[i] of a (negative counts from the
 * end). axes must be a permutation of 0..ndim-1. */
RS_API rs_status rs_array_permute(rs_array **out, const rs_array *a, const int *axes);

/* A slice per axis. start/stop use Python's convention (negative counts from the end)
 * and RS_SLICE_DEFAULT stands for the end the step points to. Indices outside the axis
 * are RS_ERR_INDEX (unlike NumPy, nothing is clamped silently); step 0 is
 * RS_ERR_INVALID_ARGUMENT. Fewer slices than axes leave the rest whole. */
#define RS_SLICE_DEFAULT INT64_MIN
typedef struct rs_slice {
  int64_t start, stop, step;
} rs_slice;
#define RS_SLICE_ALL ((rs_slice){RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, 1})
RS_API rs_status rs_array_slice(rs_array **out, const rs_array *a, int nslices, const rs_slice *slices);

/* Insert an axis of length 1 before position axis (0..ndim; negative counts from the end). */
RS_API rs_status rs_array_expand_dims(rs_array **out, const rs_array *a, int axis);

/* Remove an axis of length 1 (RS_ERR_SHAPE if it is not 1), or every axis of length 1
 * when axis is RS_ALL_AXES. */
#define RS_ALL_AXES (-1000)
RS_API rs_status rs_array_squeeze(rs_array **out, const rs_array *a, int axis);

/* Format "float32(3, 4) device C" into buf (always terminated). Thread-safe. */
RS_API const char *rs_array_describe(const rs_array *a, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
