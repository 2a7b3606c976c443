// Internal to the CUDA backend's library kernels: what the column reductions of the
// one-read moments (cuda_ops_moments.cu) and of the float column sums (cuda_ops_col_sum.cu)
// share - a lane's walk down its columns in a tile of 32 column groups x row warps, and
// how many chunks to cut the outputs into so that the blocks fill the device's resident
// slots evenly.
#ifndef RS_BACKEND_CUDA_COL_TILE_CUH
#define RS_BACKEND_CUDA_COL_TILE_CUH
#include "backend/cuda/cuda_ops.h"

// The tile: 32 lanes (column groups) x RS_CUDA_OPS_BLOCK / 32 warps (rows), and a chunk
// of at least 16 rows a warp.
constexpr int kRsColLanes = 32, kRsColWarps = RS_CUDA_OPS_BLOCK / kRsColLanes;
constexpr long long kRsColMinChunk = (long long)kRsColWarps * 16;

// Blocks of `kernel` (RS_CUDA_OPS_BLOCK threads, static shared memory) resident on the
// whole device at once.
template <typename K>
inline long long rs_cuda_capacity(rs_backend *b, K kernel) {
  int per = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, RS_CUDA_OPS_BLOCK, 0) != cudaSuccess || per < 1) {
    (void)cudaGetLastError();  // a guess then, not an error of this call
    per = 1;
  }
  return (long long)per * (b->multiprocessors > 0 ? b->multiprocessors : 1);
}

// Chunks for cutting each output's n elements (of `size` bytes) into, `units` blocks per
// chunk index: the count whose equal blocks fill the device's `cap` resident blocks best
// (the last wave as full as can be, up to 8 waves; a wave partly empty leaves SMs idle
// while the others stream), less the partial results' traffic (`state` bytes an output
// and chunk, written and read, against the n * size bytes of the data). Ties: fewer
// chunks. At least `least` elements a chunk.
inline void rs_cuda_cut(long long n, long long units, long long cap, long long least, long long size, long long state,
                        long long *chunks, long long *len) {
  long long top = 8 * cap / units + 1, most = n / least, best = 1;
  if (top > most) top = most;
  double best_score = -1;
  for (long long c = 1; c <= top; c++) {
    const long long blocks = units * c, waves = (blocks + cap - 1) / cap;
    const double fill = (double)blocks / (double)(waves * cap);
    const double score = fill / (1.0 + (double)state * (double)c / ((double)n * (double)size));
    if (score > best_score + 1e-9) best = c, best_score = score;
  }
  *len = (n + best - 1) / best;
  *chunks = (n + *len - 1) / *len;
}

// A column tile's geometry: block b takes chunk b / tiles (rows [chunk * len, + len) of
// every output) of column tile b % tiles; outs = outer x inner outputs, output k at
// (k / inner) * n * inner + k % inner.
struct RsColGeo {
  long long n, inner, outs, chunks, len, tiles;
};

// L adjacent values of a row, loaded at once (16 bytes for L > 1).
template <typename T, int L>
struct RsColVec;
template <typename T>
struct RsColVec<T, 1> {
  using type = T;
};
template <>
struct RsColVec<float, 4> {
  using type = float4;
};
template <>
struct RsColVec<double, 2> {
  using type = double2;
};

// A lane's rows of its chunk: warp w of `warps` takes rows w, w + warps, ... of the count
// rows from v0 (one V, the lane's adjacent columns, a row; rows `step` V apart), `unroll`
// loads issued before any is used, each then handed to take(v) in row order.
template <int warps, int unroll, typename V, typename F>
__device__ __forceinline__ void rs_col_walk(const V *v0, long long step, long long count, int w, F &&take) {
  for (long long i = w; i < count; i += (long long)warps * unroll) {
    V v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; u++)
      if (i + u * warps < count) v[u] = v0[(i + u * warps) * step];
#pragma unroll
    for (int u = 0; u < unroll; u++)
      if (i + u * warps < count) take(v[u]);
  }
}

#endif
