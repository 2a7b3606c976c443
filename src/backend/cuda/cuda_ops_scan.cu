// Cumulative sums and products (the stats op table entry "scan"), along the middle axis
// of an outer x n x inner block (src/native/plans.h).
//
// inner == 1 (the last axis): CUB's DeviceScan. One row: InclusiveScan over it. Several
// rows: one InclusiveScanByKey over the whole array, the key of element i being its row
// i / n - a single pass, never a launch per row; many long rows: a block each (scan_rows).
// inner > 1 (another axis): CUB has no strided scan, and gathering the axis last would
// cost two transposes, so each column (o, j) is scanned where it lies, consecutive
// threads on consecutive j (coalesced). Wide enough (enough strips of 32 columns to keep
// the memory system busy), reading each element once: 8-byte values and float32 pairs
// in tiles of rows that look up their strip for their carry (scan_tiles), other values
// a block per strip walking down the axis (scan_strips). Else the axis is cut into chunks
// so that enough threads run (chunk totals, their scan per column, then each chunk
// rescanned from its offset: reading the input twice, writing once).
// Integer sums and products wrap (unsigned arithmetic), as NumPy's.
#include <cstdint>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/dispatch/dispatch_scan.cuh>
#include <cuda/std/functional>
#include <type_traits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "backend/cuda/cuda_fastdiv.cuh"
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_scan_strips.cuh"

namespace {

using namespace rs_scan;

constexpr int kBlock = RS_CUDA_OPS_BLOCK;

template <typename T>
struct Cx {  // complex64 / complex128 as stored: re, im
  T re, im;
};

// The scan operators. For real and integer T, CUDA's own functors: CUB recognizes
// cuda::std::plus (and only it, not an equivalent functor of ours) as a "primitive" op
// and then takes its tuned sm_90 / sm_100 scan policies; with our own functor it took the
// default policy (resident's scan of 100M float32 measured 60% of copy on the H200 then;
// bench/cub_scan.cu times both policies on raw CUB).
template <typename T>
struct AddOf {
  using type = cuda::std::plus<T>;
};
template <typename T>
struct MulOf {
  using type = cuda::std::multiplies<T>;
};
template <typename T>
struct Add;
template <typename T>
struct Mul;
template <typename T>
struct AddOf<Cx<T>> {
  using type = Add<Cx<T>>;
};
template <typename T>
struct MulOf<Cx<T>> {
  using type = Mul<Cx<T>>;
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

constexpr int kColBatch = 8;  // column loads in flight a thread

// The column geometry: element (o, i, j) is at (o * n + i) * inner + j; thread t takes
// chunk t / cols of column t % cols.
struct Cols {
  long long outer, n, inner, cols, chunks, len;
  __device__ __forceinline__ long long first(long long t, long long *c, long long *count) const {
    long long col = t % cols, o = col / inner, j = col % inner, i0;
    *c = t / cols;
    i0 = *c * len;
    *count = n - i0 < len ? n - i0 : len;
    return (o * n + i0) * inner + j;
  }
};

template <typename T, typename Op>
__global__ void chunk_totals(const T *src, T *tot, Cols g, Op op) {
  long long total = g.cols * g.chunks;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    long long c, count, at = g.first(t, &c, &count);
    const T *s = src + at;
    T acc = s[0];
#pragma unroll 8
    for (long long i = 1; i < count; i++) acc = op(acc, s[i * g.inner]);
    tot[t] = acc;  // t = c * cols + col
  }
}

template <typename T, typename Op>
__global__ void scan_totals(T *tot, Cols g, Op op) {
  for (long long col = blockIdx.x * (long long)blockDim.x + threadIdx.x; col < g.cols;
       col += (long long)gridDim.x * blockDim.x) {
    T acc = tot[col];
    for (long long c = 1; c < g.chunks; c++) tot[c * g.cols + col] = acc = op(acc, tot[c * g.cols + col]);
  }
}

template <typename T, typename Op>
__global__ void chunk_scan(const T *src, T *dst, const T *tot, Cols g, Op op) {
  long long total = g.cols * g.chunks;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    long long c, count, at = g.first(t, &c, &count);
    const T *s = src + at;
    T *d = dst + at;
    T acc = c > 0 ? op(tot[t - g.cols], s[0]) : s[0];
    d[0] = acc;
    // kColBatch loads before their stores: src may be dst (in place), so the compiler
    // would not move a load above the previous store - one load in flight a thread then.
    // (Each element is read before it is written either way.)
    long long i = 1;
    for (; i + kColBatch <= count; i += kColBatch) {
      T v[kColBatch];
#pragma unroll
      for (int u = 0; u < kColBatch; u++) v[u] = s[(i + u) * g.inner];
#pragma unroll
      for (int u = 0; u < kColBatch; u++) d[(i + u) * g.inner] = acc = op(acc, v[u]);
    }
    for (; i < count; i++) d[i * g.inner] = acc = op(acc, s[i * g.inner]);
  }
}

// Enough threads to keep the memory system busy (a few per core of an H200-class GPU).
constexpr long long kWantThreads = 1 << 19;
constexpr long long kMinChunk = 32;
// A block per row (scan_rows) from this many rows a multiprocessor on, rows this long.
constexpr long long kRowsPerSm = 4, kMinRowScan = 1024;

// scan_tiles over strips of 32 columns of T: the ticket and the published sums zeroed,
// the tiles launched.
template <typename T, typename Op>
rs_status tiles_launch(rs_backend *b, const T *src, T *dst, long long n, long long inner, long long strips,
                       cudaStream_t s) {
  const long long tile = (long long)kStripWarps * kTileRows;
  const Tiles g{n, inner, (inner + 31) / 32, strips, (n + tile - 1) / tile};
  if (g.tiles * g.strips > INT32_MAX)
    return rs_fail(RS_ERR_UNSUPPORTED, "scan: %lld tiles are too many", g.tiles * g.strips);
  const size_t cells_at = 256, bytes = cells_at + Cell<T>::bytes((size_t)(g.tiles * g.strips) * 32);
  void *mem = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, bytes, s, &mem));
  char *base = static_cast<char *>(mem);
  cudaError_t err = cudaMemsetAsync(base, 0, bytes, s);
  if (err == cudaSuccess) {
    scan_tiles<T, Op><<<(unsigned)(g.tiles * g.strips), kBlock, 0, s>>>(src, dst, g, reinterpret_cast<unsigned *>(base),
                                                                       base + cells_at);
    err = cudaGetLastError();
  }
  rs_cuda_ops_scratch_free(mem, s);
  if (err != cudaSuccess) return rs_cuda_fail(err, "scan along an inner axis (%lld strips of %lld rows)", strips, n);
  return RS_OK;
}

template <typename T, typename Op>
rs_status scan_columns(rs_backend *b, const rs_scan_plan *p, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *src = static_cast<const T *>(p->src);
  T *dst = static_cast<T *>(p->dst);
  // strips: at least a full step of rows, a strip at least half used, two blocks a
  // multiprocessor (their loads in flight are what keeps the memory system busy)
  const long long sms = b->multiprocessors > 0 ? b->multiprocessors : 1;
  const long long per_o = (p->inner + 31) / 32, strips = p->outer * per_o;
  const long long cap = 16 * sms * 2;  // 16 waves of resident blocks
  // 8-byte columns, and float32 ones two a lane: tiles of rows (scan_tiles; H200, 10000^2:
  // float32 89-91% of the copy bandwidth, float64 93%, against 81% and 85% for a block per
  // strip in the same call)
  const long long tile_rows = (long long)kStripWarps * kTileRows;
  if constexpr (sizeof(T) == 8) {
    if (p->n >= tile_rows && p->inner >= 32 && strips >= sms)
      return tiles_launch<T, Op>(b, src, dst, p->n, p->inner, strips, s);
  }
  if constexpr (std::is_same_v<T, float>) {
    const long long pairs = p->inner / 2, pair_strips = p->outer * ((pairs + 31) / 32);
    if (p->n >= tile_rows && p->inner % 2 == 0 && pairs >= 32 && pair_strips >= sms && (uintptr_t)src % 8 == 0 &&
        (uintptr_t)dst % 8 == 0)
      return tiles_launch<Pair<float>, PairOf<Op>>(b, reinterpret_cast<const Pair<float> *>(src),
                                                   reinterpret_cast<Pair<float> *>(dst), p->n, pairs, pair_strips, s);
  }
  if (p->n >= (long long)kStripWarps * strip_rows<T>() && p->inner >= 32 && strips >= 2 * sms) {
    const Strips g{p->n, p->inner, per_o, strips};
    const unsigned grid = (unsigned)(strips < cap ? strips : cap);
    scan_strips<T, Op><<<grid, kBlock, 0, s>>>(src, dst, g);
    RS_CUDA_CALL(cudaGetLastError(), "scan along an inner axis (%lld x %lld x %lld)", (long long)p->outer,
                 (long long)p->n, (long long)p->inner);
    return RS_OK;
  }
  Cols g{p->outer, p->n, p->inner, p->outer * p->inner, 1, p->n};
  long long chunks = (kWantThreads + g.cols - 1) / g.cols, most = (g.n + kMinChunk - 1) / kMinChunk;
  if (chunks > most) chunks = most;
  if (chunks < 1) chunks = 1;
  g.len = (g.n + chunks - 1) / chunks;
  g.chunks = (g.n + g.len - 1) / g.len;
  long long threads = g.cols * g.chunks;
  unsigned grid = rs_cuda_ops_grid(b, threads, 1, 8);
  T *tot = nullptr;
  if (g.chunks > 1) {
    void *mem = nullptr;
    RS_TRY(rs_cuda_ops_scratch(b, (size_t)threads * sizeof(T), stream, &mem));
    tot = static_cast<T *>(mem);
    chunk_totals<T, Op><<<grid, kBlock, 0, s>>>(src, tot, g, Op());
    scan_totals<T, Op><<<rs_cuda_ops_grid(b, g.cols, 1, 8), kBlock, 0, s>>>(tot, g, Op());
  }
  chunk_scan<T, Op><<<grid, kBlock, 0, s>>>(src, dst, tot, g, Op());
  cudaError_t err = cudaGetLastError();
  if (tot) rs_cuda_ops_scratch_free(tot, stream);
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "scan along an inner axis (%lld x %lld x %lld)", g.outer, g.n, g.inner);
  return RS_OK;
}

// Many rows, each long: a block per row, CUB's BlockScan over tiles of kBlock x items,
// the row's running total carried from tile to tile (one read, one write, coalesced
// through warp transposes). ScanByKey over the whole array measured 45% of a copy's
// bandwidth on the H200 for 10000 rows of 10000 float32 (its key per element and the
// look-back between tiles); here the rows are independent and fill the GPU by themselves.
template <typename T>
constexpr int row_items() {  // 32 bytes a thread a tile: 8 KiB of shared memory a block
  return sizeof(T) >= 32 ? 1 : (int)(32 / sizeof(T));
}

template <typename T, typename Op>
__global__ void __launch_bounds__(kBlock) scan_rows(const T *src, T *dst, long long n) {
  constexpr int I = row_items<T>();
  using Load = cub::BlockLoad<T, kBlock, I, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<T, kBlock>;
  using Store = cub::BlockStore<T, kBlock, I, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } tmp;
  const Op op{};
  const T *s = src + (long long)blockIdx.x * n;
  T *d = dst + (long long)blockIdx.x * n;
  T carry = s[0];  // (the first tile does not use it)
  for (long long at = 0; at < n; at += (long long)kBlock * I) {
    const int valid = n - at < (long long)kBlock * I ? (int)(n - at) : kBlock * I;
    T v[I], total;
    Load(tmp.load).Load(s + at, v, valid, s[0]);  // (items past the row: any value, unused)
    __syncthreads();
    Scan(tmp.scan).InclusiveScan(v, v, op, total);  // total: in every thread
    __syncthreads();
    if (at > 0) {
#pragma unroll
      for (int k = 0; k < I; k++) v[k] = op(carry, v[k]);
      carry = op(carry, total);
    } else {
      carry = total;
    }
    Store(tmp.store).Store(d + at, v, valid);
    __syncthreads();
  }
}

// CUB's scan policies with one change for float32 sums on sm_90: 32 items a thread where
// CUB's sm_90 tuning has 24 (128 threads, the same look-back delays). bench/cub_scan.cu
// on the H200, 100M float32: 79% of the copy bandwidth against 73% for CUB's own tuning
// (256 x 16: 71%, 256 x 24: 72%, 512 x 12: 68%, shorter delays 66-72%). Other
// architectures keep CUB's chain as it is (its sm_100 policy above, sm_86 and older below).
struct FloatSumHub {
  using Cub = cub::detail::scan::policy_hub<float, float, float, unsigned, cuda::std::plus<float>>;
  struct Policy900 : cub::ChainedPolicy<900, Policy900, Cub::Policy860> {
    using ScanPolicyT = cub::AgentScanPolicy<128, 32, float, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_DEFAULT,
                                             cub::BLOCK_STORE_WARP_TRANSPOSE, cub::BLOCK_SCAN_WARP_SCANS,
                                             cub::detail::MemBoundScaling<128, 32, float>,
                                             cub::detail::fixed_delay_constructor_t<688, 1140>>;
  };
  struct Policy1000 : cub::ChainedPolicy<1000, Policy1000, Policy900> {
    using ScanPolicyT = Cub::Policy1000::ScanPolicyT;
  };
  using MaxPolicy = Policy1000;
};

// One row: CUB's single-pass scan, with 32-bit offsets when the row allows (CUB's
// benchmarked and tuned configuration; 64-bit offsets cost a little index arithmetic).
template <typename T, typename Op>
cudaError_t row_scan(void *tmp, size_t &bytes, const T *src, T *dst, long long total, cudaStream_t s) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<Op, cuda::std::plus<float>>) {
    if (total <= INT32_MAX) {
      using D = cub::DispatchScan<const float *, float *, Op, cub::NullType, unsigned, float, cub::ForceInclusive::No,
                                  FloatSumHub>;
      return D::Dispatch(tmp, bytes, src, dst, Op(), cub::NullType{}, (unsigned)total, s);
    }
  }
  if (total <= INT32_MAX) return cub::DeviceScan::InclusiveScan(tmp, bytes, src, dst, Op(), (int)total, s);
  return cub::DeviceScan::InclusiveScan(tmp, bytes, src, dst, Op(), total, s);
}

template <typename T, typename Op>
rs_status scan(rs_backend *b, const rs_scan_plan *p, void *stream) {
  if (p->inner > 1) return scan_columns<T, Op>(b, p, stream);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const T *src = static_cast<const T *>(p->src);
  T *dst = static_cast<T *>(p->dst);
  const long long sms = b->multiprocessors > 0 ? b->multiprocessors : 1;
  if (p->outer >= kRowsPerSm * sms && p->outer <= INT32_MAX && p->n >= kMinRowScan) {
    scan_rows<T, Op><<<(unsigned)p->outer, kBlock, 0, s>>>(src, dst, (long long)p->n);
    RS_CUDA_CALL(cudaGetLastError(), "scan of %lld rows x %lld", (long long)p->outer, (long long)p->n);
    return RS_OK;
  }
  long long total = (long long)(p->outer * p->n);
  // the key of element i: its row
  auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), RsRowOf::make(p->n, total));
  size_t bytes = 0;
  if (p->outer == 1)
    RS_CUDA_CALL((row_scan<T, Op>(nullptr, bytes, src, dst, total, s)), "cub::DeviceScan::InclusiveScan (size query)");
  else
    RS_CUDA_CALL(cub::DeviceScan::InclusiveScanByKey(nullptr, bytes, keys, src, dst, Op(), total,
                                                     cuda::std::equal_to<>(), s),
                 "cub::DeviceScan::InclusiveScanByKey (size query)");
  void *tmp = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, bytes, stream, &tmp));
  cudaError_t err;
  if (p->outer == 1)
    err = row_scan<T, Op>(tmp, bytes, src, dst, total, s);
  else
    err = cub::DeviceScan::InclusiveScanByKey(tmp, bytes, keys, src, dst, Op(), total, cuda::std::equal_to<>(), s);
  rs_cuda_ops_scratch_free(tmp, stream);
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "cub::DeviceScan (%lld rows x %lld)", (long long)p->outer, (long long)p->n);
  return RS_OK;
}

template <typename T>
rs_status scan_op(rs_backend *b, const rs_scan_plan *p, void *stream) {
  if (p->op == RS_SCAN_PROD) return scan<T, typename MulOf<T>::type>(b, p, stream);
  return scan<T, typename AddOf<T>::type>(b, p, stream);
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
