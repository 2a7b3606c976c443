// Data movement on the CUDA backend: flat copies, memset, and the strided-copy kernel.
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#include "backend/cuda/cuda_internal.h"
#include "core/checked.h"

// Flat copies use cudaMemcpyDefault rather than a kind derived from rs_copy_dir. With UVA
// (every 64-bit platform CUDA 13 supports) the runtime knows what each pointer is, while
// an explicit kind can contradict the pointers the shared layer hands down: managed
// memory on either side, a mapped host pointer instead of its device alias, a registered
// pageable buffer. A contradicting kind is an error or a slow path; the pointer lookup
// costs well under a microsecond. rs_copy_dir still matters to the ledger, above us.
extern "C" rs_status rs_cuda_copy_async(rs_backend *b, void *dst, const void *src, size_t bytes,
                                        rs_copy_dir dir, void *stream) {
  static const char *const names[] = {"H2D", "D2H", "D2D", "H2H"};
  if ((int)dir < 0 || (int)dir > 3)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "copy_async: direction %d is not an rs_copy_dir", (int)dir);
  if (bytes == 0) return RS_OK;
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)),
               "cudaMemcpyAsync(%p <- %p, %zu bytes, %s, stream %p)", dst, src, bytes, names[dir], stream);
  return RS_OK;
}

extern "C" rs_status rs_cuda_memset_async(rs_backend *b, void *dst, int value, size_t bytes,
                                          void *stream) {
  if (bytes == 0) return RS_OK;
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)),
               "cudaMemsetAsync(%p, %d, %zu bytes, stream %p)", dst, value, bytes, stream);
  return RS_OK;
}

namespace {

constexpr int kBlock = 256;
constexpr int kBlocksPerSm = 2048 / kBlock;  // enough resident threads to hide latency
// Splitting a misaligned item into smaller pieces can add one dimension.
constexpr int kPlanDims = RS_MAX_DIMS + 1;

// U indexes elements, S holds signed byte offsets; both 32-bit when the copy allows.
template <int N, typename U, typename S>
struct Geometry {
  U shape[N];
  S dst_stride[N];
  S src_stride[N];
};

template <typename U, typename S, int N, bool Fixed>
__host__ __device__ __forceinline__ void element_offsets(const Geometry<N, U, S> &g, int ndim, U i, S &d,
                                                S &s) {
  const int nd = Fixed ? N : ndim;
  d = 0;
  s = 0;
#ifdef __CUDA_ARCH__  // host-callable too (planner tests); only nvcc's device pass knows the pragma
#pragma unroll
#endif
  for (int k = N - 1; k >= 1; --k) {
    if (k < nd) {
      const U q = i / g.shape[k];
      const S idx = static_cast<S>(i - q * g.shape[k]);
      d += idx * g.dst_stride[k];
      s += idx * g.src_stride[k];
      i = q;
    }
  }
  // The outermost index is what is left: no division for it.
  d += static_cast<S>(i) * g.dst_stride[0];
  s += static_cast<S>(i) * g.src_stride[0];
}

template <typename T, typename U, typename S, int N, bool Fixed>
__global__ void __launch_bounds__(kBlock)
    strided_copy_kernel(char *__restrict__ dst, const char *__restrict__ src, Geometry<N, U, S> g,
                        int ndim, U count) {
  const U step = static_cast<U>(gridDim.x) * blockDim.x;
  for (U i = static_cast<U>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    S d, s;
    element_offsets<U, S, N, Fixed>(g, ndim, i, d, s);
    *reinterpret_cast<T *>(dst + d) = *reinterpret_cast<const T *>(src + s);
  }
}

// The copy after normalisation; dims run outermost first.
struct Plan {
  char *dst;
  const char *src;
  size_t itemsize;
  int ndim;
  int64_t count;
  int64_t shape[kPlanDims];
  int64_t ds[kPlanDims];
  int64_t ss[kPlanDims];
};

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

uintptr_t alignment_bits(const Plan &p, int skip) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(p.dst) | reinterpret_cast<uintptr_t>(p.src);
  for (int k = 0; k < p.ndim; ++k)
    if (k != skip) bits |= static_cast<uintptr_t>(abs64(p.ds[k]) | abs64(p.ss[k]));
  return bits;
}

// Byte reach of one view: sum of (shape-1)*|stride|; false on overflow.
bool span_of(const Plan &p, const int64_t *strides, int64_t *out) {
  int64_t total = 0;
  for (int k = 0; k < p.ndim; ++k) {
    int64_t part;
    if (rs_mul_i64(p.shape[k] - 1, abs64(strides[k]), &part) || rs_add_i64(total, part, &total))
      return false;
  }
  *out = total;
  return true;
}

// Build the smallest equivalent copy: drop unit dims, make dst strides positive, split
// items the pointers are not aligned for, order dims by dst stride so writes coalesce,
// fuse dims contiguous in both views, widen a contiguous inner run to bigger words.
rs_status make_plan(const rs_strided_copy *c, Plan &p) {
  p.dst = static_cast<char *>(c->dst);
  p.src = static_cast<const char *>(c->src);
  p.itemsize = c->itemsize;
  p.ndim = 0;
  p.count = 1;
  for (int k = 0; k < c->ndim; ++k) {
    const int64_t n = c->shape[k];
    if (n < 0) return rs_fail(RS_ERR_SHAPE, "copy_strided_async: shape[%d] = %lld is negative", k, (long long)n);
    if (rs_mul_i64(p.count, n, &p.count))
      return rs_fail(RS_ERR_OVERFLOW, "copy_strided_async: element count overflows int64");
  }
  if (p.count == 0) return RS_OK;
  for (int k = 0; k < c->ndim; ++k) {
    int64_t n = c->shape[k], d = c->dst_strides[k], s = c->src_strides[k];
    if (n == 1) continue;
    if (d == 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "copy_strided_async: dst stride 0 on axis %d of length %lld writes one "
                     "element many times",
                     k, (long long)n);
    if (d < 0) {  // walk the axis backwards in both views: same pairs, positive dst stride
      p.dst += (n - 1) * d;
      p.src += (n - 1) * s;
      d = -d;
      s = -s;
    }
    p.shape[p.ndim] = n;
    p.ds[p.ndim] = d;
    p.ss[p.ndim] = s;
    ++p.ndim;
  }
  int64_t span;
  if (!span_of(p, p.ds, &span) || !span_of(p, p.ss, &span))
    return rs_fail(RS_ERR_OVERFLOW, "copy_strided_async: strides reach beyond 2^63 bytes");

  size_t align = p.itemsize;
  const uintptr_t bits = alignment_bits(p, -1);
  while (bits & (align - 1)) align >>= 1;
  if (align < p.itemsize) {
    p.shape[p.ndim] = static_cast<int64_t>(p.itemsize / align);
    p.ds[p.ndim] = p.ss[p.ndim] = static_cast<int64_t>(align);
    ++p.ndim;
    p.count *= static_cast<int64_t>(p.itemsize / align);
    p.itemsize = align;
  }

  for (int k = 1; k < p.ndim; ++k) {  // insertion sort: few dims, stable
    const int64_t n = p.shape[k], d = p.ds[k], s = p.ss[k];
    int j = k - 1;
    while (j >= 0 && (p.ds[j] < d || (p.ds[j] == d && abs64(p.ss[j]) < abs64(s)))) {
      p.shape[j + 1] = p.shape[j];
      p.ds[j + 1] = p.ds[j];
      p.ss[j + 1] = p.ss[j];
      --j;
    }
    p.shape[j + 1] = n;
    p.ds[j + 1] = d;
    p.ss[j + 1] = s;
  }

  int out = 0;
  for (int k = 0; k < p.ndim; ++k) {
    if (out > 0 && rs_stride_follows(p.ds[out - 1], p.ds[k], p.shape[k]) &&
        rs_stride_follows(p.ss[out - 1], p.ss[k], p.shape[k])) {
      p.shape[out - 1] *= p.shape[k];
      p.ds[out - 1] = p.ds[k];
      p.ss[out - 1] = p.ss[k];
    } else {
      p.shape[out] = p.shape[k];
      p.ds[out] = p.ds[k];
      p.ss[out] = p.ss[k];
      ++out;
    }
  }
  p.ndim = out;
  if (p.ndim == 0) {  // a single element
    p.ndim = 1;
    p.shape[0] = 1;
    p.ds[0] = p.ss[0] = static_cast<int64_t>(p.itemsize);
  }

  const int in = p.ndim - 1;
  const int64_t item = static_cast<int64_t>(p.itemsize);
  if (p.ds[in] == item && p.ss[in] == item) {
    const int64_t bytes = p.shape[in] * item;
    const uintptr_t rest = alignment_bits(p, in);
    for (int64_t w = 16; w > item; w >>= 1) {
      if (bytes % w == 0 && (rest & static_cast<uintptr_t>(w - 1)) == 0) {
        p.count = p.count / p.shape[in] * (bytes / w);
        p.shape[in] = bytes / w;
        p.ds[in] = p.ss[in] = w;
        p.itemsize = static_cast<size_t>(w);
        break;
      }
    }
    if (p.shape[in] == 1 && p.ndim > 1) --p.ndim;  // a row became one word: no axis left
  }
  return RS_OK;
}

template <typename T, typename U, typename S, int N, bool Fixed>
cudaError_t launch(const Plan &p, unsigned blocks, cudaStream_t stream) {
  Geometry<N, U, S> g;
  std::memset(&g, 0, sizeof g);
  for (int k = 0; k < p.ndim; ++k) {
    g.shape[k] = static_cast<U>(p.shape[k]);
    g.dst_stride[k] = static_cast<S>(p.ds[k]);
    g.src_stride[k] = static_cast<S>(p.ss[k]);
  }
  strided_copy_kernel<T, U, S, N, Fixed>
      <<<blocks, kBlock, 0, stream>>>(p.dst, p.src, g, p.ndim, static_cast<U>(p.count));
  return cudaGetLastError();
}

template <typename T, typename U, typename S>
cudaError_t launch_dims(const Plan &p, unsigned blocks, cudaStream_t stream) {
  switch (p.ndim) {
    case 1: return launch<T, U, S, 1, true>(p, blocks, stream);
    case 2: return launch<T, U, S, 2, true>(p, blocks, stream);
    case 3: return launch<T, U, S, 3, true>(p, blocks, stream);
    default: return launch<T, U, S, kPlanDims, false>(p, blocks, stream);
  }
}

template <typename T>
cudaError_t launch_item(const Plan &p, bool narrow, unsigned blocks, cudaStream_t stream) {
  return narrow ? launch_dims<T, uint32_t, int32_t>(p, blocks, stream)
                : launch_dims<T, uint64_t, int64_t>(p, blocks, stream);
}

}  // namespace

extern "C" rs_status rs_cuda_copy_strided_async(rs_backend *b, const rs_strided_copy *c, void *stream) {
  if (!c) return rs_fail(RS_ERR_NULL_POINTER, "copy_strided_async: NULL description");
  if (c->ndim < 0 || c->ndim > RS_MAX_DIMS)
    return rs_fail(RS_ERR_TOO_MANY_DIMS, "copy_strided_async: %d dims (0..%d)", c->ndim, RS_MAX_DIMS);
  const size_t is = c->itemsize;
  if (is != 1 && is != 2 && is != 4 && is != 8 && is != 16)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "copy_strided_async: itemsize %zu (1, 2, 4, 8 or 16)", is);
  Plan p;
  RS_TRY(make_plan(c, p));
  if (p.count == 0) return RS_OK;
  RS_CUDA_ENTER(b);
  cudaStream_t st = static_cast<cudaStream_t>(stream);

  if (p.ndim == 1 && p.ds[0] == static_cast<int64_t>(p.itemsize) && p.ss[0] == p.ds[0]) {
    const size_t bytes = static_cast<size_t>(p.count) * p.itemsize;
    RS_CUDA_CALL(cudaMemcpyAsync(p.dst, p.src, bytes, cudaMemcpyDefault, st),
                 "copy_strided_async: cudaMemcpyAsync(%p <- %p, %zu contiguous bytes, stream %p)",
                 static_cast<void *>(p.dst), static_cast<const void *>(p.src), bytes, stream);
    return RS_OK;
  }

  int64_t dspan = 0, sspan = 0;
  span_of(p, p.ds, &dspan);
  span_of(p, p.ss, &sspan);
  const bool narrow = p.count <= INT32_MAX && dspan <= INT32_MAX && sspan <= INT32_MAX;
  const int64_t want = (p.count + kBlock - 1) / kBlock;
  const int64_t cap = static_cast<int64_t>(b->multiprocessors) * kBlocksPerSm;
  const unsigned blocks = static_cast<unsigned>(want < cap ? want : cap);

  (void)cudaGetLastError();  // so the check below sees this launch, not an older call
  cudaError_t err;
  switch (p.itemsize) {
    case 1: err = launch_item<uint8_t>(p, narrow, blocks, st); break;
    case 2: err = launch_item<uint16_t>(p, narrow, blocks, st); break;
    case 4: err = launch_item<uint32_t>(p, narrow, blocks, st); break;
    case 8: err = launch_item<uint64_t>(p, narrow, blocks, st); break;
    default: err = launch_item<uint4>(p, narrow, blocks, st); break;
  }
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "copy_strided_async: strided copy kernel <<<%u, %d>>> (%lld items of %zu "
                             "bytes, %d dims after fusing, %s index, stream %p)",
                        blocks, kBlock, (long long)p.count, p.itemsize, p.ndim,
                        narrow ? "32-bit" : "64-bit", stream);
  return RS_OK;
}
