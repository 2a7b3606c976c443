// Cumulative sums and products (the stats op table entry "scan") through CUB's
// DeviceScan. One row: DeviceScan::InclusiveScan over it. Several rows (a batch, or an
// axis the ops layer moved last): one InclusiveScanByKey over the whole array, the key of
// element i being its row i / n - a single pass at copy speed, never a launch per row.
// Integer sums and products wrap (unsigned arithmetic), as NumPy's.
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "backend/cuda/cuda_ops.h"

namespace {

template <typename T>
struct Cx {  // complex64 / complex128 as stored: re, im
  T re, im;
};

template <typename T>
struct Add {
  __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a + b; }
};
template <typename T>
struct Mul {
  __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a * b; }
};
template <typename T>
struct Add<Cx<T>> {
  __device__ __forceinline__ Cx<T> operator()(const Cx<T> &a, const Cx<T> &b) const {
    return Cx<T>{a.re + b.re, a.im + b.im};
  }
};
template <typename T>
struct Mul<Cx<T>> {
  __device__ __forceinline__ Cx<T> operator()(const Cx<T> &a, const Cx<T> &b) const {
    return Cx<T>{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
};

struct RowOf {  // the key of element i: its row
  long long n;
  __host__ __device__ __forceinline__ long long operator()(long long i) const { return i / n; }
};

template <typename T, typename Op>
rs_status scan(rs_backend *b, const rs_scan_plan *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *src = static_cast<const T *>(p->src);
  T *dst = static_cast<T *>(p->dst);
  long long total = (long long)(p->rows * p->n);
  auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), RowOf{(long long)p->n});
  size_t bytes = 0;
  if (p->rows == 1)
    RS_CUDA_CALL(cub::DeviceScan::InclusiveScan(nullptr, bytes, src, dst, Op(), total, s),
                 "cub::DeviceScan::InclusiveScan (size query)");
  else
    RS_CUDA_CALL(cub::DeviceScan::InclusiveScanByKey(nullptr, bytes, keys, src, dst, Op(), total,
                                                     cuda::std::equal_to<>(), s),
                 "cub::DeviceScan::InclusiveScanByKey (size query)");
  void *tmp = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, bytes, stream, &tmp));
  cudaError_t err;
  if (p->rows == 1)
    err = cub::DeviceScan::InclusiveScan(tmp, bytes, src, dst, Op(), total, s);
  else
    err = cub::DeviceScan::InclusiveScanByKey(tmp, bytes, keys, src, dst, Op(), total, cuda::std::equal_to<>(), s);
  rs_cuda_ops_scratch_free(tmp, stream);
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "cub::DeviceScan (%lld rows x %lld)", (long long)p->rows, (long long)p->n);
  return RS_OK;
}

template <typename T>
rs_status scan_op(rs_backend *b, const rs_scan_plan *p, void *stream) {
  if (p->op == RS_SCAN_PROD) return scan<T, Mul<T>>(b, p, stream);
  return scan<T, Add<T>>(b, p, stream);
}

}  // namespace

extern "C" rs_status rs_cuda_ops_scan(rs_backend *b, const rs_scan_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  switch (p->dtype) {
    case RS_INT64:  // wraps as uint64 does: the same bits
    case RS_UINT64: return scan_op<unsigned long long>(b, p, stream);
    case RS_FLOAT32: return scan_op<float>(b, p, stream);
    case RS_FLOAT64: return scan_op<double>(b, p, stream);
    case RS_COMPLEX64: return scan_op<Cx<float>>(b, p, stream);
    case RS_COMPLEX128: return scan_op<Cx<double>>(b, p, stream);
    default: return rs_fail(RS_ERR_UNSUPPORTED, "cuda scan: %s is not an accumulator dtype", rs_dtype_name(p->dtype));
  }
}
