// Random numbers on the GPU: cuRAND's Philox4x32-10 (its counter-based core, from
// curand_philox4x32_x.h alone - no generator state, no precalculated tables). Element i
// takes counter block (offset + i) under key seed, the layout the host's generator
// (src/native/native_random.c) uses, and the same conversions to values: uniform
// and integer results are the same bits on both; normal ones may differ in the last
// place (device log/sin/cos).
#include <cstdint>
#include <curand_philox4x32_x.h>
#include <cuda_fp16.h>
#include "backend/cuda/cuda_ops.h"

namespace {

struct Geom {
  char *ptr;
  int ndim;
  int64_t count;
  int64_t shape[RS_MAX_DIMS];
  int64_t strides[RS_MAX_DIMS];
};

__device__ __forceinline__ double unit53(unsigned lo, unsigned hi) {
  return (double)((((unsigned long long)hi << 32) | lo) >> 11) * 0x1.0p-53;
}

__device__ __forceinline__ float below_f(float v, double high, double low) {
  return (double)v >= high && high > low ? nextafterf((float)high, -__int_as_float(0x7f800000)) : v;
}

__device__ __forceinline__ unsigned short below_h(unsigned short h, double high, double low) {
  if (!((double)__half2float(__ushort_as_half(h)) >= high && high > low)) return h;
  h = __half_as_ushort(__double2half(high));
  if (h == 0) return 0x8001u;
  return (h & 0x8000u) ? (unsigned short)(h + 1) : (unsigned short)(h - 1);
}

__global__ void __launch_bounds__(RS_CUDA_OPS_BLOCK)
    random_kernel(Geom g, int kind, int dtype, unsigned long long seed, unsigned long long offset, double a, double b,
                  long long lo, long long hi) {
  const uint2 key = {(unsigned)seed, (unsigned)(seed >> 32)};
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < g.count; i += (int64_t)gridDim.x * blockDim.x) {
    unsigned long long c = offset + (unsigned long long)i;
    uint4 w = curand_Philox4x32_10(make_uint4((unsigned)c, (unsigned)(c >> 32), 0, 0), key);
    double re = 0, im = 0;
    long long iv = 0;
    if (kind == RS_RANDOM_UNIFORM) {
      re = a + (b - a) * unit53(w.x, w.y);
      im = a + (b - a) * unit53(w.z, w.w);
    } else if (kind == RS_RANDOM_NORMAL) {
      double u1 = ((double)((((unsigned long long)w.y << 32) | w.x) >> 11) + 0.5) * 0x1.0p-53;
      double u2 = unit53(w.z, w.w);
      double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;
      re = a + b * (r * cos(t));
      im = a + b * (r * sin(t));
    } else {
      unsigned long long v = ((unsigned long long)w.y << 32) | w.x, range = (unsigned long long)hi - (unsigned long long)lo;
      iv = (long long)((unsigned long long)lo + __umul64hi(v, range));
    }
    // where element i (C order) lives
    int64_t off = 0, rem = i;
    for (int k = g.ndim - 1; k >= 0; k--) {
      int64_t q = rem / g.shape[k];
      off += (rem - q * g.shape[k]) * g.strides[k];
      rem = q;
    }
    char *d = g.ptr + off;
    bool uniform = kind == RS_RANDOM_UNIFORM;
    switch (dtype) {
      case RS_FLOAT64: *(double *)d = re; break;
      case RS_FLOAT32: *(float *)d = uniform ? below_f((float)re, b, a) : (float)re; break;
      case RS_FLOAT16: {
        unsigned short h = __half_as_ushort(__double2half(re));
        *(unsigned short *)d = uniform ? below_h(h, b, a) : h;
        break;
      }
      case RS_COMPLEX128: ((double *)d)[0] = re, ((double *)d)[1] = im; break;
      case RS_COMPLEX64:
        ((float *)d)[0] = uniform ? below_f((float)re, b, a) : (float)re;
        ((float *)d)[1] = uniform ? below_f((float)im, b, a) : (float)im;
        break;
      case RS_BOOL: *(unsigned char *)d = iv != 0; break;
      case RS_INT8:
      case RS_UINT8: *(unsigned char *)d = (unsigned char)iv; break;
      case RS_INT16:
      case RS_UINT16: *(unsigned short *)d = (unsigned short)iv; break;
      case RS_INT32:
      case RS_UINT32: *(unsigned *)d = (unsigned)iv; break;
      default: *(long long *)d = iv; break;
    }
  }
}

}  // namespace

extern "C" rs_status rs_cuda_ops_random(rs_backend *b, const rs_random_plan *p, void *stream) {
  if (p->count <= 0) return RS_OK;
  RS_TRY(rs_cuda_enter(b));
  Geom g;
  g.ptr = p->ptr;
  g.ndim = p->ndim;
  g.count = p->count;
  for (int k = 0; k < RS_MAX_DIMS; k++) {
    g.shape[k] = k < p->ndim ? p->shape[k] : 1;
    g.strides[k] = k < p->ndim ? p->strides[k] : 0;
  }
  unsigned grid = rs_cuda_ops_grid(b, p->count, 1, 16);
  random_kernel<<<grid, RS_CUDA_OPS_BLOCK, 0, static_cast<cudaStream_t>(stream)>>>(
      g, (int)p->kind, (int)p->dtype, p->seed, p->offset, p->a, p->b, p->lo, p->hi);
  RS_CUDA_CALL(cudaGetLastError(), "random: launching the kernel (%lld elements)", (long long)p->count);
  return RS_OK;
}
