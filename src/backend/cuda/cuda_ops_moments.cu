// var / std along the middle axis of an outer x n x inner block (the stats op table entry
// "moments", src/native/plans.h) in ONE read of the input. Every thread sums its values
// less a shift of its own (one of its values): S = sum(e), Q = sum(e * e) in double, two
// FMAs a value and no division, turned once into Welford's (count, mean, M2) = (n, S / n,
// Q - S * S / n); those states are merged with Chan's parallel formula (no E[x^2] - E[x]^2
// cancellation across threads, no second pass). Q - S^2 / n cancels only as much as the
// thread's mean is off its own sample (a few bits in double, far below float64 results'
// tolerance). Merges run in a fixed order - CUB's block reduction (a fixed tree per block
// size) or a fixed shared-memory order, then the chunks of a row or column in chunk order -
// so results are deterministic (no atomics).
// Means are kept relative to the first element of their row or column (K, the same for
// all threads of that output): merged means are then of the size of the spread, not of
// the offset, so 1e8 + uniform(0, 1) keeps its variance to rounding (a thread's shift
// less K is exact there: two close doubles).
// Loads are 16 bytes (float4 / double2) where the data allows, several in flight per
// thread: the per-element work is light, so loads in flight set the bandwidth.
// inner == 1 (the last axes): consecutive threads on consecutive vectors (coalesced; a
// misaligned head and the tail go scalar). Many rows of moderate length: a warp or a few
// per row (row_group_states). Else rows cut into chunks, a block per (row, chunk): one
// chunk per row when there are enough rows to fill the GPU (the block finishes the row),
// else a few long rows (axis None: one) are spread over many blocks and a small kernel
// merges each row's chunks.
// inner > 1 (leading or middle axes): a block tile of 32 column groups (of 4 float / 2
// double adjacent columns when inner and the base allow 16-byte loads, else 1) x 8 rows:
// a warp reads 128-512 contiguous bytes of a row, its 8 warps interleave the rows of the
// block's chunk; the 8 states of a column are merged in shared memory, the chunks' states
// per column in chunk order. Rows shorter than a block take this way too (a lane per row;
// short rows are not where the bandwidth is).
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_col_tile.cuh"

namespace {

constexpr int kBlock = RS_CUDA_OPS_BLOCK;
constexpr int kUnroll = 4;  // 16-byte loads in flight per thread (rows and columns)
constexpr int kLanes = kRsColLanes, kRowLanes = kRsColWarps;  // the column tile: groups x rows

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

struct Sums {  // one thread's values less its shift: count, sum, sum of squares
  double shift, s, q;
  long long n;
  __device__ __forceinline__ void add(double v) {
    const double e = v - shift;
    s += e;
    q = fma(e, e, q);
    n++;
  }
  __device__ __forceinline__ void add(float4 v) { add((double)v.x), add((double)v.y), add((double)v.z), add((double)v.w); }
  __device__ __forceinline__ void add(double2 v) { add(v.x), add(v.y); }
  __device__ __forceinline__ void add(float v) { add((double)v); }
  // the state, its mean relative to k (the output's common shift)
  __device__ __forceinline__ W state(double k) const {
    if (n == 0) return W{0, 0, 0};
    const double c = (double)n, m = s / c;
    return W{c, (shift - k) + m, fmax(fma(-s, m, q), 0.0)};
  }
};

template <typename T> struct Vec;  // the 16-byte vector of T
template <> struct Vec<float> {
  using type = float4;
};
template <> struct Vec<double> {
  using type = double2;
};

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

// ---- rows (inner == 1) ----
// The sums of p[0..count) (count >= 1) for thread t of kBlock: a scalar head up to 16-byte
// alignment, vectors t, t + kBlock, ... (kUnroll in flight), a scalar tail.
template <typename T, int G = kBlock>
__device__ __forceinline__ Sums row_sums(const T *__restrict__ p, long long count, int t) {
  using V = typename Vec<T>::type;
  constexpr int L = (int)(sizeof(V) / sizeof(T));
  long long head = (long long)(((16 - ((uintptr_t)p & 15)) & 15) / sizeof(T));
  if (head > count) head = count;
  const long long nv = (count - head) / L, tail = head + nv * L;
  const long long first = head + (long long)t * L < count ? head + (long long)t * L : (long long)t % count;
  Sums a{(double)p[first], 0, 0, 0};
  if (t < head) a.add(p[t]);
  const V *pv = reinterpret_cast<const V *>(p + head);
  for (long long i0 = t; i0 < nv; i0 += (long long)G * kUnroll) {
    V v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++)
      if (i0 + u * G < nv) v[u] = pv[i0 + u * G];
#pragma unroll
    for (int u = 0; u < kUnroll; u++)
      if (i0 + u * G < nv) a.add(v[u]);
  }
  if (tail + t < count) a.add(p[tail + t]);
  return a;
}

// Block (chunk c of row r) = blockIdx.x: r = blockIdx.x / chunks. With one chunk the
// block finishes its row; else it writes its state to part[blockIdx.x].
template <typename T>
__global__ void __launch_bounds__(kBlock) row_states(const T *x, long long n, long long chunks, long long len, W *part,
                                                     Out o) {
  using Reduce = cub::BlockReduce<W, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const long long r = blockIdx.x / chunks, c = blockIdx.x % chunks, i0 = c * len;
  const long long count = n - i0 < len ? n - i0 : len;
  W s = row_sums(x + r * n + i0, count, threadIdx.x).state((double)x[r * n]);
  s = Reduce(tmp).Reduce(s, Merge{});
  if (threadIdx.x == 0) {
    if (chunks == 1) store(o.dst, r, s, o.out_f32, o.correction, o.take_sqrt);
    else part[blockIdx.x] = s;
  }
}

// Many rows of moderate length: G threads a row (a warp or a few), kBlock / G rows a
// block. A block per row (row_states) spends a block reduction (8 warps, shared memory,
// barriers) on every 2-3 rounds of loads for rows of 10^4 float32 while its loads stop;
// here each thread streams kBlock / G times longer before a cheaper merge. The merges
// are a fixed shuffle tree, then the row's warps in order (deterministic).
template <typename T, int G>
__global__ void __launch_bounds__(kBlock) row_group_states(const T *x, long long rows, long long n, Out o) {
  constexpr int R = kBlock / G, WG = G / 32;  // rows a block, warps a row
  __shared__ W sh[kBlock / 32];
  const int g = threadIdx.x / G, t = threadIdx.x % G;
  const long long r = (long long)blockIdx.x * R + g;
  W s{0, 0, 0};
  if (r < rows) s = row_sums<T, G>(x + r * n, n, t).state((double)x[r * n]);
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    W b;
    b.n = __shfl_down_sync(0xffffffffu, s.n, off);
    b.mean = __shfl_down_sync(0xffffffffu, s.mean, off);
    b.m2 = __shfl_down_sync(0xffffffffu, s.m2, off);
    s = merge(s, b);
  }
  if (WG > 1) {
    if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s;
    __syncthreads();
    if (t == 0)
      for (int k = 1; k < WG; k++) s = merge(s, sh[threadIdx.x / 32 + k]);
  }
  if (t == 0 && r < rows) store(o.dst, r, s, o.out_f32, o.correction, o.take_sqrt);
}

// ---- columns (inner > 1) ----
// Lane sums a[0..L) take the L values of v (a row of the lane's columns).
__device__ __forceinline__ void add_each(Sums *a, float4 v) { a[0].add(v.x), a[1].add(v.y), a[2].add(v.z), a[3].add(v.w); }
__device__ __forceinline__ void add_each(Sums *a, double2 v) { a[0].add(v.x), a[1].add(v.y); }
template <typename T> __device__ __forceinline__ void add_each(Sums *a, T v) { a[0].add((double)v); }
__device__ __forceinline__ double part_of(float4 v, int l) { return l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w; }
__device__ __forceinline__ double part_of(double2 v, int l) { return l == 0 ? v.x : v.y; }
template <typename T> __device__ __forceinline__ double part_of(T v, int) { return (double)v; }

// L adjacent columns per lane (inner % L == 0 and a 16-byte aligned base when L > 1).
template <typename T, int L>
__global__ void __launch_bounds__(kBlock) col_states(const T *x, W *part, RsColGeo g, Out o) {
  using V = typename RsColVec<T, L>::type;
  __shared__ W sh[kRowLanes][kLanes * L];
  const int lane = threadIdx.x % kLanes, w = threadIdx.x / kLanes;
  const long long c = blockIdx.x / g.tiles, col0 = (blockIdx.x % g.tiles * kLanes + lane) * L;
  const long long i0 = c * g.len, count = g.n - i0 < g.len ? g.n - i0 : g.len;
  if (col0 < g.outs) {
    const T *first = x + (col0 / g.inner) * g.n * g.inner + col0 % g.inner;  // row 0 of the lane's columns
    const V *v0 = reinterpret_cast<const V *>(first + i0 * g.inner);
    const long long step = g.inner / L;  // a row, in V
    const V sample = v0[(w < count ? w : count - 1) * step], k = *reinterpret_cast<const V *>(first);
    Sums a[L];
#pragma unroll
    for (int l = 0; l < L; l++) a[l] = Sums{part_of(sample, l), 0, 0, 0};
    rs_col_walk<kRowLanes, kUnroll>(v0, step, count, w, [&](const V &v) { add_each(a, v); });
#pragma unroll
    for (int l = 0; l < L; l++) sh[w][lane * L + l] = a[l].state(part_of(k, l));
  }
  __syncthreads();
  // the block's columns: the 8 row lanes' states merged in row-lane order
  const long long col = (blockIdx.x % g.tiles) * kLanes * L + threadIdx.x;
  if (threadIdx.x < kLanes * L && col < g.outs) {
    W s = sh[0][threadIdx.x];
#pragma unroll
    for (int r = 1; r < kRowLanes; r++) s = merge(s, sh[r][threadIdx.x]);
    if (g.chunks == 1) store(o.dst, col, s, o.out_f32, o.correction, o.take_sqrt);
    else part[c * g.outs + col] = s;
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
constexpr long long kMinRowChunk = 4 * kBlock * kUnroll * 4;  // row elements per block at least

template <typename T>
rs_status moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *x = static_cast<const T *>(p->src);
  const Out o{p->dst, p->out_dtype == RS_FLOAT32, p->take_sqrt, p->correction};
  const long long outs = p->outer * p->inner, n = p->n;
  // rows shorter than a block go through the column scheme too (a lane per row)
  const bool rows = p->inner == 1 && n >= kBlock;
  // columns: 16-byte loads of L adjacent columns when every lane's columns start aligned
  constexpr int L = (int)(16 / sizeof(T));
  const bool wide = !rows && p->inner % L == 0 && (uintptr_t)x % 16 == 0;
  const long long tiles = rows ? 0 : (outs / (wide ? L : 1) + kLanes - 1) / kLanes;
  long long chunks = 1, len = n;
  // G threads a row (row_group_states) where the rows give every resident thread of the
  // device one at least: the fewest (from a warp) that leave each thread <= 96 vectors of
  // a row. H200, 10000 rows of 10000: float32 G = 32 (97-99% of the copy bandwidth over
  // four calls, against 82% a block a row), float64 G = 64 (89-92%, against 88%; G = 32
  // 91%, 128 89%; 8 vectors in flight a thread instead of 4: 82%).
  int group = kBlock;
  if (rows) {
    const long long vecs = n * (long long)sizeof(T) / 16;
    group = 32;
    while (group < kBlock && vecs > 96LL * group) group *= 2;
    const long long resident = 2048LL * (b->multiprocessors > 0 ? b->multiprocessors : 1);
    if (outs * group < resident) group = kBlock;
  }
  if (rows && group < kBlock) {
    const long long per = kBlock / group, blocks = (outs + per - 1) / per;
    if (group == 32) row_group_states<T, 32><<<(unsigned)blocks, kBlock, 0, s>>>(x, outs, n, o);
    else if (group == 64) row_group_states<T, 64><<<(unsigned)blocks, kBlock, 0, s>>>(x, outs, n, o);
    else row_group_states<T, 128><<<(unsigned)blocks, kBlock, 0, s>>>(x, outs, n, o);
    RS_CUDA_CALL(cudaGetLastError(), "var/std of %lld rows x %lld", outs, n);
    return RS_OK;
  }
  const long long state = 2 * sizeof(W);  // a partial state, written and read
  if (rows) rs_cuda_cut(n, outs, rs_cuda_capacity(b, row_states<T>), kMinRowChunk, sizeof(T), state, &chunks, &len);
  else if (wide)
    rs_cuda_cut(n, tiles, rs_cuda_capacity(b, col_states<T, L>), kRsColMinChunk, sizeof(T), state, &chunks, &len);
  else rs_cuda_cut(n, tiles, rs_cuda_capacity(b, col_states<T, 1>), kRsColMinChunk, sizeof(T), state, &chunks, &len);
  void *mem = nullptr;
  if (chunks > 1) RS_TRY(rs_cuda_ops_scratch(b, (size_t)(outs * chunks) * sizeof(W), stream, &mem));
  W *part = static_cast<W *>(mem);
  if (rows) {
    row_states<T><<<(unsigned)(outs * chunks), kBlock, 0, s>>>(x, n, chunks, len, part, o);
  } else {
    const RsColGeo g{n, p->inner, outs, chunks, len, tiles};
    if (wide) col_states<T, L><<<(unsigned)(tiles * chunks), kBlock, 0, s>>>(x, part, g, o);
    else col_states<T, 1><<<(unsigned)(tiles * chunks), kBlock, 0, s>>>(x, part, g, o);
  }
  // chunk c of output k: rows part[k * chunks + c], columns part[c * outs + k]
  const long long at_k = rows ? chunks : 1, at_c = rows ? 1 : outs;
  if (chunks > kBlockFinish)
    finish_blocks<<<(unsigned)outs, kBlock, 0, s>>>(part, chunks, at_k, at_c, o);
  else if (chunks > 1)
    finish<<<rs_cuda_ops_grid(b, outs, 1, 8), kBlock, 0, s>>>(part, outs, chunks, at_k, at_c, o);
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
