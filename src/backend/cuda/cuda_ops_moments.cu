// var / std along the middle axis of an outer x n x inner block (the stats op table entry
// "moments", src/native/plans.h): two reads of the input, nothing written but one value
// per output, accumulated in double; a last small kernel divides by n - correction,
// takes the root for std and stores the output dtype.
// inner == 1 (the last axes): CUB's reductions - a sum per row (the mean), then a sum per
// row of the squared deviations read through a transform iterator. Many rows:
// DeviceSegmentedReduce (a block per row); a few long rows (or one, axis None):
// DeviceReduce per row, which spreads each row over the whole GPU.
// inner > 1 (leading or middle axes): CUB reduces no strided columns, so each column is
// summed where it lies, consecutive threads on consecutive columns (coalesced), the axis
// cut into chunks so that enough threads run; per-chunk partials are added in chunk
// order per column (deterministic, no atomics).
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "backend/cuda/cuda_fastdiv.cuh"
#include "backend/cuda/cuda_ops.h"

namespace {

constexpr int kBlock = RS_CUDA_OPS_BLOCK;
constexpr int64_t kFewRows = 64;  // up to this many rows: one DeviceReduce each

template <typename T>
struct Value {  // x[i] in double
  const T *x;
  __host__ __device__ __forceinline__ double operator()(long long i) const { return (double)x[i]; }
};

template <typename T>
struct Deviation {  // (x[i] - mean of its row)^2, the row's sum at sums[row(i)]
  const T *x;
  const double *sums;
  RsRowOf row;
  __host__ __device__ __forceinline__ double operator()(long long i) const {
    const double d = (double)x[i] - sums[row(i)] / (double)row.n;
    return d * d;
  }
};

struct Times {  // row r's first element
  long long n;
  __host__ __device__ __forceinline__ long long operator()(long long r) const { return r * n; }
};

__global__ void finish(const double *ss, void *dst, int out_f32, long long rows, double dof, int take_sqrt) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows; r += (long long)gridDim.x * blockDim.x) {
    double v = ss[r] / dof;
    if (take_sqrt) v = sqrt(v);
    if (out_f32)
      static_cast<float *>(dst)[r] = (float)v;
    else
      static_cast<double *>(dst)[r] = v;
  }
}

// Sum of `it` over each row into out[rows] (double).
template <typename It>
cudaError_t row_sums(void *tmp, size_t *bytes, It it, double *out, long long rows, long long n, cudaStream_t s) {
  if (rows <= kFewRows) {
    size_t need = 0;
    for (long long r = 0; r < rows; r++) {
      size_t b = *bytes;
      cudaError_t err = cub::DeviceReduce::Sum(tmp, b, it + r * n, out ? out + r : nullptr, n, s);
      if (err != cudaSuccess) return err;
      if (b > need) need = b;
    }
    if (!tmp) *bytes = need;
    return cudaSuccess;
  }
  auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), Times{n});
  auto end = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(1), Times{n});
  return cub::DeviceSegmentedReduce::Sum(tmp, *bytes, it, out, rows, begin, end, s);
}

// ---- columns (inner > 1) ----
struct Cols {  // thread t: chunk t / cols of column t % cols (= o * inner + j)
  long long n, inner, cols, chunks, len;
  __device__ __forceinline__ long long first(long long t, long long *count) const {
    long long col = t % cols, c = t / cols, i0 = c * len;
    *count = n - i0 < len ? n - i0 : len;
    return ((col / inner) * n + i0) * inner + col % inner;
  }
};

// pass 1 (mean == nullptr): chunk sums of x; pass 2: of (x - mean[col])^2
template <typename T>
__global__ void col_partials(const T *x, const double *mean, double *part, Cols g) {
  long long total = g.cols * g.chunks;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    long long count, at = g.first(t, &count);
    const T *q = x + at;
    const double m = mean ? mean[t % g.cols] : 0.0;
    double acc = 0;
#pragma unroll 4
    for (long long i = 0; i < count; i++) {
      const double d = (double)q[i * g.inner] - m;
      acc += mean ? d * d : d;
    }
    part[t] = acc;
  }
}

// per column, the chunks' partials in order; divided by `by` (n for the mean, 1 else)
__global__ void col_combine(const double *part, double *out, Cols g, double by) {
  for (long long col = blockIdx.x * (long long)blockDim.x + threadIdx.x; col < g.cols;
       col += (long long)gridDim.x * blockDim.x) {
    double acc = 0;
    for (long long c = 0; c < g.chunks; c++) acc += part[c * g.cols + col];
    out[col] = acc / by;
  }
}

constexpr long long kWantThreads = 1 << 19;
constexpr long long kMinChunk = 64;

template <typename T>
rs_status moments_cols(rs_backend *b, const rs_moments_plan *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *x = static_cast<const T *>(p->src);
  Cols g{p->n, p->inner, p->outer * p->inner, 1, p->n};
  long long chunks = (kWantThreads + g.cols - 1) / g.cols, most = (g.n + kMinChunk - 1) / kMinChunk;
  if (chunks > most) chunks = most;
  if (chunks < 1) chunks = 1;
  g.len = (g.n + chunks - 1) / chunks;
  g.chunks = (g.n + g.len - 1) / g.len;
  long long threads = g.cols * g.chunks;
  size_t cols_bytes = ((size_t)g.cols * sizeof(double) + 255) / 256 * 256;
  void *mem = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, 2 * cols_bytes + (size_t)threads * sizeof(double), stream, &mem));
  double *mean = static_cast<double *>(mem);
  double *ss = reinterpret_cast<double *>(static_cast<char *>(mem) + cols_bytes);
  double *part = reinterpret_cast<double *>(static_cast<char *>(mem) + 2 * cols_bytes);
  unsigned grid = rs_cuda_ops_grid(b, threads, 1, 8), cgrid = rs_cuda_ops_grid(b, g.cols, 1, 8);
  col_partials<T><<<grid, kBlock, 0, s>>>(x, nullptr, part, g);
  col_combine<<<cgrid, kBlock, 0, s>>>(part, mean, g, (double)g.n);
  col_partials<T><<<grid, kBlock, 0, s>>>(x, mean, part, g);
  col_combine<<<cgrid, kBlock, 0, s>>>(part, ss, g, 1.0);
  finish<<<cgrid, kBlock, 0, s>>>(ss, p->dst, p->out_dtype == RS_FLOAT32, g.cols, (double)g.n - p->correction,
                                  p->take_sqrt);
  cudaError_t err = cudaGetLastError();
  rs_cuda_ops_scratch_free(mem, stream);
  if (err != cudaSuccess) return rs_cuda_fail(err, "var/std along an inner axis (%lld x %lld x %lld)",
                                              (long long)p->outer, g.n, g.inner);
  return RS_OK;
}

// ---- rows (inner == 1) ----
template <typename T>
rs_status moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  if (p->inner > 1) return moments_cols<T>(b, p, stream);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *x = static_cast<const T *>(p->src);
  long long rows = p->outer, n = p->n;
  auto counting = thrust::make_counting_iterator<long long>(0);
  auto vals = thrust::make_transform_iterator(counting, Value<T>{x});
  // the temporary storage of both passes (the deviations' iterator has the same shape)
  size_t bytes_a = 0, bytes_b = 0;
  RS_CUDA_CALL(row_sums(nullptr, &bytes_a, vals, nullptr, rows, n, s), "cub row sums (size query)");
  const RsRowOf row = RsRowOf::make(n, rows * n);
  auto devs = thrust::make_transform_iterator(counting, Deviation<T>{x, nullptr, row});
  RS_CUDA_CALL(row_sums(nullptr, &bytes_b, devs, nullptr, rows, n, s), "cub row sums (size query)");
  size_t tmp_bytes = bytes_a > bytes_b ? bytes_a : bytes_b;
  size_t sums_bytes = ((size_t)(2 * rows) * sizeof(double) + 255) / 256 * 256;
  void *mem = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, sums_bytes + tmp_bytes, stream, &mem));
  double *sums = static_cast<double *>(mem), *ss = sums + rows;
  void *tmp = static_cast<char *>(mem) + sums_bytes;
  size_t bytes = tmp_bytes;
  cudaError_t err = row_sums(tmp, &bytes, vals, sums, rows, n, s);
  if (err == cudaSuccess) {
    auto devs2 = thrust::make_transform_iterator(counting, Deviation<T>{x, sums, row});
    bytes = tmp_bytes;
    err = row_sums(tmp, &bytes, devs2, ss, rows, n, s);
  }
  if (err == cudaSuccess) {
    finish<<<rs_cuda_ops_grid(b, rows, 1, 4), kBlock, 0, s>>>(ss, p->dst, p->out_dtype == RS_FLOAT32, rows,
                                                              (double)n - p->correction, p->take_sqrt);
    err = cudaGetLastError();
  }
  rs_cuda_ops_scratch_free(mem, stream);
  if (err != cudaSuccess) return rs_cuda_fail(err, "var/std of %lld rows x %lld", rows, n);
  return RS_OK;
}

}  // namespace

extern "C" rs_status rs_cuda_ops_moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  if (p->dtype == RS_FLOAT32) return moments<float>(b, p, stream);
  if (p->dtype == RS_FLOAT64) return moments<double>(b, p, stream);
  return rs_fail(RS_ERR_UNSUPPORTED, "cuda moments: %s", rs_dtype_name(p->dtype));
}
