// Whole-array reductions through CUB's DeviceReduce: sum (float32 accumulated in double,
// int32 in int64, integers wrapping), and min / max with NaN propagating as NumPy's.
// Twelve instantiations; everything else goes through generated kernels
// (cuda_ops_reduce.c).
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cuda_fp16.h>
#include "backend/cuda/cuda_ops.h"

namespace {

struct SumD {
  __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};
struct SumI {  // wraps, as the native loops and NumPy do
  __device__ __forceinline__ long long operator()(long long a, long long b) const {
    return (long long)((unsigned long long)a + (unsigned long long)b);
  }
};
template <typename T>
struct MinNan {
  __device__ __forceinline__ T operator()(T a, T b) const {
    if (a != a) return a;
    if (b != b) return b;
    return b < a ? b : a;
  }
};
template <typename T>
struct MaxNan {
  __device__ __forceinline__ T operator()(T a, T b) const {
    if (a != a) return a;
    if (b != b) return b;
    return b > a ? b : a;
  }
};

template <typename In, typename Acc, typename Op>
rs_status reduce(rs_backend *b, const void *in, int64_t n, void *acc, Op op, Acc init, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  size_t bytes = 0;
  const In *src = static_cast<const In *>(in);
  Acc *dst = static_cast<Acc *>(acc);
  RS_CUDA_CALL(cub::DeviceReduce::Reduce(nullptr, bytes, src, dst, n, op, init, s), "cub::DeviceReduce (size query)");
  void *tmp = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, bytes, stream, &tmp));
  cudaError_t err = cub::DeviceReduce::Reduce(tmp, bytes, src, dst, n, op, init, s);
  rs_cuda_ops_scratch_free(tmp, stream);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cub::DeviceReduce(%lld elements)", (long long)n);
  return RS_OK;
}

template <typename T>
rs_status minmax(rs_backend *b, int op, const void *in, int64_t n, void *acc, void *stream, T lowest, T highest) {
  if (op == RS_REDUCE_MIN) return reduce<T, T>(b, in, n, acc, MinNan<T>(), highest, stream);
  return reduce<T, T>(b, in, n, acc, MaxNan<T>(), lowest, stream);
}

// One value into any dtype an out array may have (same_kind casts of the result).
__device__ void put(void *out, int dt, double d, long long i, bool integral) {
  if (!integral) i = (long long)d;
  switch (dt) {
    case RS_BOOL: *(unsigned char *)out = integral ? i != 0 : d != 0; break;
    case RS_INT8: *(signed char *)out = (signed char)i; break;
    case RS_INT16: *(short *)out = (short)i; break;
    case RS_INT32: *(int *)out = (int)i; break;
    case RS_INT64: *(long long *)out = i; break;
    case RS_UINT8: *(unsigned char *)out = (unsigned char)i; break;
    case RS_UINT16: *(unsigned short *)out = (unsigned short)i; break;
    case RS_UINT32: *(unsigned *)out = (unsigned)i; break;
    case RS_UINT64: *(unsigned long long *)out = (unsigned long long)i; break;
    case RS_FLOAT16: *(__half *)out = __double2half(integral ? (double)i : d); break;
    case RS_FLOAT32: *(float *)out = integral ? (float)i : (float)d; break;
    case RS_FLOAT64: *(double *)out = integral ? (double)i : d; break;
    case RS_COMPLEX64:
      ((float *)out)[0] = integral ? (float)i : (float)d;
      ((float *)out)[1] = 0;
      break;
    default:
      ((double *)out)[0] = integral ? (double)i : d;
      ((double *)out)[1] = 0;
      break;
  }
}

template <typename Acc>
__global__ void finish(const Acc *acc, void *out, int dt, long long count, int mean, int integral) {
  Acc v = *acc;
  double d = (double)v;
  if (mean) d /= (double)count;
  put(out, dt, d, (long long)v, integral && !mean);
}

}  // namespace

extern "C" rs_status rs_cuda_cub_reduce(rs_backend *b, int op, rs_dtype dtype, const void *in, int64_t n, void *acc,
                                        void *stream) {
  RS_TRY(rs_cuda_enter(b));
  const double inf = __builtin_huge_val();
  if (op == RS_REDUCE_SUM || op == RS_REDUCE_MEAN) {
    switch (dtype) {
      case RS_FLOAT32: return reduce<float, double>(b, in, n, acc, SumD(), 0.0, stream);
      case RS_FLOAT64: return reduce<double, double>(b, in, n, acc, SumD(), 0.0, stream);
      case RS_INT32: return reduce<int, long long>(b, in, n, acc, SumI(), 0LL, stream);
      case RS_INT64: return reduce<long long, long long>(b, in, n, acc, SumI(), 0LL, stream);
      default: break;
    }
  } else if (op == RS_REDUCE_MIN || op == RS_REDUCE_MAX) {
    switch (dtype) {
      case RS_FLOAT32: return minmax<float>(b, op, in, n, acc, stream, -(float)inf, (float)inf);
      case RS_FLOAT64: return minmax<double>(b, op, in, n, acc, stream, -inf, inf);
      case RS_INT32: return minmax<int>(b, op, in, n, acc, stream, INT32_MIN, INT32_MAX);
      case RS_INT64: return minmax<long long>(b, op, in, n, acc, stream, INT64_MIN, INT64_MAX);
      default: break;
    }
  }
  return rs_fail(RS_ERR_UNSUPPORTED, "cub reduce: op %d on %s", op, rs_dtype_name(dtype));
}

extern "C" rs_status rs_cuda_cub_finish(rs_backend *b, int op, rs_dtype dtype, const void *acc, void *out, rs_dtype out_dtype,
                                        int64_t count, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  int mean = op == RS_REDUCE_MEAN, sum = op == RS_REDUCE_SUM || mean;
  int od = (int)out_dtype;
  if (sum && (dtype == RS_FLOAT32 || dtype == RS_FLOAT64))
    finish<double><<<1, 1, 0, s>>>(static_cast<const double *>(acc), out, od, count, mean, 0);
  else if (sum)
    finish<long long><<<1, 1, 0, s>>>(static_cast<const long long *>(acc), out, od, count, mean, 1);
  else if (dtype == RS_FLOAT32)
    finish<float><<<1, 1, 0, s>>>(static_cast<const float *>(acc), out, od, count, 0, 0);
  else if (dtype == RS_FLOAT64)
    finish<double><<<1, 1, 0, s>>>(static_cast<const double *>(acc), out, od, count, 0, 0);
  else if (dtype == RS_INT32)
    finish<int><<<1, 1, 0, s>>>(static_cast<const int *>(acc), out, od, count, 0, 1);
  else
    finish<long long><<<1, 1, 0, s>>>(static_cast<const long long *>(acc), out, od, count, 0, 1);
  RS_CUDA_CALL(cudaGetLastError(), "reduce: finishing kernel");
  return RS_OK;
}
