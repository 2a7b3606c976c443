// Sum and mean of float32 / float64 along the middle axis of a contiguous outer x n x inner
// block (sum over axis 0 of a matrix, over axis 1 of a 3-d array), where the kept axes
// lie innermost: the reduction's bandwidth-bound common case, taken here out of the
// generated column scheme (cuda_ops_reduce.c) into the tile that the one-read moments use
// for the same layout. A block is a tile of 32 column groups x 8 rows: each lane loads L
// adjacent columns of a row at once (16 bytes where inner and the base allow), its warp
// 128-512 contiguous bytes of the row; the 8 warps interleave the rows of the block's
// chunk, kUnroll loads in flight each. Sums run in double (as the generated kernels and
// the native loops); the 8 warps' sums of a column are added in warp order in shared
// memory, the chunks' sums in chunk order by a second kernel, so results do not depend
// on timing. The chunk count fills the device's resident blocks evenly (rs_cuda_cut; the
// walk and the cut are the moments', cuda_col_tile.cuh).
#include <cstdint>
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_col_tile.cuh"

namespace {

constexpr int kBlock = RS_CUDA_OPS_BLOCK;
constexpr int kUnroll = 4;
constexpr int kLanes = kRsColLanes, kRowLanes = kRsColWarps;
constexpr long long kMaxChunks = 64;

struct Dest {
  void *dst;
  int out_f32;
  double div;  // 1 for a sum, n for a mean (NumPy divides the sum)
};

__device__ __forceinline__ void put(const Dest &d, long long at, double s) {
  const double v = s / d.div;
  if (d.out_f32) static_cast<float *>(d.dst)[at] = (float)v;
  else static_cast<double *>(d.dst)[at] = v;
}

template <typename T, int L>
__global__ void __launch_bounds__(kBlock) col_sums(const T *x, double *part, RsColGeo g, Dest d) {
  using V = typename RsColVec<T, L>::type;
  __shared__ double sh[kRowLanes][kLanes * L];
  const int lane = threadIdx.x % kLanes, w = threadIdx.x / kLanes;
  const long long tile = blockIdx.x % g.tiles, c = blockIdx.x / g.tiles;
  const long long col0 = (tile * kLanes + lane) * L;  // output index of the lane's first column
  const long long i0 = c * g.len, count = g.n - i0 < g.len ? g.n - i0 : g.len;
  double a[L];
#pragma unroll
  for (int l = 0; l < L; l++) a[l] = 0;
  if (col0 < g.outs) {  // (inner % L == 0: a lane's L columns share their o)
    const V *v0 = reinterpret_cast<const V *>(x + (col0 / g.inner) * g.n * g.inner + col0 % g.inner + i0 * g.inner);
    const long long step = g.inner / L;  // a row, in V
    rs_col_walk<kRowLanes, kUnroll>(v0, step, count, w, [&](const V &v) {
      const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
      for (int l = 0; l < L; l++) a[l] += (double)e[l];
    });
  }
#pragma unroll
  for (int l = 0; l < L; l++) sh[w][lane * L + l] = a[l];
  __syncthreads();
  const long long col = tile * kLanes * L + threadIdx.x;
  if (threadIdx.x < kLanes * L && col < g.outs) {
    double s = sh[0][threadIdx.x];
#pragma unroll
    for (int r = 1; r < kRowLanes; r++) s += sh[r][threadIdx.x];
    if (g.chunks == 1) put(d, col, s);
    else part[c * g.outs + col] = s;
  }
}

// Output k's chunk sums part[c * outs + k], added in chunk order.
__global__ void col_finish(const double *part, long long outs, long long chunks, Dest d) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < outs; k += (long long)gridDim.x * blockDim.x) {
    double s = 0;
    for (long long c = 0; c < chunks; c++) s += part[c * outs + k];
    put(d, k, s);
  }
}

template <typename T>
rs_status col_sum(rs_backend *b, const rs_reduce_plan *p, long long outer, long long n, long long inner, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *x = reinterpret_cast<const T *>(p->in);
  constexpr int L = (int)(16 / sizeof(T));
  const bool wide = inner % L == 0 && (uintptr_t)x % 16 == 0;
  const long long outs = outer * inner, tiles = (outs / (wide ? L : 1) + kLanes - 1) / kLanes;
  const Dest d{p->out, p->out_dtype == RS_FLOAT32, p->op == RS_REDUCE_MEAN ? (double)n : 1.0};
  long long chunks = 1, len = n;
  const long long cap = wide ? rs_cuda_capacity(b, col_sums<T, L>) : rs_cuda_capacity(b, col_sums<T, 1>);
  // at most kMaxChunks: the second kernel adds an output's chunks in one thread
  const long long least = n / kMaxChunks > kRsColMinChunk ? n / kMaxChunks : kRsColMinChunk;
  rs_cuda_cut(n, tiles, cap, least, sizeof(T), 2 * sizeof(double), &chunks, &len);
  if (tiles * chunks > INT32_MAX) return rs_fail(RS_ERR_UNSUPPORTED, "sum: %lld column tiles are too many", tiles);
  void *mem = nullptr;
  if (chunks > 1) RS_TRY(rs_cuda_ops_scratch(b, (size_t)(outs * chunks) * sizeof(double), stream, &mem));
  double *part = static_cast<double *>(mem);
  const RsColGeo g{n, inner, outs, chunks, len, tiles};
  if (wide) col_sums<T, L><<<(unsigned)(tiles * chunks), kBlock, 0, s>>>(x, part, g, d);
  else col_sums<T, 1><<<(unsigned)(tiles * chunks), kBlock, 0, s>>>(x, part, g, d);
  if (chunks > 1) col_finish<<<rs_cuda_ops_grid(b, outs, 1, 8), kBlock, 0, s>>>(part, outs, chunks, d);
  cudaError_t err = cudaGetLastError();
  if (mem) rs_cuda_ops_scratch_free(mem, stream);
  if (err != cudaSuccess) return rs_cuda_fail(err, "sum of %lld x %lld x %lld along the middle axis", outer, n, inner);
  return RS_OK;
}

}  // namespace

// A float sum or mean whose plan reads as outer x n x inner: one reduced axis, the kept
// axes one or two (outer, inner) around it, the input C-contiguous over them and the
// output too; inner a warp's width at least (narrower columns stay with the generated
// scheme, which folds them).
static int col_case(const rs_reduce_plan *p, long long *outer, long long *n, long long *inner) {
  const int fl = p->in_dtype == RS_FLOAT32 || p->in_dtype == RS_FLOAT64;
  const int out_fl = p->out_dtype == RS_FLOAT32 || p->out_dtype == RS_FLOAT64;
  if ((p->op != RS_REDUCE_SUM && p->op != RS_REDUCE_MEAN) || !fl || !out_fl) return 0;
  const int64_t isz = (int64_t)rs_dtype_size(p->in_dtype), osz = (int64_t)rs_dtype_size(p->out_dtype);
  if (p->nred != 1 || p->n_red <= 0 || p->nkeep < 1 || p->nkeep > 2) return 0;
  const int k = p->nkeep - 1;  // the inner kept axis
  const int64_t in = p->keep_shape[k], rows = p->red_shape[0];
  if (p->keep_in_strides[k] != isz || p->keep_out_strides[k] != osz || p->red_strides[0] != in * isz) return 0;
  if (p->nkeep == 2 && (p->keep_in_strides[0] != rows * in * isz || p->keep_out_strides[0] != in * osz)) return 0;
  *outer = p->nkeep == 2 ? p->keep_shape[0] : 1;
  *n = rows;
  *inner = in;
  return in >= kLanes;
}

extern "C" int rs_cuda_col_sum_fits(const rs_reduce_plan *p) {
  long long outer, n, inner;
  return col_case(p, &outer, &n, &inner);
}

extern "C" rs_status rs_cuda_col_sum(rs_backend *b, const rs_reduce_plan *p, void *stream) {
  long long outer = 0, n = 0, inner = 0;
  if (!col_case(p, &outer, &n, &inner))
    return rs_fail(RS_ERR_UNSUPPORTED, "cuda column sum: not a middle-axis float sum");
  RS_TRY(rs_cuda_enter(b));
  if (p->in_dtype == RS_FLOAT32) return col_sum<float>(b, p, outer, n, inner, stream);
  return col_sum<double>(b, p, outer, n, inner, stream);
}
