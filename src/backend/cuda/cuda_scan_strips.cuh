// Internal to the CUDA backend's scans (cuda_ops_scan.cu): the scans along an axis that is
// not the last one, element (o, i, j) at (o * n + i) * inner + j, where the array is wide
// enough for strips of 32 columns (a lane each) to keep the memory system busy: a block
// per strip walking down the whole axis (scan_strips), or a block per tile of rows of a
// strip, each tile's carry found by looking back up the strip (scan_tiles).
#ifndef RS_BACKEND_CUDA_SCAN_STRIPS_CUH
#define RS_BACKEND_CUDA_SCAN_STRIPS_CUH
#include <cuda/atomic>
#include "backend/cuda/cuda_ops.h"

namespace rs_scan {

// A strip of 32 adjacent columns (a lane each) walked down the whole axis by one block,
// 8 warps x U rows a step: each warp loads its U rows at once (and the next step's before
// working on them), scans them in registers, and the warps' totals meet in shared memory; the
// carry from the steps above is added in a fixed order, so results do not depend on
// timing (no look-back between blocks, no atomics). One read, one write: the chunked
// scheme below reads twice (52% of the copy bandwidth on the H200 for 10000^2 float32).
// Rows past the axis's end are never combined; a column's first element is taken as is
// (no identity added: -0.0 stays -0.0).
constexpr int kStripWarps = RS_CUDA_OPS_BLOCK / 32;
// Rows a warp loads at once: 64 bytes a thread, twice in flight - the next step's loads
// are issued before this step's scan, barrier and stores, so a block's loads never stop
// (H200, 10000^2: float32 76% of the copy bandwidth, float64 84%; with 128 bytes a thread
// loaded after the stores, 69% and 81%; the chunked scheme 52%; 24 float32 rows instead
// of 16: 77%).
template <typename T>
struct StripShape {
  static constexpr int rows = sizeof(T) <= 4 ? 16 : (int)(64 / sizeof(T));
  // 3 blocks a multiprocessor (<= 85 registers): 2 strips a multiprocessor and more are
  // all resident at once, so no strip waits for a second wave while the others stream.
  static constexpr int min_blocks = 3;
};

// float32 columns two at a time (a lane takes two adjacent columns, 8-byte accesses): a
// warp then moves 256 bytes of a row per access, as for float64. H200, 10000^2 float32: a
// block per strip 80-84% of the copy bandwidth, against 76% one column a lane; the tiles
// of scan_tiles over the same strips 89-91% (cuda_ops_scan.cu takes those).
template <typename T>
struct alignas(2 * sizeof(T)) Pair {
  T x, y;
};
template <typename Op>
struct PairOf {
  template <typename T>
  __device__ __forceinline__ Pair<T> operator()(const Pair<T> &a, const Pair<T> &b) const {
    const Op op{};
    return Pair<T>{op(a.x, b.x), op(a.y, b.y)};
  }
};

template <typename T>
constexpr int strip_rows() {
  return StripShape<T>::rows;
}

struct Strips {
  long long n, inner, per_o, strips;  // per_o: strips across one o's inner columns
};

// A warp's U rows from `from` (a column's element of the warp's first row), `have` of
// them in the array: loads never predicated (predicates cost registers, and spills) -
// rows past the axis's end repeat its last row, never combined into a stored value.
template <typename T, int U>
__device__ __forceinline__ void strip_load(T (&v)[U], const T *from, long long inner, int have) {
#pragma unroll
  for (int u = 0; u < U; u++) {
    v[u] = *from;
    if (u + 1 < have) from += inner;
  }
}

template <typename T, typename Op>
__global__ void __launch_bounds__(RS_CUDA_OPS_BLOCK, StripShape<T>::min_blocks) scan_strips(const T *src, T *dst, Strips g) {
  constexpr int U = strip_rows<T>();
  constexpr long long kStep = (long long)kStripWarps * U;  // rows a step
  __shared__ T tot[2][kStripWarps][32];
  const Op op{};
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  for (long long s = blockIdx.x; s < g.strips; s += gridDim.x) {
    const long long o = s / g.per_o, j = (s % g.per_o) * 32 + lane;
    const bool col = j < g.inner;
    // a lane past the strip's columns reads its neighbour's column and stores nothing
    const long long base = o * g.n * g.inner + (col ? j : g.inner - 1);
    auto have_at = [&](long long r) { return r < g.n ? (g.n - r < U ? (int)(g.n - r) : U) : 0; };
    auto first_at = [&](long long r) { return src + base + (r < g.n ? r : g.n - 1) * g.inner; };
    T carry{};
    bool carried = false;
    int buf = 0;
    T next[U];
    strip_load(next, first_at((long long)w * U), g.inner, have_at((long long)w * U));
    for (long long r0 = 0; r0 < g.n; r0 += kStep, buf ^= 1) {
      const long long r = r0 + (long long)w * U;  // this warp's first row
      const int have = have_at(r), rows = col ? have : 0;
      T v[U];
#pragma unroll
      for (int u = 0; u < U; u++) v[u] = next[u];
      // the next step's rows are other rows than this step's: loading them before this
      // step's stores is right in place too
      if (r0 + kStep < g.n) strip_load(next, first_at(r + kStep), g.inner, have_at(r + kStep));
      T last = v[0];  // (v[rows - 1] would put v in local memory)
#pragma unroll
      for (int u = 1; u < U; u++) {
        v[u] = op(v[u - 1], v[u]);
        if (u < rows) last = v[u];
      }
      if (rows > 0) tot[buf][w][lane] = last;
      __syncthreads();
      // the prefix of this warp's rows: the carry, then the warps above in order
      T pre = carry;
      bool has = carried;
      for (int k = 0; k < w; k++) {  // warps above this one hold full rows
        pre = has ? op(pre, tot[buf][k][lane]) : tot[buf][k][lane];
        has = true;
      }
      if (has) {
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = op(pre, v[u]);
      }
      T *to = dst + base + r * g.inner;
#pragma unroll
      for (int u = 0; u < U; u++, to += g.inner)
        if (u < rows) *to = v[u];
      // the carry past this step, the same sum in every warp (a step's rows are full
      // except in the last step, whose carry is not used)
      if (col && r0 + kStep < g.n) {
        for (int k = 0; k < kStripWarps; k++) {
          carry = carried ? op(carry, tot[buf][k][lane]) : tot[buf][k][lane];
          carried = true;
        }
      }
      // (tot is double-buffered: the next step writes the other half, and the one
      // after this half only past the next step's barrier, when every warp is done here)
    }
    __syncthreads();  // the next strip's first step writes tot[0]
  }
}


// The tiled form: a block per tile of kStripWarps x kTileRows rows of a strip, so that the
// rows of an array spread over thousands of blocks, however few its strips. A block loads
// and scans its tile as a step of scan_strips does, publishes the tile's total (its
// warps' totals in order), then finds the carry into the tile by looking back up the
// strip: to the nearest tile that has published its inclusive sum (the carry into it and
// its total), then forward again adding the totals of the tiles between in order. Every
// carry is thus the left-to-right sum of the totals above, bit for bit the same however
// far back a block had to look (an inclusive sum is that same sum, stopped earlier):
// deterministic, where a look-back that adds totals from the nearest tile upwards (CUB's)
// is not. Blocks take their tile from a ticket counter in launch order, tile by tile
// across the strips, so every tile a block waits for was taken by a block already running;
// none waits on a block that cannot start.
//
// H200, 10000^2 (% of the copy bandwidth in one call): float32 pairs 89-91%, float64
// 93%, against 81% / 85% for a block per strip, and 83% / 91% for tiles that waited for
// the tile above to hand its carry down (a chain 79 tiles deep, each link one L2 round
// trip: its latency, not the bandwidth, set the time); 16 rows a warp and 4 blocks a
// multiprocessor (64 registers): 8 rows 85%, 12 rows 88%, 2 or 3 blocks 81-87%.
constexpr int kTileRows = 16, kTileBlocks = 4;

struct Tiles {
  long long n, inner, per_o, strips, tiles;
};

// A published sum: cell `at` (tile x strip x lane) of the scratch, zero before the launch.
// T's 32-bit words each travel in a 64-bit word whose high half is the status (1: the
// tile's total, 2: the inclusive sum), stored and loaded relaxed - the status is part of
// the value, so no fence and one load a word. A reader that finds the words of a cell
// with different statuses (caught between the two stores) reads it again.
template <typename T>
struct Cell {
  static constexpr int kWords = (int)(sizeof(T) / 4);
  static_assert(sizeof(T) % 4 == 0 && kWords <= 2, "a published sum is one or two 32-bit words");
  __host__ __device__ static size_t bytes(size_t cells) { return cells * kWords * 8; }
  __device__ static void put(char *m, long long at, const T &v, unsigned status) {
    unsigned w[kWords];
    memcpy(w, &v, sizeof v);
    for (int k = 0; k < kWords; k++)
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(reinterpret_cast<unsigned long long *>(m)[at * kWords + k])
          .store(((unsigned long long)status << 32) | w[k], cuda::memory_order_relaxed);
  }
  // The status (0: not published yet, or caught between two stores) and the value.
  __device__ static unsigned peek(char *m, long long at, T *v) {
    unsigned w[kWords], status = 0;
    for (int k = 0; k < kWords; k++) {
      const unsigned long long x = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
                                       reinterpret_cast<unsigned long long *>(m)[at * kWords + k])
                                       .load(cuda::memory_order_relaxed);
      if (k > 0 && (unsigned)(x >> 32) != status) return 0;
      status = (unsigned)(x >> 32);
      w[k] = (unsigned)x;
    }
    memcpy(v, w, sizeof *v);
    return status;
  }
};
constexpr unsigned kTotal = 1, kInclusive = 2;

template <typename T, typename Op>
__global__ void __launch_bounds__(RS_CUDA_OPS_BLOCK, kTileBlocks)
    scan_tiles(const T *src, T *dst, Tiles g, unsigned *ticket, char *cells) {
  constexpr int U = kTileRows;
  constexpr long long kTile = (long long)kStripWarps * U;
  using C = Cell<T>;
  __shared__ T tot[kStripWarps][32];
  __shared__ T into[32];  // the carry into this tile
  __shared__ unsigned long long taken;
  const Op op{};
  if (threadIdx.x == 0) taken = atomicAdd(ticket, 1u);
  __syncthreads();
  const long long id = (long long)taken, t = id / g.strips, s = id % g.strips;
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const long long o = s / g.per_o, j = (s % g.per_o) * 32 + lane;
  const bool col = j < g.inner;
  // a lane past the strip's columns reads its neighbour's column and stores nothing
  const long long base = o * g.n * g.inner + (col ? j : g.inner - 1);
  const long long r = t * kTile + (long long)w * U;  // this warp's first row
  const int have = r < g.n ? (g.n - r < U ? (int)(g.n - r) : U) : 0;
  T v[U];
  strip_load(v, src + base + (r < g.n ? r : g.n - 1) * g.inner, g.inner, have);
  T last = v[0];
#pragma unroll
  for (int u = 1; u < U; u++) {
    v[u] = op(v[u - 1], v[u]);
    if (u < have) last = v[u];
  }
  tot[w][lane] = last;
  __syncthreads();
  if (w == 0) {
    T total = tot[0][lane];  // the tile's: its warps' totals in order (warps past the axis's end left out)
    for (int k = 1; k < kStripWarps; k++)
      if (t * kTile + (long long)k * U < g.n) total = op(total, tot[k][lane]);
    auto at = [&](long long tile) { return (tile * g.strips + s) * 32 + lane; };
    const bool below = t + 1 < g.tiles;  // (the last tile's sums are read by no one)
    T c{};
    if (t == 0) {
      if (below) C::put(cells, at(0), total, kInclusive);
    } else {
      if (below) C::put(cells, at(t), total, kTotal);
      long long k = t - 1;  // back to the nearest inclusive sum (tile 0 publishes one)
      T x;
      for (unsigned st; (st = C::peek(cells, at(k), &x)) != kInclusive;)
        if (st == kTotal) k--;
      c = x;
      for (long long q = k + 1; q < t;) {  // forward, adding the totals in order
        const unsigned st = C::peek(cells, at(q), &x);
        if (st == kInclusive) c = x;  // (published since: the same bits as c op its total)
        else if (st == kTotal) c = op(c, x);
        else continue;
        q++;
      }
      if (below) C::put(cells, at(t), op(c, total), kInclusive);
    }
    into[lane] = c;
  }
  // this warp's prefix within the tile: the warps above (full rows) in order
  T above{};
  for (int k = 0; k < w; k++) above = k ? op(above, tot[k][lane]) : tot[k][lane];
  __syncthreads();
  T pre = into[lane];
  bool has = t > 0;
  if (w > 0) {
    pre = has ? op(pre, above) : above;
    has = true;
  }
  if (has) {
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = op(pre, v[u]);
  }
  if (col) {
    T *to = dst + base + r * g.inner;
#pragma unroll
    for (int u = 0; u < U; u++, to += g.inner)
      if (u < have) *to = v[u];
  }
}

}  // namespace rs_scan

#endif
