// The row kernel of the strided copy: a plan whose destination is contiguous along the
// inner axis (every copy into a fresh array: concat, flip, roll, repeat, tile, casts of
// layout) is written in aligned 16-byte words, whatever the source looks like. Each word
// is gathered from the source with one 16-byte load where the source is aligned and
// forward (or backward: the items reversed in registers), one load replicated where the
// source does not move (repeat), else one load per item; the partial words at a row's
// ends are written item by item. Why:
// - writes are whole aligned words whichever way the source is misaligned (roll by an odd
//   offset, concat along an inner axis), and reads of neighbouring items by neighbouring
//   threads meet in L1, so DRAM sees each byte once;
// - outer axes that the source broadcasts (tile) are looped inside the thread when the
//   rest fills the GPU: the item is read once and stored once per repetition, instead of
//   re-read from DRAM by a grid that reaches the repetition 100 MB later;
// - the row of a word comes from a multiply-high division (cuda_fastdiv.cuh), not a
//   64-bit division per dim per item, and each thread keeps several words in flight
//   (all loads, then all stores);
// - each block copies one tile of consecutive words (a thread's words a block-width
//   apart) and the grid has a block per tile, as the driver's copy and the elementwise
//   kernels do: the resident blocks sweep memory as one front a few MB wide, and a
//   finished block's place is taken at once. A grid-stride loop over a grid capped at
//   the resident blocks (round 1) spread every thread's words over the whole array,
//   drained each thread between rounds and reached 84-94% of the copy bandwidth on the
//   H200 where cudaMemcpyAsync and the elementwise copy reach 97%.
#include <cstring>
#include "backend/cuda/cuda_copy_plan.h"
#include "backend/cuda/cuda_fastdiv.cuh"

// The per-thread code is host-callable too, so that a host loop can stand in for the
// grid where no GPU is; only nvcc's device pass knows the unroll pragma.
#ifdef __CUDA_ARCH__
#define RS_UNROLL _Pragma("unroll")
#else
#define RS_UNROLL
#endif

namespace {

constexpr int kBlock = 256;
constexpr int kBlocksPerSm = 4;  // 1024 threads of <= 64 registers
// Words a thread, loads all issued before their stores. Two: the H200 measured 2 against
// 4 words a thread: plain moves the same to 1.5% (flip 99% of the copy bandwidth against
// 97%), tile of 128 MB x 4 float32 92% against 79% (8 words: 62%) - its thread stores
// each word once per repetition, and fewer words a thread spread those stores over more
// threads.
constexpr int kUnroll = 2;
constexpr unsigned long long kTile = static_cast<unsigned long long>(kBlock) * kUnroll;  // words per block
constexpr int kWavesCap = 1024;  // grid cap in full waves of resident blocks
// Words per thread where each word is one item replicated (repeat), all loads in flight,
// then their stores. The H200, repeat(x, 4) of 128 MB float32: 4 words 90% of the copy
// bandwidth, 8 words 89%, 16 words 86%.
constexpr int spread_words(size_t itemsize) { return itemsize <= 8 ? 4 : static_cast<int>(64 / itemsize); }
constexpr int64_t kWord = 16;

struct RowGeometry {
  char *dst;             // first item of the first row
  const char *src;
  int64_t row_bytes;     // a row's length in dst (contiguous)
  int64_t step;          // src bytes between neighbouring items of a row (may be 0 or < 0)
  long long words;       // words per row, partial ones at the ends included
  unsigned long long total;  // rows * words
  unsigned long long tiles;  // total / words per tile, rounded up
  bool spread;           // every row one aligned word of one item replicated (repeat)
  RsRowOf row_of;        // word -> row
  int nidx;              // outer axes enumerated by the grid, outermost first (>= 1)
  int nrep;              // outer axes the source broadcasts, looped in the thread
  long long shape[kRsCopyPlanDims];
  RsRowOf div[kRsCopyPlanDims];  // row -> index along axis k (k >= 1)
  int64_t ds[kRsCopyPlanDims], ss[kRsCopyPlanDims];
  int64_t rshape[kRsCopyPlanDims], rds[kRsCopyPlanDims];
};

template <typename T>
union Word {
  uint4 v;
  T t[kWord / sizeof(T)];
};

// The 16 bytes of dst items i..i+V-1, whose source starts at s.
template <typename T>
__host__ __device__ __forceinline__ uint4 gather(const char *s, int64_t step) {
  constexpr int V = static_cast<int>(kWord / sizeof(T));
  constexpr int64_t kT = static_cast<int64_t>(sizeof(T));
  Word<T> w;
  const uintptr_t a = reinterpret_cast<uintptr_t>(s);
  if (step == kT && (a & (kWord - 1)) == 0) return *reinterpret_cast<const uint4 *>(s);
  if (V > 1 && step == -kT && ((a - (V - 1) * kT) & (kWord - 1)) == 0) {
    Word<T> in;
    in.v = *reinterpret_cast<const uint4 *>(s - (V - 1) * kT);
RS_UNROLL
    for (int k = 0; k < V; ++k) w.t[k] = in.t[V - 1 - k];
    return w.v;
  }
  if (step == 0) {
    const T x = *reinterpret_cast<const T *>(s);
RS_UNROLL
    for (int k = 0; k < V; ++k) w.t[k] = x;
    return w.v;
  }
RS_UNROLL
  for (int k = 0; k < V; ++k) w.t[k] = *reinterpret_cast<const T *>(s + k * step);
  return w.v;
}

// Store x at p and at every repetition along the broadcast axes. NR: their number when
// fixed at compile time (0 or 1), else -1 (read from g; slower, the odometer in memory).
template <int NR, typename X>
__host__ __device__ __forceinline__ void put(char *p, const X &x, const RowGeometry &g) {
  *reinterpret_cast<X *>(p) = x;
  if (NR == 0) return;
  if (NR == 1) {
    for (int64_t t = 1; t < g.rshape[0]; ++t) *reinterpret_cast<X *>(p + t * g.rds[0]) = x;
    return;
  }
  if (g.nrep == 0) return;
  int64_t at[kRsCopyPlanDims];
  for (int k = 0; k < g.nrep; ++k) at[k] = 0;
  for (;;) {  // an odometer over the repetitions, the innermost axis fastest
    int k = g.nrep - 1;
    for (; k >= 0; --k) {
      if (++at[k] < g.rshape[k]) {
        p += g.rds[k];
        break;
      }
      p -= (g.rshape[k] - 1) * g.rds[k];
      at[k] = 0;
    }
    if (k < 0) return;
    *reinterpret_cast<X *>(p) = x;
  }
}

// The byte offsets of row r in dst and src. NI: the number of index axes when fixed at
// compile time (1 or 2: unrolled, no local memory), else -1.
template <int NI>
__host__ __device__ __forceinline__ void row_offsets(const RowGeometry &g, long long r, int64_t &d, int64_t &s) {
  const int n = NI > 0 ? NI : g.nidx;
  d = 0;
  s = 0;
RS_UNROLL
  for (int k = (NI > 0 ? NI : kRsCopyPlanDims) - 1; k >= 1; --k) {
    if (k < n) {
      const long long q = g.div[k](r);
      const int64_t i = r - q * g.shape[k];
      d += i * g.ds[k];
      s += i * g.ss[k];
      r = q;
    }
  }
  d += r * g.ds[0];  // the outermost index is what is left
  s += r * g.ss[0];
}

// Tile `tile` of the copy (kTile consecutive words) by thread `lane` of its block: words
// lane, lane + kBlock, ... of the tile, all loads first, then all stores.
template <typename T, int NI, int NR>
__host__ __device__ __forceinline__ void row_copy_tile(const RowGeometry &g, unsigned long long tile, unsigned lane) {
  constexpr int64_t kT = static_cast<int64_t>(sizeof(T));
  const unsigned long long base = tile * kTile + lane;
  uint4 v[kUnroll];
  char *to[kUnroll];
RS_UNROLL
  for (int u = 0; u < kUnroll; ++u) {
    to[u] = nullptr;
    const unsigned long long w = base + static_cast<unsigned long long>(u) * kBlock;
    if (w >= g.total) continue;
    const long long row = g.row_of(static_cast<long long>(w));
    const int64_t j = static_cast<int64_t>(w) - row * g.words;
    int64_t d, s;
    row_offsets<NI>(g, row, d, s);
    char *a = g.dst + d;
    const char *sr = g.src + s;
    // the word's first byte relative to the row's first item (negative: the row
    // starts inside this word)
    const int64_t lo = j * kWord - static_cast<int64_t>(reinterpret_cast<uintptr_t>(a) & (kWord - 1));
    if (lo >= 0 && lo + kWord <= g.row_bytes) {
      v[u] = gather<T>(sr + (lo / kT) * g.step, g.step);
      to[u] = a + lo;
    } else {  // a partial word at a row's end: item by item
      const int64_t e = lo + kWord < g.row_bytes ? lo + kWord : g.row_bytes;
      for (int64_t x = lo > 0 ? lo : 0; x < e; x += kT)
        put<NR>(a + x, *reinterpret_cast<const T *>(sr + (x / kT) * g.step), g);
    }
  }
RS_UNROLL
  for (int u = 0; u < kUnroll; ++u)
    if (to[u]) put<NR>(to[u], v[u], g);
}

// What one block does: its tile, and the tiles a grid of `blocks` apart when the grid
// is capped (never for a copy under ~2 TB).
template <typename T, int NI, int NR>
__host__ __device__ __forceinline__ void row_copy_block(const RowGeometry &g, unsigned long long block,
                                                        unsigned long long blocks, unsigned lane) {
  for (unsigned long long t = block; t < g.tiles; t += blocks) row_copy_tile<T, NI, NR>(g, t, lane);
}

template <typename T, int NI, int NR>
__global__ void __launch_bounds__(kBlock, kBlocksPerSm) row_copy_kernel(RowGeometry g) {
  row_copy_block<T, NI, NR>(g, blockIdx.x, gridDim.x, threadIdx.x);
}

// Repeat's shape (g.spread): row r is one aligned word at dst + r * ds[0], the item at
// src + r * ss[0] replicated. A word's load is one item, 4 bytes for float32 against the
// 16 a copy loads, so a thread of row_copy_tile would keep a quarter of a copy's bytes of
// loads in flight (round 1: 67% of the copy bandwidth); here a thread takes
// spread_words words a block-width apart, all their loads in flight, then their stores
// (16 words in round 2: 86%; 4 now: 90%).
template <typename T>
__host__ __device__ __forceinline__ void spread_block(const RowGeometry &g, unsigned long long block,
                                                      unsigned long long blocks, unsigned lane) {
  constexpr int V = static_cast<int>(kWord / sizeof(T));
  constexpr int kSpread = spread_words(sizeof(T));
  for (unsigned long long t = block; t < g.tiles; t += blocks) {
    const unsigned long long base = t * kBlock * kSpread + lane;
    if (base >= g.total) break;  // a lane past the end of the last tile
    const unsigned long long left = (g.total - base + kBlock - 1) / kBlock;  // this lane's rows
    const int n = left < static_cast<unsigned long long>(kSpread) ? static_cast<int>(left) : kSpread;
    // byte offsets stepped a block-width of rows at a time: two registers each, not one
    // pair per word
    int64_t so = static_cast<int64_t>(base) * g.ss[0], dof = static_cast<int64_t>(base) * g.ds[0];
    const int64_t sstep = kBlock * g.ss[0], dstep = kBlock * g.ds[0];
    T x[kSpread];
RS_UNROLL
    for (int u = 0; u < kSpread; ++u, so += sstep) x[u] = u < n ? *reinterpret_cast<const T *>(g.src + so) : T();
RS_UNROLL
    for (int u = 0; u < kSpread; ++u, dof += dstep) {
      if (u >= n) break;
      Word<T> w;
RS_UNROLL
      for (int k = 0; k < V; ++k) w.t[k] = x[u];
      *reinterpret_cast<uint4 *>(g.dst + dof) = w.v;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlock, kBlocksPerSm) spread_kernel(RowGeometry g) {
  spread_block<T>(g, blockIdx.x, gridDim.x, threadIdx.x);
}

// The common shapes get their own instance: one or two index axes, no broadcast axis or
// one (tile); anything else the general one. `run` starts the instance chosen: a launch
// on the GPU (Launch, below), a host loop over the grid in tests/copy_rows_emu.cu.
template <typename T, typename Run>
void dispatch(const RowGeometry &g, Run &run) {
  if (g.spread) run.template spread<T>(g);
  else if (g.nidx == 1 && g.nrep == 0) run.template rows<T, 1, 0>(g);
  else if (g.nidx == 2 && g.nrep == 0) run.template rows<T, 2, 0>(g);
  else if (g.nidx == 1 && g.nrep == 1) run.template rows<T, 1, 1>(g);
  else run.template rows<T, -1, -1>(g);
}

template <typename Run>
void dispatch_items(const RowGeometry &g, size_t itemsize, Run &run) {
  switch (itemsize) {
    case 1: dispatch<uint8_t>(g, run); break;
    case 2: dispatch<uint16_t>(g, run); break;
    case 4: dispatch<uint32_t>(g, run); break;
    case 8: dispatch<uint64_t>(g, run); break;
    default: dispatch<uint4>(g, run); break;
  }
}

struct Launch {
  unsigned blocks;
  cudaStream_t stream;
  template <typename T>
  void spread(const RowGeometry &g) {
    spread_kernel<T><<<blocks, kBlock, 0, stream>>>(g);
  }
  template <typename T, int NI, int NR>
  void rows(const RowGeometry &g) {
    row_copy_kernel<T, NI, NR><<<blocks, kBlock, 0, stream>>>(g);
  }
};

int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

// The row kernel's geometry for p and its grid; false when p's destination is not
// contiguous along the inner axis (the general kernel's case).
bool row_geometry(const RsCopyPlan &p, int multiprocessors, RowGeometry &g, unsigned *blocks) {
  const int in = p.ndim - 1;
  const int64_t item = static_cast<int64_t>(p.itemsize);
  if (p.ndim < 1 || p.ds[in] != item) return false;

  std::memset(&g, 0, sizeof g);
  g.dst = p.dst;
  g.src = p.src;
  g.row_bytes = p.shape[in] * item;
  g.step = p.ss[in];

  // Which outer axes the source broadcasts with a whole number of words between
  // repetitions (so every repetition has the same word layout)?
  const int64_t sms = multiprocessors > 0 ? multiprocessors : 1;
  const int64_t wave = sms * kBlocksPerSm * static_cast<int64_t>(kTile);  // words of one full wave
  int64_t rows_all = 1, rows_kept = 1;
  uintptr_t bits_all = 0, bits_kept = 0;
  for (int k = 0; k < in; ++k) {
    const bool rep = p.ss[k] == 0 && p.ds[k] % kWord == 0;
    rows_all *= p.shape[k];
    bits_all |= static_cast<uintptr_t>(p.ds[k]);
    if (!rep) {
      rows_kept *= p.shape[k];
      bits_kept |= static_cast<uintptr_t>(p.ds[k]);
    }
  }
  // Rows whose starts share one alignment have words exactly; others one word of slack.
  const int64_t head = static_cast<int64_t>(reinterpret_cast<uintptr_t>(p.dst) & (kWord - 1));
  auto words_of = [&](uintptr_t bits) {
    return (bits & (kWord - 1)) == 0 ? ceil_div(head + g.row_bytes, kWord) : ceil_div(g.row_bytes, kWord) + 1;
  };
  // Loop the broadcast axes in the thread only where the other axes still fill the GPU:
  // a thread that stores a million repetitions alone would be the whole copy's time.
  const bool hoist = rows_kept < rows_all && rows_kept * words_of(bits_kept) >= wave;
  for (int k = 0; k < in; ++k) {
    if (hoist && p.ss[k] == 0 && p.ds[k] % kWord == 0) {
      g.rshape[g.nrep] = p.shape[k];
      g.rds[g.nrep++] = p.ds[k];
    } else {
      g.shape[g.nidx] = p.shape[k];
      g.ds[g.nidx] = p.ds[k];
      g.ss[g.nidx++] = p.ss[k];
    }
  }
  if (g.nidx == 0) {  // every outer axis looped in the thread: one row, index 0
    g.shape[0] = 1;
    g.nidx = 1;
  }
  const int64_t rows = hoist ? rows_kept : rows_all;
  g.words = words_of(hoist ? bits_kept : bits_all);
  g.total = static_cast<unsigned long long>(rows) * static_cast<unsigned long long>(g.words);
  g.row_of = RsRowOf::make(g.words, static_cast<long long>(g.total));
  for (int k = 1; k < g.nidx; ++k) g.div[k] = RsRowOf::make(g.shape[k], rows);

  // one word per row, aligned (words == 1 only then), filled from one item
  g.spread = g.nidx == 1 && g.nrep == 0 && g.step == 0 && g.row_bytes == kWord && g.words == 1;
  const int64_t per_tile = static_cast<int64_t>(kBlock) * (g.spread ? spread_words(p.itemsize) : kUnroll);
  g.tiles = static_cast<unsigned long long>(ceil_div(static_cast<int64_t>(g.total), per_tile));
  const int64_t cap = sms * kBlocksPerSm * kWavesCap;
  const int64_t want = static_cast<int64_t>(g.tiles);
  *blocks = static_cast<unsigned>(want < cap ? want : cap);
  return true;
}

}  // namespace

cudaError_t rs_cuda_copy_rows(const RsCopyPlan &p, int multiprocessors, cudaStream_t stream, bool *used,
                              unsigned *blocks) {
  RowGeometry g;
  *blocks = 0;
  *used = row_geometry(p, multiprocessors, g, blocks);
  if (!*used) return cudaSuccess;
  Launch run{*blocks, stream};
  dispatch_items(g, p.itemsize, run);
  return cudaGetLastError();
}
