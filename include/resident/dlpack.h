/* resident/dlpack.h - exchanging arrays without a copy through DLPack.
 *
 * The structs below follow the ABI of the DLPack specification (the versioned ABI, major
 * version 1: DLManagedTensorVersioned). They carry rs_ names so that this header can be
 * included next to the specification's own dlpack.h; field order, types and the enum
 * values are the specification's, so a pointer to one is a pointer to the other
 * (tests/test_dlpack.c checks sizes and offsets).
 *
 * Memory kinds map onto DLPack devices one to one: RS_MEM_HOST <-> kDLCPU (1),
 * RS_MEM_DEVICE <-> kDLCUDA (2), RS_MEM_PINNED and RS_MEM_MAPPED -> kDLCUDAHost (3)
 * (imported as pinned), RS_MEM_MANAGED <-> kDLCUDAManaged (13). The simulator labels its
 * memory the same way, so the exchange is testable without a GPU.
 *
 * Ownership: an exported tensor holds a reference to the array's memory until the
 * consumer calls its deleter (exactly once, from any thread). An imported tensor belongs
 * to the library from the call on, success or failure: its deleter is called exactly once
 * - after the last view of the array is released AND the work queued on its memory has
 * finished (the ordering of rs_release_fn, resident/array.h), or before a failed import
 * returns. Thread-safe.
 */
#ifndef RESIDENT_DLPACK_H
#define RESIDENT_DLPACK_H

#include <stdint.h>
#include "resident/export.h"
#include "resident/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version exported; imports take any 1.x. */
#define RS_DLPACK_MAJOR_VERSION 1
#define RS_DLPACK_MINOR_VERSION 0

/* DLDeviceType values used here (the specification lists more). */
#define RS_DL_CPU 1
#define RS_DL_CUDA 2
#define RS_DL_CUDA_HOST 3
#define RS_DL_CUDA_MANAGED 13

/* DLDataTypeCode values. */
#define RS_DL_INT 0
#define RS_DL_UINT 1
#define RS_DL_FLOAT 2
#define RS_DL_OPAQUE_HANDLE 3
#define RS_DL_BFLOAT 4
#define RS_DL_COMPLEX 5
#define RS_DL_BOOL 6

/* flags of rs_dl_managed_tensor_versioned */
#define RS_DL_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define RS_DL_FLAG_IS_COPIED ((uint64_t)1 << 1)

typedef struct rs_dl_version { /* DLPackVersion */
  uint32_t major;
  uint32_t minor;
} rs_dl_version;

typedef struct rs_dl_device { /* DLDevice */
  int32_t device_type;         /* DLDeviceType, an enum of int size */
  int32_t device_id;
} rs_dl_device;

typedef struct rs_dl_data_type { /* DLDataType */
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} rs_dl_data_type;

typedef struct rs_dl_tensor { /* DLTensor */
  void *data;           /* base address; element 0 is at data + byte_offset */
  rs_dl_device device;
  int32_t ndim;
  rs_dl_data_type dtype;
  int64_t *shape;       /* ndim entries */
  int64_t *strides;     /* ndim entries, in ELEMENTS; NULL = C order */
  uint64_t byte_offset;
} rs_dl_tensor;

typedef struct rs_dl_managed_tensor_versioned { /* DLManagedTensorVersioned */
  rs_dl_version version;
  void *manager_ctx;
  void (*deleter)(struct rs_dl_managed_tensor_versioned *self);
  uint64_t flags;
  rs_dl_tensor dl_tensor;
} rs_dl_managed_tensor_versioned;

/* Export a (any kind, any layout whose byte strides are whole elements) as a new
 * versioned DLPack tensor over the same memory; the caller (the consumer) calls
 * (*out)->deleter(*out) once when done. The library has no read-only arrays: flags is 0.
 * Work queued on a's memory is not waited for: synchronize the stream that wrote it, or
 * order the consumer's stream after it, before the consumer reads. */
RS_API rs_status rs_array_to_dlpack(rs_dl_managed_tensor_versioned **out, const rs_array *a);

/* Import a versioned DLPack tensor as an array of ctx over the same memory (no copy).
 * Refused, with the deleter called and a message: another major version, a device type
 * other than the four above or a device other than ctx's, a dtype without an rs_dtype
 * (lanes != 1, bfloat, opaque, bits that do not match), ndim outside 0..RS_MAX_DIMS,
 * NULL or negative shapes, strides whose byte value overflows, NULL data with elements,
 * and read-only tensors (arrays here are writable). Wrapped memory takes the layouts
 * rs_device_array_wrap takes: negative strides and axes that overlap (a stride of 0 over
 * more than one element, as broadcasting producers make) are refused too. */
RS_API rs_status rs_array_from_dlpack(rs_array **out, rs_context *ctx, rs_dl_managed_tensor_versioned *t);

#ifdef __cplusplus
}
#endif
#endif
