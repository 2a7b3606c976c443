/* resident/dlpack.h - exchanging arrays without a copy through DLPack.
 *
 * The structs below follow the ABI of the DLPack specification (the versioned ABI, major
 * version 1: DLManagedTensorVersioned; and the legacy DLManagedTensor, taken on import). They carry rs_ names so that this header can be
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
#include "resident/stream.h"

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

/* The legacy, unversioned DLManagedTensor (DLPack before 1.0; still what many producers
 * hand out: PyTorch's torch.utils.dlpack.to_dlpack, capsules named "dltensor"). No version
 * and no flags: the tensor comes first. Accepted on import only. */
typedef struct rs_dl_managed_tensor { /* DLManagedTensor */
  rs_dl_tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct rs_dl_managed_tensor *self);
} rs_dl_managed_tensor;

/* Export a (any kind, any layout whose byte strides are whole elements) as a new
 * versioned DLPack tensor over the same memory; the caller (the consumer) calls
 * (*out)->deleter(*out) once when done. The library has no read-only arrays: flags is 0.
 * Work queued on a's memory is not waited for: synchronize the stream that wrote it, or
 * use rs_array_to_dlpack_on (below), which orders the consumer's stream after it. */
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

/* Import a legacy (unversioned) DLPack tensor, as rs_array_from_dlpack does a versioned one:
 * the same checks (there is no version and no read-only flag to check), the same ownership
 * (its deleter is called exactly once: after the last view and the last queued use on
 * success, before the call returns on any refusal). Thread-safe. */
RS_API rs_status rs_array_from_dlpack_legacy(rs_array **out, rs_context *ctx, rs_dl_managed_tensor *t);

/* ---- the stream handshake ---------------------------------------------------------------
 * As the Python array API defines __dlpack__(stream=...): the consumer names the stream it
 * will use the tensor on, and the producer makes that stream wait - on the device, through
 * an event recorded after the array's pending work - before it hands the tensor out. No
 * device-wide or host synchronization happens. Stream values follow DLPack's CUDA
 * conventions: */
#define RS_DLPACK_STREAM_NONE ((intptr_t)-1)      /* the consumer synchronizes itself */
#define RS_DLPACK_STREAM_LEGACY ((intptr_t)1)     /* the legacy default stream */
#define RS_DLPACK_STREAM_PER_THREAD ((intptr_t)2) /* the per-thread default stream */
/* any other positive value: a native stream handle (a cudaStream_t on CUDA; on the
 * simulator, rs_stream_native() of a stream of the same context, checked). 0 is refused
 * (ambiguous, as the specification says). */

/* The DLPack stream value of s (NULL: the legacy default stream -> 1; the per-thread
 * default stream -> 2; any other -> its native handle), to name s to a producer such as
 * torch.Tensor.__dlpack__(stream=value). Errors: NULL out, a destroyed stream. Thread-safe. */
RS_API rs_status rs_stream_dlpack_value(rs_stream *s, intptr_t *out);

/* rs_array_to_dlpack with the handshake: the stream named by consumer_stream is made to
 * wait for the work queued so far on producer (the stream that wrote a; NULL: the legacy
 * default stream) and for the uses of a's memory on other streams that the library
 * tracks; then the tensor is exported. RS_DLPACK_STREAM_NONE skips the wait (the consumer
 * takes care of it). Errors: those of rs_array_to_dlpack, a producer stream of another
 * context, a consumer value that names no stream (0, other negatives, an unknown
 * simulator stream); nothing is exported then. Thread-safe. */
RS_API rs_status rs_array_to_dlpack_on(rs_dl_managed_tensor_versioned **out, const rs_array *a,
                                       rs_stream *producer, intptr_t consumer_stream);

/* The import side, for producers that hand over a tensor with the stream that wrote it
 * rather than waiting themselves: s (a stream of this library that will use the imported
 * array) waits, on the device, for the work queued so far on the stream named by
 * producer_stream (the values above; RS_DLPACK_STREAM_NONE: nothing to wait for). Call it
 * before queueing work on the imported array. Errors: NULL or destroyed s, a value that
 * names no stream. Thread-safe. */
RS_API rs_status rs_stream_wait_dlpack(rs_stream *s, intptr_t producer_stream);

#ifdef __cplusplus
}
#endif
#endif
