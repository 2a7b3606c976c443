// Runs of a sorted array on the GPU (the unique_* functions): values and counts through
// CUB's DeviceRunLengthEncode::Encode (its equality is ==, so every NaN is a run of its
// own, as NumPy 2's unique_* give); the run of each element - for inverse and first
// indices - through DeviceScan::InclusiveSum over "starts a run" flags, then one kernel.
#include <climits>
#include <cstdint>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_ops_index.h"
#include "backend/cuda/cuda_ops_index.cuh"

namespace {

template <typename T>
struct StartsRun {
  const T *s;
  __host__ __device__ int64_t operator()(int64_t i) const { return i == 0 || !(s[i] == s[i - 1]) ? 1 : 0; }
};

// run[i] (inclusive count of run starts) - 1 is element i's run
template <typename T>
__global__ void finish_kernel(const T *s, const int64_t *run, const int64_t *perm, int64_t n, int64_t *first,
                              int64_t *inverse) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t r = run[i] - 1;
    if (inverse) inverse[perm[i]] = r;
    if (first && (i == 0 || !(s[i] == s[i - 1]))) first[r] = perm[i];
  }
}

template <typename T>
rs_status unique(rs_backend *b, const rs_unique_plan *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *in = static_cast<const T *>(p->sorted);
  T *vals = static_cast<T *>(p->values);
  int n = (int)p->n;  // checked by the caller
  void *counts = p->counts, *tmp = nullptr, *run = nullptr;
  rs_status st = RS_OK;
  if (!counts) st = rs_cuda_ops_scratch(b, (size_t)p->n * sizeof(int64_t), stream, &counts);
  size_t bytes = 0;
  cudaError_t err = cudaSuccess;
  if (st == RS_OK)
    err = cub::DeviceRunLengthEncode::Encode(nullptr, bytes, in, vals, static_cast<int64_t *>(counts), p->nruns, n, s);
  if (st == RS_OK && err == cudaSuccess) st = rs_cuda_ops_scratch(b, bytes, stream, &tmp);
  if (st == RS_OK && err == cudaSuccess)
    err = cub::DeviceRunLengthEncode::Encode(tmp, bytes, in, vals, static_cast<int64_t *>(counts), p->nruns, n, s);
  rs_cuda_ops_scratch_free(tmp, stream);
  tmp = nullptr;
  if (counts != p->counts) rs_cuda_ops_scratch_free(counts, stream);
  if (st != RS_OK) return st;
  if (err != cudaSuccess) return rs_cuda_fail(err, "cub::DeviceRunLengthEncode::Encode(%d elements)", n);
  if (!p->perm || (!p->first && !p->inverse)) return RS_OK;

  thrust::transform_iterator<StartsRun<T>, thrust::counting_iterator<int64_t>, int64_t> starts(
      thrust::counting_iterator<int64_t>(0), StartsRun<T>{in});
  st = rs_cuda_ops_scratch(b, (size_t)p->n * sizeof(int64_t), stream, &run);
  bytes = 0;
  if (st == RS_OK) err = cub::DeviceScan::InclusiveSum(nullptr, bytes, starts, static_cast<int64_t *>(run), p->n, s);
  if (st == RS_OK && err == cudaSuccess) st = rs_cuda_ops_scratch(b, bytes, stream, &tmp);
  if (st == RS_OK && err == cudaSuccess)
    err = cub::DeviceScan::InclusiveSum(tmp, bytes, starts, static_cast<int64_t *>(run), p->n, s);
  if (st == RS_OK && err == cudaSuccess) {
    unsigned grid = rs_cuda_ops_grid(b, p->n, 1, 8);
    finish_kernel<T><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(in, static_cast<const int64_t *>(run), p->perm, p->n,
                                                          p->first, p->inverse);
    err = cudaGetLastError();
  }
  rs_cuda_ops_scratch_free(tmp, stream);
  rs_cuda_ops_scratch_free(run, stream);
  if (st != RS_OK) return st;
  if (err != cudaSuccess) return rs_cuda_fail(err, "unique: runs of %lld elements", (long long)p->n);
  return RS_OK;
}

}  // namespace

extern "C" rs_status rs_cuda_ops_unique(rs_backend *b, const rs_unique_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  if (p->n > INT_MAX)
    return rs_fail(RS_ERR_UNSUPPORTED, "unique: %lld elements on the GPU (CUB's run-length encoding takes at most %d)",
                   (long long)p->n, INT_MAX);
  rs_status st = RS_OK;
  bool ok = rs_index::dispatch(p->dtype, [&](auto t) { st = unique<decltype(t)>(b, p, stream); });
  if (!ok) return rs_fail(RS_ERR_DTYPE, "unique: %s is not ordered", rs_dtype_name(p->dtype));
  return st;
}
