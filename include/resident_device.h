/* resident_device.h - the device side of resident's user kernels.
 *
 * Kernels may `#include <resident_device.h>` (or "resident_device.h"): NVRTC gets this
 * text from the library itself and the simulator writes it next to the kernel, so no
 * include path is needed. Host C code includes it too: it is the same struct on both
 * sides.
 *
 * An array passed with rs_arg_desc() arrives as an rs_array_desc (writable) or an
 * rs_array_const_desc (read-only: a host array behind it is never copied back),
 * BY VALUE, holding the address of element 0, the shape and the BYTE strides of the
 * view, so a kernel can walk a non-contiguous view:
 *
 *   extern "C" __global__ void scale(rs_array_desc x, float a) {
 *     for (long long i = RS_GLOBAL_ID(); i < x.size; i += RS_GRID_STRIDE())
 *       RS_AT(float, x, i) *= a;                        // 1-D view, any stride
 *   }
 *
 * Only plain C is used here (long long, not <stdint.h>): NVRTC has no C library
 * headers, and the layout must be identical in host C and device C++.
 */
#ifndef RESIDENT_DEVICE_H
#define RESIDENT_DEVICE_H

/* Arrays with more dimensions are passed as pointers (RS_ERR_TOO_MANY_DIMS as a
 * descriptor): 8 keeps the struct at 152 bytes of kernel parameter space. */
#define RS_DEVICE_MAX_DIMS 8

typedef struct rs_array_desc {
  void *data;                              /* element 0 of the view */
  int ndim;
  int itemsize;                            /* bytes per element */
  long long size;                          /* number of elements */
  long long shape[RS_DEVICE_MAX_DIMS];     /* ndim entries used, the rest 1 */
  long long strides[RS_DEVICE_MAX_DIMS];   /* in BYTES, may be negative or 0; rest 0 */
} rs_array_desc;

/* The same layout with a read-only pointer. (Not "rs_device_array": that is the
 * host's allocation call.) */
typedef struct rs_array_const_desc {
  const void *data;
  int ndim;
  int itemsize;
  long long size;
  long long shape[RS_DEVICE_MAX_DIMS];
  long long strides[RS_DEVICE_MAX_DIMS];
} rs_array_const_desc;

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(RESIDENT_SIM)
#define RS_DEVICE_FN __device__ __forceinline__
#else
#define RS_DEVICE_FN static inline
#endif

/* Element access for 1, 2 and 3 dimensions through the byte strides. T is the element
 * type; a is either struct. Writing through an rs_array_const_desc is a bug the
 * compiler cannot see: the library never copies such an array back. */
#define RS_AT(T, a, i) (*(T *)((char *)(a).data + (long long)(i) * (a).strides[0]))
#define RS_AT2(T, a, i, j) \
  (*(T *)((char *)(a).data + (long long)(i) * (a).strides[0] + (long long)(j) * (a).strides[1]))
#define RS_AT3(T, a, i, j, k)                                                             \
  (*(T *)((char *)(a).data + (long long)(i) * (a).strides[0] +                            \
          (long long)(j) * (a).strides[1] + (long long)(k) * (a).strides[2]))

/* Byte offset of the element at C-order linear index `linear` (0 <= linear < size), for
 * any number of dimensions: RS_ATN(T, a, i) visits every element of any view. */
RS_DEVICE_FN long long rs_device_offset(const long long *shape, const long long *strides,
                                        int ndim, long long linear) {
  long long off = 0;
  for (int d = ndim - 1; d >= 0; d--) {
    long long n = shape[d];
    off += (linear % n) * strides[d];
    linear /= n;
  }
  return off;
}
#define RS_ATN(T, a, linear) \
  (*(T *)((char *)(a).data + rs_device_offset((a).shape, (a).strides, (a).ndim, (linear))))

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(RESIDENT_SIM)
/* The global index along x and the stride of a grid-stride loop, as 64-bit values so
 * arrays over 2^31 elements index correctly. */
#define RS_GLOBAL_ID() ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#define RS_GRID_STRIDE() ((long long)gridDim.x * blockDim.x)
#endif

#endif
