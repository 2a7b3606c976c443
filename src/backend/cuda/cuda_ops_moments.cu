// var / std along the middle axis of an outer x n x inner block (the stats op table entry
// "moments", src/native/plans.h) in ONE read of the input: every thread keeps Welford's
// (count, mean, M2) in double over its elements, and partial states are merged with
// Chan's parallel formula (no E[x^2] - E[x]^2 cancellation, no second pass). Merges run
// in a fixed order - CUB's block reduction (a fixed tree per block size), then the chunks
// of a row or column in chunk order - so results are deterministic (no atomics).
// Each thread takes its elements kBatch at a time (independent loads in flight); a batch's
// own mean and M2 come from registers (two passes over kBatch values), then one Chan
// merge folds the batch in, so the per-element cost is a few FMAs and one division per
// batch.
// Every value is first shifted by the first element of its row or column (the same K for
// all threads of that output; the variance does not change): the means merged are then of
// the size of the spread, not of the offset, so 1e8 + uniform(0, 1) keeps its variance to
// rounding (the merge's d = mean_b - mean_a would otherwise carry the offset's ulp).
// inner == 1 (the last axes): rows cut into chunks, a block per (row, chunk), consecutive
// threads on consecutive elements (coalesced); one chunk per row when there are enough
// rows to fill the GPU (the block finishes the row), else a few long rows (axis None: one)
// are spread over many blocks and a small kernel merges each row's chunks.
// inner > 1 (leading or middle axes): a thread per (column, chunk of the axis),
// consecutive threads on consecutive columns (coalesced); the chunks' states are merged
// per column in chunk order. Rows shorter than a block take this way too (a thread per
// row; short rows are not where the bandwidth is).
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include "backend/cuda/cuda_ops.h"

namespace {

constexpr int kBlock = RS_CUDA_OPS_BLOCK;
constexpr int kBatch = 8;  // elements loaded per thread before they are folded in

struct W {  // a Welford state: element count, mean, sum of squared deviations from it
  double n, mean, m2;
};

// Chan et al.'s merge of two disjoint parts' states (exact in the count below 2^53).
__device__ __forceinline__ W merge(const W &a, const W &b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  const double n = a.n + b.n, d = b.mean - a.mean, f = b.n / n;
  return W{n, a.mean + d * f, a.m2 + b.m2 + d * d * a.n * f};
}

struct Merge {
  __device__ __forceinline__ W operator()(const W &a, const W &b) const { return merge(a, b); }
};

// Folds up to kBatch values v[0..k) (k >= 1) into s: the batch's mean and M2 in
// registers, then one merge.
__device__ __forceinline__ void fold(W &s, const double *v, int k) {
  double sum = 0;
#pragma unroll
  for (int u = 0; u < kBatch; u++)
    if (u < k) sum += v[u];
  const double mean = k == kBatch ? sum * (1.0 / kBatch) : sum / k;  // no division in full batches
  double m2 = 0;
#pragma unroll
  for (int u = 0; u < kBatch; u++)
    if (u < k) m2 += (v[u] - mean) * (v[u] - mean);
  s = merge(s, W{(double)k, mean, m2});
}

__device__ __forceinline__ void store(void *dst, long long at, const W &s, int out_f32, double correction,
                                      int take_sqrt) {
  double v = s.m2 / (s.n - correction);
  if (take_sqrt) v = sqrt(v);
  if (out_f32)
    static_cast<float *>(dst)[at] = (float)v;
  else
    static_cast<double *>(dst)[at] = v;
}

struct Out {  // where and how the results go
  void *dst;
  int out_f32, take_sqrt;
  double correction;
};

// The state of x[i * stride] - shift for i in [0, count), this thread taking
// i = t, t + threads, ... (t < threads), kBatch loads in flight.
template <typename T>
__device__ __forceinline__ W accumulate(const T *x, long long count, long long stride, long long t, long long threads,
                                        double shift) {
  W s{0, 0, 0};
  for (long long i0 = t; i0 < count; i0 += threads * kBatch) {
    double v[kBatch];
    int k = 0;
#pragma unroll
    for (int u = 0; u < kBatch; u++) {
      const long long i = i0 + u * threads;
      if (i < count) {
        v[u] = (double)x[i * stride] - shift;
        k = u + 1;
      }
    }
    fold(s, v, k);
  }
  return s;
}

// ---- rows (inner == 1) ----
// Block (chunk c of row r) = blockIdx.x: r = blockIdx.x / chunks. With one chunk the
// block finishes its row; else it writes its state to part[blockIdx.x].
template <typename T>
__global__ void __launch_bounds__(kBlock) row_states(const T *x, long long n, long long chunks, long long len, W *part,
                                                     Out o) {
  using Reduce = cub::BlockReduce<W, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const long long r = blockIdx.x / chunks, c = blockIdx.x % chunks, i0 = c * len;
  const long long count = n - i0 < len ? n - i0 : len;
  W s = accumulate(x + r * n + i0, count, 1, threadIdx.x, kBlock, (double)x[r * n]);
  s = Reduce(tmp).Reduce(s, Merge{});
  if (threadIdx.x == 0) {
    if (chunks == 1) store(o.dst, r, s, o.out_f32, o.correction, o.take_sqrt);
    else part[blockIdx.x] = s;
  }
}

// ---- columns (inner > 1) ----
struct Cols {  // thread t: chunk t / cols of column t % cols (= o * inner + j)
  long long n, inner, cols, chunks, len;
};

template <typename T>
__global__ void __launch_bounds__(kBlock) col_states(const T *x, W *part, Cols g, Out o) {
  const long long total = g.cols * g.chunks;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long col = t % g.cols, c = t / g.cols, i0 = c * g.len;
    const long long count = g.n - i0 < g.len ? g.n - i0 : g.len;
    const T *first = x + (col / g.inner) * g.n * g.inner + col % g.inner;
    const W s = accumulate(first + i0 * g.inner, count, g.inner, 0, 1, (double)first[0]);
    if (g.chunks == 1) store(o.dst, col, s, o.out_f32, o.correction, o.take_sqrt);
    else part[t] = s;
  }
}

// Output k's `chunks` states, part[k * at_k + c * at_c], merged in chunk order.
__global__ void finish(const W *part, long long outs, long long chunks, long long at_k, long long at_c, Out o) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < outs; k += (long long)gridDim.x * blockDim.x) {
    W s{0, 0, 0};
    for (long long c = 0; c < chunks; c++) s = merge(s, part[k * at_k + c * at_c]);
    store(o.dst, k, s, o.out_f32, o.correction, o.take_sqrt);
  }
}

// The same with a block per output, for many chunks (one long row: thousands): the block's
// threads merge strided chunks in order, then CUB's block reduction (a fixed tree).
__global__ void __launch_bounds__(kBlock) finish_blocks(const W *part, long long chunks, long long at_k, long long at_c,
                                                        Out o) {
  using Reduce = cub::BlockReduce<W, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const long long k = blockIdx.x;
  W s{0, 0, 0};
  for (long long c = threadIdx.x; c < chunks; c += kBlock) s = merge(s, part[k * at_k + c * at_c]);
  s = Reduce(tmp).Reduce(s, Merge{});
  if (threadIdx.x == 0) store(o.dst, k, s, o.out_f32, o.correction, o.take_sqrt);
}

constexpr long long kBlockFinish = 64;  // more chunks per output than this: finish_blocks
constexpr long long kWantThreads = 1 << 18;  // about what an H100 / H200 keeps resident
constexpr long long kMinColChunk = 64;         // column elements per thread at least
constexpr long long kMinRowChunk = 16 * kBlock * kBatch;  // row elements per block at least

// `len` and `chunks` for cutting n into about `want` chunks of at least `least` each.
void cut(long long n, long long want, long long least, long long *chunks, long long *len) {
  long long most = (n + least - 1) / least, c = want;
  if (c > most) c = most;
  if (c < 1) c = 1;
  *len = (n + c - 1) / c;
  *chunks = (n + *len - 1) / *len;
}

template <typename T>
rs_status moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *x = static_cast<const T *>(p->src);
  const Out o{p->dst, p->out_dtype == RS_FLOAT32, p->take_sqrt, p->correction};
  const long long outs = p->outer * p->inner, n = p->n;
  // rows shorter than a block go through the column scheme too (a thread per row)
  const bool rows = p->inner == 1 && n >= kBlock;
  long long chunks = 1, len = n;
  if (rows) {  // enough blocks for the whole GPU, several resident per multiprocessor
    const long long want_blocks = (long long)rs_cuda_ops_grid(b, INT64_MAX / 2, 1, 16);
    cut(n, (want_blocks + outs - 1) / outs, kMinRowChunk, &chunks, &len);
  } else {
    cut(n, (kWantThreads + outs - 1) / outs, kMinColChunk, &chunks, &len);
  }
  void *mem = nullptr;
  if (chunks > 1) RS_TRY(rs_cuda_ops_scratch(b, (size_t)(outs * chunks) * sizeof(W), stream, &mem));
  W *part = static_cast<W *>(mem);
  unsigned fgrid = rs_cuda_ops_grid(b, outs, 1, 8);
  if (rows) {
    row_states<T><<<(unsigned)(outs * chunks), kBlock, 0, s>>>(x, n, chunks, len, part, o);
  } else {
    const Cols g{n, p->inner, outs, chunks, len};
    col_states<T><<<rs_cuda_ops_grid(b, outs * chunks, 1, 8), kBlock, 0, s>>>(x, part, g, o);
  }
  // chunk c of output k: rows part[k * chunks + c], columns part[c * outs + k]
  const long long at_k = rows ? chunks : 1, at_c = rows ? 1 : outs;
  if (chunks > kBlockFinish)
    finish_blocks<<<(unsigned)outs, kBlock, 0, s>>>(part, chunks, at_k, at_c, o);
  else if (chunks > 1)
    finish<<<fgrid, kBlock, 0, s>>>(part, outs, chunks, at_k, at_c, o);
  cudaError_t err = cudaGetLastError();
  if (mem) rs_cuda_ops_scratch_free(mem, stream);
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "var/std of %lld x %lld x %lld", (long long)p->outer, n, (long long)p->inner);
  return RS_OK;
}

}  // namespace

extern "C" rs_status rs_cuda_ops_moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  if (p->dtype == RS_FLOAT32) return moments<float>(b, p, stream);
  if (p->dtype == RS_FLOAT64) return moments<double>(b, p, stream);
  return rs_fail(RS_ERR_UNSUPPORTED, "cuda moments: %s", rs_dtype_name(p->dtype));
}
