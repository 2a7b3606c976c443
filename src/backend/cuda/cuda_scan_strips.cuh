// Internal to the CUDA backend's scans (cuda_ops_scan.cu): the scans along an axis that is
// not the last one, element (o, i, j) at (o * n + i) * inner + j, where the array is wide
// enough for strips of 32 columns (a lane each) to keep the memory system busy: a block
// per strip walking down the whole axis (scan_strips), or a block per tile of rows of a
// strip, chained down the axis (scan_chain).
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
// warp then moves 256 bytes of a row per access, as for float64; half as many strips, 16
// rows a warp and a block <= 128 registers (2 a multiprocessor). H200, 10000^2 float32: a
// block per strip 80-84% of the copy bandwidth, against 76% one column a lane (float64,
// 256 bytes an access already: 84-85%); scan_chain over the same strips 83%, where the
// block per strip gave 80-81% in the same call (cuda_ops_scan.cu takes the chain).
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
template <>
struct StripShape<Pair<float>> {
  static constexpr int rows = 16, min_blocks = 2;
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


// The chained form: a block per tile of kStripWarps x U rows of a strip, so that a narrow
// array's few strips still make thousands of blocks. A block loads and scans its tile as
// a step of scan_strips does, then waits for the tile above (same strip) to publish the
// carry through it, adds that carry and its warps' totals in the same order scan_strips
// does (left to right down the axis: the same results, bit for bit, deterministic), and
// publishes its own. Blocks take their tile from a ticket counter in launch order, tile
// by tile across the strips, so the tile a block waits for was taken by a block that is
// already running or done: no block waits for one that cannot start. Each lane publishes
// its column's carry with a flag of its own (release, then acquire), so no ordering across
// lanes is needed. The scratch: a ticket, tiles x strips x 32 flags (zeroed before the
// launch), as many carries.
struct Chain {
  long long n, inner, per_o, strips, tiles;
};

template <typename T, typename Op, int U>
__global__ void __launch_bounds__(RS_CUDA_OPS_BLOCK, StripShape<T>::min_blocks)
    scan_chain(const T *src, T *dst, Chain g, unsigned *ticket, int *flags, T *carries) {
  constexpr long long kTile = (long long)kStripWarps * U;
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
    T c{};
    if (t > 0) {
      const long long at = ((t - 1) * g.strips + s) * 32 + lane;
      cuda::atomic_ref<int, cuda::thread_scope_device> flag(flags[at]);
      while (flag.load(cuda::memory_order_acquire) == 0) __nanosleep(64);
      c = carries[at];  // (ordered after the acquire: the value released with the flag)
    }
    into[lane] = c;
    if (t + 1 < g.tiles) {  // the carry through this tile: c, then each warp's rows in order
      T through = c;
      bool has = t > 0;
      for (int k = 0; k < kStripWarps; k++)
        if (t * kTile + (long long)k * U < g.n) {
          through = has ? op(through, tot[k][lane]) : tot[k][lane];
          has = true;
        }
      const long long at = (t * g.strips + s) * 32 + lane;
      carries[at] = through;
      cuda::atomic_ref<int, cuda::thread_scope_device>(flags[at]).store(1, cuda::memory_order_release);
    }
  }
  __syncthreads();
  // this warp's prefix: the carry, then the warps above (full rows) in order
  T pre = into[lane];
  bool has = t > 0;
  for (int k = 0; k < w; k++) {
    pre = has ? op(pre, tot[k][lane]) : tot[k][lane];
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

// The scratch of scan_chain for g: a ticket (in the first 256 bytes), the flags, the carries.
template <typename T>
size_t chain_scratch_bytes(const Chain &g, size_t *flags_at, size_t *carries_at) {
  const size_t cells = (size_t)(g.tiles * g.strips) * 32;
  *flags_at = 256;
  *carries_at = (256 + cells * sizeof(int) + 255) / 256 * 256;
  return *carries_at + cells * sizeof(T);
}

}  // namespace rs_scan

#endif
